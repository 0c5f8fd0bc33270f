package purchasing

import (
	"context"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/inventory"
	"github.com/sous-app/sous/internal/money"
	"github.com/sous-app/sous/internal/pg"
)

// varianceLine accumulates one item's numbers and their sources.
type varianceLine struct {
	opening, receipts, in, out, closing, theoretical, waste decimal.Decimal
	txns, runs, wastes                                      []uuid.UUID
}

// GetCostVariance compares, per item, what a site used by its counts and ledger with what its
// done production runs should have used and what it logged as waste.
func (h *Handlers) GetCostVariance(ctx context.Context, req api.GetCostVarianceRequestObject) (api.GetCostVarianceResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	if err := a.CheckSite(p.SiteId); err != nil {
		return nil, err
	}
	if p.From.Time.After(p.To.Time) {
		return nil, apierr.InvalidField("to", "must not be before from")
	}
	q := db.New(h.pool)
	site, err := q.GetSite(ctx, db.GetSiteParams{OrgID: req.OrgId, ID: p.SiteId})
	if err != nil {
		if pg.IsNoRows(err) {
			return nil, apierr.NotFound("Site")
		}
		return nil, err
	}
	loc, err := time.LoadLocation(site.Timezone)
	if err != nil {
		loc = time.UTC
	}
	start := time.Date(p.From.Time.Year(), p.From.Time.Month(), p.From.Time.Day(), 0, 0, 0, 0, loc)
	end := time.Date(p.To.Time.Year(), p.To.Time.Month(), p.To.Time.Day()+1, 0, 0, 0, 0, loc)
	noCounts := apierr.Conflict("The site needs two closed counts for a cost variance")
	opening, err := q.NearestClosedCount(ctx, db.NearestClosedCountParams{OrgID: req.OrgId, SiteID: p.SiteId, NotID: uuid.Nil, At: start})
	if pg.IsNoRows(err) {
		return nil, noCounts
	} else if err != nil {
		return nil, err
	}
	closing, err := q.NearestClosedCount(ctx, db.NearestClosedCountParams{OrgID: req.OrgId, SiteID: p.SiteId, NotID: opening.ID, At: end})
	if pg.IsNoRows(err) {
		return nil, noCounts
	} else if err != nil {
		return nil, err
	}
	if closing.CountedAt.Before(opening.CountedAt) {
		opening, closing = closing, opening
	}
	lines := map[uuid.UUID]*varianceLine{}
	line := func(id uuid.UUID) *varianceLine {
		l := lines[id]
		if l == nil {
			l = &varianceLine{}
			lines[id] = l
		}
		return l
	}
	for _, c := range []struct {
		id  uuid.UUID
		dst func(*varianceLine) *decimal.Decimal
	}{
		{opening.ID, func(l *varianceLine) *decimal.Decimal { return &l.opening }},
		{closing.ID, func(l *varianceLine) *decimal.Decimal { return &l.closing }},
	} {
		rows, err := q.CountTotals(ctx, db.CountTotalsParams{OrgID: req.OrgId, CountID: c.id})
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			d := c.dst(line(r.ItemID))
			*d = d.Add(r.Quantity)
		}
	}
	flows, err := q.SiteFlowsBetween(ctx, db.SiteFlowsBetweenParams{OrgID: req.OrgId, SiteID: p.SiteId, After: opening.CountedAt, Upto: closing.CountedAt})
	if err != nil {
		return nil, err
	}
	for _, f := range flows {
		l := line(f.ItemID)
		switch f.Kind {
		case "receipt":
			l.receipts = l.receipts.Add(f.Quantity)
		case "transfer_in":
			l.in = l.in.Add(f.Quantity.Abs())
		case "transfer_out":
			l.out = l.out.Add(f.Quantity.Abs())
		}
		l.txns = append(l.txns, f.ID)
	}
	usage, err := q.SiteUsageBetween(ctx, db.SiteUsageBetweenParams{OrgID: req.OrgId, SiteID: p.SiteId,
		FromDate: pgtype.Date{Time: p.From.Time, Valid: true}, ToDate: pgtype.Date{Time: p.To.Time, Valid: true}})
	if err != nil {
		return nil, err
	}
	for _, u := range usage {
		l := line(u.ItemID)
		l.theoretical = l.theoretical.Add(u.QuantityBase)
		l.runs = append(l.runs, u.RunID)
	}
	wastes, err := q.SiteItemWasteBetween(ctx, db.SiteItemWasteBetweenParams{OrgID: req.OrgId, SiteID: p.SiteId, After: opening.CountedAt, Upto: closing.CountedAt})
	if err != nil {
		return nil, err
	}
	for _, w := range wastes {
		l := line(*w.ItemID)
		l.waste = l.waste.Add(w.QuantityBase)
		l.wastes = append(l.wastes, w.ID)
	}
	ids := make([]uuid.UUID, 0, len(lines))
	for id := range lines {
		ids = append(ids, id)
	}
	items, err := inventory.GetItems(ctx, q, req.OrgId, ids)
	if err != nil {
		return nil, err
	}
	costs, err := q.SiteAvgCosts(ctx, db.SiteAvgCostsParams{OrgID: req.OrgId, SiteID: p.SiteId, ItemIds: ids})
	if err != nil {
		return nil, err
	}
	avg := map[uuid.UUID]decimal.Decimal{}
	for _, c := range costs {
		avg[c.ItemID] = c.AvgCost
	}
	sort.Slice(ids, func(i, j int) bool {
		if items[ids[i]].Name != items[ids[j]].Name {
			return items[ids[i]].Name < items[ids[j]].Name
		}
		return ids[i].String() < ids[j].String()
	})
	// Every amount and sum is checked against the bound on money; the first failure answers.
	var tooLarge error
	check := func(c int64, err error) int64 {
		if err != nil && tooLarge == nil {
			tooLarge = err
		}
		return c
	}
	cents := func(q, per decimal.Decimal) int64 { return check(money.Round(q.Mul(per))) }
	out := api.CostVariance{SiteId: p.SiteId, From: p.From, To: p.To, OpeningCountId: opening.ID, OpeningCountedAt: opening.CountedAt,
		ClosingCountId: closing.ID, ClosingCountedAt: closing.CountedAt, Lines: []api.CostVarianceLine{}}
	for _, id := range ids {
		l, per := lines[id], avg[id]
		actual := l.opening.Add(l.receipts).Add(l.in).Sub(l.out).Sub(l.closing)
		variance := actual.Sub(l.theoretical).Sub(l.waste)
		x := api.CostVarianceLine{ItemId: id, ItemName: items[id].Name, Unit: items[id].Units.Base,
			Opening: api.Quantity(fmtQty(l.opening)), Receipts: api.Quantity(fmtQty(l.receipts)), TransfersIn: api.Quantity(fmtQty(l.in)),
			TransfersOut: api.Quantity(fmtQty(l.out)), Closing: api.Quantity(fmtQty(l.closing)), Actual: api.Quantity(fmtQty(actual)),
			Theoretical: api.Quantity(fmtQty(l.theoretical)), Waste: api.Quantity(fmtQty(l.waste)), Variance: api.Quantity(fmtQty(variance)),
			UnitCostCents: per.String(), ActualCents: cents(actual, per), TheoreticalCents: cents(l.theoretical, per), WasteCents: cents(l.waste, per),
			LedgerTxnIds: orEmpty(l.txns), RunIds: orEmpty(dedupe(l.runs)), WasteLogIds: orEmpty(l.wastes)}
		x.VarianceCents = check(money.Add(x.ActualCents, -x.TheoreticalCents, -x.WasteCents))
		out.Lines = append(out.Lines, x)
		out.Totals.ActualCents = check(money.Add(out.Totals.ActualCents, x.ActualCents))
		out.Totals.TheoreticalCents = check(money.Add(out.Totals.TheoreticalCents, x.TheoreticalCents))
		out.Totals.WasteCents = check(money.Add(out.Totals.WasteCents, x.WasteCents))
		out.Totals.VarianceCents = check(money.Add(out.Totals.VarianceCents, x.VarianceCents))
	}
	if tooLarge != nil {
		return nil, tooLarge
	}
	return api.GetCostVariance200JSONResponse(out), nil
}

func orEmpty(ids []uuid.UUID) []uuid.UUID {
	if ids == nil {
		return []uuid.UUID{}
	}
	return ids
}

func dedupe(ids []uuid.UUID) []uuid.UUID {
	seen := map[uuid.UUID]bool{}
	var out []uuid.UUID
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
