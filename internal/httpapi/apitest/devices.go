package apitest

import (
	"net/http"

	"github.com/google/uuid"
)

// DeviceToken authenticates with a device's token (header x-device-token).
func (r *Request) DeviceToken(token string) *Request {
	r.header.Set("x-device-token", token)
	return r
}

// PairDevice registers a device of kind at siteID as the given admin, mints a pairing code and
// claims it from a fresh IP, the way a screen would. It returns the device's id and token.
func (e *Env) PairDevice(adminToken string, orgID, siteID uuid.UUID, kind string) (uuid.UUID, string) {
	e.T.Helper()
	var d struct {
		ID uuid.UUID `json:"id"`
	}
	e.Call(http.MethodPost, "orgs/"+orgID.String()+"/devices").Token(adminToken).
		JSON(map[string]any{"name": "Test " + kind, "kind": kind, "siteId": siteID}).
		Do().Expect(http.StatusCreated).Decode(&d)
	var code struct {
		Code string `json:"code"`
	}
	e.Call(http.MethodPost, "orgs/"+orgID.String()+"/devices/"+d.ID.String()+"/pair").Token(adminToken).
		Do().Expect(http.StatusCreated).Decode(&code)
	var paired struct {
		DeviceToken string `json:"deviceToken"`
	}
	e.Call(http.MethodPost, "devices/pair").FromIP(e.NewIP()).JSON(map[string]string{"code": code.Code}).
		Do().Expect(http.StatusOK).Decode(&paired)
	return d.ID, paired.DeviceToken
}
