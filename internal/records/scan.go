package records

import (
	"context"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/pg"
)

// scanWorkOrders bounds the work orders a scan of equipment shows.
const scanWorkOrders = 20

// ScanEquipment answers a scan of an equipment tag naming it by id: its name and its work
// orders not yet closed. ok is false when the equipment is gone or outside the member's sites.
func (h *Handlers) ScanEquipment(ctx context.Context, a authz.Access, orgID, id uuid.UUID) (*api.ScanEquipmentContext, bool, error) {
	q := db.New(h.pool)
	e, err := q.GetEquipment(ctx, db.GetEquipmentParams{OrgID: orgID, ID: id})
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(e.SiteID)) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	rows, err := q.ScanOpenWorkOrders(ctx, db.ScanOpenWorkOrdersParams{OrgID: orgID, EquipmentID: id, MaxRows: scanWorkOrders})
	if err != nil {
		return nil, false, err
	}
	out := &api.ScanEquipmentContext{Id: e.ID, Name: e.Name, WorkOrders: make([]api.WorkOrder, 0, len(rows))}
	for _, w := range rows {
		out.WorkOrders = append(out.WorkOrders, workOrderToAPI(w))
	}
	return out, true, nil
}
