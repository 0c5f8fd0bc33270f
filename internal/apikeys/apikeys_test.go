package apikeys_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/apikeys"
	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/principal"
)

type createdKey struct {
	ID     uuid.UUID `json:"id"`
	Name   string    `json:"name"`
	Key    string    `json:"key"`
	Note   string    `json:"note"`
	Prefix string    `json:"prefix"`
}

type listedKey struct {
	ID         uuid.UUID  `json:"id"`
	Prefix     string     `json:"prefix"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
	Active     bool       `json:"active"`
}

func createKey(env *apitest.Env, token string, orgID uuid.UUID, name string) createdKey {
	env.T.Helper()
	var k createdKey
	env.Call(http.MethodPost, "orgs/"+orgID.String()+"/api-keys").Token(token).
		JSON(map[string]string{"name": name}).Do().Expect(http.StatusCreated).Decode(&k)
	return k
}

func listKeys(env *apitest.Env, token string, orgID uuid.UUID) []listedKey {
	env.T.Helper()
	var ks []listedKey
	env.Call(http.MethodGet, "orgs/"+orgID.String()+"/api-keys").Token(token).Do().Expect(http.StatusOK).Decode(&ks)
	return ks
}

func TestAPIKeyLifecycle(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	k := createKey(env, owner.AccessToken, orgID, "Epic interface engine")

	if !strings.HasPrefix(k.Key, "sous_") || len(k.Key) < 40 || !strings.HasPrefix(k.Key, k.Prefix) || len(k.Prefix) >= len(k.Key)/2 {
		t.Fatalf("key %q prefix %q", k.Key, k.Prefix)
	}
	if !strings.Contains(k.Note, "once") || !strings.Contains(k.Note, "x-api-key") || !strings.Contains(strings.ToLower(k.Note), "read-only") {
		t.Fatalf("note %q", k.Note)
	}
	var stored []byte
	if err := env.Pool.QueryRow(t.Context(), `SELECT key_hash FROM api_keys WHERE id = $1`, k.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if len(stored) != 32 || strings.Contains(string(stored), k.Key) {
		t.Fatal("the key is not stored as a SHA-256 hash")
	}

	ks := listKeys(env, owner.AccessToken, orgID)
	if len(ks) != 1 || ks[0].ID != k.ID || ks[0].Prefix != k.Prefix || !ks[0].Active || ks[0].LastUsedAt != nil {
		t.Fatalf("listed %+v", ks)
	}
	if strings.Contains(string(env.Call(http.MethodGet, "orgs/"+orgID.String()+"/api-keys").Token(owner.AccessToken).Do().Body), k.Key) {
		t.Fatal("the list shows the key")
	}

	env.Call(http.MethodDelete, "orgs/"+orgID.String()+"/api-keys/"+k.ID.String()).Token(owner.AccessToken).Do().Expect(http.StatusNoContent)
	env.Call(http.MethodDelete, "orgs/"+orgID.String()+"/api-keys/"+k.ID.String()).Token(owner.AccessToken).Do().Expect(http.StatusNoContent)
	if ks := listKeys(env, owner.AccessToken, orgID); len(ks) != 1 || ks[0].Active {
		t.Fatalf("after revoke %+v", ks)
	}
	env.Call(http.MethodDelete, "orgs/"+orgID.String()+"/api-keys/"+uuid.NewString()).Token(owner.AccessToken).Do().ExpectError(http.StatusNotFound, "API key not found")
}

func TestAPIKeysAreOwnerOnlyAndOrgScoped(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	other, otherOrg := env.NewOwner("Elsewhere")
	admin := env.Member(orgID, "admin")
	k := createKey(env, owner.AccessToken, orgID, "engine")

	env.Call(http.MethodPost, "orgs/"+orgID.String()+"/api-keys").Token(admin.AccessToken).JSON(`{"name":"x"}`).Do().ExpectError(http.StatusForbidden, "owner")
	env.Call(http.MethodGet, "orgs/"+orgID.String()+"/api-keys").Token(admin.AccessToken).Do().ExpectError(http.StatusForbidden, "")
	// Another organization's owner can neither see nor revoke it, even through their own org's path.
	env.Call(http.MethodGet, "orgs/"+orgID.String()+"/api-keys").Token(other.AccessToken).Do().ExpectError(http.StatusNotFound, "")
	env.Call(http.MethodDelete, "orgs/"+otherOrg.String()+"/api-keys/"+k.ID.String()).Token(other.AccessToken).Do().ExpectError(http.StatusNotFound, "")
	if ks := listKeys(env, owner.AccessToken, orgID); !ks[0].Active {
		t.Fatal("revoked through another organization")
	}
}

func TestAPIKeysNeedAPlanWithTheFeature(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	createKey(env, owner.AccessToken, orgID, "during the trial")

	env.Clock.Advance(30 * 24 * time.Hour) // the trial ends
	owner = env.SignIn(owner.User.Email)
	e := env.Call(http.MethodPost, "orgs/"+orgID.String()+"/api-keys").Token(owner.AccessToken).JSON(`{"name":"x"}`).Do().ExpectError(http.StatusPaymentRequired, "")
	if e.Feature != "api_keys" {
		t.Fatalf("feature %q", e.Feature)
	}
	env.Call(http.MethodGet, "orgs/"+orgID.String()+"/api-keys").Token(owner.AccessToken).Do().ExpectError(http.StatusPaymentRequired, "")

	env.SetPlan(orgID, "enterprise", nil)
	createKey(env, owner.AccessToken, orgID, "after upgrading")
	if n := len(listKeys(env, owner.AccessToken, orgID)); n != 2 {
		t.Fatalf("%d keys", n)
	}
}

func TestAPIKeyValidation(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	for _, body := range []string{`{}`, `{"name":""}`, `{"name":"   "}`, `{"name":"x","scope":"write"}`} {
		env.Call(http.MethodPost, "orgs/"+orgID.String()+"/api-keys").Token(owner.AccessToken).JSON(body).Do().ExpectError(http.StatusBadRequest, "")
	}
	if n := len(listKeys(env, owner.AccessToken, orgID)); n != 0 {
		t.Fatalf("%d keys written by invalid requests", n)
	}
}

func TestAPIKeyAuthentication(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	_, otherOrg := env.NewOwner("Elsewhere")
	k := createKey(env, owner.AccessToken, orgID, "engine")
	h := apikeys.NewHandlers(env.Pool, env.Clock)
	ctx := context.Background()

	p, err := h.Authenticate(ctx, k.Key, orgID)
	if err != nil || p.Kind != principal.APIKey || p.OrgID != orgID || p.APIKeyID != k.ID {
		t.Fatalf("principal %+v, %v", p, err)
	}
	for name, tc := range map[string]struct {
		key string
		org uuid.UUID
	}{
		"wrong key":          {k.Key + "x", orgID},
		"other organization": {k.Key, otherOrg},
		"garbage":            {"not a key", orgID},
	} {
		if _, err := h.Authenticate(ctx, tc.key, tc.org); err == nil || !strings.Contains(err.Error(), "Invalid API key") {
			t.Errorf("%s: %v", name, err)
		}
	}

	// lastUsedAt is written on first use, then at most once a minute.
	first := lastUsed(t, env, k.ID)
	if first == nil || !first.Equal(apitest.Epoch) {
		t.Fatalf("lastUsedAt %v", first)
	}
	env.Clock.Advance(30 * time.Second)
	_, _ = h.Authenticate(ctx, k.Key, orgID)
	if got := lastUsed(t, env, k.ID); !got.Equal(*first) {
		t.Fatalf("lastUsedAt moved within the minute: %v", got)
	}
	env.Clock.Advance(31 * time.Second)
	_, _ = h.Authenticate(ctx, k.Key, orgID)
	if got := lastUsed(t, env, k.ID); !got.Equal(apitest.Epoch.Add(61 * time.Second)) {
		t.Fatalf("lastUsedAt %v after a minute", got)
	}

	// Revocation takes effect at once.
	env.Call(http.MethodDelete, "orgs/"+orgID.String()+"/api-keys/"+k.ID.String()).Token(owner.AccessToken).Do().Expect(http.StatusNoContent)
	if _, err := h.Authenticate(ctx, k.Key, orgID); err == nil {
		t.Fatal("revoked key accepted")
	}

	// A key is no session: operations that take only sessions ignore it.
	env.Call(http.MethodGet, "orgs/"+orgID.String()).Header("x-api-key", k.Key).Do().ExpectError(http.StatusUnauthorized, "Authentication required")
}

func lastUsed(t *testing.T, env *apitest.Env, id uuid.UUID) *time.Time {
	t.Helper()
	var at *time.Time
	if err := env.Pool.QueryRow(t.Context(), `SELECT last_used_at FROM api_keys WHERE id = $1`, id).Scan(&at); err != nil {
		t.Fatal(err)
	}
	return at
}
