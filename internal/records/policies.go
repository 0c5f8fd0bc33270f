package records

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/events"
	"github.com/sous-app/sous/internal/pg"
)

var errPolicyNotFound = apierr.NotFound("Policy")

func versionToAPI(v db.PolicyVersion) api.PolicyVersion {
	status := api.PolicyVersionStatus("draft")
	if v.PublishedAt != nil {
		status = api.PolicyVersionStatus("published")
	}
	return api.PolicyVersion{PolicyId: v.PolicyID, Version: int(v.Version), Body: v.Body, Summary: v.Summary, Status: status,
		CreatedAt: v.CreatedAt, PublishedAt: v.PublishedAt}
}

func policyToAPI(p db.Policy, versions []db.PolicyVersion) api.Policy {
	out := api.Policy{Id: p.ID, Title: p.Title, SiteIds: orEmpty(p.SiteIds), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
		Versions: make([]api.PolicyVersion, 0, len(versions))}
	if p.CurrentVersion != nil {
		v := int(*p.CurrentVersion)
		out.CurrentVersion = &v
	}
	for _, v := range versions {
		out.Versions = append(out.Versions, versionToAPI(v))
	}
	return out
}

// policy loads a policy the member can see: 404 otherwise.
func policy(ctx context.Context, q *db.Queries, a authz.Access, id uuid.UUID, forUpdate bool) (db.Policy, error) {
	var p db.Policy
	var err error
	if forUpdate {
		p, err = q.GetPolicyForUpdate(ctx, db.GetPolicyForUpdateParams{OrgID: a.OrgID, ID: id})
	} else {
		p, err = q.GetPolicy(ctx, db.GetPolicyParams{OrgID: a.OrgID, ID: id})
	}
	if pg.IsNoRows(err) || (err == nil && !visibleSites(a, p.SiteIds)) {
		return p, errPolicyNotFound
	}
	return p, err
}

// policyWritable refuses a change to a policy reaching sites beyond the member's.
func policyWritable(a authz.Access, p db.Policy) error {
	if !withinScope(a, p.SiteIds) {
		return apierr.Forbidden("This policy is also for sites you have no access to").WithCode(apierr.CodeSiteScopeExceeded)
	}
	return nil
}

func (h *Handlers) fullPolicy(ctx context.Context, q *db.Queries, p db.Policy) (api.Policy, error) {
	vs, err := q.ListPolicyVersions(ctx, db.ListPolicyVersionsParams{OrgID: p.OrgID, PolicyID: p.ID})
	if err != nil {
		return api.Policy{}, err
	}
	return policyToAPI(p, vs), nil
}

func (h *Handlers) ListPolicies(ctx context.Context, req api.ListPoliciesRequestObject) (api.ListPoliciesResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	rows, err := q.ListPolicies(ctx, db.ListPoliciesParams{OrgID: a.OrgID, Scope: a.SiteScope()})
	if err != nil {
		return nil, err
	}
	out := make(api.ListPolicies200JSONResponse, 0, len(rows))
	for _, p := range rows {
		full, err := h.fullPolicy(ctx, q, p)
		if err != nil {
			return nil, err
		}
		out = append(out, full)
	}
	return out, nil
}

func (h *Handlers) CreatePolicy(ctx context.Context, req api.CreatePolicyRequestObject) (api.CreatePolicyResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	title := strings.TrimSpace(req.Body.Title)
	if title == "" {
		return nil, apierr.InvalidField("title", "must not be blank")
	}
	now := h.clock.Now()
	var p db.Policy
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		var ids []uuid.UUID
		if req.Body.SiteIds != nil {
			ids = *req.Body.SiteIds
		}
		sites, err := sitesList(ctx, q, a, "siteIds", ids, true)
		if err != nil {
			return err
		}
		if p, err = q.InsertPolicy(ctx, db.InsertPolicyParams{ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, Title: title, SiteIds: sites, Now: now}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, auditSite(sites), p.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreatePolicy201JSONResponse{Body: policyToAPI(p, nil)}, nil
}

func (h *Handlers) GetPolicy(ctx context.Context, req api.GetPolicyRequestObject) (api.GetPolicyResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	p, err := policy(ctx, q, a, req.Id, false)
	if err != nil {
		return nil, err
	}
	out, err := h.fullPolicy(ctx, q, p)
	if err != nil {
		return nil, err
	}
	acked := false
	if p.CurrentVersion != nil && a.UserID() != uuid.Nil {
		if acked, err = q.HasAcknowledged(ctx, db.HasAcknowledgedParams{PolicyID: p.ID, Version: *p.CurrentVersion, UserID: a.UserID()}); err != nil {
			return nil, err
		}
	}
	out.AcknowledgedCurrent = &acked
	return api.GetPolicy200JSONResponse(out), nil
}

func (h *Handlers) CreatePolicyVersion(ctx context.Context, req api.CreatePolicyVersionRequestObject) (api.CreatePolicyVersionResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.Body.Body) == "" {
		return nil, apierr.InvalidField("body", "must not be blank")
	}
	summary := ""
	if req.Body.Summary != nil {
		summary = strings.TrimSpace(*req.Body.Summary)
	}
	now := h.clock.Now()
	var v db.PolicyVersion
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		p, err := policy(ctx, q, a, req.Id, true) // the lock numbers versions one at a time
		if err != nil {
			return err
		}
		if err := policyWritable(a, p); err != nil {
			return err
		}
		if v, err = q.InsertPolicyVersion(ctx, db.InsertPolicyVersionParams{OrgID: a.OrgID, PolicyID: p.ID, Body: req.Body.Body,
			Summary: summary, CreatedBy: userPtr(a), Now: now}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, auditSite(p.SiteIds), p.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreatePolicyVersion201JSONResponse{Body: versionToAPI(v)}, nil
}

func (h *Handlers) PublishPolicyVersion(ctx context.Context, req api.PublishPolicyVersionRequestObject) (api.PublishPolicyVersionResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out api.Policy
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		p, err := policy(ctx, q, a, req.Id, true)
		if err != nil {
			return err
		}
		if err := policyWritable(a, p); err != nil {
			return err
		}
		v, err := q.GetPolicyVersionForUpdate(ctx, db.GetPolicyVersionForUpdateParams{OrgID: a.OrgID, PolicyID: p.ID, Version: int32(req.Version)})
		if pg.IsNoRows(err) {
			return apierr.NotFound("Policy version")
		}
		if err != nil {
			return err
		}
		if v.PublishedAt != nil {
			return apierr.Conflict("This version is already published; a published version never changes")
		}
		if p.CurrentVersion != nil && *p.CurrentVersion > v.Version {
			return apierr.Conflict("A newer version is in force; add a new draft instead")
		}
		if _, err := q.PublishPolicyVersion(ctx, db.PublishPolicyVersionParams{OrgID: a.OrgID, PolicyID: p.ID, Version: v.Version, Now: now, PublishedBy: userPtr(a)}); err != nil {
			return err
		}
		if err := q.SetPolicyCurrent(ctx, db.SetPolicyCurrentParams{OrgID: a.OrgID, ID: p.ID, Version: &v.Version, Now: now}); err != nil {
			return err
		}
		if _, err := events.Publish(ctx, q, a.OrgID, events.PolicyPublished, now, map[string]any{"policyId": p.ID, "version": v.Version}); err != nil {
			return err
		}
		if err := audit.RecordSite(ctx, q, a.OrgID, auditSite(p.SiteIds), p.ID, now); err != nil {
			return err
		}
		p.CurrentVersion, p.UpdatedAt = &v.Version, now
		out, err = h.fullPolicy(ctx, q, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.PublishPolicyVersion200JSONResponse(out), nil
}

func (h *Handlers) AcknowledgePolicy(ctx context.Context, req api.AcknowledgePolicyRequestObject) (api.AcknowledgePolicyResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	if a.UserID() == uuid.Nil {
		return nil, apierr.Forbidden("Only a member acknowledges a policy")
	}
	now := h.clock.Now()
	var ack db.AcknowledgePolicyRow
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		p, err := policy(ctx, q, a, req.Id, false)
		if err != nil {
			return err
		}
		if p.CurrentVersion == nil {
			return apierr.Conflict("No version of this policy is published yet")
		}
		if ack, err = q.AcknowledgePolicy(ctx, db.AcknowledgePolicyParams{OrgID: a.OrgID, PolicyID: p.ID, Version: *p.CurrentVersion, UserID: a.UserID(), Now: now}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, auditSite(p.SiteIds), p.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.AcknowledgePolicy200JSONResponse{PolicyId: ack.PolicyID, Version: int(ack.Version), UserId: ack.UserID, AcknowledgedAt: ack.AcknowledgedAt}, nil
}

func (h *Handlers) ListPolicyAcknowledgements(ctx context.Context, req api.ListPolicyAcknowledgementsRequestObject) (api.ListPolicyAcknowledgementsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	p, err := policy(ctx, q, a, req.Id, false)
	if err != nil {
		return nil, err
	}
	out := api.ListPolicyAcknowledgements200JSONResponse{PolicyId: p.ID, Sites: []struct {
		Acknowledged []api.AcknowledgementMember `json:"acknowledged"`
		Pending      []api.AcknowledgementMember `json:"pending"`
		SiteId       uuid.UUID                   `json:"siteId"`
		SiteName     string                      `json:"siteName"`
	}{}}
	var version int32
	if p.CurrentVersion != nil {
		version = *p.CurrentVersion
		v := int(version)
		out.Version = &v
	}
	// The policy's sites (every site when it names none) that the caller can see.
	sites := p.SiteIds
	if len(sites) == 0 {
		all, err := q.RecordsSites(ctx, db.RecordsSitesParams{OrgID: a.OrgID, Scope: a.SiteScope()})
		if err != nil {
			return nil, err
		}
		for _, s := range all {
			sites = append(sites, s.ID)
		}
	}
	visible := []uuid.UUID{}
	for _, s := range sites {
		if a.CanSeeSite(s) {
			visible = append(visible, s)
		}
	}
	rows, err := q.PolicyAcknowledgementRoster(ctx, db.PolicyAcknowledgementRosterParams{OrgID: a.OrgID, PolicyID: p.ID, Version: version, SiteIds: visible})
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		n := len(out.Sites)
		if n == 0 || out.Sites[n-1].SiteId != r.SiteID {
			out.Sites = append(out.Sites, struct {
				Acknowledged []api.AcknowledgementMember `json:"acknowledged"`
				Pending      []api.AcknowledgementMember `json:"pending"`
				SiteId       uuid.UUID                   `json:"siteId"`
				SiteName     string                      `json:"siteName"`
			}{Acknowledged: []api.AcknowledgementMember{}, Pending: []api.AcknowledgementMember{}, SiteId: r.SiteID, SiteName: r.SiteName})
			n++
		}
		m := api.AcknowledgementMember{UserId: r.UserID, Name: r.UserName, Role: r.Role, AcknowledgedAt: r.AcknowledgedAt}
		if r.AcknowledgedAt != nil {
			out.Sites[n-1].Acknowledged = append(out.Sites[n-1].Acknowledged, m)
		} else {
			out.Sites[n-1].Pending = append(out.Sites[n-1].Pending, m)
		}
	}
	return out, nil
}
