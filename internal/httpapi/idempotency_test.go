package httpapi_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi"
	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/idempotency"
)

func createSite(env *apitest.Env, token string, orgID uuid.UUID, name, key string) *apitest.Response {
	r := env.Call(http.MethodPost, "orgs/"+orgID.String()+"/sites").Token(token).
		JSON(map[string]string{"name": name, "timezone": "America/Chicago"})
	if key != "" {
		r = r.Header("Idempotency-Key", key)
	}
	return r.Do()
}

func siteCount(env *apitest.Env, orgID uuid.UUID) int {
	env.T.Helper()
	var n int
	if err := env.Pool.QueryRow(context.Background(), "SELECT count(*) FROM sites WHERE org_id = $1", orgID).Scan(&n); err != nil {
		env.T.Fatal(err)
	}
	return n
}

func TestIdempotencyKeyReplaysTheFirstResponse(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	before := siteCount(env, orgID)

	// Without a key, two identical requests make two sites.
	createSite(env, owner.AccessToken, orgID, "Main kitchen", "").Expect(http.StatusCreated)
	createSite(env, owner.AccessToken, orgID, "Main kitchen", "").Expect(http.StatusCreated)
	if got := siteCount(env, orgID); got != before+2 {
		t.Fatalf("%d sites, want %d", got, before+2)
	}

	key := uuid.NewString()
	first := createSite(env, owner.AccessToken, orgID, "Commissary", key).Expect(http.StatusCreated)
	if first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatal("first response marked replayed")
	}
	second := createSite(env, owner.AccessToken, orgID, "Commissary", key).Expect(http.StatusCreated)
	if second.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay headers %v", second.Header)
	}
	if first.Header.Get("Location") == "" {
		t.Fatal("201 without Location")
	}
	if !bytes.Equal(first.Body, second.Body) || first.Header.Get("Location") != second.Header.Get("Location") ||
		first.Header.Get("Content-Type") != second.Header.Get("Content-Type") {
		t.Fatalf("replay differs:\n%s %v\n%s %v", first.Body, first.Header, second.Body, second.Header)
	}
	if got := siteCount(env, orgID); got != before+3 {
		t.Fatalf("%d sites after a replay, want %d", got, before+3)
	}

	// The same key with another body is refused, and creates nothing.
	createSite(env, owner.AccessToken, orgID, "Bakery", key).ExpectCode(http.StatusUnprocessableEntity, "idempotency_key_reused")
	// …as is the same key on another operation of the organization.
	env.Call(http.MethodPost, "orgs/"+orgID.String()+"/tags").Token(owner.AccessToken).Header("Idempotency-Key", key).
		JSON(map[string]any{"targetType": "equipment", "label": "Walk-in"}).Do().
		ExpectCode(http.StatusUnprocessableEntity, "idempotency_key_reused")
	if got := siteCount(env, orgID); got != before+3 {
		t.Fatalf("%d sites, want %d", got, before+3)
	}

	// Another organization's keys are its own: the same key runs there.
	other, otherOrg := env.NewOwner("Lakeside Catering")
	otherBefore := siteCount(env, otherOrg)
	res := createSite(env, other.AccessToken, otherOrg, "Commissary", key).Expect(http.StatusCreated)
	if res.Header.Get("Idempotent-Replayed") != "" || siteCount(env, otherOrg) != otherBefore+1 {
		t.Fatal("a key of another organization was replayed")
	}
	// A caller who may not make the request learns nothing from the key: the policy answers first.
	createSite(env, other.AccessToken, orgID, "Commissary", key).ExpectError(http.StatusNotFound, "Organization not found")
}

func TestIdempotencyKeyExpiresAfterADay(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	before := siteCount(env, orgID)
	key := uuid.NewString()
	createSite(env, owner.AccessToken, orgID, "Commissary", key).Expect(http.StatusCreated)

	env.Clock.Advance(idempotency.TTL - time.Second)
	owner = env.SignIn(owner.User.Email)
	res := createSite(env, owner.AccessToken, orgID, "Commissary", key).Expect(http.StatusCreated)
	if res.Header.Get("Idempotent-Replayed") != "true" || siteCount(env, orgID) != before+1 {
		t.Fatal("not replayed a second before expiry")
	}
	env.Clock.Advance(time.Second)
	res = createSite(env, owner.AccessToken, orgID, "Commissary", key).Expect(http.StatusCreated)
	if res.Header.Get("Idempotent-Replayed") != "" || siteCount(env, orgID) != before+2 {
		t.Fatal("an expired key was replayed")
	}

	// The periodic task prunes expired keys; the live one stays.
	env.Clock.Advance(idempotency.TTL)
	createSite(env, env.SignIn(owner.User.Email).AccessToken, orgID, "Bakery", uuid.NewString()).Expect(http.StatusCreated)
	if err := idempotency.PruneTask(env.Pool, env.Clock).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := env.Pool.QueryRow(context.Background(), "SELECT count(*) FROM idempotency_keys").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("%d keys after pruning, want 1", n)
	}
}

func TestIdempotencyKeyConcurrentRequestsRunOnce(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	replica := env.Replica()
	owner, orgID := env.NewOwner("Harborview Kitchens")
	before := siteCount(env, orgID)
	key := uuid.NewString()

	const n = 8
	type result struct {
		status   int
		replayed bool
		code     string
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := env
			if i%2 == 1 {
				e = replica // half of them through the other replica
			}
			e = e.With(t)
			r := e.Call(http.MethodPost, "orgs/"+orgID.String()+"/sites").Token(owner.AccessToken).
				Header("Idempotency-Key", key).JSON(map[string]string{"name": "Commissary", "timezone": "America/Chicago"}).Do()
			results[i] = result{status: r.Status, replayed: r.Header.Get("Idempotent-Replayed") == "true"}
			if r.Status != http.StatusCreated {
				results[i].code = r.Err().Code
			}
		}()
	}
	wg.Wait()
	executed := 0
	for _, r := range results {
		switch {
		case r.status == http.StatusCreated && !r.replayed:
			executed++
		case r.status == http.StatusCreated && r.replayed:
		case r.status == http.StatusConflict && r.code == "idempotency_key_in_use":
		default:
			t.Errorf("unexpected answer %+v", r)
		}
	}
	if executed != 1 || siteCount(env, orgID) != before+1 {
		t.Fatalf("%d executed, %d sites created; results %+v", executed, siteCount(env, orgID)-before, results)
	}
}

// A 429 (like a 5xx) keeps no key: the retry after the limit lifts runs.
func TestIdempotencyKeyIsReleasedWhenRateLimited(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	ip := env.NewIP()
	register := func(email, key string) *apitest.Response {
		return env.Call(http.MethodPost, "auth/register").FromIP(ip).Header("Idempotency-Key", key).
			JSON(map[string]string{"name": "Ana Gomez", "email": email, "password": apitest.Password}).Do()
	}
	for range 3 {
		register(apitest.NewEmail(), uuid.NewString()).Expect(http.StatusCreated)
	}
	key, email := uuid.NewString(), apitest.NewEmail()
	register(email, key).ExpectCode(http.StatusTooManyRequests, "rate_limited")
	env.Clock.Advance(time.Hour)
	first := register(email, key).Expect(http.StatusCreated)
	// The session (a secret shown once) replays to the same client, key and body…
	again := register(email, key).Expect(http.StatusCreated)
	if again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first.Body, again.Body) {
		t.Fatal("registration not replayed")
	}
	// …and is not readable in the table without the key.
	var stored []byte
	if err := env.Pool.QueryRow(context.Background(), "SELECT response FROM idempotency_keys WHERE status = 201 LIMIT 1").Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(stored, []byte("refreshToken")) || bytes.Contains(stored, []byte(email)) {
		t.Fatal("response stored in the clear")
	}
	// Another client address has keys of its own.
	env.Call(http.MethodPost, "auth/register").FromIP(env.NewIP()).Header("Idempotency-Key", key).
		JSON(map[string]string{"name": "Ana Gomez", "email": email, "password": apitest.Password}).Do().
		ExpectCode(http.StatusConflict, "email_taken")
}

func TestIdempotencyKeyOnMultipartUpload(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	img := image.NewPaletted(image.Rect(0, 0, 4, 4), color.Palette{color.Black, color.White})
	var pngBytes bytes.Buffer
	if err := png.Encode(&pngBytes, img); err != nil {
		t.Fatal(err)
	}
	upload := func(key string, data []byte) *apitest.Response {
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="file"; filename="menu.png"`)
		h.Set("Content-Type", "image/png")
		part, _ := w.CreatePart(h)
		_, _ = part.Write(data)
		_ = w.Close()
		// A fixed boundary, so the same file is the same body.
		body := bytes.ReplaceAll(buf.Bytes(), []byte(w.Boundary()), []byte("sous-test-boundary"))
		return env.Call(http.MethodPost, "orgs/"+orgID.String()+"/media").Token(owner.AccessToken).
			Header("Idempotency-Key", key).Raw("multipart/form-data; boundary=sous-test-boundary", body).Do()
	}
	key := uuid.NewString()
	first := upload(key, pngBytes.Bytes()).Expect(http.StatusCreated)
	again := upload(key, pngBytes.Bytes()).Expect(http.StatusCreated)
	if again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first.Body, again.Body) {
		t.Fatalf("upload not replayed: %s", again.Body)
	}
	other := append(bytes.Clone(pngBytes.Bytes()), 0)
	upload(key, other).ExpectCode(http.StatusUnprocessableEntity, "idempotency_key_reused")
}

// Every POST takes the header (tools/spec/idempotency-key.mjs adds it), so every operation that
// creates or acts is retry-safe, and the 409 and 422 it can bring are documented.
func TestEveryPostDeclaresIdempotencyKey(t *testing.T) {
	doc, err := httpapi.LoadSpec()
	if err != nil {
		t.Fatal(err)
	}
	for path, item := range doc.Paths.Map() {
		op := item.Post
		if op == nil {
			continue
		}
		found := false
		for _, p := range op.Parameters {
			if p.Value.In == "header" && strings.EqualFold(p.Value.Name, "Idempotency-Key") {
				found = true
			}
		}
		if !found {
			t.Errorf("POST %s (%s) does not declare Idempotency-Key", path, op.OperationID)
		}
		for _, status := range []int{http.StatusConflict, http.StatusUnprocessableEntity} {
			if op.Responses.Status(status) == nil {
				t.Errorf("POST %s (%s) does not document %d", path, op.OperationID, status)
			}
		}
	}
}

// A server error keeps no key: the retry runs, and its answer is the one replayed.
func TestIdempotencyKeyIsReleasedOnServerError(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	before := siteCount(env, orgID)
	exec := func(sql string) {
		if _, err := env.Pool.Exec(context.Background(), sql); err != nil {
			t.Fatal(err)
		}
	}
	// The database refuses the insert with an error the server does not expect: a 500.
	exec(`CREATE FUNCTION refuse_site() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$`)
	exec(`CREATE TRIGGER refuse_site BEFORE INSERT ON sites FOR EACH ROW EXECUTE FUNCTION refuse_site()`)
	key := uuid.NewString()
	// Sent past the test client, whose response validator rightly knows no 500 in the spec.
	req, err := http.NewRequest(http.MethodPost, env.URL+"/v1/orgs/"+orgID.String()+"/sites",
		strings.NewReader(`{"name":"Commissary","timezone":"America/Chicago"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+owner.AccessToken)
	req.Header.Set("Idempotency-Key", key)
	raw, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw.Body.Close()
	if raw.StatusCode != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", raw.StatusCode)
	}
	exec(`DROP TRIGGER refuse_site ON sites`)
	res := createSite(env, owner.AccessToken, orgID, "Commissary", key).Expect(http.StatusCreated)
	if res.Header.Get("Idempotent-Replayed") != "" || siteCount(env, orgID) != before+1 {
		t.Fatal("the retry after a 500 did not run")
	}
	again := createSite(env, owner.AccessToken, orgID, "Commissary", key).Expect(http.StatusCreated)
	if again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(res.Body, again.Body) {
		t.Fatal("the successful retry is not the one replayed")
	}
}
