package devices

import (
	"context"
	"crypto/rand"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/plans"
	"github.com/sous-app/sous/internal/principal"
	"github.com/sous-app/sous/internal/ratelimit"
	"github.com/sous-app/sous/internal/realtime"
	"github.com/sous-app/sous/internal/reqinfo"
	"github.com/sous-app/sous/internal/secret"
)

const (
	// CodeAlphabet has no characters that read alike: no 0/O, no 1/I/L.
	CodeAlphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
	// CodeLength is the spec's pairing code length.
	CodeLength = 6
	// CodeTTL is how long a pairing code can be claimed.
	CodeTTL = 10 * time.Minute
	// tokenPrefix names device tokens among the server's secrets.
	tokenPrefix = "sous_dev_"
	// touchEvery bounds how often a device's lastSeenAt is written.
	touchEvery = time.Minute
)

var (
	errInvalidToken = apierr.Unauthenticated("Invalid device token").WithCode(apierr.CodeInvalidDeviceToken)
	errCodeNotFound = apierr.NotFound("Pairing code").WithCode(apierr.CodePairingCodeNotFound)
)

// newCode draws CodeLength characters uniformly from CodeAlphabet.
func newCode() string {
	const n = len(CodeAlphabet)
	limit := byte(256 - 256%n) // reject bytes at or above it, so every letter is equally likely
	out := make([]byte, 0, CodeLength)
	buf := make([]byte, 16)
	for len(out) < CodeLength {
		_, _ = rand.Read(buf) // crypto/rand does not fail on supported platforms
		for _, b := range buf {
			if b < limit && len(out) < CodeLength {
				out = append(out, CodeAlphabet[int(b)%n])
			}
		}
	}
	return string(out)
}

// normalizeCode reads a code as a person might type it: any case, with spaces or dashes.
func normalizeCode(s string) (string, bool) {
	s = strings.ToUpper(strings.NewReplacer(" ", "", "-", "", "\t", "").Replace(s))
	if len(s) != CodeLength {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(CodeAlphabet, s[i]) < 0 {
			return "", false
		}
	}
	return s, true
}

func codeHash(code string) []byte { return secret.Hash("pair:" + code) }

// checkCap refuses to pair one more device when the organization's paired devices already
// fill the plan's cap.
func checkCap(ctx context.Context, q *db.Queries, orgID uuid.UUID, plan plans.Plan) error {
	limit := plan.DeviceLimit()
	if limit == plans.Unlimited {
		return nil
	}
	n, err := q.CountPairedDevices(ctx, orgID)
	if err != nil {
		return err
	}
	if int(n) >= limit {
		return authz.PlanRequired(plans.DeviceLimit, plan)
	}
	return nil
}

func (h *Handlers) CreatePairingCode(ctx context.Context, req api.CreatePairingCodeRequestObject) (api.CreatePairingCodeResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	expires := now.Add(CodeTTL)
	creator := a.UserID()
	for attempt := 1; ; attempt++ {
		code := newCode()
		err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
			d, err := loadDevice(ctx, q, a, req.Id, true)
			if err != nil {
				return err
			}
			if d.TokenHash == nil { // pairing it would add a device; the claim checks again
				if err := checkCap(ctx, q, a.OrgID, a.Plan); err != nil {
					return err
				}
			}
			if err := q.PruneExpiredPairingCodes(ctx, now); err != nil {
				return err
			}
			err = q.UpsertPairingCode(ctx, db.UpsertPairingCodeParams{
				DeviceID: d.ID, OrgID: d.OrgID, CodeHash: codeHash(code), CreatedBy: &creator, Now: now, ExpiresAt: expires,
			})
			if err != nil {
				return err
			}
			return audit.RecordSite(ctx, q, a.OrgID, d.SiteID, d.ID, now)
		})
		// A live code of another device drew the same letters: draw again.
		if _, dup := pg.IsUniqueViolation(err); dup && attempt < 5 {
			continue
		}
		if err != nil {
			return nil, err
		}
		return api.CreatePairingCode201JSONResponse{Body: api.PairingCode{Code: code, ExpiresAt: expires}}, nil
	}
}

// ClaimPairingCode pairs the device whose live code is presented. Unknown, expired and used codes
// are one and the same 404, so a caller learns nothing about codes of any organization.
func (h *Handlers) ClaimPairingCode(ctx context.Context, req api.ClaimPairingCodeRequestObject) (api.ClaimPairingCodeResponseObject, error) {
	// Every attempt counts, well-formed or not, so the limit bounds guessing.
	if err := h.limiter.Take(ctx, ratelimit.DevicePair, reqinfo.ClientKey(ctx)); err != nil {
		return nil, err
	}
	code, ok := normalizeCode(req.Body.Code)
	if !ok {
		return nil, apierr.InvalidField("code", "must be the 6 characters shown when the code was minted")
	}
	now := h.clock.Now()
	token, hash := secret.New(tokenPrefix)
	var row db.Device
	err := pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		c, err := q.FindPairingCode(ctx, db.FindPairingCodeParams{CodeHash: codeHash(code), Now: now})
		if pg.IsNoRows(err) {
			return errCodeNotFound
		}
		if err != nil {
			return err
		}
		// Locks in the order every device write takes them (device, then its code), so a claim
		// racing a re-mint or an unpairing waits instead of deadlocking.
		cur, err := q.GetDeviceForUpdate(ctx, db.GetDeviceForUpdateParams{OrgID: c.OrgID, ID: c.DeviceID})
		if err != nil {
			return err
		}
		o, err := q.LockOrgForPairing(ctx, c.OrgID)
		if err != nil {
			return err
		}
		n, err := q.TakePairingCode(ctx, db.TakePairingCodeParams{CodeHash: codeHash(code), DeviceID: cur.ID, Now: now})
		if err != nil {
			return err
		}
		if n == 0 {
			return errCodeNotFound
		}
		if cur.TokenHash == nil {
			// Rolling back keeps the code: it works once the organization has room.
			if err := checkCap(ctx, q, c.OrgID, plans.Effective(o.PlanTier, o.TrialEndsAt, now)); err != nil {
				return err
			}
		} else if err := realtime.DisconnectDevice(ctx, tx, cur.ID); err != nil {
			return err // re-pairing: sockets opened with the old token close
		}
		if row, err = q.PairDevice(ctx, db.PairDeviceParams{OrgID: c.OrgID, ID: c.DeviceID, TokenHash: hash, Now: now}); err != nil {
			return err
		}
		actx := principal.With(ctx, principal.Principal{Kind: principal.Device, OrgID: row.OrgID, DeviceID: row.ID})
		return audit.RecordSite(actx, q, row.OrgID, row.SiteID, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	d, err := toAPIDevice(row)
	if err != nil {
		return nil, err
	}
	return api.ClaimPairingCode200JSONResponse{Body: api.PairedDevice{DeviceToken: token, Device: d}}, nil
}

func (h *Handlers) RevokeDevice(ctx context.Context, req api.RevokeDeviceRequestObject) (api.RevokeDeviceResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var row db.Device
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		cur, err := loadDevice(ctx, q, a, req.Id, true)
		if err != nil {
			return err
		}
		if row, err = q.UnpairDevice(ctx, db.UnpairDeviceParams{OrgID: a.OrgID, ID: req.Id, Now: now}); err != nil {
			return err
		}
		if err := q.DeletePairingCode(ctx, db.DeletePairingCodeParams{OrgID: a.OrgID, DeviceID: req.Id}); err != nil {
			return err
		}
		if err := realtime.DisconnectDevice(ctx, tx, req.Id); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, cur.SiteID, req.Id, now)
	})
	if err != nil {
		return nil, err
	}
	d, err := toAPIDevice(row)
	if err != nil {
		return nil, err
	}
	return api.RevokeDevice200JSONResponse(d), nil
}

// Authenticate resolves a device token. Every request looks the token up, so unpairing takes
// effect at once; lastSeenAt is written at most once a minute per device. The lookup loads the
// device's state as well, which GET /device/state then serves without another query.
func (h *Handlers) Authenticate(ctx context.Context, token string) (principal.Principal, error) {
	if !strings.HasPrefix(token, tokenPrefix) {
		return principal.Principal{}, errInvalidToken
	}
	q := db.New(h.pool)
	row, err := q.AuthenticateDevice(ctx, secret.Hash(token))
	if pg.IsNoRows(err) {
		return principal.Principal{}, errInvalidToken
	}
	if err != nil {
		return principal.Principal{}, err
	}
	now := h.clock.Now()
	if row.LastSeenAt == nil || now.Sub(*row.LastSeenAt) >= touchEvery {
		if err := q.TouchDevice(ctx, db.TouchDeviceParams{ID: row.ID, Now: now.Truncate(time.Minute), StaleBefore: now.Add(-touchEvery)}); err != nil {
			return principal.Principal{}, err
		}
	}
	return principal.Principal{Kind: principal.Device, OrgID: row.OrgID, DeviceID: row.ID, Loaded: &row}, nil
}
