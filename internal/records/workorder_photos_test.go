package records_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/devices"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

var onePixelPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==")

func multipartFile(name, contentType string, data []byte) (string, []byte) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	h := make(map[string][]string)
	h["Content-Disposition"] = []string{`form-data; name="file"; filename="` + name + `"`}
	h["Content-Type"] = []string{contentType}
	part, _ := mw.CreatePart(h)
	_, _ = part.Write(data)
	_ = mw.Close()
	return mw.FormDataContentType(), buf.Bytes()
}

type workOrderPhoto struct {
	MediaID     uuid.UUID `json:"mediaId"`
	ContentType string    `json:"contentType"`
	Size        int       `json:"size"`
	Filename    *string   `json:"filename"`
	URL         string    `json:"url"`
	CreatedAt   time.Time `json:"createdAt"`
}

type workOrderWithPhotos struct {
	workOrder
	Photos []workOrderPhoto `json:"photos"`
}

func (k *kitchen) workOrderPhoto(wo uuid.UUID, token, name, contentType string, data []byte) *apitest.Response {
	ct, body := multipartFile(name, contentType, data)
	return k.call(http.MethodPost, "work-orders/"+wo.String()+"/photos", token).Raw(ct, body).Do()
}

func (k *kitchen) workOrderPhotos(wo uuid.UUID) []workOrderPhoto {
	k.t.Helper()
	var got workOrderWithPhotos
	k.call(http.MethodGet, "work-orders/"+wo.String(), k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&got)
	if got.Photos == nil {
		k.t.Fatal("GET /work-orders/{id} has no photos list")
	}
	return got.Photos
}

// A cook reports a problem with a photo: whoever may open a work order attaches one, checked
// as task photos and board images are, and GET lists it with the URL that serves it.
func TestWorkOrderPhotos(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	staff := k.env.Member(k.org, "inspector", k.site)
	viewer := k.env.Member(k.org, "viewer", k.site)
	var w workOrder
	k.call(http.MethodPost, "work-orders", staff.AccessToken).JSON(map[string]any{"equipmentId": k.equipment(), "title": "Door gasket torn"}).
		Do().Expect(http.StatusCreated).Decode(&w)
	if got := k.workOrderPhotos(w.ID); len(got) != 0 {
		t.Fatalf("a new work order has photos %+v", got)
	}

	// Refused, and nothing written: a viewer; a non-image; a PNG declared as JPEG; too many
	// pixels; too many bytes.
	k.workOrderPhoto(w.ID, viewer.AccessToken, "gasket.png", "image/png", onePixelPNG).ExpectError(http.StatusForbidden, "")
	var wide bytes.Buffer
	if err := png.Encode(&wide, image.NewGray(image.Rect(0, 0, 9000, 1))); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, file, contentType string
		data                    []byte
		status                  int
		code                    string
	}{
		{"svg", "x.svg", "image/svg+xml", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), http.StatusBadRequest, "validation_failed"},
		{"text", "notes.txt", "text/plain", []byte("the gasket is torn"), http.StatusBadRequest, "validation_failed"},
		{"declared otherwise", "x.jpg", "image/jpeg", onePixelPNG, http.StatusBadRequest, "validation_failed"},
		{"too many pixels", "wide.png", "image/png", wide.Bytes(), http.StatusBadRequest, "validation_failed"},
		{"over 5 MiB", "big.png", "image/png", append(append([]byte{}, onePixelPNG...), make([]byte, 5<<20)...), http.StatusRequestEntityTooLarge, ""},
	} {
		res := k.workOrderPhoto(w.ID, staff.AccessToken, c.file, c.contentType, c.data)
		if c.code != "" {
			res.ExpectCode(c.status, c.code)
		} else {
			res.Expect(c.status)
		}
	}
	if got := k.workOrderPhotos(w.ID); len(got) != 0 {
		t.Fatalf("a refused upload wrote %+v", got)
	}

	// Accepted: 201 with its Location; GET lists it and its URL serves the bytes.
	var ph workOrderPhoto
	res := k.workOrderPhoto(w.ID, staff.AccessToken, "gasket.png", "image/png", onePixelPNG).Expect(http.StatusCreated).Decode(&ph)
	if loc := res.Header.Get("Location"); !strings.HasSuffix(loc, "/work-orders/"+w.ID.String()+"/photos/"+ph.MediaID.String()) {
		t.Fatalf("Location %q", loc)
	}
	if ph.ContentType != "image/png" || ph.Size != len(onePixelPNG) || ph.Filename == nil || *ph.Filename != "gasket.png" {
		t.Fatalf("photo %+v", ph)
	}
	got := k.workOrderPhotos(w.ID)
	if len(got) != 1 || got[0].MediaID != ph.MediaID || got[0].URL != ph.URL {
		t.Fatalf("listed %+v, attached %+v", got, ph)
	}
	img := k.env.Call(http.MethodGet, strings.TrimPrefix(ph.URL, "/v1/")).Token(viewer.AccessToken).Do().Expect(http.StatusOK)
	if img.Header.Get("Content-Type") != "image/png" || !bytes.Equal(img.Body, onePixelPNG) {
		t.Fatalf("photo served as %s, %d bytes", img.Header.Get("Content-Type"), len(img.Body))
	}

	// Another organization: 404 whichever way it asks, and nothing written or shown.
	stranger, otherOrg := k.env.NewOwner("Lakeside Catering")
	ct, body := multipartFile("gasket.png", "image/png", onePixelPNG)
	k.env.Call(http.MethodPost, "orgs/"+otherOrg.String()+"/work-orders/"+w.ID.String()+"/photos").Token(stranger.AccessToken).Raw(ct, body).
		Do().ExpectError(http.StatusNotFound, "Work order not found")
	k.env.Call(http.MethodGet, "orgs/"+otherOrg.String()+"/work-orders/"+w.ID.String()+"/photos/"+ph.MediaID.String()).Token(stranger.AccessToken).
		Do().ExpectError(http.StatusNotFound, "Photo not found")
	k.env.Call(http.MethodDelete, "orgs/"+otherOrg.String()+"/work-orders/"+w.ID.String()+"/photos/"+ph.MediaID.String()).Token(stranger.AccessToken).
		Do().ExpectError(http.StatusNotFound, "Work order not found")
	if got := k.workOrderPhotos(w.ID); len(got) != 1 {
		t.Fatalf("photos after the stranger %+v", got)
	}

	// Removing: a viewer may not; staff may; then it is gone.
	path := "work-orders/" + w.ID.String() + "/photos/" + ph.MediaID.String()
	k.call(http.MethodDelete, path, viewer.AccessToken).Do().Expect(http.StatusForbidden)
	k.call(http.MethodDelete, path, staff.AccessToken).Do().Expect(http.StatusNoContent)
	k.call(http.MethodDelete, path, staff.AccessToken).Do().ExpectError(http.StatusNotFound, "Photo not found")
	k.call(http.MethodGet, path, staff.AccessToken).Do().ExpectError(http.StatusNotFound, "Photo not found")

	// A closed work order keeps its photos as they were.
	k.workOrderPhoto(w.ID, staff.AccessToken, "gasket.png", "image/png", onePixelPNG).Expect(http.StatusCreated).Decode(&ph)
	k.call(http.MethodPost, "work-orders/"+w.ID.String()+"/status", staff.AccessToken).JSON(map[string]any{"status": "cancelled"}).Do().Expect(http.StatusOK)
	k.workOrderPhoto(w.ID, staff.AccessToken, "gasket.png", "image/png", onePixelPNG).ExpectCode(http.StatusConflict, "conflict")
	k.call(http.MethodDelete, "work-orders/"+w.ID.String()+"/photos/"+ph.MediaID.String(), staff.AccessToken).Do().ExpectCode(http.StatusConflict, "conflict")
	if got := k.workOrderPhotos(w.ID); len(got) != 1 {
		t.Fatalf("photos of the cancelled work order %+v", got)
	}
}

// A work order keeps at most devices.MaxPhotos photos: of parallel uploads past the cap, exactly
// those that fit are taken, the others refused (400) with nothing written.
func TestWorkOrderPhotoCap(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	var w workOrder
	k.call(http.MethodPost, "work-orders", k.owner.AccessToken).JSON(map[string]any{"equipmentId": k.equipment(), "title": "Fan noisy"}).
		Do().Expect(http.StatusCreated).Decode(&w)
	const n = devices.MaxPhotos + 5
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		// Each a different image, so none is the same stored photo as another.
		var img bytes.Buffer
		if err := png.Encode(&img, image.NewGray(image.Rect(0, 0, 1+i, 1))); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ct, body := multipartFile(fmt.Sprintf("fan-%d.png", i), "image/png", img.Bytes())
			codes[i] = k.call(http.MethodPost, "work-orders/"+w.ID.String()+"/photos", k.owner.AccessToken).Raw(ct, body).Do().Status
		}()
	}
	wg.Wait()
	count := map[int]int{}
	for _, c := range codes {
		count[c]++
	}
	if count[http.StatusCreated] != devices.MaxPhotos || count[http.StatusBadRequest] != n-devices.MaxPhotos {
		t.Fatalf("answers %v", count)
	}
	if got := k.workOrderPhotos(w.ID); len(got) != devices.MaxPhotos {
		t.Fatalf("%d photos kept", len(got))
	}
}
