package inventory

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/authz"
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
	params := db.ListStockParams{
		OrgID: req.OrgId, SiteID: p.SiteId, Scope: a.SiteScope(), LocationID: p.LocationId, ItemID: p.ItemId,
		BelowPar: p.BelowPar != nil && *p.BelowPar, MaxRows: int32(limit + 1),
	}
	if p.Cursor != nil {
		var c stockCursor
		if err := paging.DecodeCursor(*p.Cursor, &c, func() bool { return c.Item != uuid.Nil && c.Location != uuid.Nil }); err != nil {
			return nil, err
		}
		params.CursorName, params.CursorItem, params.CursorLocation = &c.Name, &c.Item, &c.Location
	}
	rows, err := db.New(h.pool).ListStock(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListStock200JSONResponse{Body: make([]api.StockLevel, 0, len(rows))}
	if len(rows) > limit {
		rows = rows[:limit]
		last := rows[len(rows)-1]
		v := url.Values{}
		for k, id := range map[string]*uuid.UUID{"siteId": p.SiteId, "locationId": p.LocationId, "itemId": p.ItemId} {
			if id != nil {
				v.Set(k, id.String())
			}
		}
		if p.BelowPar != nil {
			v.Set("belowPar", fmt.Sprint(*p.BelowPar))
		}
		if p.Limit != nil {
			v.Set("limit", fmt.Sprint(*p.Limit))
		}
		next := paging.NextLink(ctx, fmt.Sprintf("/v1/orgs/%s/stock", req.OrgId), v,
			paging.EncodeCursor(stockCursor{Name: lower(last.ItemName), Item: last.ItemID, Location: last.LocationID}))
		out.Headers.Link = &next
	}
	for _, r := range rows {
		s := api.StockLevel{
			ItemId: r.ItemID, ItemName: r.ItemName, SiteId: r.SiteID, LocationId: r.LocationID, LocationName: r.LocationName,
			Quantity: api.Quantity(fmtQty(r.Quantity)), Unit: api.StandardUnit(r.BaseUnit), Lots: []api.StockLot{},
			AvgCost: api.CostCents(fmtQty(r.AvgCost)), ValueCents: r.Quantity.Mul(r.AvgCost).RoundBank(0).IntPart(),
			BelowPar: r.Par != nil && r.SiteOnHand.LessThan(*r.Par),
		}
		if r.Par != nil {
			v := fmtQty(*r.Par)
			s.Par = &v
		}
		if r.ReorderPoint != nil {
			v := fmtQty(*r.ReorderPoint)
			s.ReorderPoint = &v
		}
		var lots []struct {
			LotID     uuid.UUID `json:"lotId"`
			Code      string    `json:"code"`
			ExpiresOn *string   `json:"expiresOn"`
			Quantity  string    `json:"quantity"`
		}
		if err := json.Unmarshal(r.Lots, &lots); err != nil {
			return nil, err
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
		out.Body = append(out.Body, s)
	}
	return out, nil
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
		FromAt: p.From, ToAt: p.To, MaxRows: int32(limit + 1),
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
	if len(rows) > limit {
		rows = rows[:limit]
		last := rows[len(rows)-1].StockTxn
		v := url.Values{}
		for k, id := range map[string]*uuid.UUID{"siteId": p.SiteId, "locationId": p.LocationId, "itemId": p.ItemId} {
			if id != nil {
				v.Set(k, id.String())
			}
		}
		if p.Kind != nil {
			v.Set("kind", string(*p.Kind))
		}
		if p.From != nil {
			v.Set("from", p.From.Format(time.RFC3339Nano))
		}
		if p.To != nil {
			v.Set("to", p.To.Format(time.RFC3339Nano))
		}
		if p.Limit != nil {
			v.Set("limit", fmt.Sprint(*p.Limit))
		}
		next := paging.NextLink(ctx, fmt.Sprintf("/v1/orgs/%s/stock/txns", req.OrgId), v, paging.EncodeCursor(txnCursor{At: last.At, ID: last.ID}))
		out.Headers.Link = &next
	}
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
		IncludeEmpty: p.IncludeEmpty != nil && *p.IncludeEmpty, MaxRows: int32(limit + 1),
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
	if len(rows) > limit {
		rows = rows[:limit]
		last := rows[len(rows)-1]
		v := url.Values{}
		for k, id := range map[string]*uuid.UUID{"siteId": p.SiteId, "itemId": p.ItemId} {
			if id != nil {
				v.Set(k, id.String())
			}
		}
		if p.ExpiresBefore != nil {
			v.Set("expiresBefore", p.ExpiresBefore.Format(time.DateOnly))
		}
		if p.IncludeEmpty != nil {
			v.Set("includeEmpty", fmt.Sprint(*p.IncludeEmpty))
		}
		if p.Limit != nil {
			v.Set("limit", fmt.Sprint(*p.Limit))
		}
		c := lotCursor{Received: last.ReceivedAt, ID: last.ID}
		if last.ExpiresOn.Valid {
			c.Expiry = last.ExpiresOn.Time
		}
		next := paging.NextLink(ctx, fmt.Sprintf("/v1/orgs/%s/lots", req.OrgId), v, paging.EncodeCursor(c))
		out.Headers.Link = &next
	}
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
