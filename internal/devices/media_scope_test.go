package devices_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// uploadFor uploads a PNG for the boards of site (uuid.Nil: for every site).
func uploadFor(env *apitest.Env, token string, orgID, site uuid.UUID) *apitest.Response {
	env.T.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if site != uuid.Nil {
		_ = w.WriteField("siteId", site.String())
	}
	part, _ := w.CreateFormFile("file", "plating.png")
	_, _ = part.Write(onePixelPNG)
	_ = w.Close()
	return env.Call(http.MethodPost, orgPath(orgID, "media")).Token(token).Raw(w.FormDataContentType(), buf.Bytes()).Do()
}

// TestMediaBelongsToASite: an image is its site's. An admin limited to some sites uploads for,
// lists and deletes only their sites' images (deleting another site's image would clear the
// casts of that site's screens); screens show only their site's images or the organization's.
func TestMediaBelongsToASite(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	north := env.Site(k.owner.AccessToken, k.orgID, "North")
	type item struct {
		Key    uuid.UUID  `json:"key"`
		SiteID *uuid.UUID `json:"siteId"`
	}
	var mainImage, northImage, orgImage item
	uploadFor(env, k.owner.AccessToken, k.orgID, k.siteID).Expect(http.StatusCreated).Decode(&mainImage)
	uploadFor(env, k.owner.AccessToken, k.orgID, north).Expect(http.StatusCreated).Decode(&northImage)
	uploadFor(env, k.owner.AccessToken, k.orgID, uuid.Nil).Expect(http.StatusCreated).Decode(&orgImage)
	if mainImage.SiteID == nil || *mainImage.SiteID != k.siteID || orgImage.SiteID != nil {
		t.Fatalf("sites of the images: %+v, %+v", mainImage, orgImage)
	}
	mainScreen, mainToken := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "menu_board")
	northScreen, _ := env.PairDevice(k.owner.AccessToken, k.orgID, north, "menu_board")
	cast := func(token string, device, key uuid.UUID) *apitest.Response {
		return env.Call(http.MethodPost, devicePath(k.orgID, device, "cast")).Token(token).JSON(map[string]any{"type": "image", "mediaKey": key}).Do()
	}
	cast(k.owner.AccessToken, northScreen, northImage.Key).Expect(http.StatusOK)
	cast(k.owner.AccessToken, mainScreen, orgImage.Key).Expect(http.StatusOK)
	// A screen is cast only its site's images or the organization's, and fetches no other.
	cast(k.owner.AccessToken, mainScreen, northImage.Key).ExpectError(http.StatusNotFound, "Media not found")
	env.Call(http.MethodGet, "board/media/content/"+northImage.Key.String()).DeviceToken(mainToken).Do().ExpectError(http.StatusNotFound, "Media not found")
	env.Call(http.MethodGet, "board/media/content/"+mainImage.Key.String()).DeviceToken(mainToken).Do().Expect(http.StatusOK)
	env.Call(http.MethodGet, "board/media/content/"+orgImage.Key.String()).DeviceToken(mainToken).Do().Expect(http.StatusOK)

	mainAdmin := env.Member(k.orgID, "admin", k.siteID)
	var listed []item
	env.Call(http.MethodGet, orgPath(k.orgID, "media")).Token(mainAdmin.AccessToken).Do().Expect(http.StatusOK).Decode(&listed)
	if len(listed) != 1 || listed[0].Key != mainImage.Key {
		t.Fatalf("a main-site admin lists %+v, want the main site's image only", listed)
	}
	env.Call(http.MethodGet, orgPath(k.orgID, "media")).Token(k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&listed)
	if len(listed) != 3 {
		t.Fatalf("the owner lists %d images", len(listed))
	}
	uploadFor(env, mainAdmin.AccessToken, k.orgID, north).ExpectError(http.StatusNotFound, "Site not found")
	uploadFor(env, mainAdmin.AccessToken, k.orgID, uuid.Nil).ExpectError(http.StatusForbidden, "every site")
	uploadFor(env, mainAdmin.AccessToken, k.orgID, k.siteID).Expect(http.StatusCreated)

	del := func(token string, key uuid.UUID) *apitest.Response {
		return env.Call(http.MethodDelete, orgPath(k.orgID, "media", key.String())).Token(token).Do()
	}
	del(mainAdmin.AccessToken, northImage.Key).ExpectError(http.StatusNotFound, "Media not found")
	del(mainAdmin.AccessToken, orgImage.Key).ExpectError(http.StatusNotFound, "Media not found")
	var d device
	env.Call(http.MethodGet, devicePath(k.orgID, northScreen)).Token(k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&d)
	if d.Cast == nil {
		t.Fatal("a refused delete cleared the north screen's cast")
	}
	del(mainAdmin.AccessToken, mainImage.Key).Expect(http.StatusNoContent)
	del(k.owner.AccessToken, northImage.Key).Expect(http.StatusNoContent)
}
