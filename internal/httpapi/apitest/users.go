package apitest

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
)

// Session is the decoded session of a signed-in test user.
type Session struct {
	AccessToken  string `json:"accessToken"`
	RefreshToken string `json:"refreshToken"`
	ExpiresIn    int    `json:"expiresIn"`
	User         struct {
		ID          uuid.UUID `json:"id"`
		Email       string    `json:"email"`
		Name        string    `json:"name"`
		Memberships []struct {
			OrgID       uuid.UUID   `json:"orgId"`
			OrgName     string      `json:"orgName"`
			Role        string      `json:"role"`
			SiteIDs     []uuid.UUID `json:"siteIds"`
			Credentials []string    `json:"credentials"`
		} `json:"memberships"`
	} `json:"user"`
}

// Password is the password every helper-made user has.
const Password = "walk-in-cooler-pantry-9"

var userSeq atomic.Uint64

// NewEmail returns an address no other test user has.
func NewEmail() string {
	return fmt.Sprintf("cook%d-%s@sous-test.example", userSeq.Add(1), uuid.NewString()[:8])
}

// Register signs up a new user (from a fresh IP, so registration limits never interfere).
func (e *Env) Register(name, email string) Session {
	e.T.Helper()
	var s Session
	e.Call(http.MethodPost, "auth/register").FromIP(e.NewIP()).
		JSON(map[string]string{"name": name, "email": email, "password": Password}).
		Do().Expect(http.StatusCreated).Decode(&s)
	return s
}

// NewUser signs up a user with no organization.
func (e *Env) NewUser() Session {
	e.T.Helper()
	return e.Register("Test Cook", NewEmail())
}

// NewOwner signs up a user who owns a new organization on the Pro trial.
func (e *Env) NewOwner(orgName string) (Session, uuid.UUID) {
	e.T.Helper()
	var s Session
	e.Call(http.MethodPost, "auth/register").FromIP(e.NewIP()).
		JSON(map[string]string{"name": "Test Owner", "email": NewEmail(), "password": Password, "orgName": orgName}).
		Do().Expect(http.StatusCreated).Decode(&s)
	if len(s.User.Memberships) != 1 {
		e.T.Fatalf("owner has %d memberships", len(s.User.Memberships))
	}
	return s, s.User.Memberships[0].OrgID
}

// Member signs up a new user and gives them a membership of orgID with role (owner, admin,
// manager, inspector or viewer), limited to siteIDs when any are given. The membership is
// written directly, so tests of other features need not walk the invitation flow.
func (e *Env) Member(orgID uuid.UUID, role string, siteIDs ...uuid.UUID) Session {
	e.T.Helper()
	s := e.NewUser()
	if siteIDs == nil {
		siteIDs = []uuid.UUID{}
	}
	_, err := e.Pool.Exec(e.T.Context(),
		`INSERT INTO memberships (org_id, user_id, role, site_ids, credentials, created_at, updated_at)
		 VALUES ($1, $2, $3, $4, '{}', $5, $5)`, orgID, s.User.ID, role, siteIDs, e.Clock.Now())
	if err != nil {
		e.T.Fatalf("add %s member: %v", role, err)
	}
	return s
}

// Site creates a site in orgID as the given user and returns its id.
func (e *Env) Site(token string, orgID uuid.UUID, name string) uuid.UUID {
	e.T.Helper()
	var site struct {
		ID uuid.UUID `json:"id"`
	}
	e.Call(http.MethodPost, "orgs/"+orgID.String()+"/sites").Token(token).
		JSON(map[string]string{"name": name, "timezone": "America/Chicago"}).
		Do().Expect(http.StatusCreated).Decode(&site)
	return site.ID
}

// SetPlan changes an organization's plan as an operator would (sous admin plan).
func (e *Env) SetPlan(orgID uuid.UUID, tier string, trialEnds *time.Time) {
	e.T.Helper()
	if _, err := e.Pool.Exec(e.T.Context(), `UPDATE orgs SET plan_tier = $2, trial_ends_at = $3 WHERE id = $1`, orgID, tier, trialEnds); err != nil {
		e.T.Fatal(err)
	}
}

// SignIn signs the user in again (e.g. after moving the clock past the access token's life).
func (e *Env) SignIn(email string) Session {
	e.T.Helper()
	var s Session
	e.Call(http.MethodPost, "auth/login").FromIP(e.NewIP()).
		JSON(map[string]string{"email": email, "password": Password}).
		Do().Expect(http.StatusOK).Decode(&s)
	return s
}
