package purchasing

import (
	"context"
	"sort"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/inventory"
	"github.com/sous-app/sous/internal/kitchen"
	"github.com/sous-app/sous/internal/pg"
)

// CreateRunRequisition drafts a requisition of what the site's production runs of a date need,
// one line per item in its base unit.
func (h *Handlers) CreateRunRequisition(ctx context.Context, req api.CreateRunRequisitionRequestObject) (api.CreateRunRequisitionResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	if err := a.CheckSite(b.SiteId); err != nil {
		return nil, err
	}
	if b.FromLocationId == b.ToLocationId {
		return nil, apierr.InvalidField("toLocationId", "must differ from fromLocationId")
	}
	now := h.clock.Now()
	var out api.Requisition
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if _, err := q.GetSite(ctx, db.GetSiteParams{OrgID: req.OrgId, ID: b.SiteId}); err != nil {
			if pg.IsNoRows(err) {
				return apierr.NotFound("Site")
			}
			return err
		}
		needs, runs, err := kitchen.RunNeeds(ctx, q, req.OrgId, b.SiteId, b.Date.Time)
		if err != nil {
			return err
		}
		if len(runs) == 0 {
			return apierr.Conflict("The site has no production runs on the date")
		}
		ids := make([]uuid.UUID, 0, len(needs))
		for id, n := range needs {
			if n.IsPositive() {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			return apierr.Conflict("The date's production runs use no inventory items")
		}
		items, err := inventory.GetItems(ctx, q, req.OrgId, ids)
		if err != nil {
			return err
		}
		sort.Slice(ids, func(i, j int) bool { return items[ids[i]].Name < items[ids[j]].Name })
		note := "Production of " + b.Date.Time.Format("2006-01-02")
		body := api.CreateRequisitionRequest{SiteId: b.SiteId, FromLocationId: b.FromLocationId, ToLocationId: b.ToLocationId,
			NeededOn: &b.Date, Note: &note}
		for _, id := range ids {
			body.Lines = append(body.Lines, api.RequisitionLineInput{ItemId: id, Quantity: api.PositiveQuantityInput(fmtQty(needs[id])),
				Unit: items[id].Units.Base})
		}
		out, err = draftRequisition(ctx, q, a, req.OrgId, body, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.CreateRunRequisition201JSONResponse{Body: out}, nil
}
