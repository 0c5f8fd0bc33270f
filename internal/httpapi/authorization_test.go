package httpapi_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/httpapi"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// specOperation is one operation of the published spec, with what the walk needs to call it.
type specOperation struct {
	method, path string
	op           *openapi3.Operation
	params       openapi3.Parameters // the path item's and the operation's
	permission   string
	planFeature  string
	siteScope    string // x-site-scope
	limitedRead  bool   // x-site-limited-read
	public       bool
}

func specOperations(t *testing.T) []specOperation {
	t.Helper()
	doc, err := httpapi.LoadSpec()
	if err != nil {
		t.Fatal(err)
	}
	var out []specOperation
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.Extensions["x-websocket"] != nil {
				continue // the WebSocket upgrade is documented, not callable as plain HTTP
			}
			perm, _ := op.Extensions["x-permission"].(string)
			feature, _ := op.Extensions["x-plan-feature"].(string)
			scope, _ := op.Extensions["x-site-scope"].(string)
			limitedRead, _ := op.Extensions["x-site-limited-read"].(bool)
			sec := doc.Security
			if op.Security != nil {
				sec = *op.Security
			}
			params := append(append(openapi3.Parameters{}, item.Parameters...), op.Parameters...)
			out = append(out, specOperation{method: method, path: path, op: op, params: params, permission: perm, planFeature: feature,
				siteScope: scope, limitedRead: limitedRead, public: len(sec) == 0})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path+out[i].method < out[j].path+out[j].method })
	return out
}

// request builds a call of the operation from its documented examples, with the walk's org and
// site in the path (and in the body's siteId) and a fresh id for every other path parameter.
// A path parameter named in malformed gets "not-a-uuid".
func (o specOperation) request(env *apitest.Env, orgID, siteID uuid.UUID, malformed ...string) *apitest.Request {
	return o.call(env, orgID, siteID, walkCall{}, malformed...)
}

// call builds a call of the operation as request does, with the path values and body a fixture
// prepared (fx) in place of fresh ids and the example.
func (o specOperation) call(env *apitest.Env, orgID, siteID uuid.UUID, fx walkCall, malformed ...string) *apitest.Request {
	path := o.path
	query := url.Values{}
	for _, pref := range o.params {
		p := pref.Value
		switch {
		case p.In == "path" && slices.Contains(malformed, p.Name):
			path = strings.ReplaceAll(path, "{"+p.Name+"}", "not-a-uuid")
		case p.In == "path" && p.Name == "orgId":
			path = strings.ReplaceAll(path, "{orgId}", orgID.String())
		case p.In == "path" && fx.path[p.Name] != "":
			path = strings.ReplaceAll(path, "{"+p.Name+"}", url.PathEscape(fx.path[p.Name]))
		case p.In == "path" && p.Name == "siteId":
			path = strings.ReplaceAll(path, "{siteId}", siteID.String())
		case p.In == "path":
			v := uuid.NewString()
			if p.Schema != nil && p.Schema.Value.Format != "uuid" && p.Example != nil {
				v = fmt.Sprint(p.Example)
			}
			path = strings.ReplaceAll(path, "{"+p.Name+"}", v)
		case p.In == "query" && p.Required:
			query.Set(p.Name, fmt.Sprint(p.Example))
		}
	}
	if o.params.GetByInAndName("query", "siteId") != nil {
		query.Set("siteId", siteID.String())
	}
	if len(query) > 0 {
		path += "?" + query.Encode()
	}
	req := env.Call(o.method, strings.TrimPrefix(path, "/"))
	if fx.raw != nil {
		req.Raw(fx.rawType, fx.raw)
	} else if o.op.RequestBody != nil {
		// One content type and one example, the same every run: JSON when the operation takes
		// it, else the first by name (map order would pick a different one each run).
		content := o.op.RequestBody.Value.Content
		ct := slices.Sorted(maps.Keys(content))[0]
		if content["application/json"] != nil {
			ct = "application/json"
		}
		media := content[ct]
		example := media.Example
		if example == nil && len(media.Examples) > 0 {
			example = media.Examples[slices.Sorted(maps.Keys(media.Examples))[0]].Value.Value
		}
		if fx.body != nil {
			example = fx.body
		}
		switch ct {
		case "application/json":
			req.JSON(withSite(example, siteID))
		case "multipart/form-data":
			req.Raw(multipartExample(media.Schema.Value, withSite(example, siteID)))
		default:
			raw, _ := json.Marshal(example)
			req.Raw(ct, raw)
		}
	}
	return req
}

// withSite puts the walk's site into an example body's top-level siteId (and siteIds), so
// that examples that name a site are callable in the walk's organization.
func withSite(example any, siteID uuid.UUID) any {
	obj, ok := example.(map[string]any)
	if !ok {
		return example
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	if _, ok := obj["siteId"]; ok {
		out["siteId"] = siteID.String()
	}
	if _, ok := obj["siteIds"]; ok {
		out["siteIds"] = []any{siteID.String()}
	}
	return out
}

// onePixelPNG is a valid 1×1 PNG, the content of every binary part of a multipart example.
var onePixelPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==")

// multipartExample encodes a multipart/form-data example: binary properties (format: binary)
// carry a small PNG named after the example's value, the others their example value as text.
func multipartExample(schema *openapi3.Schema, example any) (string, []byte) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	obj, _ := example.(map[string]any)
	names := make([]string, 0, len(obj))
	for name := range obj {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		prop := schema.Properties[name]
		if prop != nil && prop.Value.Format == "binary" {
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, name, fmt.Sprint(obj[name])))
			h.Set("Content-Type", "image/png")
			part, _ := w.CreatePart(h)
			_, _ = part.Write(onePixelPNG)
			continue
		}
		_ = w.WriteField(name, fmt.Sprint(obj[name]))
	}
	_ = w.Close()
	return w.FormDataContentType(), buf.Bytes()
}

// TestEveryOperationEnforcesItsPolicy walks every operation of the spec. For each: no credential
// gets 401; a role one below x-permission gets 403; a user of another organization gets 404; a
// plan without x-plan-feature gets 402 with the feature; a member of the minimum role limited to
// another site gets what x-site-scope promises (404 for a site resource of the first site, 403 for
// an organization-wide write, and no list naming the first site's resources); and the minimum role
// succeeds on what the operation's fixture prepared, a write leaving its audit row. New
// operations are covered the day they are added: one acting on an existing resource needs a
// fixture (walkFixtures) for its call to succeed, and the walk fails until it has one.
func TestEveryOperationEnforcesItsPolicy(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Walker Kitchens")
	w := &walker{env: env, owner: owner, orgID: orgID}
	w.siteA = env.Site(owner.AccessToken, orgID, "Walk-in")
	w.siteB = env.Site(owner.AccessToken, orgID, "Pastry")
	siteID := w.siteA
	outsider, _ := env.NewOwner("Elsewhere Catering")
	// Credentials are not roles: every walk member holds rd, so operations that also need it
	// (deciding a diet review) are walked for their role and site scope.
	members := map[authz.Role]apitest.Session{authz.Owner: owner}
	limited := map[authz.Role]apitest.Session{} // each role, limited to site B
	for _, r := range authz.Roles {
		if r != authz.Owner {
			members[r] = env.Member(orgID, string(r))
		}
		limited[r] = env.Member(orgID, string(r), w.siteB)
	}
	if _, err := env.Pool.Exec(t.Context(), `UPDATE memberships SET credentials = '{rd}' WHERE org_id = $1`, orgID); err != nil {
		t.Fatal(err)
	}
	_, deviceToken := env.PairDevice(owner.AccessToken, orgID, siteID, "wallboard_boh")
	// Operations only one kind of device may call are walked with such a device.
	_, gatewayToken := env.PairDevice(owner.AccessToken, orgID, siteID, "sensor_gateway")
	deviceTokens := map[string]string{"postDeviceReadings": gatewayToken}

	// audited collects the organization writes whose audit row the walk checked; every one must be.
	audited := map[string]bool{}
	var orgWrites []string
	ops := specOperations(t)
	for id := range walkFixtures {
		if !slices.ContainsFunc(ops, func(o specOperation) bool { return o.op.OperationID == id }) {
			t.Errorf("walkFixtures has a fixture for %s, which is no operation of the spec", id)
		}
	}
	for _, o := range ops {
		if o.method != http.MethodGet && strings.Contains(o.path, "{orgId}") {
			orgWrites = append(orgWrites, o.op.OperationID)
		}
		t.Run(o.method+" "+o.path, func(t *testing.T) {
			env := env.With(t)
			w := &walker{env: env, owner: owner, orgID: orgID, siteA: w.siteA, siteB: w.siteB}
			checkSiteScopeDeclared(t, o)
			switch o.permission {
			case httpapi.PermissionPublic:
				if !o.public {
					t.Fatalf("x-permission public but the operation requires a credential")
				}
				return
			case httpapi.PermissionSelf:
			case httpapi.PermissionDevice:
				// A device's own token and nothing else: not a user session, not a bad token.
				if o.public {
					t.Fatalf("x-permission device but the operation has no security")
				}
				if strings.Contains(o.path, "{orgId}") {
					t.Fatalf("x-permission device on an operation under /orgs/{orgId}")
				}
				o.request(env, orgID, siteID).Do().ExpectError(http.StatusUnauthorized, "")
				o.request(env, orgID, siteID).DeviceToken("sous_dev_not-a-token").Do().ExpectError(http.StatusUnauthorized, "")
				o.request(env, orgID, siteID).Token(owner.AccessToken).Do().ExpectError(http.StatusUnauthorized, "")
				token := deviceToken
				if t, ok := deviceTokens[o.op.OperationID]; ok {
					token = t
				}
				res := o.request(env, orgID, siteID).DeviceToken(token).Do()
				switch res.Status {
				case http.StatusUnauthorized, http.StatusForbidden, http.StatusPaymentRequired:
					t.Fatalf("the device was refused with %d: %s", res.Status, res.Body)
				}
				return
			default:
				if _, ok := authz.MinRole(authz.Permission(o.permission)); !ok {
					t.Fatalf("x-permission %q is not in the permission table", o.permission)
				}
			}
			if o.public {
				t.Fatalf("operation has no security but x-permission %q", o.permission)
			}
			o.request(env, orgID, siteID).Do().ExpectError(http.StatusUnauthorized, "")
			o.request(env, orgID, siteID).Token("not-a-token").Do().ExpectError(http.StatusUnauthorized, "")
			if o.permission == httpapi.PermissionSelf {
				return
			}
			if !strings.Contains(o.path, "{orgId}") {
				t.Fatalf("x-permission %q on an operation outside /orgs/{orgId}", o.permission)
			}
			min, _ := authz.MinRole(authz.Permission(o.permission))
			if below, ok := min.Below(); ok {
				o.request(env, orgID, siteID).Token(members[below].AccessToken).Do().ExpectError(http.StatusForbidden, "")
			}
			o.request(env, orgID, siteID).Token(outsider.AccessToken).Do().ExpectError(http.StatusNotFound, "Organization not found")

			if o.planFeature != "" {
				env.SetPlan(orgID, "free", nil)
				e := o.request(env, orgID, siteID).Token(members[min].AccessToken).Do().ExpectError(http.StatusPaymentRequired, "")
				env.SetPlan(orgID, "pro", nil)
				if e.Feature != o.planFeature {
					t.Fatalf("402 names feature %q, want %q", e.Feature, o.planFeature)
				}
			}

			// A malformed id in the path is a validation failure, documented like any other 400.
			for _, pref := range o.params {
				if p := pref.Value; p.In == "path" && p.Schema != nil && p.Schema.Value.Format == "uuid" {
					o.request(env, orgID, siteID, p.Name).Token(members[min].AccessToken).Do().ExpectError(http.StatusBadRequest, p.Name)
				}
			}

			fx := walkCall{}
			if f := walkFixtures[o.op.OperationID]; f != nil {
				fx = f(w)
			}
			// A member of the minimum role limited to site B, on what belongs to site A.
			checkSiteLimited(t, o, o.call(env, orgID, siteID, fx).Token(limited[min].AccessToken).Do(), fx, w)

			actor := members[min].User.ID
			before := auditRows(t, env, orgID, o.op.OperationID, actor)
			call := o.call(env, orgID, siteID, fx).Token(members[min].AccessToken)
			key := uuid.NewString()
			if o.method == http.MethodPost {
				call.Header(httpapi.IdempotencyKeyHeader, key)
			}
			res := call.Do()
			if res.Status >= 300 {
				t.Fatalf("%s (unscoped) got %d on what the walk prepared; an operation on an existing resource needs a fixture in walkFixtures: %s",
					min, res.Status, res.Body)
			}
			if o.method == http.MethodGet {
				return
			}
			if o.method == http.MethodPost {
				// The same request with the same Idempotency-Key by the member limited to site B:
				// answered as without the key, never from the unscoped member's response.
				again := o.call(env, orgID, siteID, fx).Token(limited[min].AccessToken).Header(httpapi.IdempotencyKeyHeader, key).Do()
				if again.Header.Get("Idempotent-Replayed") != "" {
					t.Fatalf("another member's response was replayed to a member limited to site B: %d %s", again.Status, again.Body)
				}
				checkSiteLimited(t, o, again, fx, w)
			}
			after := auditRows(t, env, orgID, o.op.OperationID, actor)
			if len(after) <= len(before) {
				t.Fatalf("write %s succeeded without an audit row by its actor", o.op.OperationID)
			}
			// The newest row of the write: a site resource's row names its site (so members of
			// that site read it), an organization-wide one's none.
			switch site := after[0]; {
			case o.siteScope == httpapi.SiteScopeSite && !fx.siteless && (site == nil || *site != w.siteA):
				t.Fatalf("the audit row of %s names site %v, want the resource's site %s", o.op.OperationID, site, w.siteA)
			case o.siteScope == httpapi.SiteScopeSite && fx.siteless && site != nil:
				t.Fatalf("the audit row of %s names site %v; the fixture says it spans sites", o.op.OperationID, site)
			}
			audited[o.op.OperationID] = true
		})
	}
	for _, id := range orgWrites {
		if !audited[id] {
			t.Errorf("write %s never reached the audit assertion", id)
		}
	}
}

// checkSiteScopeDeclared checks the operation's x-site-scope against where it lives: every
// operation of an organization (under /orgs/{orgId}) is site or org, every other none, and only
// organization-wide reads open themselves to site-limited members.
func checkSiteScopeDeclared(t *testing.T, o specOperation) {
	t.Helper()
	switch {
	case strings.Contains(o.path, "{orgId}") && o.siteScope != httpapi.SiteScopeSite && o.siteScope != httpapi.SiteScopeOrg:
		t.Fatalf("x-site-scope %q on an organization's operation; want site or org", o.siteScope)
	case !strings.Contains(o.path, "{orgId}") && o.siteScope != httpapi.SiteScopeNone:
		t.Fatalf("x-site-scope %q outside /orgs/{orgId}; want none", o.siteScope)
	case o.limitedRead && (o.siteScope != httpapi.SiteScopeOrg || o.method != http.MethodGet):
		t.Fatalf("x-site-limited-read on a %s with x-site-scope %s; it opens organization-wide reads only", o.method, o.siteScope)
	case o.limitedRead && !strings.Contains(strings.ToLower(strings.Join(strings.Fields(o.op.Description), " ")), "limited to some sites"):
		t.Fatalf("x-site-limited-read without a description saying why members limited to some sites read it")
	}
}

// checkSiteLimited checks what a member limited to site B got from a call on site A's resource.
func checkSiteLimited(t *testing.T, o specOperation, res *apitest.Response, fx walkCall, w *walker) {
	t.Helper()
	switch o.siteScope {
	case httpapi.SiteScopeOrg:
		if o.limitedRead {
			if res.Status >= 300 {
				t.Fatalf("x-site-limited-read, but a site-limited member got %d: %s", res.Status, res.Body)
			}
			return
		}
		res.ExpectError(http.StatusForbidden, "")
	case httpapi.SiteScopeSite:
		if o.method != http.MethodGet || res.Status != http.StatusOK {
			// Another site's resource does not exist for them.
			res.ExpectError(http.StatusNotFound, "")
			return
		}
		// A list answered: it holds nothing of site A.
		for _, secret := range append([]string{w.siteA.String()}, fx.ids...) {
			if bytes.Contains(res.Body, []byte(secret)) {
				t.Fatalf("a member limited to another site read %s of site A: %s", secret, res.Body)
			}
		}
	}
}

// auditRows returns the site of each audit row of the action by the actor, newest first.
func auditRows(t *testing.T, env *apitest.Env, orgID uuid.UUID, action string, actor uuid.UUID) []*uuid.UUID {
	t.Helper()
	rows, err := env.Pool.Query(t.Context(), `SELECT site_id FROM audit_log WHERE org_id = $1 AND action = $2 AND actor_id = $3 ORDER BY at DESC, id DESC`, orgID, action, actor)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[*uuid.UUID])
	if err != nil {
		t.Fatal(err)
	}
	return out
}
