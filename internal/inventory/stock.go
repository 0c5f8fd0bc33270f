package inventory

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/money"
	"github.com/sous-app/sous/internal/paging"
)

type stockCursor struct {
	Name     string    `json:"n"`
	Item     uuid.UUID `json:"i"`
	Location uuid.UUID `json:"l"`
}

func (h *Handlers) ListStock(ctx context.Context, req api.ListStockRequestObject) (api.ListStockResponseObject, error) {
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
	var cur *stockCursor
	if p.Cursor != nil {
		var c stockCursor
		if err := paging.DecodeCursor(*p.Cursor, &c, func() bool { return c.Item != uuid.Nil && c.Location != uuid.Nil }); err != nil {
			return nil, err
		}
		cur = &c
	}
	belowPar := p.BelowPar != nil && *p.BelowPar
	rows, err := h.stockPage(ctx, stockQuery{orgID: req.OrgId, siteID: p.SiteId, scope: a.SiteScope(), locationID: p.LocationId,
		itemID: p.ItemId, belowPar: belowPar, cursor: cur, limit: int(paging.Fetch(limit))})
	if err != nil {
		return nil, err
	}
	out := api.ListStock200JSONResponse{Body: make([]api.StockLevel, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last stockRow) any {
		return stockCursor{Name: last.sortName, Item: last.ItemId, Location: last.LocationId}
	})
	for _, r := range rows {
		out.Body = append(out.Body, r.StockLevel)
	}
	return out, nil
}

type stockQuery struct {
	orgID              uuid.UUID
	siteID, locationID *uuid.UUID
	itemID             *uuid.UUID
	scope              []uuid.UUID
	belowPar           bool
	cursor             *stockCursor
	limit              int
}

type stockRow struct {
	api.StockLevel
	sortName string
}

// stockItemBatch is how many items a page reads at a time: a page of 500 rows of items stocked
// at 4 locations reads 125.
const stockItemBatch = 200

// stockPage reads up to q.limit stock rows after the cursor: items in name order, a batch at a
// time, then their stock per location in one query, until the page is full or the catalog ends.
// Each step is driven by an index, so a page costs the same on the first read of a fresh
// database as on a warmed, analyzed one.
func (h *Handlers) stockPage(ctx context.Context, q stockQuery) ([]stockRow, error) {
	dbq := db.New(h.pool)
	out := make([]stockRow, 0, q.limit)
	params := db.StockItemsPageParams{OrgID: q.orgID, ItemID: q.itemID, MaxRows: stockItemBatch}
	if q.cursor != nil {
		params.CursorName, params.CursorItem = &q.cursor.Name, &q.cursor.Item
	}
	for len(out) < q.limit {
		items, err := dbq.StockItemsPage(ctx, params)
		if err != nil {
			return nil, err
		}
		if len(items) == 0 {
			break
		}
		ids := make([]uuid.UUID, 0, len(items))
		for _, it := range items {
			ids = append(ids, it.ID)
		}
		stock, err := dbq.StockOfItems(ctx, db.StockOfItemsParams{OrgID: q.orgID, ItemIds: ids, SiteID: q.siteID, Scope: q.scope, LocationID: q.locationID})
		if err != nil {
			return nil, err
		}
		byItem := map[uuid.UUID][]db.StockOfItemsRow{}
		for _, s := range stock {
			byItem[s.ItemID] = append(byItem[s.ItemID], s)
		}
		for _, it := range items {
			rows := byItem[it.ID]
			sort.Slice(rows, func(i, j int) bool { return rows[i].LocationID.String() < rows[j].LocationID.String() })
			for _, r := range rows {
				if q.cursor != nil && it.ID == q.cursor.Item && r.LocationID.String() <= q.cursor.Location.String() {
					continue
				}
				row, err := stockLevel(it, r)
				if err != nil {
					return nil, err
				}
				if q.belowPar && !row.BelowPar {
					continue
				}
				out = append(out, row)
				if len(out) == q.limit {
					return out, nil
				}
			}
		}
		if len(items) < stockItemBatch {
			break
		}
		last := items[len(items)-1]
		name := last.SortName
		// The next batch starts after the last item (its locations are all in this one).
		params.CursorName, params.CursorItem = &name, &last.ID
		q.cursor = &stockCursor{Name: name, Item: last.ID, Location: uuid.Max}
	}
	return out, nil
}

func stockLevel(it db.StockItemsPageRow, r db.StockOfItemsRow) (stockRow, error) {
	s := api.StockLevel{
		ItemId: it.ID, ItemName: it.Name, SiteId: r.SiteID, LocationId: r.LocationID, LocationName: r.LocationName,
		Quantity: api.Quantity(fmtQty(r.Quantity)), Unit: api.StandardUnit(it.BaseUnit), Lots: []api.StockLot{},
		AvgCost: api.CostCents(fmtQty(r.AvgCost)),
	}
	var err error
	if s.ValueCents, err = money.Round(r.Quantity.Mul(r.AvgCost)); err != nil {
		return stockRow{}, err
	}
	if !r.Par.IsNegative() {
		v := fmtQty(r.Par)
		s.Par = &v
		s.BelowPar = r.SiteOnHand.LessThan(r.Par)
	}
	if !r.ReorderPoint.IsNegative() {
		v := fmtQty(r.ReorderPoint)
		s.ReorderPoint = &v
	}
	var lots []struct {
		LotID     uuid.UUID `json:"lotId"`
		Code      string    `json:"code"`
		ExpiresOn *string   `json:"expiresOn"`
		Quantity  string    `json:"quantity"`
	}
	if err := json.Unmarshal(r.Lots, &lots); err != nil {
		return stockRow{}, err
	}
	for _, l := range lots {
		sl := api.StockLot{LotId: l.LotID, Code: l.Code, Quantity: api.Quantity(fmtQty(mustDec(l.Quantity)))}
		if l.ExpiresOn != nil {
			if t, err := time.Parse(time.DateOnly, *l.ExpiresOn); err == nil {
				sl.ExpiresOn = &openapi_types.Date{Time: t}
			}
		}
		s.Lots = append(s.Lots, sl)
	}
	return stockRow{StockLevel: s, sortName: it.SortName}, nil
}

type txnCursor struct {
	At time.Time `json:"a"`
	ID uuid.UUID `json:"i"`
}

func (h *Handlers) ListStockTxns(ctx context.Context, req api.ListStockTxnsRequestObject) (api.ListStockTxnsResponseObject, error) {
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
	params := db.ListStockTxnsParams{
		OrgID: req.OrgId, Scope: a.SiteScope(), SiteID: p.SiteId, ItemID: p.ItemId, LocationID: p.LocationId,
		FromAt: p.From, ToAt: p.To, MaxRows: paging.Fetch(limit),
	}
	if p.Kind != nil {
		k := string(*p.Kind)
		params.Kind = &k
	}
	if p.Cursor != nil {
		var c txnCursor
		if err := paging.DecodeCursor(*p.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		params.CursorAt, params.CursorID = &c.At, &c.ID
	}
	rows, err := db.New(h.pool).ListStockTxns(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListStockTxns200JSONResponse{Body: make([]api.StockTxn, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.ListStockTxnsRow) any { return txnCursor{At: last.StockTxn.At, ID: last.StockTxn.ID} })
	for _, r := range rows {
		out.Body = append(out.Body, txnToAPI(r.StockTxn, r.BaseUnit))
	}
	return out, nil
}

type lotCursor struct {
	Expiry   time.Time `json:"e"`
	Received time.Time `json:"r"`
	ID       uuid.UUID `json:"i"`
}

// noExpiry stands for a lot without expiry in the lots' order (PostgreSQL's 'infinity' date).
var noExpiry = pgtype.Date{InfinityModifier: pgtype.Infinity, Valid: true}

func (h *Handlers) ListLots(ctx context.Context, req api.ListLotsRequestObject) (api.ListLotsResponseObject, error) {
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
	params := db.ListLotsParams{
		OrgID: req.OrgId, Scope: a.SiteScope(), SiteID: p.SiteId, ItemID: p.ItemId,
		IncludeEmpty: p.IncludeEmpty != nil && *p.IncludeEmpty, MaxRows: paging.Fetch(limit),
	}
	if p.ExpiresBefore != nil {
		params.ExpiresBefore = pgtype.Date{Time: p.ExpiresBefore.Time, Valid: true}
	}
	if p.Cursor != nil {
		var c lotCursor
		if err := paging.DecodeCursor(*p.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		params.CursorExpiry = pgtype.Date{Time: c.Expiry, Valid: true}
		if c.Expiry.IsZero() {
			params.CursorExpiry = noExpiry
		}
		params.CursorReceived, params.CursorID = &c.Received, &c.ID
	}
	rows, err := db.New(h.pool).ListLots(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListLots200JSONResponse{Body: make([]api.Lot, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.ListLotsRow) any {
		c := lotCursor{Received: last.ReceivedAt, ID: last.ID}
		if last.ExpiresOn.Valid {
			c.Expiry = last.ExpiresOn.Time
		}
		return c
	})
	for _, r := range rows {
		l := api.Lot{
			Id: r.ID, SiteId: r.SiteID, ItemId: r.ItemID, Code: r.Code, ReceivedAt: r.ReceivedAt,
			Quantity: api.Quantity(fmtQty(r.OnHand)), Unit: api.StandardUnit(r.BaseUnit), Locations: []api.LotLocation{},
		}
		if r.ExpiresOn.Valid {
			l.ExpiresOn = &openapi_types.Date{Time: r.ExpiresOn.Time}
		}
		var locs []struct {
			LocationID uuid.UUID `json:"locationId"`
			Quantity   string    `json:"quantity"`
		}
		if err := json.Unmarshal(r.Locations, &locs); err != nil {
			return nil, err
		}
		for _, x := range locs {
			l.Locations = append(l.Locations, api.LotLocation{LocationId: x.LocationID, Quantity: api.Quantity(fmtQty(mustDec(x.Quantity)))})
		}
		out.Body = append(out.Body, l)
	}
	return out, nil
}
