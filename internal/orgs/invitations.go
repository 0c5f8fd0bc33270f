package orgs

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/auth"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/principal"
	"github.com/sous-app/sous/internal/secret"
)

// InvitationTTL is how long an invitation link works.
const InvitationTTL = 7 * 24 * time.Hour

const invitationPrefix = "inv_"

var errInvitationNotFound = apierr.NotFound("Invitation").WithCode(apierr.CodeInvitationNotFound)

func (h *Handlers) CreateInvitation(ctx context.Context, req api.CreateInvitationRequestObject) (api.CreateInvitationResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	role, err := grantableRole(a, string(req.Body.Role))
	if err != nil {
		return nil, err
	}
	email := strings.TrimSpace(string(req.Body.Email))
	var sites []uuid.UUID
	creds := []string{}
	if req.Body.Credentials != nil {
		creds = credentials(*req.Body.Credentials)
	}
	now := h.clock.Now()
	token, hash := secret.New(invitationPrefix)
	var inv db.Invitation
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		requested := []uuid.UUID{}
		if req.Body.SiteIds != nil {
			requested = *req.Body.SiteIds
		}
		if sites, err = grantableSites(ctx, q, a, requested); err != nil {
			return err
		}
		member, err := q.IsMemberByEmail(ctx, db.IsMemberByEmailParams{OrgID: req.OrgId, Email: email})
		if err != nil {
			return err
		}
		if member {
			return apierr.Conflict("This email already belongs to a member of the organization").WithCode(apierr.CodeAlreadyMember)
		}
		// Inviting again replaces the pending invitation, so only the newest link works.
		if err := q.RevokePendingInvitationsFor(ctx, db.RevokePendingInvitationsForParams{OrgID: req.OrgId, Email: email, Now: now}); err != nil {
			return err
		}
		inviter := a.UserID()
		inv, err = q.CreateInvitation(ctx, db.CreateInvitationParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: req.OrgId, Email: email, Role: string(role),
			SiteIds: sites, Credentials: creds, TokenHash: hash, InvitedBy: &inviter,
			Now: now, ExpiresAt: now.Add(InvitationTTL),
		})
		if err != nil {
			return err
		}
		return audit.Record(ctx, q, req.OrgId, inv.ID, now)
	})
	if err != nil {
		return nil, err
	}
	v := toAPIInvitation(inv)
	return api.CreateInvitation201JSONResponse{Body: api.CreatedInvitation{
		Id: v.Id, Email: v.Email, Role: v.Role, SiteIds: v.SiteIds, Credentials: v.Credentials,
		InvitedBy: v.InvitedBy, CreatedAt: v.CreatedAt, ExpiresAt: v.ExpiresAt, Token: token,
	}}, nil
}

func (h *Handlers) ListInvitations(ctx context.Context, req api.ListInvitationsRequestObject) (api.ListInvitationsResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := db.New(h.pool).ListPendingInvitations(ctx, db.ListPendingInvitationsParams{OrgID: req.OrgId, Now: h.clock.Now()})
	if err != nil {
		return nil, err
	}
	out := make(api.ListInvitations200JSONResponse, 0, len(rows))
	for _, inv := range rows {
		// A site-scoped member sees the invitations to their own sites, as with members' sites.
		if a.Scoped() && !withinScope(a, inv.SiteIds) {
			continue
		}
		out = append(out, toAPIInvitation(inv))
	}
	return out, nil
}

func (h *Handlers) RevokeInvitation(ctx context.Context, req api.RevokeInvitationRequestObject) (api.RevokeInvitationResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		inv, err := q.GetInvitationForUpdate(ctx, db.GetInvitationForUpdateParams{OrgID: req.OrgId, ID: req.Id})
		if err != nil {
			return notFound(err, "Invitation")
		}
		// Withdrawing an invitation is a change to the membership it would create: the same
		// rank and site rules apply as to changing that member.
		if err := canManage(a, "Invitation", inv.Role, inv.SiteIds); err != nil {
			return err
		}
		// Already revoked or accepted is not an error.
		n, err := q.RevokeInvitation(ctx, db.RevokeInvitationParams{OrgID: req.OrgId, ID: req.Id, Now: now})
		if err != nil || n == 0 {
			return err
		}
		return audit.Record(ctx, q, req.OrgId, req.Id, now)
	})
	if err != nil {
		return nil, err
	}
	return api.RevokeInvitation204Response{}, nil
}

func (h *Handlers) AcceptInvitation(ctx context.Context, req api.AcceptInvitationRequestObject) (api.AcceptInvitationResponseObject, error) {
	p, ok := principal.From(ctx)
	if !ok || p.Kind != principal.User {
		return nil, apierr.Unauthenticated("Authentication required")
	}
	now := h.clock.Now()
	var view auth.UserView
	err := pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		inv, err := q.GetInvitationByTokenForUpdate(ctx, secret.Hash(req.Body.Token))
		if err != nil {
			if pg.IsNoRows(err) {
				return errInvitationNotFound
			}
			return err
		}
		if inv.AcceptedAt != nil || inv.RevokedAt != nil {
			return errInvitationNotFound
		}
		if !now.Before(inv.ExpiresAt) {
			// Only the holder of the token learns this, so the sender can be asked for a new one.
			return apierr.NotFound("Invitation").WithCode(apierr.CodeInvitationExpired)
		}
		user, err := q.GetUser(ctx, p.UserID)
		if err != nil {
			return err
		}
		if !strings.EqualFold(user.Email, inv.Email) {
			return apierr.Forbidden("This invitation was sent to another email address").WithCode(apierr.CodeInvitationEmail)
		}
		exists, err := q.MembershipExists(ctx, db.MembershipExistsParams{OrgID: inv.OrgID, UserID: user.ID})
		if err != nil {
			return err
		}
		if exists {
			return apierr.Conflict("You are already a member of this organization").WithCode(apierr.CodeAlreadyMember)
		}
		if err := q.CreateMembership(ctx, db.CreateMembershipParams{
			OrgID: inv.OrgID, UserID: user.ID, Role: inv.Role, SiteIds: inv.SiteIds, Credentials: inv.Credentials, Now: now,
		}); err != nil {
			return err
		}
		if err := q.MarkInvitationAccepted(ctx, db.MarkInvitationAcceptedParams{ID: inv.ID, UserID: &user.ID, Now: now}); err != nil {
			return err
		}
		if err := audit.Record(ctx, q, inv.OrgID, inv.ID, now); err != nil {
			return err
		}
		view, err = auth.LoadUserView(ctx, q, user)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.AcceptInvitation200JSONResponse(auth.ToAPIUser(view)), nil
}

func toAPIInvitation(inv db.Invitation) api.Invitation {
	creds := make([]api.Credential, 0, len(inv.Credentials))
	for _, c := range inv.Credentials {
		creds = append(creds, api.Credential(c))
	}
	out := api.Invitation{
		Id: inv.ID, Email: openapi_types.Email(inv.Email), Role: api.Role(inv.Role), SiteIds: inv.SiteIds,
		Credentials: creds, CreatedAt: inv.CreatedAt, ExpiresAt: inv.ExpiresAt,
	}
	if inv.InvitedBy != nil {
		out.InvitedBy = *inv.InvitedBy
	}
	return out
}
