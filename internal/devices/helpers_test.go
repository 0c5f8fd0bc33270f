package devices_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// patience bounds every wait for something that should happen; only a failing test reaches it.
const patience = 10 * time.Second

type cast struct {
	Type        string     `json:"type"`
	Title       *string    `json:"title"`
	Text        *string    `json:"text"`
	MediaKey    *uuid.UUID `json:"mediaKey"`
	MediaURL    *string    `json:"mediaUrl"`
	ContentType *string    `json:"contentType"`
	Caption     *string    `json:"caption"`
	CastAt      time.Time  `json:"castAt"`
}

type device struct {
	ID         uuid.UUID      `json:"id"`
	Name       string         `json:"name"`
	Kind       string         `json:"kind"`
	SiteID     uuid.UUID      `json:"siteId"`
	Config     map[string]any `json:"config"`
	Paired     bool           `json:"paired"`
	PairedAt   *time.Time     `json:"pairedAt"`
	LastSeenAt *time.Time     `json:"lastSeenAt"`
	Cast       *cast          `json:"cast"`
	CreatedAt  time.Time      `json:"createdAt"`
	UpdatedAt  time.Time      `json:"updatedAt"`
}

type pairingCode struct {
	Code      string    `json:"code"`
	ExpiresAt time.Time `json:"expiresAt"`
}

type paired struct {
	DeviceToken string `json:"deviceToken"`
	Device      device `json:"device"`
}

type state struct {
	Device struct {
		ID     uuid.UUID      `json:"id"`
		Name   string         `json:"name"`
		Kind   string         `json:"kind"`
		Config map[string]any `json:"config"`
	} `json:"device"`
	Org struct {
		Name  string `json:"name"`
		Brand struct {
			Primary string `json:"primary"`
			Accent  string `json:"accent"`
		} `json:"brand"`
	} `json:"org"`
	Site struct {
		ID       uuid.UUID `json:"id"`
		Name     string    `json:"name"`
		Timezone string    `json:"timezone"`
	} `json:"site"`
	Date       string           `json:"date"`
	ServerTime time.Time        `json:"serverTime"`
	Cast       *cast            `json:"cast"`
	Production []map[string]any `json:"production"`
	Alerts     []map[string]any `json:"alerts"`
	Handoffs   []map[string]any `json:"handoffs"`
	Menu       *struct {
		DayPart *struct {
			Name  string `json:"name"`
			Start string `json:"start"`
			End   string `json:"end"`
		} `json:"dayPart"`
		InProgress bool             `json:"inProgress"`
		Items      []map[string]any `json:"items"`
	} `json:"menu"`
	Trays []map[string]any `json:"trays"`
}

func orgPath(orgID uuid.UUID, parts ...string) string {
	return strings.Join(append([]string{"orgs", orgID.String()}, parts...), "/")
}

func devicePath(orgID, deviceID uuid.UUID, parts ...string) string {
	return orgPath(orgID, append([]string{"devices", deviceID.String()}, parts...)...)
}

// kitchen is an organization with an owner and a site, ready for devices.
type kitchen struct {
	owner  apitest.Session
	orgID  uuid.UUID
	siteID uuid.UUID
}

func newKitchen(env *apitest.Env, name string) kitchen {
	env.T.Helper()
	owner, orgID := env.NewOwner(name)
	return kitchen{owner: owner, orgID: orgID, siteID: env.Site(owner.AccessToken, orgID, "Main Kitchen")}
}

func createDevice(env *apitest.Env, token string, orgID uuid.UUID, body map[string]any) device {
	env.T.Helper()
	var d device
	env.Call(http.MethodPost, orgPath(orgID, "devices")).Token(token).JSON(body).Do().Expect(http.StatusCreated).Decode(&d)
	return d
}

func mintCode(env *apitest.Env, token string, orgID, deviceID uuid.UUID) pairingCode {
	env.T.Helper()
	var c pairingCode
	env.Call(http.MethodPost, devicePath(orgID, deviceID, "pair")).Token(token).Do().Expect(http.StatusCreated).Decode(&c)
	return c
}

// claim presents a code from a fresh client IP.
func claim(env *apitest.Env, code string) *apitest.Response {
	env.T.Helper()
	return env.Call(http.MethodPost, "devices/pair").FromIP(env.NewIP()).JSON(map[string]string{"code": code}).Do()
}

func getState(env *apitest.Env, token string) state {
	env.T.Helper()
	var s state
	env.Call(http.MethodGet, "device/state").DeviceToken(token).Do().Expect(http.StatusOK).Decode(&s)
	return s
}

func auditCount(env *apitest.Env, orgID uuid.UUID, action string) int {
	env.T.Helper()
	var n int
	if err := env.Pool.QueryRow(env.T.Context(), `SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = $2`, orgID, action).Scan(&n); err != nil {
		env.T.Fatal(err)
	}
	return n
}

func hasField(e apitest.ErrorBody, field string) bool {
	for _, d := range e.Details {
		if d.Field == field {
			return true
		}
	}
	return false
}

func must(t testing.TB, ok bool, format string, args ...any) {
	t.Helper()
	if !ok {
		t.Fatalf(format, args...)
	}
}
