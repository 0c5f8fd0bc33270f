// Package auth owns user accounts and sessions: registration, sign-in with its lock, refresh
// token rotation, password changes, and the access tokens every other domain trusts.
package auth

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/plans"
	"github.com/sous-app/sous/internal/principal"
	"github.com/sous-app/sous/internal/ratelimit"
	"github.com/sous-app/sous/internal/reqinfo"
)

// Service implements the session operations.
type Service struct {
	pool      *pgxpool.Pool
	clock     clock.Clock
	tokens    *Tokens
	limiter   *ratelimit.Limiter
	hash      HashParams
	dummyHash string
}

// Config wires a Service.
type Config struct {
	Pool       *pgxpool.Pool
	Clock      clock.Clock
	SigningKey ed25519.PrivateKey
	Limiter    *ratelimit.Limiter
	// HashParams defaults to OWASPParams; tests lower it to keep suites fast.
	HashParams *HashParams
}

func NewService(cfg Config) (*Service, error) {
	tokens, err := NewTokens(cfg.SigningKey, cfg.Clock)
	if err != nil {
		return nil, err
	}
	params := OWASPParams
	if cfg.HashParams != nil {
		params = *cfg.HashParams
	}
	// Verifying against a real hash when the email is unknown makes "no such user" cost the
	// same as "wrong password", so response time does not reveal which emails have accounts.
	dummy, err := HashPassword("dummy password for timing equality", params)
	if err != nil {
		return nil, err
	}
	return &Service{pool: cfg.Pool, clock: cfg.Clock, tokens: tokens, limiter: cfg.Limiter, hash: params, dummyHash: dummy}, nil
}

// Tokens exposes the access token verifier for the HTTP layer's authentication.
func (s *Service) Tokens() *Tokens { return s.tokens }

// Session is what register, login, refresh and password change return.
type Session struct {
	AccessToken  string
	RefreshToken string
	ExpiresIn    int
	User         UserView
}

// UserView is a user with current memberships.
type UserView struct {
	ID          uuid.UUID
	Email       string
	Name        string
	Memberships []db.ListMembershipsForUserRow
}

var errBadCredentials = apierr.Unauthenticated("Invalid email or password").WithCode(apierr.CodeInvalidCredentials)

// RegisterInput is the body of POST /auth/register.
type RegisterInput struct {
	Name, Email, Password, OrgName string
}

// Register creates a user (and with OrgName an organization on the Pro trial, owned by the user)
// and signs them in.
func (s *Service) Register(ctx context.Context, in RegisterInput) (Session, error) {
	in.Email = strings.TrimSpace(in.Email)
	in.Name = strings.TrimSpace(in.Name)
	in.OrgName = strings.TrimSpace(in.OrgName)
	if in.Name == "" {
		return Session{}, apierr.InvalidField("name", "must not be blank")
	}
	if err := CheckNewPassword("password", in.Password, in.Email, in.Name); err != nil {
		return Session{}, err
	}
	if err := s.limiter.Take(ctx, ratelimit.Register, reqinfo.ClientIP(ctx)); err != nil {
		return Session{}, err
	}
	hash, err := HashPassword(in.Password, s.hash)
	if err != nil {
		return Session{}, err
	}
	now := s.clock.Now()
	var user db.User
	var refresh string
	err = pg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		user, err = q.CreateUser(ctx, db.CreateUserParams{
			ID: newID(), Email: in.Email, Name: in.Name, PasswordHash: hash, Now: now,
		})
		if _, dup := pg.IsUniqueViolation(err); dup {
			return apierr.Conflict("An account with this email already exists").WithCode(apierr.CodeEmailTaken)
		}
		if err != nil {
			return err
		}
		if in.OrgName != "" {
			org, err := CreateOwnedOrg(ctx, q, user.ID, in.OrgName, now)
			if err != nil {
				return err
			}
			// The new user is the actor, though the request carried no credential yet.
			actx := principal.With(ctx, principal.Principal{Kind: principal.User, UserID: user.ID})
			if err := audit.Record(actx, q, org.ID, org.ID, now); err != nil {
				return err
			}
		}
		refresh, err = s.issueRefresh(ctx, q, user.ID, newID(), nil)
		return err
	})
	if err != nil {
		return Session{}, err
	}
	return s.session(ctx, user, refresh)
}

// CreateOwnedOrg makes an organization on the Pro trial with owner as its first owner.
func CreateOwnedOrg(ctx context.Context, q *db.Queries, owner uuid.UUID, name string, now time.Time) (db.Org, error) {
	trialEnds := now.Add(plans.TrialLength)
	org, err := q.CreateOrg(ctx, db.CreateOrgParams{
		ID: newID(), Name: name, PlanTier: string(plans.Pro), TrialEndsAt: &trialEnds, Now: now,
	})
	if err != nil {
		return db.Org{}, err
	}
	err = q.CreateMembership(ctx, db.CreateMembershipParams{
		OrgID: org.ID, UserID: owner, Role: "owner", SiteIds: []uuid.UUID{}, Credentials: []string{}, Now: now,
	})
	return org, err
}

// Login signs a user in, applying the email+IP lock.
func (s *Service) Login(ctx context.Context, email, password string) (Session, error) {
	lockKey := signInKey(email, reqinfo.ClientIP(ctx))
	if err := s.limiter.CheckLock(ctx, ratelimit.SignInFails.Bucket, lockKey); err != nil {
		return Session{}, err
	}
	user, err := db.New(s.pool).GetUserByEmail(ctx, strings.TrimSpace(email))
	if err != nil && !pg.IsNoRows(err) {
		return Session{}, err
	}
	hash := user.PasswordHash
	if err != nil {
		hash = s.dummyHash
	}
	ok, verr := VerifyPassword(password, hash)
	if verr != nil {
		return Session{}, verr
	}
	if err != nil || !ok {
		if _, ferr := s.limiter.Fail(ctx, ratelimit.SignInFails, lockKey, ratelimit.SignInLock); ferr != nil {
			return Session{}, ferr
		}
		return Session{}, errBadCredentials
	}
	if err := s.limiter.Reset(ctx, ratelimit.SignInFails.Bucket, lockKey); err != nil {
		return Session{}, err
	}
	var refresh string
	err = pg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		refresh, err = s.issueRefresh(ctx, db.New(tx), user.ID, newID(), nil)
		return err
	})
	if err != nil {
		return Session{}, err
	}
	return s.session(ctx, user, refresh)
}

func signInKey(email, ip string) string {
	return strings.ToLower(strings.TrimSpace(email)) + "|" + ip
}

// Me returns the signed-in user with current memberships.
func (s *Service) Me(ctx context.Context, userID uuid.UUID) (UserView, error) {
	row, err := db.New(s.pool).GetUserWithMemberships(ctx, userID)
	if pg.IsNoRows(err) {
		return UserView{}, apierr.Unauthenticated("Invalid or expired access token").WithCode(apierr.CodeInvalidToken)
	}
	if err != nil {
		return UserView{}, err
	}
	view := UserView{ID: row.ID, Email: row.Email, Name: row.Name}
	if err := json.Unmarshal(row.Memberships, &view.Memberships); err != nil {
		return UserView{}, err
	}
	return view, nil
}

func (s *Service) userView(ctx context.Context, user db.User) (UserView, error) {
	return LoadUserView(ctx, db.New(s.pool), user)
}

// LoadUserView adds the user's current memberships.
func LoadUserView(ctx context.Context, q *db.Queries, user db.User) (UserView, error) {
	ms, err := q.ListMembershipsForUser(ctx, user.ID)
	if err != nil {
		return UserView{}, err
	}
	return UserView{ID: user.ID, Email: user.Email, Name: user.Name, Memberships: ms}, nil
}

// session signs an access token and assembles the Session for user.
func (s *Service) session(ctx context.Context, user db.User, refresh string) (Session, error) {
	access, _, err := s.tokens.Issue(user.ID)
	if err != nil {
		return Session{}, err
	}
	view, err := s.userView(ctx, user)
	if err != nil {
		return Session{}, err
	}
	return Session{
		AccessToken:  access,
		RefreshToken: refresh,
		ExpiresIn:    int(AccessTokenTTL / time.Second),
		User:         view,
	}, nil
}

// newID makes the time-ordered UUIDv7 ids the design asks for.
func newID() uuid.UUID { return uuid.Must(uuid.NewV7()) }
