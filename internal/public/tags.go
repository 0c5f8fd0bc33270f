package public

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/pg"
)

// Target types of tags; they mirror the spec's TagTargetType.
const (
	TargetSite            = "site"
	TargetEquipment       = "equipment"
	TargetStorageLocation = "storage_location"
)

var errScopedUnplaced = apierr.Forbidden("Members limited to some sites can only manage tags placed at one of their sites").WithCode(apierr.CodeSiteScopeExceeded)

func (h *Handlers) ListTags(ctx context.Context, req api.ListTagsRequestObject) (api.ListTagsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := db.New(h.pool).ListTags(ctx, db.ListTagsParams{OrgID: req.OrgId, Scope: a.SiteScope()})
	if err != nil {
		return nil, err
	}
	out := make(api.ListTags200JSONResponse, 0, len(rows))
	for _, t := range rows {
		out = append(out, h.toAPITag(t))
	}
	return out, nil
}

// CreateTag mints a code for a target: a site of the organization, a storage location or a piece
// of equipment named by id (or, as tags printed before those existed, described by its label).
func (h *Handlers) CreateTag(ctx context.Context, req api.CreateTagRequestObject) (api.CreateTagResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	p := db.CreateTagParams{OrgID: req.OrgId, TargetType: string(b.TargetType), Now: h.clock.Now()}
	if b.Label != nil {
		label := strings.TrimSpace(*b.Label)
		if label == "" {
			return nil, apierr.InvalidField("label", "must not be blank")
		}
		p.Label = &label
	}
	switch p.TargetType {
	case TargetSite:
		if b.TargetId == nil {
			return nil, apierr.InvalidField("targetId", "is required for site tags")
		}
		if b.SiteId != nil && *b.SiteId != *b.TargetId {
			return nil, apierr.InvalidField("siteId", "must be omitted or equal targetId for site tags")
		}
		p.TargetID, p.SiteID = b.TargetId, b.TargetId
	case TargetStorageLocation:
		if b.TargetId != nil {
			if h.locations == nil {
				return nil, apierr.InvalidField("targetId", "storage locations cannot be named by id on this server")
			}
			siteID, _, err := h.locations.TagTarget(ctx, req.OrgId, *b.TargetId)
			if err != nil {
				return nil, err
			}
			if b.SiteId != nil && *b.SiteId != siteID {
				return nil, apierr.InvalidField("siteId", "must be omitted or equal the storage location's site")
			}
			if err := a.CheckSite(siteID); err != nil {
				return nil, err
			}
			p.TargetID, p.SiteID = b.TargetId, &siteID
			break
		}
		if p.Label == nil {
			return nil, apierr.InvalidField("label", "is required for storage_location tags without targetId")
		}
		p.SiteID = b.SiteId
	case TargetEquipment:
		if b.TargetId != nil {
			// Equipment named by id: the tag is posted at its site, labelled with its name
			// unless a label is given.
			l := equipmentLookup.Load()
			if l == nil {
				return nil, apierr.InvalidField("targetId", "equipment cannot be named by id here")
			}
			site, name, ok, err := (*l).EquipmentTarget(ctx, db.New(h.pool), req.OrgId, *b.TargetId)
			if err != nil {
				return nil, err
			}
			if !ok || !a.CanSeeSite(site) {
				return nil, apierr.NotFound("Equipment")
			}
			if b.SiteId != nil && *b.SiteId != site {
				return nil, apierr.InvalidField("siteId", "must be omitted or equal the equipment's site")
			}
			if p.Label == nil {
				p.Label = &name
			}
			p.TargetID, p.SiteID = b.TargetId, &site
			break
		}
		if p.Label == nil {
			return nil, apierr.InvalidField("label", "is required for equipment tags without targetId")
		}
		p.SiteID = b.SiteId
	default:
		return nil, apierr.InvalidField("targetType", "must be one of: site, equipment, storage_location")
	}
	if p.SiteID == nil && a.Scoped() {
		return nil, errScopedUnplaced
	}
	if p.SiteID != nil {
		if err := a.CheckSite(*p.SiteID); err != nil {
			return nil, err
		}
	}
	if id := a.UserID(); id != uuid.Nil {
		p.CreatedBy = &id
	}
	var row db.Tag
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		if p.SiteID != nil {
			if _, err := q.GetSite(ctx, db.GetSiteParams{OrgID: req.OrgId, ID: *p.SiteID}); err != nil {
				if pg.IsNoRows(err) {
					return apierr.NotFound("Site")
				}
				return err
			}
		}
		if row, err = insertTag(ctx, q, p); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, orNil(row.SiteID), row.ID, p.Now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateTag201JSONResponse{Body: h.toAPITag(row)}, nil
}

// insertTag draws codes until one is free (codes are unique across organizations, so the web
// link names one tag); with 2^40 codes a collision is
// rare, and the insert skips a taken code without aborting the transaction.
func insertTag(ctx context.Context, q *db.Queries, p db.CreateTagParams) (db.Tag, error) {
	p.ID = uuid.Must(uuid.NewV7())
	for range 5 {
		p.Code = newCode()
		row, err := q.CreateTag(ctx, p)
		if pg.IsNoRows(err) {
			continue
		}
		return row, err
	}
	return db.Tag{}, errors.New("public: no free tag code after 5 attempts")
}

func (h *Handlers) DeleteTag(ctx context.Context, req api.DeleteTagRequestObject) (api.DeleteTagResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		t, err := q.GetTag(ctx, db.GetTagParams{OrgID: req.OrgId, ID: req.Id})
		if pg.IsNoRows(err) || (err == nil && t.SiteID != nil && !a.CanSeeSite(*t.SiteID)) {
			return apierr.NotFound("Tag").WithCode(apierr.CodeTagNotFound)
		}
		if err != nil {
			return err
		}
		if t.SiteID == nil && a.Scoped() {
			return errScopedUnplaced
		}
		if err := q.RetireTag(ctx, db.RetireTagParams{OrgID: req.OrgId, ID: req.Id, Now: now}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, orNil(t.SiteID), req.Id, now)
	})
	if err != nil {
		return nil, err
	}
	return api.DeleteTag204Response{}, nil
}

func (h *Handlers) toAPITag(t db.Tag) api.Tag {
	return api.Tag{
		Id: t.ID, Code: api.TagCode(t.Code), TargetType: api.TagTargetType(t.TargetType), TargetId: t.TargetID,
		SiteId: t.SiteID, Label: t.Label, WebUrl: h.ScanURL(t.Code), CreatedAt: t.CreatedAt,
	}
}

// orNil is the site of a tag, uuid.Nil for a tag placed at no site.
func orNil(id *uuid.UUID) uuid.UUID {
	if id == nil {
		return uuid.Nil
	}
	return *id
}

// EquipmentLookup finds equipment for a tag that names it by id. The records capability, which
// owns equipment, implements it; the server's assembly installs it with SetEquipmentLookup.
type EquipmentLookup interface {
	EquipmentTarget(ctx context.Context, q *db.Queries, orgID, id uuid.UUID) (siteID uuid.UUID, name string, ok bool, err error)
}

var equipmentLookup atomic.Pointer[EquipmentLookup]

// SetEquipmentLookup installs the lookup (replacing any before it).
func SetEquipmentLookup(l EquipmentLookup) { equipmentLookup.Store(&l) }
