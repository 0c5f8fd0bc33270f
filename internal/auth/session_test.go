package auth_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

func TestRegisterCreatesUserAndSession(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)

	email := apitest.NewEmail()
	var s apitest.Session
	env.Call(http.MethodPost, "auth/register").
		JSON(map[string]string{"name": "Ana Gomez", "email": email, "password": apitest.Password}).
		Do().Expect(http.StatusCreated).Decode(&s)
	if s.AccessToken == "" || s.RefreshToken == "" || s.ExpiresIn != 900 {
		t.Fatalf("session %+v", s)
	}
	if s.User.Email != email || s.User.Name != "Ana Gomez" || len(s.User.Memberships) != 0 {
		t.Fatalf("user %+v", s.User)
	}

	var me struct {
		ID          string `json:"id"`
		Memberships []any  `json:"memberships"`
	}
	env.Call(http.MethodGet, "auth/me").Token(s.AccessToken).Do().Expect(http.StatusOK).Decode(&me)
	if me.ID != s.User.ID.String() || me.Memberships == nil {
		t.Fatalf("me %+v", me)
	}
}

func TestRegisterWithOrgNameMakesOwnerOnProTrial(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	s, orgID := env.NewOwner("Harborview Kitchens")
	m := s.User.Memberships[0]
	if m.OrgName != "Harborview Kitchens" || m.Role != "owner" || len(m.SiteIDs) != 0 || m.Credentials == nil {
		t.Fatalf("membership %+v", m)
	}
	var tier string
	var trialEnds time.Time
	if err := env.Pool.QueryRow(t.Context(), `SELECT plan_tier, trial_ends_at FROM orgs WHERE id = $1`, orgID).Scan(&tier, &trialEnds); err != nil {
		t.Fatal(err)
	}
	if tier != "pro" || !trialEnds.Equal(apitest.Epoch.Add(30*24*time.Hour)) {
		t.Fatalf("plan %s until %s", tier, trialEnds)
	}
}

func TestRegisterRejectsExistingEmailCaseInsensitively(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	email := apitest.NewEmail()
	env.Register("First", email)
	env.Call(http.MethodPost, "auth/register").FromIP(env.NewIP()).
		JSON(map[string]string{"name": "Second", "email": strings.ToUpper(email), "password": apitest.Password}).
		Do().ExpectCode(http.StatusConflict, "email_taken")
}

func TestRegisterValidation(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	cases := []struct {
		name  string
		body  string
		field string
	}{
		{"bad email", `{"name":"A","email":"not-an-email","password":"walk-in-cooler-pantry-9"}`, "email"},
		{"short password", `{"name":"A","email":"a@b.example","password":"short"}`, "password"},
		{"common password", `{"name":"A","email":"a@b.example","password":"password1234"}`, "password"},
		{"repeated character", `{"name":"A","email":"a@b.example","password":"aaaaaaaaaaaaaaaa"}`, "password"},
		{"password is the email", `{"name":"A","email":"chef.one@b.example","password":"chef.one@b.example"}`, "password"},
		{"missing name", `{"email":"a@b.example","password":"walk-in-cooler-pantry-9"}`, "name"},
		{"blank name", `{"name":"   ","email":"a@b.example","password":"walk-in-cooler-pantry-9"}`, "name"},
		{"unknown field", `{"name":"A","email":"a@b.example","password":"walk-in-cooler-pantry-9","admin":true}`, "admin"},
		{"empty org name", `{"name":"A","email":"a@b.example","password":"walk-in-cooler-pantry-9","orgName":""}`, "orgName"},
		{"not JSON", `{"name":`, "body"},
		{"wrong type", `{"name":7,"email":"a@b.example","password":"walk-in-cooler-pantry-9"}`, "name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Call(http.MethodPost, "auth/register").FromIP(env.NewIP()).JSON(tc.body).Do()
			e := res.ExpectError(http.StatusBadRequest, "")
			found := false
			for _, d := range e.Details {
				found = found || d.Field == tc.field
			}
			if !found {
				t.Fatalf("details %+v do not name %q", e.Details, tc.field)
			}
		})
	}
	var users int
	if err := env.Pool.QueryRow(t.Context(), `SELECT count(*) FROM users`).Scan(&users); err != nil {
		t.Fatal(err)
	}
	if users != 0 {
		t.Fatalf("%d users written by invalid requests", users)
	}
}

func TestRegisterIsLimitedPerIPPerHour(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	ip := env.NewIP()
	register := func(from string) *apitest.Response {
		return env.Call(http.MethodPost, "auth/register").FromIP(from).
			JSON(map[string]string{"name": "A", "email": apitest.NewEmail(), "password": apitest.Password}).Do()
	}
	for i := 0; i < 3; i++ {
		register(ip).Expect(http.StatusCreated)
		env.Clock.Advance(time.Minute)
	}
	res := register(ip)
	res.ExpectError(http.StatusTooManyRequests, "")
	retry, err := strconv.Atoi(res.Header.Get("Retry-After"))
	if err != nil || retry != int((57*time.Minute).Seconds()) {
		t.Fatalf("Retry-After %q, want the first registration's hour to run out (3420)", res.Header.Get("Retry-After"))
	}
	register(env.NewIP()).Expect(http.StatusCreated)

	env.Clock.Advance(57 * time.Minute)
	register(ip).Expect(http.StatusCreated)
}

func TestUnknownRoutesAndMethodsAnswerJSON(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Call(http.MethodGet, "no-such-thing").Do().ExpectError(http.StatusNotFound, "not found")
	env.Call(http.MethodDelete, "auth/register").Do().ExpectError(http.StatusMethodNotAllowed, "")
}

// SOUS_REGISTER_RATE loosens the registration limit for development; the rule it sets is the
// one enforced, per client IP.
func TestRegisterRateIsConfigurable(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, func(c *config.Config) { c.RegisterRate = config.Rate{Count: 5, Window: 10 * time.Minute} })
	ip := env.NewIP()
	register := func() *apitest.Response {
		return env.Call(http.MethodPost, "auth/register").FromIP(ip).
			JSON(map[string]string{"name": "A", "email": apitest.NewEmail(), "password": apitest.Password}).Do()
	}
	for i := 0; i < 5; i++ {
		register().Expect(http.StatusCreated)
	}
	res := register()
	res.ExpectError(http.StatusTooManyRequests, "")
	if got := res.Header.Get("Retry-After"); got != "600" {
		t.Fatalf("Retry-After %q, want the configured 10-minute window (600)", got)
	}
	env.Clock.Advance(10 * time.Minute)
	register().Expect(http.StatusCreated)
}
