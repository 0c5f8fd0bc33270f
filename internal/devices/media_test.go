package devices_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// onePixelPNG is a valid 1×1 PNG.
var onePixelPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==")

type media struct {
	Key         uuid.UUID `json:"key"`
	ContentType string    `json:"contentType"`
	Size        int       `json:"size"`
	Sha256      string    `json:"sha256"`
	Filename    *string   `json:"filename"`
}

// form encodes one file part named field, declared as declaredType.
func form(field, filename, declaredType string, data []byte) (string, []byte) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	_ = w.WriteField("note", "ignored")
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, field, filename))
	h.Set("Content-Type", declaredType)
	part, _ := w.CreatePart(h)
	_, _ = part.Write(data)
	_ = w.Close()
	return w.FormDataContentType(), buf.Bytes()
}

func upload(env *apitest.Env, token string, orgID uuid.UUID, filename, declaredType string, data []byte) *apitest.Response {
	env.T.Helper()
	ct, body := form("file", filename, declaredType, data)
	return env.Call(http.MethodPost, orgPath(orgID, "media")).Token(token).Raw(ct, body).Do()
}

// WebP files browsers are known to decode (1×1 pixel): lossless (VP8L), lossy (VP8) and extended
// with alpha (VP8X). The standard library cannot write WebP.
var (
	webpLossless, _ = base64.StdEncoding.DecodeString("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")
	webpLossy, _    = base64.StdEncoding.DecodeString("UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA")
	webpExtended, _ = base64.StdEncoding.DecodeString("UklGRkoAAABXRUJQVlA4WAoAAAAQAAAAAAAAAAAAQUxQSAwAAAARBxAR/Q9ERP8DAABWUDggGAAAABQBAJ0BKgEAAQAAAP4AAA3AAP7mtQAAAA==")
)

// encode draws a w×h image in format (png, jpeg or gif) with the standard library's encoders.
func encode(t testing.TB, format string, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	img := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.Black, color.White})
	var err error
	switch format {
	case "png":
		err = png.Encode(&buf, img)
	case "jpeg":
		err = jpeg.Encode(&buf, img, nil)
	case "gif":
		err = gif.Encode(&buf, img, nil)
	}
	if err != nil || buf.Len() == 0 {
		t.Fatalf("encode %s: %v", format, err)
	}
	return buf.Bytes()
}

// pngClaiming is a small PNG whose header claims w×h pixels, with a correct checksum: what a
// decompression bomb looks like to whoever reads only the header.
func pngClaiming(t testing.TB, w, h uint32) []byte {
	t.Helper()
	b := encode(t, "png", 1, 1)
	ihdr := b[12:29] // "IHDR" and its 13 bytes; the CRC follows
	binary.BigEndian.PutUint32(ihdr[4:8], w)
	binary.BigEndian.PutUint32(ihdr[8:12], h)
	binary.BigEndian.PutUint32(b[29:33], crc32.ChecksumIEEE(ihdr))
	return b
}

// gifClaiming is a GIF whose logical screen is w×h.
func gifClaiming(t testing.TB, w, h uint16) []byte {
	t.Helper()
	b := encode(t, "gif", 1, 1)
	binary.LittleEndian.PutUint16(b[6:8], w)
	binary.LittleEndian.PutUint16(b[8:10], h)
	return b
}

// webpCanvas is the extended WebP with its canvas set to w×h.
func webpCanvas(w, h uint32) []byte {
	b := bytes.Clone(webpExtended)
	for i := range 3 {
		b[24+i] = byte((w - 1) >> (8 * i))
		b[27+i] = byte((h - 1) >> (8 * i))
	}
	return b
}

func TestUploadMediaChecksTheImage(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")

	var m media
	upload(env, k.owner.AccessToken, k.orgID, "plating.png", "application/octet-stream", onePixelPNG).Expect(http.StatusCreated).Decode(&m)
	sum := sha256.Sum256(onePixelPNG)
	if m.Key == uuid.Nil || m.ContentType != "image/png" || m.Size != len(onePixelPNG) || m.Sha256 != hex.EncodeToString(sum[:]) ||
		m.Filename == nil || *m.Filename != "plating.png" {
		t.Fatalf("media %+v", m)
	}

	// The type comes from the bytes; a part may declare it (aliases included), or declare
	// nothing in particular.
	accepted := []struct {
		name, declared string
		data           []byte
		want           string
	}{
		{"photo.jpg", "image/jpeg", encode(t, "jpeg", 640, 480), "image/jpeg"},
		{"photo.jpeg", "image/jpg", encode(t, "jpeg", 16, 16), "image/jpeg"},
		{"anim.gif", "image/gif", encode(t, "gif", 32, 32), "image/gif"},
		{"menu.png", "", encode(t, "png", 1920, 1080), "image/png"},
		{"lossless.webp", "image/webp", webpLossless, "image/webp"},
		{"lossy.webp", "application/octet-stream", webpLossy, "image/webp"},
		{"alpha.webp", "image/webp", webpExtended, "image/webp"},
		{"8k.webp", "image/webp", webpCanvas(7680, 4320), "image/webp"},
		{"tall.gif", "image/gif", gifClaiming(t, 4050, 8192), "image/gif"},
	}
	for _, c := range accepted {
		m = media{}
		upload(env, k.owner.AccessToken, k.orgID, c.name, c.declared, c.data).Expect(http.StatusCreated).Decode(&m)
		if m.ContentType != c.want {
			t.Errorf("%s: %s, want %s", c.name, m.ContentType, c.want)
		}
	}

	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="1" height="1"/></svg>`)
	truncated := bytes.Clone(webpLossy[:len(webpLossy)-4])
	refused := []struct {
		name, declared string
		data           []byte
		msg            string
	}{
		// Not an image a board may show, whatever the part declares: SVG can carry script.
		{"logo.svg", "image/svg+xml", svg, "must be a PNG, JPEG, WebP or GIF image"},
		{"logo.png", "image/png", svg, "must be a PNG, JPEG, WebP or GIF image"},
		{"page.html", "image/png", []byte("<!DOCTYPE html><script>alert(1)</script>"), "must be a PNG, JPEG, WebP or GIF image"},
		{"notes.txt", "text/plain", []byte("just text"), "must be a PNG, JPEG, WebP or GIF image"},
		// Bytes of one type declared as another.
		{"photo.jpg", "image/jpeg", onePixelPNG, "is declared image/jpeg but its content is a PNG image"},
		{"plating.png", "image/png", encode(t, "gif", 2, 2), "is declared image/png but its content is a GIF image"},
		{"plating.png", "text/plain", onePixelPNG, "is declared text/plain but its content is a PNG image"},
		// The right first bytes, then no image.
		{"fake.png", "image/png", append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 64)...), "is not a well-formed PNG image"},
		{"fake.jpg", "image/jpeg", append([]byte{0xFF, 0xD8, 0xFF, 0xE0}, make([]byte, 64)...), "is not a well-formed JPEG image"},
		{"fake.gif", "image/gif", []byte("GIF89a"), "is not a well-formed GIF image"},
		{"fake.webp", "image/webp", append([]byte("RIFF\x24\x00\x00\x00WEBPVP8 "), make([]byte, 64)...), "is not a well-formed WebP image"},
		{"cut.webp", "image/webp", truncated, "is not a well-formed WebP image"},
		// Dimensions no board needs: too wide, too many pixels, none at all.
		{"bomb.png", "image/png", pngClaiming(t, 50000, 50000), "is 50000×50000 pixels"},
		{"wide.gif", "image/gif", gifClaiming(t, 8193, 10), "is 8193×10 pixels"},
		{"big.gif", "image/gif", gifClaiming(t, 8000, 8000), "is 8000×8000 pixels"},
		{"huge.webp", "image/webp", webpCanvas(16384, 16384), "is 16384×16384 pixels"},
		{"empty.gif", "image/gif", gifClaiming(t, 0, 0), "has no pixels"},
	}
	for _, c := range refused {
		e := upload(env, k.owner.AccessToken, k.orgID, c.name, c.declared, c.data).ExpectError(http.StatusBadRequest, c.msg)
		must(t, hasField(e, "file"), "%s: details %+v", c.name, e.Details)
	}
	upload(env, k.owner.AccessToken, k.orgID, "empty.png", "image/png", nil).ExpectError(http.StatusBadRequest, "empty")
	ct, body := form("picture", "x.png", "image/png", onePixelPNG)
	env.Call(http.MethodPost, orgPath(k.orgID, "media")).Token(k.owner.AccessToken).Raw(ct, body).Do().ExpectError(http.StatusBadRequest, "file")

	// Only what was accepted is stored.
	var list []media
	env.Call(http.MethodGet, orgPath(k.orgID, "media")).Token(k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 1+len(accepted) || list[0].ContentType == "" {
		t.Fatalf("list %+v", list)
	}
	if n := auditCount(env, k.orgID, "uploadMedia"); n != 1+len(accepted) {
		t.Errorf("%d uploadMedia audit rows", n)
	}
}

func TestUploadMediaSizeLimits(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")

	// 5 MiB is accepted although the server's default body limit is 1M: the route has its own.
	big := append(append([]byte{}, onePixelPNG...), make([]byte, 5<<20-len(onePixelPNG))...)
	var m media
	upload(env, k.owner.AccessToken, k.orgID, "big.png", "image/png", big).Expect(http.StatusCreated).Decode(&m)
	if m.Size != 5<<20 {
		t.Fatalf("size %d", m.Size)
	}
	upload(env, k.owner.AccessToken, k.orgID, "bigger.png", "image/png", append(big, 0)).ExpectError(http.StatusRequestEntityTooLarge, "5 MiB")
	upload(env, k.owner.AccessToken, k.orgID, "huge.png", "image/png", make([]byte, 7<<20)).ExpectError(http.StatusRequestEntityTooLarge, "")
	// Other routes keep the default limit.
	env.Call(http.MethodPost, orgPath(k.orgID, "devices")).Token(k.owner.AccessToken).
		JSON(map[string]any{"name": strings.Repeat("x", 2<<20), "kind": "kiosk", "siteId": k.siteID}).
		Do().ExpectError(http.StatusRequestEntityTooLarge, "")
}

func TestBoardMediaIsServedToTheOrganizationsDevicesOnly(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	a := newKitchen(env, "Harborview Kitchens")
	b := newKitchen(env, "Elsewhere Catering")
	_, tokenA := env.PairDevice(a.owner.AccessToken, a.orgID, a.siteID, "menu_board")
	_, tokenB := env.PairDevice(b.owner.AccessToken, b.orgID, b.siteID, "menu_board")
	var m media
	upload(env, a.owner.AccessToken, a.orgID, "plating.png", "image/png", onePixelPNG).Expect(http.StatusCreated).Decode(&m)
	path := "board/media/content/" + m.Key.String()

	res := env.Call(http.MethodGet, path).DeviceToken(tokenA).Do().Expect(http.StatusOK)
	if !bytes.Equal(res.Body, onePixelPNG) || res.Header.Get("Content-Type") != "image/png" ||
		res.Header.Get("ETag") != `"`+m.Sha256+`"` || res.Header.Get("Cache-Control") != "private, max-age=31536000, immutable" ||
		res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("served %d bytes, headers %v", len(res.Body), res.Header)
	}
	res = env.Call(http.MethodGet, path).DeviceToken(tokenA).Header("If-None-Match", `"`+m.Sha256+`"`).Do().Expect(http.StatusNotModified)
	if len(res.Body) != 0 {
		t.Fatalf("304 with a body")
	}
	env.Call(http.MethodGet, path).DeviceToken(tokenB).Do().ExpectError(http.StatusNotFound, "Media not found")
	env.Call(http.MethodGet, path).DeviceToken(tokenB).Header("If-None-Match", `"`+m.Sha256+`"`).Do().ExpectError(http.StatusNotFound, "Media not found")
	env.Call(http.MethodGet, path).Token(a.owner.AccessToken).Do().ExpectError(http.StatusUnauthorized, "")
	env.Call(http.MethodGet, "board/media/content/"+uuid.NewString()).DeviceToken(tokenA).Do().ExpectError(http.StatusNotFound, "Media not found")
}

func TestCastAppearsInStateUntilCleared(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	id, token := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "wallboard_boh")
	castPath := devicePath(k.orgID, id, "cast")

	var d device
	env.Call(http.MethodPost, castPath).Token(k.owner.AccessToken).
		JSON(map[string]any{"type": "message", "title": "Allergen alert", "text": " Table 12: peanuts. "}).
		Do().Expect(http.StatusOK).Decode(&d)
	if d.Cast == nil || d.Cast.Type != "message" || *d.Cast.Title != "Allergen alert" || *d.Cast.Text != "Table 12: peanuts." || !d.Cast.CastAt.Equal(env.Clock.Now()) {
		t.Fatalf("device cast %+v", d.Cast)
	}
	s := getState(env, token)
	if s.Cast == nil || *s.Cast.Text != "Table 12: peanuts." || s.Cast.MediaKey != nil {
		t.Fatalf("state cast %+v", s.Cast)
	}

	// An image replaces it; the state says where to fetch the bytes.
	var m media
	upload(env, k.owner.AccessToken, k.orgID, "plating.png", "image/png", onePixelPNG).Expect(http.StatusCreated).Decode(&m)
	env.Call(http.MethodPost, castPath).Token(k.owner.AccessToken).
		JSON(map[string]any{"type": "image", "mediaKey": m.Key, "caption": "Tonight's plating"}).Do().Expect(http.StatusOK)
	s = getState(env, token)
	if s.Cast == nil || s.Cast.Type != "image" || *s.Cast.MediaKey != m.Key || *s.Cast.MediaURL != "/v1/board/media/content/"+m.Key.String() ||
		*s.Cast.ContentType != "image/png" || *s.Cast.Caption != "Tonight's plating" || s.Cast.Text != nil {
		t.Fatalf("image cast %+v", s.Cast)
	}
	env.Call(http.MethodGet, strings.TrimPrefix(*s.Cast.MediaURL, "/v1/")).DeviceToken(token).Do().Expect(http.StatusOK)

	// Clearing empties it; clearing again is harmless.
	env.Call(http.MethodDelete, castPath).Token(k.owner.AccessToken).Do().Expect(http.StatusNoContent)
	if s := getState(env, token); s.Cast != nil {
		t.Fatalf("cleared cast %+v", s.Cast)
	}
	env.Call(http.MethodDelete, castPath).Token(k.owner.AccessToken).Do().Expect(http.StatusNoContent)
	if n := auditCount(env, k.orgID, "castToDevice"); n != 2 {
		t.Errorf("%d castToDevice audit rows", n)
	}
	if n := auditCount(env, k.orgID, "clearDeviceCast"); n != 2 {
		t.Errorf("%d clearDeviceCast audit rows", n)
	}
}

func TestCastIsCheckedByType(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	other := newKitchen(env, "Elsewhere Catering")
	id, _ := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "wallboard_boh")
	var theirs media
	upload(env, other.owner.AccessToken, other.orgID, "x.png", "image/png", onePixelPNG).Expect(http.StatusCreated).Decode(&theirs)
	castPath := devicePath(k.orgID, id, "cast")

	for _, c := range []struct {
		body   map[string]any
		fields []string
	}{
		{map[string]any{"type": "message"}, []string{"text"}},
		{map[string]any{"type": "message", "text": "   "}, []string{"text"}},
		{map[string]any{"type": "message", "text": "Hi", "mediaKey": uuid.New()}, []string{"mediaKey"}},
		{map[string]any{"type": "image", "text": "Hi"}, []string{"mediaKey", "text"}},
		{map[string]any{"type": "recipe", "caption": "x"}, []string{"recipeId", "caption"}},
		{map[string]any{"type": "video"}, []string{"type"}},
		{map[string]any{"type": "message", "text": strings.Repeat("x", 501)}, []string{"text"}},
	} {
		e := env.Call(http.MethodPost, castPath).Token(k.owner.AccessToken).JSON(c.body).Do().ExpectError(http.StatusBadRequest, "")
		for _, f := range c.fields {
			must(t, hasField(e, f), "%v: details %+v lack %s", c.body, e.Details, f)
		}
	}
	// Another organization's image, or an unknown one, is not found; nor is any recipe yet.
	env.Call(http.MethodPost, castPath).Token(k.owner.AccessToken).JSON(map[string]any{"type": "image", "mediaKey": theirs.Key}).Do().ExpectError(http.StatusNotFound, "Media not found")
	env.Call(http.MethodPost, castPath).Token(k.owner.AccessToken).JSON(map[string]any{"type": "recipe", "recipeId": uuid.New()}).Do().ExpectError(http.StatusNotFound, "Recipe not found")
	env.Call(http.MethodPost, devicePath(k.orgID, uuid.New(), "cast")).Token(k.owner.AccessToken).
		JSON(map[string]any{"type": "message", "text": "Hi"}).Do().ExpectError(http.StatusNotFound, "Device not found")
}

func TestDeletingMediaClearsItsCasts(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	id, token := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "menu_board")
	_, other := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "menu_board")
	var m media
	upload(env, k.owner.AccessToken, k.orgID, "plating.png", "image/png", onePixelPNG).Expect(http.StatusCreated).Decode(&m)
	env.Call(http.MethodPost, devicePath(k.orgID, id, "cast")).Token(k.owner.AccessToken).JSON(map[string]any{"type": "image", "mediaKey": m.Key}).Do().Expect(http.StatusOK)
	otherID := getState(env, other).Device.ID
	env.Call(http.MethodPost, devicePath(k.orgID, otherID, "cast")).Token(k.owner.AccessToken).JSON(map[string]any{"type": "message", "text": "Hi"}).Do().Expect(http.StatusOK)

	env.Call(http.MethodDelete, orgPath(k.orgID, "media", m.Key.String())).Token(k.owner.AccessToken).Do().Expect(http.StatusNoContent)
	if s := getState(env, token); s.Cast != nil {
		t.Fatalf("cast of a deleted image %+v", s.Cast)
	}
	if s := getState(env, other); s.Cast == nil {
		t.Fatal("an unrelated cast was cleared")
	}
	env.Call(http.MethodGet, "board/media/content/"+m.Key.String()).DeviceToken(token).Do().ExpectError(http.StatusNotFound, "")
	env.Call(http.MethodDelete, orgPath(k.orgID, "media", m.Key.String())).Token(k.owner.AccessToken).Do().ExpectError(http.StatusNotFound, "Media not found")
}
