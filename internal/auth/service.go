// Package auth owns user accounts and sessions: registration, sign-in with its lock, refresh
// token rotation, password changes, and the access tokens every other domain trusts.
package auth

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

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
	pool         *pgxpool.Pool
	lookups      *pg.Lookups
	clock        clock.Clock
	tokens       *Tokens
	limiter      *ratelimit.Limiter
	hash         HashParams
	dummyHash    string
	gate         *hashGate
	queue        *passwordQueue
	onVerify     func()
	onQueued     func()
	registerRule ratelimit.Rule
	memberships  *membershipCache
}

// Config wires a Service.
type Config struct {
	Pool *pgxpool.Pool
	// Lookups runs the plan-stable reads (the user's memberships version on GET /auth/me).
	Lookups    *pg.Lookups
	Clock      clock.Clock
	SigningKey ed25519.PrivateKey
	Limiter    *ratelimit.Limiter
	// HashParams defaults to OWASPParams; tests lower it to keep suites fast.
	HashParams *HashParams
	// HashSlots is how many argon2id hashes or verifications may run at once; 0 sizes it from
	// the CPUs and the memory cost (see newHashGate).
	HashSlots int
	// QueueLimit and QueueShare override queueLimit and queueShare (tests only; 0 keeps them).
	QueueLimit, QueueShare int
	// OnVerify, when set, is called before every password verification (tests count them).
	OnVerify func()
	// OnQueued, when set, is called when a password operation joins the queue for a slot
	// (tests wait on it).
	OnQueued func()
	// RegisterRule overrides the registrations allowed per client IP (SOUS_REGISTER_RATE);
	// zero means ratelimit.Register, the spec's 3 per hour.
	RegisterRule ratelimit.Rule
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
	gate := newHashGate(params, cfg.HashSlots)
	limit, share := queueLimit, queueShare
	if cfg.QueueLimit > 0 {
		limit = cfg.QueueLimit
	}
	if cfg.QueueShare > 0 {
		share = cfg.QueueShare
	}
	queue := newPasswordQueue(admitFactor*cap(gate.slots), limit, share, time.Now, refusalPace)
	onVerify := cfg.OnVerify
	if onVerify == nil {
		onVerify = func() {}
	}
	register := ratelimit.Register
	if cfg.RegisterRule.Limit > 0 {
		register.Limit, register.Window = cfg.RegisterRule.Limit, cfg.RegisterRule.Window
	}
	return &Service{
		pool: cfg.Pool, lookups: cfg.Lookups, clock: cfg.Clock, tokens: tokens, limiter: cfg.Limiter, hash: params,
		dummyHash: dummy, gate: gate, queue: queue, onVerify: onVerify, onQueued: cfg.OnQueued,
		registerRule: register, memberships: newMembershipCache(membershipCacheSize),
	}, nil
}

// admitFactor is how many password operations (registration, sign-in, password change) may be
// in progress per argon2id slot: enough to keep the slots busy while others do their queries.
const admitFactor = 2

// admitted runs a whole password operation, its queries included, when its turn in the queue
// comes (see passwordQueue). Bounding only the hashing is not enough: a flood of sign-ins
// waiting for a hash slot would still each run their rate-limit and lock queries first, and hold
// the connection pool that every other request needs. Waiting in the queue holds no connection.
func (s *Service) admitted(ctx context.Context, op func() (Session, error)) (sess Session, err error) {
	if gerr := s.queue.run(ctx, reqinfo.ClientKey(ctx), s.onQueued, func() { sess, err = op() }); gerr != nil {
		return Session{}, gerr
	}
	return sess, err
}

// hashPassword hashes within the gate's bound on concurrent argon2id work.
func (s *Service) hashPassword(ctx context.Context, password string) (hash string, err error) {
	if gerr := s.gate.run(ctx, func() { hash, err = HashPassword(password, s.hash) }); gerr != nil {
		return "", gerr
	}
	return hash, err
}

// verifyPassword verifies within the gate's bound on concurrent argon2id work.
func (s *Service) verifyPassword(ctx context.Context, password, hash string) (ok bool, err error) {
	if gerr := s.gate.run(ctx, func() {
		s.onVerify()
		ok, err = VerifyPassword(password, hash)
	}); gerr != nil {
		return false, gerr
	}
	return ok, err
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
	// membershipsJSON, when set, is Memberships as GET /auth/me writes them, kept with them in
	// the memberships cache (see meResponse).
	membershipsJSON []byte
}

var (
	errBadCredentials = apierr.Unauthenticated("Invalid email or password").WithCode(apierr.CodeInvalidCredentials)
	errEmailTaken     = apierr.Conflict("An account with this email already exists").WithCode(apierr.CodeEmailTaken)
)

// RegisterInput is the body of POST /auth/register.
type RegisterInput struct {
	Name, Email, Password, OrgName string
}

// Register creates a user (and with OrgName an organization on the Pro trial, owned by the user)
// and signs them in.
// A malformed registration is answered 400 before it joins the password queue, so a burst never
// turns a client's mistake into a 503.
func (s *Service) Register(ctx context.Context, in RegisterInput) (Session, error) {
	in, err := checkRegisterInput(in)
	if err != nil {
		return Session{}, err
	}
	return s.admitted(ctx, func() (Session, error) { return s.register(ctx, in) })
}

// checkRegisterInput trims a registration and checks what needs no database or hash.
func checkRegisterInput(in RegisterInput) (RegisterInput, error) {
	in.Email = strings.TrimSpace(in.Email)
	in.Name = strings.TrimSpace(in.Name)
	in.OrgName = strings.TrimSpace(in.OrgName)
	if in.Name == "" {
		return in, apierr.InvalidField("name", "must not be blank")
	}
	for _, f := range []struct{ name, value string }{{"name", in.Name}, {"email", in.Email}, {"orgName", in.OrgName}} {
		if !storable(f.value) {
			return in, apierr.InvalidField(f.name, "must be valid UTF-8 text without NUL characters")
		}
	}
	return in, CheckNewPassword("password", in.Password, in.Email, in.Name)
}

// register runs in the password queue on an input checkRegisterInput passed.
func (s *Service) register(ctx context.Context, in RegisterInput) (Session, error) {
	// An IP out of registrations is refused before the costly hash (the allowance itself is
	// taken below).
	if err := s.limiter.Check(ctx, s.registerRule, reqinfo.ClientKey(ctx)); err != nil {
		return Session{}, err
	}
	hash, err := s.hashPassword(ctx, in.Password)
	if err != nil {
		return Session{}, err
	}
	now := s.clock.Now()
	var user db.User
	var refresh string
	// The registration allowance is taken in the transaction that creates the account, so a
	// registration refused with 400 (anything the database refuses included) rolls it back and
	// costs the client nothing. An email already registered does use it up (the 409 is answered
	// after the commit), or the limit would not slow down probing for accounts.
	err = pg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if err := s.limiter.TakeIn(ctx, q, s.registerRule, reqinfo.ClientKey(ctx)); err != nil {
			return err
		}
		if _, err := q.GetUserByEmail(ctx, in.Email); err == nil {
			return nil
		} else if !pg.IsNoRows(err) {
			return err
		}
		user, err = q.CreateUser(ctx, db.CreateUserParams{
			ID: newID(), Email: in.Email, Name: in.Name, PasswordHash: hash, Now: now,
		})
		if _, dup := pg.IsUniqueViolation(err); dup {
			return errEmailTaken
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
		if err := recordEvent(ctx, q, user.ID, eventRegistered, now); err != nil {
			return err
		}
		refresh, err = s.issueRefresh(ctx, q, user.ID, newID(), nil)
		return err
	})
	if err != nil {
		return Session{}, err
	}
	if user.ID == uuid.Nil {
		return Session{}, errEmailTaken
	}
	return s.session(ctx, user, refresh)
}

// storable reports whether PostgreSQL can store s as text: it refuses NUL and invalid UTF-8.
func storable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
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

// Login signs a user in. The attempt is reserved under the email+IP lock before the password
// is verified, in one PostgreSQL transaction (with the per-IP sign-in rate), so parallel guesses
// on any number of replicas get at most the lock's limit of verifications; the reservation is
// settled as a failure or released on success in the transaction that records the event.
func (s *Service) Login(ctx context.Context, email, password string) (Session, error) {
	return s.admitted(ctx, func() (Session, error) { return s.login(ctx, email, password) })
}

func (s *Service) login(ctx context.Context, email, password string) (Session, error) {
	ip := reqinfo.ClientKey(ctx)
	var res *ratelimit.Reservation
	var user db.User
	known := false
	err := pg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if err := s.limiter.TakeIn(ctx, q, ratelimit.SignInIP, ip); err != nil {
			return err
		}
		var err error
		if res, err = s.limiter.Reserve(ctx, q, ratelimit.SignInFails, signInKey(email, ip)); err != nil {
			return err
		}
		user, err = q.GetUserByEmail(ctx, strings.TrimSpace(email))
		if pg.IsNoRows(err) {
			return nil
		}
		known = err == nil
		return err
	})
	if err != nil {
		return Session{}, err
	}
	// Verifying against a real hash when the email is unknown makes "no such user" cost the
	// same as "wrong password".
	hash := s.dummyHash
	if known {
		hash = user.PasswordHash
	}
	ok, err := s.verifyPassword(ctx, password, hash)
	if err != nil {
		// The password was not checked (busy, or a broken hash): the attempt does not count.
		_ = s.limiter.Cancel(context.WithoutCancel(ctx), res)
		return Session{}, err
	}
	now := s.clock.Now()
	if !known || !ok {
		err = pg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
			return s.recordFailure(ctx, db.New(tx), res, known, user.ID, now)
		})
		if err != nil {
			return Session{}, err
		}
		return Session{}, errBadCredentials
	}
	var refresh string
	err = pg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if err := s.limiter.Succeed(ctx, q, res); err != nil {
			return err
		}
		if err := recordEvent(ctx, q, user.ID, eventSignIn, now); err != nil {
			return err
		}
		refresh, err = s.issueRefresh(ctx, q, user.ID, newID(), nil)
		return err
	})
	if err != nil {
		return Session{}, err
	}
	return s.session(ctx, user, refresh)
}

// recordFailure settles a reserved attempt as a failure and, for an existing account, records
// sign_in_failed (and locked when this failure locks the pair) in the same transaction.
func (s *Service) recordFailure(ctx context.Context, q *db.Queries, res *ratelimit.Reservation, known bool, userID uuid.UUID, now time.Time) error {
	locked, err := s.limiter.Fail(ctx, q, res, ratelimit.SignInLock)
	if err != nil || !known {
		return err
	}
	if err := recordEvent(ctx, q, userID, eventSignInFailed, now); err != nil {
		return err
	}
	if locked {
		return recordEvent(ctx, q, userID, eventLocked, now)
	}
	return nil
}

func signInKey(email, ip string) string {
	return strings.ToLower(strings.TrimSpace(email)) + "|" + ip
}

// Me returns the signed-in user with current memberships.
func (s *Service) Me(ctx context.Context, userID uuid.UUID) (UserView, error) {
	u, err := s.lookups.Queries().GetUserMembershipVersion(ctx, userID)
	if pg.IsNoRows(err) {
		return UserView{}, apierr.Unauthenticated("Invalid or expired access token").WithCode(apierr.CodeInvalidToken)
	}
	if err != nil {
		return UserView{}, err
	}
	view := UserView{ID: u.ID, Email: u.Email, Name: u.Name}
	if e, ok := s.memberships.get(userID, u.MembershipsVersion); ok {
		view.Memberships, view.membershipsJSON = e.memberships, e.encoded
		return view, nil
	}
	row, err := db.New(s.pool).GetUserWithMemberships(ctx, userID)
	if pg.IsNoRows(err) {
		return UserView{}, apierr.Unauthenticated("Invalid or expired access token").WithCode(apierr.CodeInvalidToken)
	}
	if err != nil {
		return UserView{}, err
	}
	view = UserView{ID: row.ID, Email: row.Email, Name: row.Name}
	if err := json.Unmarshal(row.Memberships, &view.Memberships); err != nil {
		return UserView{}, err
	}
	view.membershipsJSON, err = s.memberships.put(userID, row.MembershipsVersion, view.Memberships)
	if err != nil {
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
