package devices_test

import (
	"bytes"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

var codeShape = regexp.MustCompile(`^[2-9A-HJKMNP-Z]{6}$`)

func TestPairingEndToEnd(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	d := createDevice(env, k.owner.AccessToken, k.orgID, map[string]any{"name": "Hot line", "kind": "wallboard_boh", "siteId": k.siteID})

	// The admin mints a code…
	c := mintCode(env, k.owner.AccessToken, k.orgID, d.ID)
	if !codeShape.MatchString(c.Code) || !c.ExpiresAt.Equal(apitest.Epoch.Add(10*time.Minute)) {
		t.Fatalf("code %+v", c)
	}
	// …kept only as a hash.
	var stored []byte
	if err := env.Pool.QueryRow(t.Context(), `SELECT code_hash FROM device_pairing_codes WHERE device_id = $1`, d.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if len(stored) != 32 || bytes.Contains(stored, []byte(c.Code)) {
		t.Fatalf("stored code %x", stored)
	}

	// The screen claims it, with no credential, typed loosely.
	env.Clock.Advance(2 * time.Minute)
	typed := strings.ToLower(c.Code[:3]) + "-" + c.Code[3:]
	var p paired
	claim(env, typed).Expect(http.StatusOK).Decode(&p)
	if !strings.HasPrefix(p.DeviceToken, "sous_dev_") || len(p.DeviceToken) < 40 {
		t.Fatalf("token %q", p.DeviceToken)
	}
	if p.Device.ID != d.ID || !p.Device.Paired || p.Device.PairedAt == nil || !p.Device.PairedAt.Equal(env.Clock.Now()) {
		t.Fatalf("paired device %+v", p.Device)
	}
	var tokenHash []byte
	if err := env.Pool.QueryRow(t.Context(), `SELECT token_hash FROM devices WHERE id = $1`, d.ID).Scan(&tokenHash); err != nil {
		t.Fatal(err)
	}
	if len(tokenHash) != 32 || bytes.Contains(tokenHash, []byte(p.DeviceToken)) {
		t.Fatalf("stored token %x", tokenHash)
	}

	// The token works for the device's state, and the admin sees the device seen.
	s := getState(env, p.DeviceToken)
	if s.Device.ID != d.ID || s.Site.ID != k.siteID || s.Org.Name != "Harborview Kitchens" {
		t.Fatalf("state %+v", s)
	}
	var got device
	env.Call(http.MethodGet, devicePath(k.orgID, d.ID)).Token(k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&got)
	if !got.Paired || got.LastSeenAt == nil || !got.LastSeenAt.Equal(env.Clock.Now().Truncate(time.Minute)) {
		t.Fatalf("device after first poll %+v", got)
	}

	// Single use.
	claim(env, c.Code).ExpectCode(http.StatusNotFound, "pairing_code_not_found")

	// The audit log names the device as the actor of its claim.
	var kind string
	if err := env.Pool.QueryRow(t.Context(), `SELECT actor_kind FROM audit_log WHERE action = 'claimPairingCode' AND actor_id = $1`, d.ID).Scan(&kind); err != nil {
		t.Fatal(err)
	}
	if n := auditCount(env, k.orgID, "createPairingCode"); n != 1 || kind != "device" {
		t.Errorf("audit: %d createPairingCode rows, claim by %q", n, kind)
	}
}

func TestPairingCodeExpiresAfterTenMinutes(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	a := createDevice(env, k.owner.AccessToken, k.orgID, map[string]any{"name": "A", "kind": "kiosk", "siteId": k.siteID})
	b := createDevice(env, k.owner.AccessToken, k.orgID, map[string]any{"name": "B", "kind": "kiosk", "siteId": k.siteID})
	codeA := mintCode(env, k.owner.AccessToken, k.orgID, a.ID)
	codeB := mintCode(env, k.owner.AccessToken, k.orgID, b.ID)

	env.Clock.Advance(10*time.Minute - time.Second)
	claim(env, codeA.Code).Expect(http.StatusOK)
	env.Clock.Advance(time.Second)
	claim(env, codeB.Code).ExpectError(http.StatusNotFound, "Pairing code not found")
}

func TestMintingAgainReplacesTheCode(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	d := createDevice(env, k.owner.AccessToken, k.orgID, map[string]any{"name": "A", "kind": "kiosk", "siteId": k.siteID})
	first := mintCode(env, k.owner.AccessToken, k.orgID, d.ID)
	second := mintCode(env, k.owner.AccessToken, k.orgID, d.ID)
	if first.Code == second.Code {
		t.Skip("the same code was drawn twice (1 in 887 million)")
	}
	claim(env, first.Code).ExpectError(http.StatusNotFound, "Pairing code not found")
	claim(env, second.Code).Expect(http.StatusOK)
}

func TestMalformedCodesAreRefused(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	for _, code := range []string{"ABC", "ABCDEFG", "ABCDE0", "ABCDEI", "ABCDEL", "ABCDEO", "ABC%DE"} {
		e := claim(env, code).ExpectError(http.StatusBadRequest, "")
		must(t, hasField(e, "code"), "%q: details %+v", code, e.Details)
	}
	claim(env, "").ExpectError(http.StatusBadRequest, "")
}

func TestClaimsAreLimitedPerIP(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	d := createDevice(env, k.owner.AccessToken, k.orgID, map[string]any{"name": "A", "kind": "kiosk", "siteId": k.siteID})
	c := mintCode(env, k.owner.AccessToken, k.orgID, d.ID)

	ip := env.NewIP()
	wrong := "222222"
	if c.Code == wrong {
		wrong = "333333"
	}
	call := func(code string) *apitest.Response {
		return env.Call(http.MethodPost, "devices/pair").FromIP(ip).JSON(map[string]string{"code": code}).Do()
	}
	for range 10 {
		call(wrong).ExpectError(http.StatusNotFound, "Pairing code not found")
		env.Clock.Advance(time.Second)
	}
	// The eleventh within the minute is refused, even with the right code.
	res := call(c.Code)
	res.ExpectError(http.StatusTooManyRequests, "")
	if ra := res.Header.Get("Retry-After"); ra != "50" {
		t.Fatalf("Retry-After %q", ra)
	}
	// Other clients are not affected.
	claim(env, wrong).ExpectError(http.StatusNotFound, "")
	// Once the window moves on, the client may try again.
	env.Clock.Advance(50 * time.Second)
	call(c.Code).Expect(http.StatusOK)
}

// A new organization is on the Pro trial (25 devices); when it ends it is on free, with 2.
func TestPairingBeyondTheDeviceCapNeedsAPlan(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	id1, token1 := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "wallboard_boh")
	_, token2 := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "menu_board")

	env.Clock.Advance(30*24*time.Hour + time.Minute)
	owner := env.SignIn(k.owner.User.Email).AccessToken
	third := createDevice(env, owner, k.orgID, map[string]any{"name": "Third", "kind": "kiosk", "siteId": k.siteID})

	// Minting for a device that would be the third paired one is refused up front…
	e := env.Call(http.MethodPost, devicePath(k.orgID, third.ID, "pair")).Token(owner).Do().ExpectError(http.StatusPaymentRequired, "device limit")
	if e.Feature != "device_limit" || e.Code != "device_limit_reached" {
		t.Fatalf("402 feature %q code %q", e.Feature, e.Code)
	}
	// …while devices already paired keep working, and may be re-paired.
	getState(env, token1)
	getState(env, token2)
	c := mintCode(env, owner, k.orgID, id1)
	var p paired
	claim(env, c.Code).Expect(http.StatusOK).Decode(&p)
	env.Call(http.MethodGet, "device/state").DeviceToken(token1).Do().ExpectError(http.StatusUnauthorized, "")
	getState(env, p.DeviceToken)

	// The claim checks again: two codes minted while a slot was free cannot both take it.
	env.Call(http.MethodPost, devicePath(k.orgID, id1, "revoke")).Token(owner).Do().Expect(http.StatusOK)
	fourth := createDevice(env, owner, k.orgID, map[string]any{"name": "Fourth", "kind": "kiosk", "siteId": k.siteID})
	c3 := mintCode(env, owner, k.orgID, third.ID)
	c4 := mintCode(env, owner, k.orgID, fourth.ID)
	claim(env, c3.Code).Expect(http.StatusOK)
	e = claim(env, c4.Code).ExpectError(http.StatusPaymentRequired, "device limit")
	if e.Feature != "device_limit" {
		t.Fatalf("claim 402 feature %q", e.Feature)
	}
	// The refused code stays valid: it works once there is room.
	env.Call(http.MethodPost, devicePath(k.orgID, third.ID, "revoke")).Token(owner).Do().Expect(http.StatusOK)
	claim(env, c4.Code).Expect(http.StatusOK)

	// Enterprise has no cap.
	env.SetPlan(k.orgID, "enterprise", nil)
	env.PairDevice(owner, k.orgID, k.siteID, "kiosk")
	env.PairDevice(owner, k.orgID, k.siteID, "kiosk")
}

func TestRevokedTokenFailsAtOnce(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	id, token := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "wallboard_boh")
	getState(env, token)
	pending := mintCode(env, k.owner.AccessToken, k.orgID, id) // for a re-pairing never finished

	var d device
	env.Call(http.MethodPost, devicePath(k.orgID, id, "revoke")).Token(k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&d)
	if d.Paired || d.PairedAt != nil {
		t.Fatalf("revoked device %+v", d)
	}
	env.Call(http.MethodGet, "device/state").DeviceToken(token).Do().ExpectError(http.StatusUnauthorized, "Invalid device token")
	// The pending code went with the token.
	claim(env, pending.Code).ExpectError(http.StatusNotFound, "Pairing code not found")
	// Revoking again changes nothing.
	env.Call(http.MethodPost, devicePath(k.orgID, id, "revoke")).Token(k.owner.AccessToken).Do().Expect(http.StatusOK)
	// The device can be paired again, keeping its configuration.
	var p paired
	claim(env, mintCode(env, k.owner.AccessToken, k.orgID, id).Code).Expect(http.StatusOK).Decode(&p)
	if p.Device.ID != id || p.DeviceToken == token {
		t.Fatalf("re-paired %+v", p)
	}
	getState(env, p.DeviceToken)
	env.Call(http.MethodGet, "device/state").DeviceToken(token).Do().ExpectError(http.StatusUnauthorized, "")
	if n := auditCount(env, k.orgID, "revokeDevice"); n != 2 {
		t.Errorf("%d revokeDevice audit rows", n)
	}
}

func TestDeviceEndpointsTakeOnlyDeviceTokens(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	env.Call(http.MethodGet, "device/state").Do().ExpectError(http.StatusUnauthorized, "Authentication required")
	env.Call(http.MethodGet, "device/state").DeviceToken("sous_dev_nope").Do().ExpectError(http.StatusUnauthorized, "Invalid device token")
	env.Call(http.MethodGet, "device/state").DeviceToken(k.owner.AccessToken).Do().ExpectError(http.StatusUnauthorized, "Invalid device token")
	env.Call(http.MethodGet, "device/state").Token(k.owner.AccessToken).Do().ExpectError(http.StatusUnauthorized, "")
	// And a device token opens nothing of the organization's.
	_, token := env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "kiosk")
	env.Call(http.MethodGet, orgPath(k.orgID, "devices")).DeviceToken(token).Do().ExpectError(http.StatusUnauthorized, "")
	env.Call(http.MethodGet, orgPath(k.orgID, "devices")).Token(token).Do().ExpectError(http.StatusUnauthorized, "")
}

// Two screens claiming at once cannot both take the last free slot of the cap.
func TestConcurrentClaimsRespectTheCap(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	k := newKitchen(env, "Harborview Kitchens")
	env.SetPlan(k.orgID, "free", nil)
	env.PairDevice(k.owner.AccessToken, k.orgID, k.siteID, "kiosk") // 1 of 2
	codes := make([]string, 4)
	for i := range codes {
		d := createDevice(env, k.owner.AccessToken, k.orgID, map[string]any{"name": "Screen", "kind": "kiosk", "siteId": k.siteID})
		codes[i] = mintCode(env, k.owner.AccessToken, k.orgID, d.ID).Code
	}
	statuses := make(chan int, len(codes))
	for _, c := range codes {
		ip := env.NewIP()
		go func() {
			statuses <- env.Call(http.MethodPost, "devices/pair").FromIP(ip).JSON(map[string]string{"code": c}).Do().Status
		}()
	}
	got := map[int]int{}
	for range codes {
		select {
		case s := <-statuses:
			got[s]++
		case <-time.After(patience):
			t.Fatal("claims did not answer")
		}
	}
	if got[http.StatusOK] != 1 || got[http.StatusPaymentRequired] != len(codes)-1 {
		t.Fatalf("statuses %v, want one 200 and the rest 402", got)
	}
}
