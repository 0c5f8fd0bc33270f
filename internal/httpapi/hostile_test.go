package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// hostileValue is a string PostgreSQL cannot store, as raw bytes and percent-encoded.
type hostileValue struct {
	name, raw, escaped, jsonText string
}

var hostileValues = []hostileValue{
	{name: "NUL", raw: "a\x00b", escaped: "a%00b", jsonText: `"a\u0000b"`},
	{name: "xFF", raw: "a\xffb", escaped: "a%FFb", jsonText: "\"a\xffb\""},
}

// hostileTarget is one string of a request that the walk replaces with a hostile value.
type hostileTarget struct {
	in    string // path, query, header, body
	field string // the parameter's name, or the body field's dotted path
	path  []string
}

// TestHostileBytesInEveryStringAreRefused walks every operation of the spec and sends NUL and
// the byte 0xFF in each of its string parameters and each string field of its example body (and
// each top-level string property its schema has beyond the example), as a caller the operation
// admits: the owner of an organization on a plan with every feature, its paired device, or
// nobody for public operations. PostgreSQL refuses both in text, so any string that slipped past
// the edge would answer 500; each must be a 400 naming the field. New operations are covered the
// day they are added.
func TestHostileBytesInEveryStringAreRefused(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Hostile Kitchens")
	siteID := env.Site(owner.AccessToken, orgID, "Walk-in")
	_, deviceToken := env.PairDevice(owner.AccessToken, orgID, siteID, "wallboard_boh")

	for _, o := range specOperations(t) {
		for _, target := range hostileTargets(o) {
			for _, v := range hostileValues {
				if target.in == "header" && v.name == "NUL" {
					continue // net/http refuses a NUL in a header before any handler; see TestMalformedRequestsAnswerJSON
				}
				t.Run(fmt.Sprintf("%s %s/%s %s/%s", o.method, o.path, target.in, target.field, v.name), func(t *testing.T) {
					env := env.With(t)
					req := o.hostileRequest(env, orgID, siteID, target, v)
					switch o.permission {
					case httpapi.PermissionPublic:
						req.FromIP(env.NewIP())
					case httpapi.PermissionDevice:
						req.DeviceToken(deviceToken)
					default:
						req.Token(owner.AccessToken)
					}
					res := req.Do()
					if res.Status >= 500 {
						t.Fatalf("answered %d: %s", res.Status, res.Body)
					}
					e := res.ExpectError(http.StatusBadRequest, "")
					if !slices.ContainsFunc(e.Details, func(d struct {
						Field   string `json:"field"`
						Message string `json:"message"`
					}) bool {
						return d.Field == target.field
					}) {
						t.Fatalf("400 does not name %q: %s", target.field, res.Body)
					}
				})
			}
		}
	}
}

// hostileTargets lists every string the operation takes: path, query and header parameters
// whose schema is a string, and the string leaves of its JSON example body.
func hostileTargets(o specOperation) []hostileTarget {
	var out []hostileTarget
	for _, pref := range o.params {
		p := pref.Value
		if p.Schema == nil || p.Schema.Value == nil || !p.Schema.Value.Type.Is("string") {
			continue
		}
		switch p.In {
		case "path", "query", "header":
			out = append(out, hostileTarget{in: p.In, field: p.Name})
		}
	}
	if example, schema := jsonExample(o); example != nil {
		// Every string leaf of the example, and every string property the schema gives an
		// object of the example that the example leaves out.
		var walk func(v any, schema *openapi3.Schema, path []string)
		walk = func(v any, schema *openapi3.Schema, path []string) {
			switch v := v.(type) {
			case string:
				out = append(out, hostileTarget{in: "body", field: strings.Join(path, "."), path: slices.Clone(path)})
			case map[string]any:
				props := properties(schema)
				names := make([]string, 0, len(v)+len(props))
				for k := range v {
					names = append(names, k)
				}
				for k, p := range props {
					if _, ok := v[k]; !ok && p.Type.Is("string") && !p.ReadOnly {
						names = append(names, k)
					}
				}
				sort.Strings(names)
				for _, k := range names {
					val, ok := v[k]
					if !ok {
						val = "absent from the example"
					}
					walk(val, props[k], append(path, k))
				}
			case []any:
				var items *openapi3.Schema
				if schema != nil && schema.Items != nil {
					items = schema.Items.Value
				}
				for i, e := range v {
					walk(e, items, append(path, fmt.Sprint(i)))
				}
			}
		}
		walk(example, schema, nil)
	}
	return out
}

// properties are the properties a schema gives an object, through allOf, oneOf and anyOf.
func properties(schema *openapi3.Schema) map[string]*openapi3.Schema {
	out := map[string]*openapi3.Schema{}
	if schema == nil {
		return out
	}
	for name, ref := range schema.Properties {
		out[name] = ref.Value
	}
	for _, refs := range []openapi3.SchemaRefs{schema.AllOf, schema.OneOf, schema.AnyOf} {
		for _, ref := range refs {
			for name, p := range properties(ref.Value) {
				if _, ok := out[name]; !ok {
					out[name] = p
				}
			}
		}
	}
	return out
}

// jsonExample is the operation's JSON request example (with the walk's site put in later) and
// its schema.
func jsonExample(o specOperation) (any, *openapi3.Schema) {
	if o.op.RequestBody == nil {
		return nil, nil
	}
	media := o.op.RequestBody.Value.Content["application/json"]
	if media == nil {
		return nil, nil
	}
	example := media.Example
	if example == nil {
		for _, ex := range media.Examples {
			example = ex.Value.Value
			break
		}
	}
	var schema *openapi3.Schema
	if media.Schema != nil {
		schema = media.Schema.Value
	}
	return example, schema
}

const hostilePlaceholder = "\u2603hostile\u2603"

// hostileRequest is o.request with target replaced by v.
func (o specOperation) hostileRequest(env *apitest.Env, orgID, siteID uuid.UUID, target hostileTarget, v hostileValue) *apitest.Request {
	path := o.path
	query := url.Values{}
	header := http.Header{}
	for _, pref := range o.params {
		p := pref.Value
		hit := p.In == target.in && p.Name == target.field
		switch {
		case p.In == "path" && hit:
			path = strings.ReplaceAll(path, "{"+p.Name+"}", v.escaped)
		case p.In == "path" && p.Name == "orgId":
			path = strings.ReplaceAll(path, "{orgId}", orgID.String())
		case p.In == "path" && p.Name == "siteId":
			path = strings.ReplaceAll(path, "{siteId}", siteID.String())
		case p.In == "path":
			val := uuid.NewString()
			if p.Schema != nil && p.Schema.Value.Format != "uuid" && p.Example != nil {
				val = fmt.Sprint(p.Example)
			}
			path = strings.ReplaceAll(path, "{"+p.Name+"}", val)
		case p.In == "query" && hit:
			query.Set(p.Name, v.raw)
		case p.In == "query" && p.Name == "siteId":
			query.Set("siteId", siteID.String())
		case p.In == "query" && p.Required:
			query.Set(p.Name, fmt.Sprint(p.Example))
		case p.In == "header" && hit:
			header.Set(p.Name, v.raw)
		}
	}
	if len(query) > 0 {
		path += "?" + query.Encode()
	}
	req := env.Call(o.method, strings.TrimPrefix(path, "/"))
	for k := range header {
		req.Header(k, header.Get(k))
	}
	example, _ := jsonExample(o)
	if example == nil {
		if o.op.RequestBody != nil {
			// Not JSON (the media upload): the example as o.request sends it.
			for ct, media := range o.op.RequestBody.Value.Content {
				if ct == "multipart/form-data" {
					req.Raw(multipartExample(media.Schema.Value, media.Example))
				}
			}
		}
		return req
	}
	body := withSite(example, siteID)
	if target.in == "body" {
		body = replaceAt(body, target.path, hostilePlaceholder)
	}
	raw, err := json.Marshal(body)
	if err != nil {
		env.T.Fatal(err)
	}
	raw = bytes.Replace(raw, []byte(`"`+hostilePlaceholder+`"`), []byte(v.jsonText), 1)
	return req.Raw("application/json", raw)
}

// replaceAt returns a copy of v with the value at path set to s.
func replaceAt(v any, path []string, s string) any {
	if len(path) == 0 {
		return s
	}
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v)+1)
		for k, e := range v {
			out[k] = e
		}
		out[path[0]] = replaceAt(v[path[0]], path[1:], s)
		return out
	case []any:
		out := slices.Clone(v)
		var i int
		_, _ = fmt.Sscan(path[0], &i)
		out[i] = replaceAt(v[i], path[1:], s)
		return out
	}
	return s
}
