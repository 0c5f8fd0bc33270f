package httpapi_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
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
			sec := doc.Security
			if op.Security != nil {
				sec = *op.Security
			}
			params := append(append(openapi3.Parameters{}, item.Parameters...), op.Parameters...)
			out = append(out, specOperation{method: method, path: path, op: op, params: params, permission: perm, planFeature: feature, public: len(sec) == 0})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path+out[i].method < out[j].path+out[j].method })
	return out
}

// request builds a call of the operation from its documented examples, with the walk's org and
// site in the path (and in the body's siteId) and a fresh id for every other path parameter.
// A path parameter named in malformed gets "not-a-uuid".
func (o specOperation) request(env *apitest.Env, orgID, siteID uuid.UUID, malformed ...string) *apitest.Request {
	path := o.path
	query := url.Values{}
	for _, pref := range o.params {
		p := pref.Value
		switch {
		case p.In == "path" && slices.Contains(malformed, p.Name):
			path = strings.ReplaceAll(path, "{"+p.Name+"}", "not-a-uuid")
		case p.In == "path" && p.Name == "orgId":
			path = strings.ReplaceAll(path, "{orgId}", orgID.String())
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
	if o.op.RequestBody != nil {
		for ct, media := range o.op.RequestBody.Value.Content {
			example := media.Example
			if example == nil {
				for _, ex := range media.Examples {
					example = ex.Value.Value
					break
				}
			}
			switch ct {
			case "application/json":
				req.JSON(withSite(example, siteID))
			case "multipart/form-data":
				req.Raw(multipartExample(media.Schema.Value, example))
			default:
				raw, _ := json.Marshal(example)
				req.Raw(ct, raw)
			}
			break
		}
	}
	return req
}

// withSite puts the walk's site into an example body's top-level siteId, so that examples that
// name a site are callable in the walk's organization.
func withSite(example any, siteID uuid.UUID) any {
	obj, ok := example.(map[string]any)
	if !ok {
		return example
	}
	if _, ok := obj["siteId"]; !ok {
		return example
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	out["siteId"] = siteID.String()
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
// gets 401; a role one below x-permission gets 403; a user of another organization gets 404; the
// minimum role gets none of 401, 403 or 402; a plan without x-plan-feature gets 402 with the
// feature; and a successful write leaves an audit row. New operations are covered the day they
// are added.
func TestEveryOperationEnforcesItsPolicy(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Walker Kitchens")
	siteID := env.Site(owner.AccessToken, orgID, "Walk-in")
	outsider, _ := env.NewOwner("Elsewhere Catering")
	members := map[authz.Role]apitest.Session{authz.Owner: owner}
	for _, r := range authz.Roles[1:] {
		members[r] = env.Member(orgID, string(r))
	}
	_, deviceToken := env.PairDevice(owner.AccessToken, orgID, siteID, "wallboard_boh")

	for _, o := range specOperations(t) {
		t.Run(o.method+" "+o.path, func(t *testing.T) {
			env := env.With(t)
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
				res := o.request(env, orgID, siteID).DeviceToken(deviceToken).Do()
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

			res := o.request(env, orgID, siteID).Token(members[min].AccessToken).Do()
			switch res.Status {
			case http.StatusUnauthorized, http.StatusForbidden, http.StatusPaymentRequired:
				t.Fatalf("%s refused with %d: %s", min, res.Status, res.Body)
			}
			if o.method != http.MethodGet && res.Status < 300 {
				var n int
				if err := env.Pool.QueryRow(t.Context(), `SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = $2`, orgID, o.op.OperationID).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					t.Fatalf("write %s succeeded without an audit row", o.op.OperationID)
				}
			}
		})
	}
}
