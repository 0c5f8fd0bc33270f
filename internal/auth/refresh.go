package auth

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/ratelimit"
	"github.com/sous-app/sous/internal/reqinfo"
	"github.com/sous-app/sous/internal/secret"
)

// RefreshTokenTTL is the spec's refresh token lifetime.
const RefreshTokenTTL = 30 * 24 * time.Hour

const refreshPrefix = "rt_"

var errBadRefresh = apierr.Unauthenticated("Invalid, expired or revoked refresh token").WithCode(apierr.CodeInvalidRefreshToken)

// errReusedRefresh answers a token that was already exchanged: its whole family is now revoked,
// so the client must sign in again (the message stays the same as for any bad token).
var errReusedRefresh = apierr.Unauthenticated("Invalid, expired or revoked refresh token").WithCode(apierr.CodeRefreshTokenReused)

func hashRefresh(token string) []byte { return secret.Hash(token) }

// issueRefresh stores a new refresh token in family (its parent is the token it replaces).
func (s *Service) issueRefresh(ctx context.Context, q *db.Queries, userID, family uuid.UUID, parent *uuid.UUID) (string, error) {
	token, hash := secret.New(refreshPrefix)
	now := s.clock.Now()
	err := q.CreateRefreshToken(ctx, db.CreateRefreshTokenParams{
		ID: newID(), UserID: userID, FamilyID: family, ParentID: parent,
		TokenHash: hash, IssuedAt: now, ExpiresAt: now.Add(RefreshTokenTTL),
	})
	return token, err
}

// Refresh consumes a refresh token and returns a new session in the same family. A token that
// was already consumed is evidence of theft: the family is revoked, so neither the thief nor
// the user can keep using it.
func (s *Service) Refresh(ctx context.Context, token string) (Session, error) {
	hash := hashRefresh(token)
	now := s.clock.Now()
	var user db.User
	var next string
	reused := false
	err := pg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		old, err := q.ConsumeRefreshToken(ctx, db.ConsumeRefreshTokenParams{TokenHash: hash, Now: now})
		if pg.IsNoRows(err) {
			prior, perr := q.GetRefreshTokenByHash(ctx, hash)
			if perr == nil && prior.ConsumedAt != nil && prior.RevokedAt == nil {
				reused = true
				if _, err := q.RevokeRefreshTokenFamily(ctx, db.RevokeRefreshTokenFamilyParams{FamilyID: prior.FamilyID, Now: now}); err != nil {
					return err
				}
				return recordEvent(ctx, q, prior.UserID, eventRefreshReuse, now)
			}
			if perr != nil && !pg.IsNoRows(perr) {
				return perr
			}
			return errBadRefresh
		}
		if err != nil {
			return err
		}
		if user, err = q.GetUser(ctx, old.UserID); err != nil {
			return err
		}
		next, err = s.issueRefresh(ctx, q, old.UserID, old.FamilyID, &old.ID)
		return err
	})
	if err != nil {
		return Session{}, err
	}
	if reused {
		return Session{}, errReusedRefresh
	}
	return s.session(ctx, user, next)
}

// Logout revokes the token's whole family. Unknown tokens are ignored, so logout is idempotent
// and reveals nothing about the token; signing out of a sign-in already ended records nothing.
func (s *Service) Logout(ctx context.Context, token string) error {
	now := s.clock.Now()
	return pg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		prior, err := q.GetRefreshTokenByHash(ctx, hashRefresh(token))
		if pg.IsNoRows(err) {
			return nil
		}
		if err != nil {
			return err
		}
		n, err := q.RevokeRefreshTokenFamily(ctx, db.RevokeRefreshTokenFamilyParams{FamilyID: prior.FamilyID, Now: now})
		if err != nil || n == 0 {
			return err
		}
		return recordEvent(ctx, q, prior.UserID, eventSignedOut, now)
	})
}

// ChangePassword checks the current password, stores the new one, revokes every outstanding
// refresh token of the user and starts a fresh session. Wrong current passwords count toward the
// same email+IP lock as sign-ins (reserved before verifying, as there), so this endpoint cannot
// be used to guess passwords faster.
func (s *Service) ChangePassword(ctx context.Context, userID uuid.UUID, current, next string) (Session, error) {
	return s.admitted(ctx, func() (Session, error) { return s.changePassword(ctx, userID, current, next) })
}

func (s *Service) changePassword(ctx context.Context, userID uuid.UUID, current, next string) (Session, error) {
	user, err := db.New(s.pool).GetUser(ctx, userID)
	if pg.IsNoRows(err) {
		return Session{}, apierr.Unauthenticated("Invalid or expired access token").WithCode(apierr.CodeInvalidToken)
	}
	if err != nil {
		return Session{}, err
	}
	var res *ratelimit.Reservation
	err = pg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		res, err = s.limiter.Reserve(ctx, db.New(tx), ratelimit.SignInFails, signInKey(user.Email, reqinfo.ClientKey(ctx)))
		return err
	})
	if err != nil {
		return Session{}, err
	}
	ok, err := s.verifyPassword(ctx, current, user.PasswordHash)
	if err != nil {
		_ = s.limiter.Cancel(context.WithoutCancel(ctx), res)
		return Session{}, err
	}
	if !ok {
		err := pg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
			return s.recordFailure(ctx, db.New(tx), res, true, user.ID, s.clock.Now())
		})
		if err != nil {
			return Session{}, err
		}
		return Session{}, apierr.InvalidField("currentPassword", "is incorrect")
	}
	// The right current password: whatever follows, this was not a guess.
	if err := s.limiter.Cancel(context.WithoutCancel(ctx), res); err != nil {
		return Session{}, err
	}
	if err := CheckNewPassword("newPassword", next, user.Email, user.Name); err != nil {
		return Session{}, err
	}
	hash, err := s.hashPassword(ctx, next)
	if err != nil {
		return Session{}, err
	}
	now := s.clock.Now()
	var refresh string
	err = pg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if err := q.UpdateUserPassword(ctx, db.UpdateUserPasswordParams{ID: userID, PasswordHash: hash, Now: now}); err != nil {
			return err
		}
		if err := q.RevokeUserRefreshTokens(ctx, db.RevokeUserRefreshTokensParams{UserID: userID, Now: now}); err != nil {
			return err
		}
		if err := recordEvent(ctx, q, userID, eventPasswordChanged, now); err != nil {
			return err
		}
		refresh, err = s.issueRefresh(ctx, q, userID, newID(), nil)
		return err
	})
	if err != nil {
		return Session{}, err
	}
	return s.session(ctx, user, refresh)
}
