package capability_test

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/capability"
	"github.com/sous-app/sous/internal/httpapi"
	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/ratelimit"
	"github.com/sous-app/sous/internal/reqinfo"
)

type fixture struct {
	env      *apitest.Env
	orgID    uuid.UUID
	resolver *capability.Resolver
	ip       string
}

func newFixture(t *testing.T) *fixture {
	env := apitest.New(t)
	_, orgID := env.NewOwner("Harborview Catering")
	return &fixture{
		env: env, orgID: orgID,
		resolver: capability.NewResolver(env.Pool, env.Clock, ratelimit.New(env.Pool, env.Clock)),
	}
}

// ctx is a request from a fresh client IP, so tests of one behaviour never trip the limit.
func (f *fixture) ctx() context.Context {
	f.ip = f.env.NewIP()
	return reqinfo.WithClientIP(context.Background(), f.ip)
}

func (f *fixture) issue(t *testing.T, kind capability.Kind, target uuid.UUID, o capability.Options) string {
	t.Helper()
	var token string
	err := pg.InQueries(context.Background(), f.env.Pool, func(q *db.Queries) error {
		var err error
		token, err = capability.Issue(context.Background(), q, f.orgID, kind, target, f.env.Clock.Now(), o)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return token
}

func isLinkNotFound(err error) bool {
	e, ok := apierr.As(err)
	return ok && e.Kind == apierr.KindNotFound && e.Message == "Link not found"
}

func TestIssueResolveAndRotate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	quote := uuid.New()
	first := f.issue(t, capability.Quote, quote, capability.Options{})

	raw, err := base64.RawURLEncoding.DecodeString(first)
	if err != nil || len(raw) != 32 {
		t.Fatalf("token %q is not 256 random bits in base64url", first)
	}
	var stored []byte
	if err := f.env.Pool.QueryRow(t.Context(), `SELECT token_hash FROM capability_tokens WHERE target_id = $1`, quote).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if len(stored) != 32 || strings.Contains(string(stored), first) {
		t.Fatal("the token is not stored as a SHA-256 hash")
	}

	got, err := f.resolver.Resolve(f.ctx(), capability.Quote, first)
	if err != nil || got.ID != quote || got.OrgID != f.orgID || got.Kind != capability.Quote {
		t.Fatalf("resolved %+v, %v", got, err)
	}

	// Reissuing rotates: the old token stops working at once, the new one works.
	f.env.Clock.Advance(time.Minute)
	second := f.issue(t, capability.Quote, quote, capability.Options{})
	if second == first {
		t.Fatal("reissue returned the same token")
	}
	if _, err := f.resolver.Resolve(f.ctx(), capability.Quote, first); !isLinkNotFound(err) {
		t.Fatalf("rotated-out token: %v", err)
	}
	if got, err := f.resolver.Resolve(f.ctx(), capability.Quote, second); err != nil || got.ID != quote {
		t.Fatalf("new token: %+v, %v", got, err)
	}
	link, live, err := capability.Live(t.Context(), db.New(f.env.Pool), f.orgID, capability.Quote, quote, f.env.Clock.Now())
	if err != nil || !live || !link.CreatedAt.Equal(apitest.Epoch.Add(time.Minute)) {
		t.Fatalf("live link %+v %v %v", link, live, err)
	}

	// Another target's link is independent; so is another kind for the same target.
	other := f.issue(t, capability.Quote, uuid.New(), capability.Options{})
	inv := f.issue(t, capability.Invoice, quote, capability.Options{})
	for _, tok := range []string{second, other, inv} {
		if _, err := f.resolver.Resolve(f.ctx(), map[string]capability.Kind{second: capability.Quote, other: capability.Quote, inv: capability.Invoice}[tok], tok); err != nil {
			t.Fatalf("independent link: %v", err)
		}
	}
}

func TestRevokeExpiryAndWrongKindAreTheSame404(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	survey, report := uuid.New(), uuid.New()
	tok := f.issue(t, capability.Survey, survey, capability.Options{})
	expires := apitest.Epoch.Add(time.Hour)
	expiring := f.issue(t, capability.Inspection, report, capability.Options{ExpiresAt: &expires})

	// A token for one kind opens nothing under another path.
	if _, err := f.resolver.Resolve(f.ctx(), capability.Quote, tok); !isLinkNotFound(err) {
		t.Fatalf("survey token as a quote: %v", err)
	}
	for _, bad := range []string{"", "nope", strings.Repeat("A", 43), tok + "x", tok[:42] + "!", strings.ToUpper(tok)} {
		if bad == tok {
			continue
		}
		if _, err := f.resolver.Resolve(f.ctx(), capability.Survey, bad); !isLinkNotFound(err) {
			t.Fatalf("token %q: %v", bad, err)
		}
	}

	if _, err := f.resolver.Resolve(f.ctx(), capability.Inspection, expiring); err != nil {
		t.Fatal(err)
	}
	f.env.Clock.Advance(time.Hour)
	if _, err := f.resolver.Resolve(f.ctx(), capability.Inspection, expiring); !isLinkNotFound(err) {
		t.Fatalf("expired: %v", err)
	}
	if _, live, _ := capability.Live(t.Context(), db.New(f.env.Pool), f.orgID, capability.Inspection, report, f.env.Clock.Now()); live {
		t.Fatal("an expired link is live")
	}

	var revoked bool
	err := pg.InQueries(t.Context(), f.env.Pool, func(q *db.Queries) error {
		var err error
		revoked, err = capability.Revoke(t.Context(), q, f.orgID, capability.Survey, survey, f.env.Clock.Now())
		return err
	})
	if err != nil || !revoked {
		t.Fatalf("revoke: %v %v", revoked, err)
	}
	if _, err := f.resolver.Resolve(f.ctx(), capability.Survey, tok); !isLinkNotFound(err) {
		t.Fatalf("revoked: %v", err)
	}
}

func TestResolvingIsRateLimitedPerIP(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tok := f.issue(t, capability.Survey, uuid.New(), capability.Options{})
	ctx := f.ctx()
	for i := range ratelimit.CapabilityLink.Limit {
		probe := tok
		if i%2 == 1 {
			probe = strings.Repeat("B", 43) // misses count too
		}
		if _, err := f.resolver.Resolve(ctx, capability.Survey, probe); err != nil && !isLinkNotFound(err) {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	_, err := f.resolver.Resolve(ctx, capability.Survey, tok)
	var e *apierr.Error
	if !errors.As(err, &e) || e.Kind != apierr.KindRateLimited || e.RetryAfter <= 0 {
		t.Fatalf("past the limit: %v", err)
	}
	// Another client is unaffected; the first is let through again after the window.
	if _, err := f.resolver.Resolve(f.ctx(), capability.Survey, tok); err != nil {
		t.Fatal(err)
	}
	f.env.Clock.Advance(ratelimit.CapabilityLink.Window)
	if _, err := f.resolver.Resolve(ctx, capability.Survey, tok); err != nil {
		t.Fatal(err)
	}
}

// Public {token} operations answer display data only: no organization id, no internal id. This
// walks the spec, so every public link endpoint added later is held to it.
func TestPublicLinkResponsesCarryNoIds(t *testing.T) {
	t.Parallel()
	doc, err := httpapi.LoadSpec()
	if err != nil {
		t.Fatal(err)
	}
	// The walk itself finds ids where there are some.
	if got := idFields(doc.Components.Schemas["ScanResolution"].Value, "", map[*openapi3.Schema]bool{}); len(got) < 4 {
		t.Fatalf("the walk finds only %v in ScanResolution", got)
	}
	for path, item := range doc.Paths.Map() {
		if !strings.Contains(path, "{token}") {
			continue
		}
		for method, op := range item.Operations() {
			for status, res := range op.Responses.Map() {
				for _, media := range res.Value.Content {
					if media.Schema == nil {
						continue
					}
					for _, field := range idFields(media.Schema.Value, "", map[*openapi3.Schema]bool{}) {
						t.Errorf("%s %s %s: response field %s looks like an internal id", method, path, status, field)
					}
				}
			}
		}
	}
}

func idFields(s *openapi3.Schema, at string, seen map[*openapi3.Schema]bool) []string {
	if s == nil || seen[s] {
		return nil
	}
	seen[s] = true
	var out []string
	for name, p := range s.Properties {
		lower := strings.ToLower(name)
		if lower == "orgid" || strings.HasSuffix(name, "Id") || strings.HasSuffix(name, "Ids") || lower == "id" || (p.Value != nil && p.Value.Format == "uuid") {
			out = append(out, at+name)
		}
		out = append(out, idFields(p.Value, at+name+".", seen)...)
	}
	if s.Items != nil {
		out = append(out, idFields(s.Items.Value, at+"[].", seen)...)
	}
	for _, group := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
		for _, r := range group {
			out = append(out, idFields(r.Value, at, seen)...)
		}
	}
	return out
}
