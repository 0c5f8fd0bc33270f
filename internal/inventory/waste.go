package inventory

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/money"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
)

var errWasteNotFound = apierr.NotFound("Waste log")

// CreateWasteLog records stock thrown away: waste ledger rows at the average cost, taken from the
// named lot or in FEFO order (expired lots first, since they expire first).
func (h *Handlers) CreateWasteLog(ctx context.Context, req api.CreateWasteLogRequestObject) (api.CreateWasteLogResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	now := h.clock.Now()
	var out api.WasteLog
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		sc, err := loadSite(ctx, q, a, req.OrgId, b.SiteId, now)
		if err != nil {
			return err
		}
		var lotIDs []uuid.UUID
		if b.LotId != nil {
			lotIDs = append(lotIDs, *b.LotId)
		}
		refs, err := resolveRefs(ctx, q, req.OrgId, []uuid.UUID{b.ItemId}, []uuid.UUID{b.LocationId}, lotIDs)
		if err != nil {
			return err
		}
		it, err := refs.checkItem("itemId", b.ItemId)
		if err != nil {
			return err
		}
		if _, err := refs.checkLocation("locationId", b.LocationId, b.SiteId); err != nil {
			return err
		}
		if b.LotId != nil {
			if _, err := refs.checkLot("lotId", *b.LotId, it, b.SiteId); err != nil {
				return err
			}
		}
		qty, err := parseQty("quantity", string(b.Quantity))
		if err != nil {
			return err
		}
		if !qty.IsPositive() {
			return apierr.InvalidField("quantity", "must be positive (the quantity thrown away)")
		}
		base, err := toBase("unit", it, qty, b.Unit)
		if err != nil {
			return err
		}
		var note *string
		if b.Note != nil && strings.TrimSpace(*b.Note) != "" {
			n := strings.TrimSpace(*b.Note)
			note = &n
		}
		id := uuid.Must(uuid.NewV7())
		p := &poster{q: q, orgID: req.OrgId, siteID: b.SiteId, now: now, today: sc.today, source: Source{Type: SourceWasteLog, ID: id}, actor: a.Actor()}
		if err := p.lock(ctx, []uuid.UUID{it.ID}); err != nil {
			return err
		}
		if err := p.post(ctx, movement{kind: KindWaste, reason: string(b.Reason), itemID: it.ID, locationID: b.LocationId, lotID: b.LotId,
			qty: base.Neg(), expiredOK: true, unit: it.Units.Base}); err != nil {
			return err
		}
		if err := p.finish(ctx); err != nil {
			return err
		}
		var value int64
		txnIDs := make([]uuid.UUID, 0, len(p.txns))
		for _, t := range p.txns {
			if value, err = money.Add(value, -t.ValueCents); err != nil {
				return err
			}
			txnIDs = append(txnIDs, t.ID)
		}
		w, err := q.CreateWasteLog(ctx, db.CreateWasteLogParams{
			ID: id, OrgID: req.OrgId, SiteID: b.SiteId, LocationID: &b.LocationId, ItemID: &it.ID, LotID: b.LotId, Quantity: qty, Unit: b.Unit,
			QuantityBase: base, Reason: string(b.Reason), Note: note, ValueCents: value, CreatedBy: a.Actor(), Now: now,
		})
		if err != nil {
			return err
		}
		if err := audit.RecordSite(ctx, q, req.OrgId, b.SiteId, id, now); err != nil {
			return err
		}
		out = wasteToAPI(w, it.Units.Base, txnIDs)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return api.CreateWasteLog201JSONResponse{Body: out}, nil
}

func (h *Handlers) GetWasteLog(ctx context.Context, req api.GetWasteLogRequestObject) (api.GetWasteLogResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	r, err := q.GetWasteLog(ctx, db.GetWasteLogParams{OrgID: req.OrgId, ID: req.Id})
	if pg.IsNoRows(err) || err == nil && !a.CanSeeSite(r.WasteLog.SiteID) {
		return nil, errWasteNotFound
	}
	if err != nil {
		return nil, err
	}
	txns, err := q.WasteTxns(ctx, db.WasteTxnsParams{OrgID: req.OrgId, WasteIds: []uuid.UUID{req.Id}})
	if err != nil {
		return nil, err
	}
	ids := make([]uuid.UUID, 0, len(txns))
	for _, t := range txns {
		ids = append(ids, t.ID)
	}
	return api.GetWasteLog200JSONResponse(wasteToAPI(r.WasteLog, r.BaseUnit, ids)), nil
}

type wasteCursor struct {
	At time.Time `json:"a"`
	ID uuid.UUID `json:"i"`
}

func (h *Handlers) ListWasteLogs(ctx context.Context, req api.ListWasteLogsRequestObject) (api.ListWasteLogsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	if p.SiteId != nil {
		if err := a.CheckSite(*p.SiteId); err != nil {
			return nil, err
		}
	}
	limit := paging.Limit(p.Limit)
	params := db.ListWasteLogsParams{OrgID: req.OrgId, Scope: a.SiteScope(), SiteID: p.SiteId, ItemID: p.ItemId, RunID: p.RunId, FromAt: p.From, ToAt: p.To, MaxRows: paging.Fetch(limit)}
	if p.Reason != nil {
		r := string(*p.Reason)
		params.Reason = &r
	}
	if p.Cursor != nil {
		var c wasteCursor
		if err := paging.DecodeCursor(*p.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		params.CursorAt, params.CursorID = &c.At, &c.ID
	}
	q := db.New(h.pool)
	rows, err := q.ListWasteLogs(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListWasteLogs200JSONResponse{Body: make([]api.WasteLog, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.ListWasteLogsRow) any {
		return wasteCursor{At: last.WasteLog.CreatedAt, ID: last.WasteLog.ID}
	})
	ids := make([]uuid.UUID, 0, len(rows))
	for _, r := range rows {
		ids = append(ids, r.WasteLog.ID)
	}
	txns, err := q.WasteTxns(ctx, db.WasteTxnsParams{OrgID: req.OrgId, WasteIds: ids})
	if err != nil {
		return nil, err
	}
	byLog := map[uuid.UUID][]uuid.UUID{}
	for _, t := range txns {
		byLog[t.SourceID] = append(byLog[t.SourceID], t.ID)
	}
	for _, r := range rows {
		out.Body = append(out.Body, wasteToAPI(r.WasteLog, r.BaseUnit, byLog[r.WasteLog.ID]))
	}
	return out, nil
}

func wasteToAPI(w db.WasteLog, baseUnit string, txnIDs []uuid.UUID) api.WasteLog {
	if txnIDs == nil {
		txnIDs = []uuid.UUID{}
	}
	return api.WasteLog{
		Id: w.ID, SiteId: w.SiteID, LocationId: w.LocationID, ItemId: w.ItemID, LotId: w.LotID, RunId: w.RunID, RecipeName: w.RecipeName,
		Quantity: api.Quantity(fmtQty(w.Quantity)),
		Unit:     w.Unit, QuantityBase: api.Quantity(fmtQty(w.QuantityBase)), BaseUnit: api.StandardUnit(baseUnit), Reason: api.WasteReason(w.Reason),
		Note: w.Note, ValueCents: w.ValueCents, CreatedBy: w.CreatedBy, CreatedAt: w.CreatedAt, TxnIds: txnIDs,
	}
}

// RunWaste is a production run's output thrown away, as the kitchen records it.
type RunWaste struct {
	OrgID, SiteID, RunID uuid.UUID
	RecipeName           string
	Quantity             decimal.Decimal // in Unit, the run's (standard) unit
	Unit                 string
	Reason               api.WasteReason
	Note                 *string
	ValueCents           int64
	CreatedBy            *uuid.UUID
	At                   time.Time
}

// RecordRunWaste writes the waste log of a run's output in the caller's transaction. The output
// was never stock, so no ledger row moves; the log stands in the site's waste list beside stock
// waste, with the value the kitchen gives it.
func RecordRunWaste(ctx context.Context, q *db.Queries, w RunWaste) (uuid.UUID, error) {
	id := uuid.Must(uuid.NewV7())
	_, err := q.CreateRunWasteLog(ctx, db.CreateRunWasteLogParams{
		ID: id, OrgID: w.OrgID, SiteID: w.SiteID, RunID: &w.RunID, RecipeName: &w.RecipeName, Quantity: w.Quantity,
		Unit: w.Unit, Reason: string(w.Reason), Note: w.Note, ValueCents: w.ValueCents, CreatedBy: w.CreatedBy, Now: w.At,
	})
	return id, err
}

// WasteTotal is the waste of one reason logged at a site over a period.
type WasteTotal struct {
	Reason     api.WasteReason
	Logs       int
	ValueCents int64
}

// WasteByReason totals a site's waste logged in [from, to), per reason, for reports.
func WasteByReason(ctx context.Context, q *db.Queries, orgID, siteID uuid.UUID, from, to time.Time) ([]WasteTotal, error) {
	rows, err := q.WasteByReason(ctx, db.WasteByReasonParams{OrgID: orgID, SiteID: siteID, FromAt: from, ToAt: to})
	if err != nil {
		return nil, err
	}
	out := make([]WasteTotal, len(rows))
	for i, r := range rows {
		out[i] = WasteTotal{Reason: api.WasteReason(r.Reason), Logs: int(r.Logs), ValueCents: r.ValueCents}
	}
	return out, nil
}
