package sensors_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

type sensor struct {
	ID                uuid.UUID  `json:"id"`
	Name              string     `json:"name"`
	GatewayDeviceID   uuid.UUID  `json:"gatewayDeviceId"`
	ExternalID        string     `json:"externalId"`
	Kind              string     `json:"kind"`
	SiteID            uuid.UUID  `json:"siteId"`
	StorageLocationID *uuid.UUID `json:"storageLocationId"`
	EquipmentID       *uuid.UUID `json:"equipmentId"`
	MinTempF          *string    `json:"minTempF"`
	MaxTempF          *string    `json:"maxTempF"`
	EffectiveMinTempF *string    `json:"effectiveMinTempF"`
	EffectiveMaxTempF *string    `json:"effectiveMaxTempF"`
	ExcursionMinutes  int        `json:"excursionMinutes"`
	Active            bool       `json:"active"`
	LastReading       *struct {
		At    time.Time `json:"at"`
		Value string    `json:"value"`
		Unit  string    `json:"unit"`
	} `json:"lastReading"`
	Excursion *struct {
		Kind      string     `json:"kind"`
		StartedAt time.Time  `json:"startedAt"`
		Peak      string     `json:"peak"`
		AlertID   *uuid.UUID `json:"alertId"`
	} `json:"excursion"`
}

type reading struct {
	Sensor string    `json:"sensor"`
	At     time.Time `json:"at"`
	Value  string    `json:"value"`
	Unit   string    `json:"unit"`
}

type result struct {
	Accepted   int `json:"accepted"`
	Duplicates int `json:"duplicates"`
	Rejected   []struct {
		Index   int    `json:"index"`
		Sensor  string `json:"sensor"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	} `json:"rejected"`
}

type alert struct {
	ID       uuid.UUID `json:"id"`
	Kind     string    `json:"kind"`
	Severity string    `json:"severity"`
	Message  string    `json:"message"`
	Status   string    `json:"status"`
	Subject  struct {
		Type string    `json:"type"`
		ID   uuid.UUID `json:"id"`
	} `json:"subject"`
	OpenedAt   time.Time  `json:"openedAt"`
	ResolvedAt *time.Time `json:"resolvedAt"`
}

// kitchen is an organization with a site, a walk-in cooler (33–41 °F) and a paired gateway.
type kitchen struct {
	env      *apitest.Env
	owner    apitest.Session
	org      uuid.UUID
	site     uuid.UUID
	cooler   uuid.UUID
	gateway  uuid.UUID
	gwToken  string
	basePath string
	signedAt time.Time
}

// token is the owner's access token, signed in again when the clock has moved near its end.
func (k *kitchen) token() string {
	if k.env.Clock.Now().Sub(k.signedAt) > 10*time.Minute {
		k.owner = k.env.SignIn(k.owner.User.Email)
		k.signedAt = k.env.Clock.Now()
	}
	return k.owner.AccessToken
}

func newKitchen(t testing.TB, env *apitest.Env, name string) *kitchen {
	t.Helper()
	owner, org := env.NewOwner(name)
	k := &kitchen{env: env, owner: owner, org: org, basePath: "orgs/" + org.String(), signedAt: env.Clock.Now()}
	k.site = env.Site(owner.AccessToken, org, "Main Kitchen")
	k.cooler = k.location(k.site, "Walk-in cooler")
	k.gateway, k.gwToken = env.PairDevice(owner.AccessToken, org, k.site, "sensor_gateway")
	return k
}

func (k *kitchen) path(parts ...string) string {
	p := k.basePath
	for _, s := range parts {
		p += "/" + s
	}
	return p
}

func (k *kitchen) location(site uuid.UUID, name string) uuid.UUID {
	var l struct {
		ID uuid.UUID `json:"id"`
	}
	k.env.Call(http.MethodPost, k.path("storage-locations")).Token(k.token()).
		JSON(map[string]any{"siteId": site, "name": name, "kind": "cooler", "minTempF": "33", "maxTempF": "41"}).
		Do().Expect(http.StatusCreated).Decode(&l)
	return l.ID
}

// body is a sensor request: a temperature probe in the cooler, with fields overridden.
func (k *kitchen) body(ext string, over map[string]any) map[string]any {
	b := map[string]any{"name": "Probe " + ext, "gatewayDeviceId": k.gateway, "externalId": ext, "kind": "temperature",
		"siteId": k.site, "storageLocationId": k.cooler}
	for key, v := range over {
		if v == nil {
			delete(b, key)
			continue
		}
		b[key] = v
	}
	return b
}

func (k *kitchen) sensor(ext string, over map[string]any) sensor {
	k.env.T.Helper()
	var s sensor
	k.env.Call(http.MethodPost, k.path("sensors")).Token(k.token()).JSON(k.body(ext, over)).
		Do().Expect(http.StatusCreated).Decode(&s)
	return s
}

func (k *kitchen) get(id uuid.UUID) sensor {
	k.env.T.Helper()
	var s sensor
	k.env.Call(http.MethodGet, k.path("sensors", id.String())).Token(k.token()).Do().Expect(http.StatusOK).Decode(&s)
	return s
}

func (k *kitchen) send(rs []reading) result {
	k.env.T.Helper()
	var r result
	k.env.Call(http.MethodPost, "device/readings").DeviceToken(k.gwToken).JSON(map[string]any{"readings": rs}).
		Do().Expect(http.StatusOK).Decode(&r)
	return r
}

// alerts lists the organization's alerts of kind in status (open or resolved).
func (k *kitchen) alerts(kind, status string) []alert {
	k.env.T.Helper()
	var as []alert
	k.env.Call(http.MethodGet, k.path("alerts")+"?kind="+kind+"&status="+status).Token(k.token()).
		Do().Expect(http.StatusOK).Decode(&as)
	return as
}

func (k *kitchen) count(query string, args ...any) int {
	k.env.T.Helper()
	var n int
	if err := k.env.Pool.QueryRow(k.env.T.Context(), query, args...).Scan(&n); err != nil {
		k.env.T.Fatal(err)
	}
	return n
}

// series is one reading a minute from start, valued by f(minute).
func series(ext string, start time.Time, minutes int, f func(i int) string) []reading {
	rs := make([]reading, 0, minutes)
	for i := range minutes {
		rs = append(rs, reading{Sensor: ext, At: start.Add(time.Duration(i) * time.Minute), Value: f(i), Unit: "F"})
	}
	return rs
}

// warming is a cooler that holds 38 °F for 10 minutes, warms half a degree a minute to 46 °F,
// holds there until minute 40, then cools back to 38 °F by minute 48 and stays.
func warming(i int) string {
	switch {
	case i < 10:
		return "38"
	case i < 26:
		return fmt.Sprintf("%.1f", 38+0.5*float64(i-10))
	case i < 40:
		return "46"
	case i < 48:
		return fmt.Sprint(46 - (i - 39))
	}
	return "38"
}

func must(t testing.TB, ok bool, format string, args ...any) {
	t.Helper()
	if !ok {
		t.Fatalf(format, args...)
	}
}
