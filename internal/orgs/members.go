package orgs

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/pg"
)

func (h *Handlers) ListMembers(ctx context.Context, req api.ListMembersRequestObject) (api.ListMembersResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := db.New(h.pool).ListMembers(ctx, req.OrgId)
	if err != nil {
		return nil, err
	}
	out := make(api.ListMembers200JSONResponse, 0, len(rows))
	for _, m := range rows {
		if visible(a, m.SiteIds) {
			out = append(out, toAPIMember(db.GetMemberRow(m)))
		}
	}
	return out, nil
}

func (h *Handlers) UpdateMember(ctx context.Context, req api.UpdateMemberRequestObject) (api.UpdateMemberResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var member db.GetMemberRow
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		cur, err := q.GetMember(ctx, db.GetMemberParams{OrgID: req.OrgId, UserID: req.UserId})
		if err != nil {
			return notFound(err, "Member")
		}
		if err := canManage(a, "Member", cur.Role, cur.SiteIds); err != nil {
			return err
		}
		params := db.UpdateMemberParams{OrgID: req.OrgId, UserID: req.UserId, Role: cur.Role, SiteIds: cur.SiteIds, Credentials: cur.Credentials, Now: now}
		if req.Body.Role != nil {
			role, err := grantableRole(a, string(*req.Body.Role))
			if err != nil {
				return err
			}
			params.Role = string(role)
		}
		if req.Body.SiteIds != nil {
			if params.SiteIds, err = grantableSites(ctx, q, a, *req.Body.SiteIds); err != nil {
				return err
			}
		}
		if req.Body.Credentials != nil {
			params.Credentials = credentials(*req.Body.Credentials)
		}
		if cur.Role == string(authz.Owner) {
			after := &ownerChange{role: params.Role, sites: params.SiteIds}
			if err := keepAnOwner(ctx, q, req.OrgId, req.UserId, after); err != nil {
				return err
			}
		}
		if err := q.UpdateMember(ctx, params); err != nil {
			return err
		}
		if err := audit.Record(ctx, q, req.OrgId, req.UserId, now); err != nil {
			return err
		}
		member, err = q.GetMember(ctx, db.GetMemberParams{OrgID: req.OrgId, UserID: req.UserId})
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateMember200JSONResponse(toAPIMember(member)), nil
}

func (h *Handlers) RemoveMember(ctx context.Context, req api.RemoveMemberRequestObject) (api.RemoveMemberResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		cur, err := q.GetMember(ctx, db.GetMemberParams{OrgID: req.OrgId, UserID: req.UserId})
		if err != nil {
			return notFound(err, "Member")
		}
		if err := canManage(a, "Member", cur.Role, cur.SiteIds); err != nil {
			return err
		}
		if cur.Role == string(authz.Owner) {
			if err := keepAnOwner(ctx, q, req.OrgId, req.UserId, nil); err != nil {
				return err
			}
		}
		if err := q.DeleteMember(ctx, db.DeleteMemberParams{OrgID: req.OrgId, UserID: req.UserId}); err != nil {
			return err
		}
		return audit.Record(ctx, q, req.OrgId, req.UserId, now)
	})
	if err != nil {
		return nil, err
	}
	return api.RemoveMember204Response{}, nil
}

// canManage refuses changes to a member who ranks above the actor, or who reaches beyond a
// site-scoped actor's sites. A member (or invitation, thing) only of sites the actor cannot see
// is not found, as anything of another site is for a site-limited member.
func canManage(a authz.Access, thing, targetRole string, targetSites []uuid.UUID) error {
	if !visible(a, targetSites) {
		return apierr.NotFound(thing)
	}
	if authz.Role(targetRole).Rank() > a.Role.Rank() {
		return apierr.Forbidden("You cannot change a member whose role is above yours").WithCode(apierr.CodeRoleTooHigh)
	}
	if a.Scoped() && !withinScope(a, targetSites) {
		return apierr.Forbidden("You cannot change a member with access beyond your sites").WithCode(apierr.CodeSiteScopeExceeded)
	}
	return nil
}

// grantableRole parses a requested role and refuses one above the actor's own (so only owners
// make owners).
func grantableRole(a authz.Access, requested string) (authz.Role, error) {
	role, ok := authz.ParseRole(requested)
	if !ok {
		return "", apierr.InvalidField("role", "is not a role")
	}
	if role.Rank() > a.Role.Rank() {
		return "", apierr.Forbidden(fmt.Sprintf("You cannot grant the %s role: it is above your own", role)).WithCode(apierr.CodeRoleTooHigh)
	}
	return role, nil
}

// grantableSites checks that every site belongs to the organization and, for a site-scoped
// actor, lies within their own sites (such an actor cannot grant access to all sites).
func grantableSites(ctx context.Context, q *db.Queries, a authz.Access, ids []uuid.UUID) ([]uuid.UUID, error) {
	// A site outside a site-limited actor's sites is "not found", whether or not it exists.
	for _, id := range ids {
		if err := a.CheckSite(id); err != nil {
			return nil, err
		}
	}
	ids = slices.Clone(ids)
	slices.SortFunc(ids, func(x, y uuid.UUID) int { return bytes.Compare(x[:], y[:]) })
	ids = slices.Compact(ids)
	if len(ids) > 0 {
		n, err := q.CountSitesIn(ctx, db.CountSitesInParams{OrgID: a.OrgID, Ids: ids})
		if err != nil {
			return nil, err
		}
		if int(n) != len(ids) {
			return nil, apierr.InvalidField("siteIds", "contains a site that is not one of this organization's")
		}
	}
	if a.Scoped() && !withinScope(a, ids) {
		return nil, apierr.Forbidden("You can only grant access to your own sites").WithCode(apierr.CodeSiteScopeExceeded)
	}
	return ids, nil
}

// visible reports whether a membership of sites (empty meaning all) is one a site-limited actor
// sees: it shares a site with them, or reaches every site (theirs included).
func visible(a authz.Access, sites []uuid.UUID) bool {
	if !a.Scoped() || len(sites) == 0 {
		return true
	}
	return slices.ContainsFunc(sites, a.CanSeeSite)
}

// withinScope reports whether sites (empty meaning all) lie within a scoped actor's sites.
func withinScope(a authz.Access, sites []uuid.UUID) bool {
	if len(sites) == 0 {
		return !a.Scoped()
	}
	for _, s := range sites {
		if !a.CanSeeSite(s) {
			return false
		}
	}
	return true
}

// ownerChange is what an owner's membership becomes; nil means the membership is removed.
type ownerChange struct {
	role  string
	sites []uuid.UUID
}

// keepAnOwner refuses a change to an owner that would leave the organization without an owner,
// or without an owner who reaches every site: a site-scoped member can grant only their own sites,
// so nobody could ever again give anyone the other sites. The owners' rows are locked, so two
// owners demoting each other at once cannot both succeed.
func keepAnOwner(ctx context.Context, q *db.Queries, orgID, userID uuid.UUID, after *ownerChange) error {
	owners, err := q.LockOrgOwners(ctx, orgID)
	if err != nil {
		return err
	}
	remaining, allSites, hadAllSites := 0, 0, false
	for _, o := range owners {
		sites := o.SiteIds
		if o.UserID == userID {
			hadAllSites = len(o.SiteIds) == 0
			if after == nil || after.role != string(authz.Owner) {
				continue
			}
			sites = after.sites
		}
		remaining++
		if len(sites) == 0 {
			allSites++
		}
	}
	if remaining == 0 {
		return apierr.Conflict("An organization needs at least one owner; make another member owner first").WithCode(apierr.CodeLastOwner)
	}
	if hadAllSites && allSites == 0 {
		return apierr.Conflict("An organization needs at least one owner with access to every site; give another owner every site first").WithCode(apierr.CodeLastOwner)
	}
	return nil
}

func credentials(in []api.Credential) []string {
	out := make([]string, 0, len(in))
	for _, c := range in {
		if !slices.Contains(out, string(c)) {
			out = append(out, string(c))
		}
	}
	slices.Sort(out)
	return out
}

func toAPIMember(m db.GetMemberRow) api.Member {
	creds := make([]api.Credential, 0, len(m.Credentials))
	for _, c := range m.Credentials {
		creds = append(creds, api.Credential(c))
	}
	return api.Member{
		UserId: m.UserID, Name: m.Name, Email: openapi_types.Email(m.Email), Role: api.Role(m.Role),
		SiteIds: m.SiteIds, Credentials: creds, JoinedAt: m.CreatedAt,
	}
}
