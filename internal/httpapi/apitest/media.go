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
