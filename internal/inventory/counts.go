package inventory

import (
	"context"
	"fmt"
	"slices"
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

var (
	errCountNotFound = apierr.NotFound("Count")
	errCountClosed   = apierr.Conflict("The count is closed; a closed count cannot change")
)

func (h *Handlers) CreateCount(ctx context.Context, req api.CreateCountRequestObject) (api.CreateCountResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	now := h.clock.Now()
	name := strings.TrimSpace(b.Name)
	if name == "" {
		return nil, apierr.InvalidField("name", "must not be blank")
	}
	if b.CountedAt.After(now) {
		return nil, apierr.InvalidField("countedAt", "must not be in the future")
	}
	var sheet api.CountSheet
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if _, err := loadSite(ctx, q, a, req.OrgId, b.SiteId, now); err != nil {
			return err
		}
		locIDs := slices.Compact(slices.SortedFunc(slices.Values(b.LocationIds), func(x, y uuid.UUID) int { return strings.Compare(x.String(), y.String()) }))
		locs, err := q.GetStorageLocations(ctx, db.GetStorageLocationsParams{OrgID: req.OrgId, Ids: locIDs})
		if err != nil {
			return err
		}
		for i, id := range b.LocationIds {
			idx := slices.IndexFunc(locs, func(l db.StorageLocation) bool { return l.ID == id })
			if idx < 0 || locs[idx].SiteID != b.SiteId {
				return apierr.InvalidField(fmt.Sprintf("locationIds.%d", i), "is no storage location of the site")
			}
		}
		c, err := q.CreateCount(ctx, db.CreateCountParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: req.OrgId, SiteID: b.SiteId, Name: name, LocationIds: locIDs,
			CountedAt: b.CountedAt.UTC(), CreatedBy: a.Actor(), Now: now,
		})
		if err != nil {
			return err
		}
		if err := audit.RecordSite(ctx, q, req.OrgId, c.SiteID, c.ID, now); err != nil {
			return err
		}
		sheet, err = sheetOf(ctx, q, c)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.CreateCount201JSONResponse{Body: sheet}, nil
}

// getCount reads a count the member may see.
func getCount(ctx context.Context, q *db.Queries, a authz.Access, orgID, id uuid.UUID, forUpdate bool) (db.Count, error) {
	var c db.Count
	var err error
	if forUpdate {
		c, err = q.GetCountForUpdate(ctx, db.GetCountForUpdateParams{OrgID: orgID, ID: id})
	} else {
		c, err = q.GetCount(ctx, db.GetCountParams{OrgID: orgID, ID: id})
	}
	if pg.IsNoRows(err) || err == nil && !a.CanSeeSite(c.SiteID) {
		return c, errCountNotFound
	}
	return c, err
}

func (h *Handlers) GetCount(ctx context.Context, req api.GetCountRequestObject) (api.GetCountResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	c, err := getCount(ctx, q, a, req.OrgId, req.Id, false)
	if err != nil {
		return nil, err
	}
	sheet, err := sheetOf(ctx, q, c)
	if err != nil {
		return nil, err
	}
	return api.GetCount200JSONResponse(sheet), nil
}

type countCursor struct {
	At time.Time `json:"a"`
	ID uuid.UUID `json:"i"`
}

func (h *Handlers) ListCounts(ctx context.Context, req api.ListCountsRequestObject) (api.ListCountsResponseObject, error) {
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
	params := db.ListCountsParams{OrgID: req.OrgId, Scope: a.SiteScope(), SiteID: p.SiteId, MaxRows: paging.Fetch(limit)}
	if p.Status != nil {
		s := string(*p.Status)
		params.Status = &s
	}
	if p.Cursor != nil {
		var c countCursor
		if err := paging.DecodeCursor(*p.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		params.CursorAt, params.CursorID = &c.At, &c.ID
	}
	q := db.New(h.pool)
	rows, err := q.ListCounts(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListCounts200JSONResponse{Body: make([]api.CountSheet, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.Count) any { return countCursor{At: last.CountedAt, ID: last.ID} })
	sheets, err := sheetsOf(ctx, q, rows)
	if err != nil {
		return nil, err
	}
	out.Body = append(out.Body, sheets...)
	return out, nil
}

func (h *Handlers) SetCountLines(ctx context.Context, req api.SetCountLinesRequestObject) (api.SetCountLinesResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var sheet api.CountSheet
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		c, err := getCount(ctx, q, a, req.OrgId, req.Id, true)
		if err != nil {
			return err
		}
		if c.Status != "open" {
			return errCountClosed
		}
		var itemIDs, locIDs, lotIDs []uuid.UUID
		for _, l := range req.Body.Lines {
			itemIDs, locIDs = append(itemIDs, l.ItemId), append(locIDs, l.LocationId)
			if l.LotId != nil {
				lotIDs = append(lotIDs, *l.LotId)
			}
		}
		refs, err := resolveRefs(ctx, q, req.OrgId, itemIDs, locIDs, lotIDs)
		if err != nil {
			return err
		}
		for i, l := range req.Body.Lines {
			field := fmt.Sprintf("lines.%d", i)
			it, err := refs.checkItem(field+".itemId", l.ItemId)
			if err != nil {
				return err
			}
			if _, err := refs.checkLocation(field+".locationId", l.LocationId, c.SiteID); err != nil {
				return err
			}
			if !slices.Contains(c.LocationIds, l.LocationId) {
				return apierr.InvalidField(field+".locationId", "is not one of the count's locations")
			}
			if l.LotId != nil {
				if _, err := refs.checkLot(field+".lotId", *l.LotId, it, c.SiteID); err != nil {
					return err
				}
			}
			if l.Quantity == nil {
				if err := q.DeleteCountLine(ctx, db.DeleteCountLineParams{OrgID: req.OrgId, CountID: c.ID, ItemID: it.ID, LocationID: l.LocationId, LotID: l.LotId}); err != nil {
					return err
				}
				continue
			}
			qty, err := parseNonNegative(field+".quantity", *l.Quantity)
			if err != nil {
				return err
			}
			if l.Unit == nil {
				return apierr.InvalidField(field+".unit", "is required with a quantity")
			}
			base, err := toBase(field+".unit", it, qty, *l.Unit)
			if err != nil {
				return err
			}
			if err := q.UpsertCountLine(ctx, db.UpsertCountLineParams{
				OrgID: req.OrgId, CountID: c.ID, ItemID: it.ID, LocationID: l.LocationId, LotID: l.LotId,
				Quantity: qty, Unit: *l.Unit, QuantityBase: base, Now: now,
			}); err != nil {
				return err
			}
		}
		if err := audit.RecordSite(ctx, q, req.OrgId, c.SiteID, c.ID, now); err != nil {
			return err
		}
		sheet, err = sheetOf(ctx, q, c)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.SetCountLines200JSONResponse(sheet), nil
}

// CloseCount posts the variances of an open count: for each line, counted − the book quantity
// at countedAt (every ledger row up to it), as a count_variance row at the average cost.
func (h *Handlers) CloseCount(ctx context.Context, req api.CloseCountRequestObject) (api.CloseCountResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out api.CountCloseResult
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		c, err := getCount(ctx, q, a, req.OrgId, req.Id, true)
		if err != nil {
			return err
		}
		if c.Status != "open" {
			return errCountClosed
		}
		sc, err := loadSite(ctx, q, a, req.OrgId, c.SiteID, now)
		if err != nil {
			return err
		}
		settings, err := q.GetSupplySettings(ctx, req.OrgId)
		if err != nil {
			return err
		}
		lines, err := q.CountLinesOf(ctx, db.CountLinesOfParams{OrgID: req.OrgId, CountIds: []uuid.UUID{c.ID}})
		if err != nil {
			return err
		}
		p := &poster{q: q, orgID: req.OrgId, siteID: c.SiteID, now: now, today: sc.today, source: Source{Type: SourceCount, ID: c.ID}, actor: a.Actor()}
		items := make([]uuid.UUID, 0, len(lines))
		// The lots each item × location counts by lot line: a line without a lot counts the rest.
		lotted := map[ilKey][]uuid.UUID{}
		for _, l := range lines {
			items = append(items, l.ItemID)
			if l.LotID != nil {
				k := ilKey{l.ItemID, l.LocationID}
				lotted[k] = append(lotted[k], *l.LotID)
			}
		}
		if err := p.lock(ctx, items); err != nil {
			return err
		}
		hundred := decimal.NewFromInt(100)
		for _, l := range lines {
			k := ilKey{l.ItemID, l.LocationID}
			var book decimal.Decimal
			if l.LotID != nil {
				book, err = q.BookOfLot(ctx, db.BookOfLotParams{OrgID: req.OrgId, ItemID: l.ItemID, LocationID: l.LocationID, LotID: l.LotID, At: c.CountedAt})
			} else {
				book, err = q.BookExceptLots(ctx, db.BookExceptLotsParams{OrgID: req.OrgId, ItemID: l.ItemID, LocationID: l.LocationID, At: c.CountedAt, Excluded: append([]uuid.UUID{}, lotted[k]...)})
			}
			if err != nil {
				return err
			}
			variance := l.QuantityBase.Sub(book)
			avg := p.costs[l.ItemID].AvgCost
			value, err := money.Round(variance.Mul(avg))
			if err != nil {
				return err
			}
			if !variance.IsZero() {
				m := movement{kind: KindCountVariance, reason: KindCountVariance, itemID: l.ItemID, locationID: l.LocationID, lotID: l.LotID,
					qty: variance, expiredOK: true, unit: l.BaseUnit}
				if l.LotID == nil {
					m.skip = map[uuid.UUID]bool{}
					for _, id := range lotted[k] {
						m.skip[id] = true
					}
				}
				if err := p.post(ctx, m); err != nil {
					return err
				}
			}
			// Flagged: over the percentage of the book quantity (any variance of a zero book is)
			// and over the value.
			overPct := !variance.IsZero() && (book.IsZero() || variance.Abs().Mul(hundred).GreaterThan(book.Abs().Mul(settings.VarianceFlagPercent)))
			flagged := overPct && abs64(value) > settings.VarianceFlagCents
			if err := q.SetCountLineResult(ctx, db.SetCountLineResultParams{
				OrgID: req.OrgId, CountID: c.ID, ItemID: l.ItemID, LocationID: l.LocationID, LotID: l.LotID,
				Expected: &book, Variance: &variance, ValueCents: &value, Flagged: &flagged,
			}); err != nil {
				return err
			}
			if out.VarianceValueCents, err = money.Add(out.VarianceValueCents, value); err != nil {
				return err
			}
			if flagged {
				out.FlaggedLines++
			}
		}
		if err := p.finish(ctx); err != nil {
			return err
		}
		closed, err := q.CloseCount(ctx, db.CloseCountParams{OrgID: req.OrgId, ID: c.ID, Now: &now, ClosedBy: a.Actor()})
		if err != nil {
			return err
		}
		if err := audit.RecordSite(ctx, q, req.OrgId, c.SiteID, c.ID, now); err != nil {
			return err
		}
		out.Count, err = sheetOf(ctx, q, closed)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.CloseCount200JSONResponse(out), nil
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func sheetOf(ctx context.Context, q *db.Queries, c db.Count) (api.CountSheet, error) {
	s, err := sheetsOf(ctx, q, []db.Count{c})
	if err != nil {
		return api.CountSheet{}, err
	}
	return s[0], nil
}

func sheetsOf(ctx context.Context, q *db.Queries, counts []db.Count) ([]api.CountSheet, error) {
	out := make([]api.CountSheet, 0, len(counts))
	if len(counts) == 0 {
		return out, nil
	}
	ids := make([]uuid.UUID, 0, len(counts))
	for _, c := range counts {
		ids = append(ids, c.ID)
	}
	orgID := counts[0].OrgID
	lines, err := q.CountLinesOf(ctx, db.CountLinesOfParams{OrgID: orgID, CountIds: ids})
	if err != nil {
		return nil, err
	}
	byCount := map[uuid.UUID][]api.CountLine{}
	for _, l := range lines {
		cl := api.CountLine{
			ItemId: l.ItemID, LocationId: l.LocationID, LotId: l.LotID, Quantity: api.Quantity(fmtQty(l.Quantity)), Unit: l.Unit,
			QuantityBase: api.Quantity(fmtQty(l.QuantityBase)), BaseUnit: api.StandardUnit(l.BaseUnit), ValueCents: l.ValueCents, Flagged: l.Flagged,
		}
		if l.Expected != nil {
			s := fmtQty(*l.Expected)
			cl.Expected = &s
		}
		if l.Expected != nil {
			c := fmtQty(l.QuantityBase)
			cl.Counted = &c
		}
		if l.Variance != nil {
			s := fmtQty(*l.Variance)
			cl.Variance = &s
		}
		byCount[l.CountID] = append(byCount[l.CountID], cl)
	}
	for _, c := range counts {
		s := api.CountSheet{
			Id: c.ID, SiteId: c.SiteID, Name: c.Name, LocationIds: c.LocationIds, CountedAt: c.CountedAt, Status: api.CountStatus(c.Status),
			CreatedAt: c.CreatedAt, CreatedBy: c.CreatedBy, ClosedAt: c.ClosedAt, ClosedBy: c.ClosedBy, Lines: byCount[c.ID],
		}
		if s.Lines == nil {
			s.Lines = []api.CountLine{}
		}
		out = append(out, s)
	}
	return out, nil
}

func (h *Handlers) GetSupplySettings(ctx context.Context, req api.GetSupplySettingsRequestObject) (api.GetSupplySettingsResponseObject, error) {
	s, err := db.New(h.pool).GetSupplySettings(ctx, req.OrgId)
	if err != nil {
		return nil, err
	}
	over := fmtQty(s.OverReceiptPercent)
	return api.GetSupplySettings200JSONResponse{VarianceFlagPercent: fmtQty(s.VarianceFlagPercent), VarianceFlagCents: s.VarianceFlagCents, OverReceiptPercent: &over}, nil
}

func (h *Handlers) UpdateSupplySettings(ctx context.Context, req api.UpdateSupplySettingsRequestObject) (api.UpdateSupplySettingsResponseObject, error) {
	pct, err := parseNonNegative("varianceFlagPercent", req.Body.VarianceFlagPercent)
	if err != nil {
		return nil, err
	}
	var over *decimal.Decimal
	if req.Body.OverReceiptPercent != nil {
		o, err := parseNonNegative("overReceiptPercent", *req.Body.OverReceiptPercent)
		if err != nil {
			return nil, err
		}
		over = &o
	}
	now := h.clock.Now()
	var kept decimal.Decimal
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		var err error
		if kept, err = q.UpsertSupplySettings(ctx, db.UpsertSupplySettingsParams{OrgID: req.OrgId, VarianceFlagPercent: pct, VarianceFlagCents: req.Body.VarianceFlagCents, OverReceiptPercent: over, Now: now}); err != nil {
			return err
		}
		return audit.Record(ctx, q, req.OrgId, uuid.Nil, now)
	})
	if err != nil {
		return nil, err
	}
	o := fmtQty(kept)
	return api.UpdateSupplySettings200JSONResponse{VarianceFlagPercent: fmtQty(pct), VarianceFlagCents: req.Body.VarianceFlagCents, OverReceiptPercent: &o}, nil
}
