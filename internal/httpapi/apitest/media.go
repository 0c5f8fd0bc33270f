package apitest

import (
	"bytes"
	"encoding/base64"
	"mime/multipart"
	"net/http"

	"github.com/google/uuid"
)

// pixelPNG is a valid 1×1 PNG.
var pixelPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==")

// Image uploads a PNG for site (uuid.Nil: the organization's, for every site) as the given
// user (an admin or up) and returns its id.
func (e *Env) Image(token string, orgID, site uuid.UUID) uuid.UUID {
	e.T.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if site != uuid.Nil {
		_ = w.WriteField("siteId", site.String())
	}
	part, _ := w.CreateFormFile("file", "plating.png")
	_, _ = part.Write(pixelPNG)
	_ = w.Close()
	var out struct {
		Key uuid.UUID `json:"key"`
	}
	e.Call(http.MethodPost, "orgs/"+orgID.String()+"/media").Token(token).Raw(w.FormDataContentType(), buf.Bytes()).
		Do().Expect(http.StatusCreated).Decode(&out)
	return out.Key
}

// LargestImage is a multipart upload whose part "file" is a valid PNG of exactly size bytes (a
// 1×1 image followed by padding its decoder never reads), the largest an upload takes at
// size = 5 MiB, and returns its content type and body.
func LargestImage(size int) (contentType string, body []byte) {
	var buf bytes.Buffer
	buf.Grow(size + 512)
	w := multipart.NewWriter(&buf)
	part, _ := w.CreateFormFile("file", "walk-in.png")
	_, _ = part.Write(pixelPNG)
	_, _ = part.Write(make([]byte, size-len(pixelPNG)))
	_ = w.Close()
	return w.FormDataContentType(), buf.Bytes()
}
