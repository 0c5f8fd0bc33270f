package httpapi_test

import (
	"bytes"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// idempotencyWalk is an organization with sites A and B, an owner, and the walk's fixtures, for
// the tests of whose a stored response is.
type idempotencyWalk struct {
	*walker
	ops map[string]specOperation
}

func newIdempotencyWalk(t *testing.T) *idempotencyWalk {
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview Kitchens")
	w := &walker{env: env, owner: owner, orgID: orgID}
	w.siteA = env.Site(owner.AccessToken, orgID, "Main kitchen")
	w.siteB = env.Site(owner.AccessToken, orgID, "Pastry")
	ops := map[string]specOperation{}
	for _, o := range specOperations(t) {
		ops[o.op.OperationID] = o
	}
	return &idempotencyWalk{walker: w, ops: ops}
}

// minRole is the lowest role the operation's x-permission admits.
func (iw *idempotencyWalk) minRole(id string) authz.Role {
	r, _ := authz.MinRole(authz.Permission(iw.ops[id].permission))
	return r
}

// send calls the operation on what the fixture prepared, as token, with the Idempotency-Key.
func (iw *idempotencyWalk) send(env *apitest.Env, id string, fx walkCall, token, key string) *apitest.Response {
	return iw.ops[id].call(env, iw.orgID, iw.siteA, fx).Token(token).Header("Idempotency-Key", key).Do()
}

func replayed(res *apitest.Response) bool { return res.Header.Get("Idempotent-Replayed") == "true" }

// The operations the security probe replayed across sites: each hands out a secret (a share
// token, invitation links, a pairing code) or acts on a site's resource.
var replayProbeOps = []string{"shareCateringQuote", "shareCateringInvoice", "shareSurvey", "createSurveyInvitations", "createPairingCode", "completeTask"}

// A stored response is its caller's: a member limited to site B who sends the owner's request
// with the owner's Idempotency-Key gets what they get without the key (404), never the owner's
// answer, and the owner's own retry is still answered from the first response.
func TestIdempotencyKeyIsNotReplayedToAnotherCaller(t *testing.T) {
	t.Parallel()
	iw := newIdempotencyWalk(t)
	for _, id := range replayProbeOps {
		t.Run(id, func(t *testing.T) {
			env := iw.env.With(t)
			fx := walkFixtures[id](&walker{env: env, owner: iw.owner, orgID: iw.orgID, siteA: iw.siteA, siteB: iw.siteB})
			limited := env.Member(iw.orgID, string(iw.minRole(id)), iw.siteB)
			key := uuid.NewString()

			first := iw.send(env, id, fx, iw.owner.AccessToken, key)
			if first.Status >= 300 {
				t.Fatalf("owner got %d: %s", first.Status, first.Body)
			}
			res := iw.send(env, id, fx, limited.AccessToken, key)
			if replayed(res) || bytes.Equal(res.Body, first.Body) {
				t.Fatalf("the owner's answer was replayed to a member limited to another site: %d %s", res.Status, res.Body)
			}
			res.ExpectError(http.StatusNotFound, "")

			again := iw.send(env, id, fx, iw.owner.AccessToken, key).Expect(first.Status)
			if !replayed(again) || !bytes.Equal(again.Body, first.Body) {
				t.Fatalf("the owner's retry was not replayed: %s", again.Body)
			}
		})
	}
}

// A replay needs the authorization the first request ran under, as it is now: a member whose
// sites or role were narrowed since is not handed the stored answer; the request runs again under
// the member's present rights, and that answer is the key's from then on. A member whose rights
// only grew is replayed the first answer.
func TestIdempotencyKeyReplayNeedsTheSameAuthorization(t *testing.T) {
	t.Parallel()
	iw := newIdempotencyWalk(t)
	env := iw.env
	admin := env.Member(iw.orgID, "admin")
	setMembership := func(role string, sites ...uuid.UUID) {
		if sites == nil {
			sites = []uuid.UUID{}
		}
		if _, err := env.Pool.Exec(t.Context(), `UPDATE memberships SET role = $3, site_ids = $4 WHERE org_id = $1 AND user_id = $2`,
			iw.orgID, admin.User.ID, role, sites); err != nil {
			t.Fatal(err)
		}
	}
	const op = "shareCateringQuote"
	fx := walkFixtures[op](iw.walker)
	key := uuid.NewString()
	first := iw.send(env, op, fx, admin.AccessToken, key).Expect(http.StatusOK)

	// Rights that grew (a site added to an unlimited member changes nothing; a credential) replay.
	if _, err := env.Pool.Exec(t.Context(), `UPDATE memberships SET credentials = '{rd}' WHERE org_id = $1 AND user_id = $2`, iw.orgID, admin.User.ID); err != nil {
		t.Fatal(err)
	}
	if res := iw.send(env, op, fx, admin.AccessToken, key).Expect(http.StatusOK); !replayed(res) || !bytes.Equal(res.Body, first.Body) {
		t.Fatalf("not replayed after the member's rights grew: %s", res.Body)
	}

	// Limited to site B since: the quote of site A is not theirs any more.
	setMembership("admin", iw.siteB)
	res := iw.send(env, op, fx, admin.AccessToken, key)
	if replayed(res) {
		t.Fatalf("replayed to a member who lost the site: %s", res.Body)
	}
	res.ExpectError(http.StatusNotFound, "")

	// A role lowered (still enough for the operation) is also a narrowing: the request runs again.
	if iw.minRole(op) == authz.Admin {
		t.Fatalf("%s needs admin; the test needs an operation a lower role may call", op)
	}
	key = uuid.NewString()
	setMembership("admin")
	iw.send(env, op, fx, admin.AccessToken, key).Expect(http.StatusOK)
	setMembership(string(iw.minRole(op)))
	if res := iw.send(env, op, fx, admin.AccessToken, key).Expect(http.StatusOK); replayed(res) {
		t.Fatal("replayed to a member whose role was lowered")
	}
	// …and that run is the one the key replays from then on.
	if res := iw.send(env, op, fx, admin.AccessToken, key).Expect(http.StatusOK); !replayed(res) {
		t.Fatal("the run under the lowered role is not replayed")
	}
}

// N requests with one key from one caller run the operation once and all get its answer (or 409
// while it runs); callers racing with the same key each get their own answer.
func TestIdempotencyKeyConcurrentCallers(t *testing.T) {
	t.Parallel()
	iw := newIdempotencyWalk(t)
	env := iw.env
	const op = "createPairingCode"
	fx := walkFixtures[op](iw.walker)
	admin := env.Member(iw.orgID, "admin")
	limited := env.Member(iw.orgID, "admin", iw.siteB)
	key := uuid.NewString()

	type answer struct {
		who      string
		status   int
		replayed bool
		body     []byte
		code     string
	}
	const n = 6
	answers := make([]answer, 3*n)
	callers := []struct {
		who   string
		token string
	}{{"owner", iw.owner.AccessToken}, {"admin", admin.AccessToken}, {"limited", limited.AccessToken}}
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := callers[i%len(callers)]
			res := iw.send(env.With(t), op, fx, c.token, key)
			answers[i] = answer{who: c.who, status: res.Status, replayed: replayed(res), body: res.Body}
			if res.Status >= 300 {
				answers[i].code = res.Err().Code
			}
		}()
	}
	wg.Wait()

	executed := map[string]int{}
	bodies := map[string][][]byte{}
	for _, a := range answers {
		switch {
		case a.status == http.StatusConflict && a.code == "idempotency_key_in_use":
			// One of the caller's own requests was running.
		case a.who == "limited" && a.status == http.StatusNotFound:
			executed[a.who]++
		case a.who == "limited":
			t.Errorf("the member limited to site B got %d: %s", a.status, a.body)
		case a.status == http.StatusCreated:
			if !a.replayed {
				executed[a.who]++
			}
			bodies[a.who] = append(bodies[a.who], a.body)
		default:
			t.Errorf("%s got %d %s", a.who, a.status, a.body)
		}
	}
	if executed["limited"] == 0 {
		t.Error("the member limited to site B never got its 404")
	}
	for _, who := range []string{"owner", "admin"} {
		if executed[who] != 1 {
			t.Errorf("%s's requests ran %d times, want once", who, executed[who])
		}
		for _, b := range bodies[who] {
			if !bytes.Equal(b, bodies[who][0]) {
				t.Errorf("%s got different answers to one key: %s and %s", who, b, bodies[who][0])
			}
		}
	}
	// Each caller's code is its own.
	if len(bodies["owner"]) > 0 && len(bodies["admin"]) > 0 && slices.ContainsFunc(bodies["admin"], func(b []byte) bool { return bytes.Equal(b, bodies["owner"][0]) }) {
		t.Errorf("two callers of one key share an answer: %s", bodies["owner"][0])
	}
}
