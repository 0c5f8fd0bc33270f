package purchasing

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	openapi_types "github.com/oapi-codegen/runtime/types"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/inventory"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
)

type nameCursor struct {
	Name string    `json:"n"`
	ID   uuid.UUID `json:"i"`
}

func (h *Handlers) ListVendors(ctx context.Context, req api.ListVendorsRequestObject) (api.ListVendorsResponseObject, error) {
	p := req.Params
	limit := paging.Limit(p.Limit)
	params := db.ListVendorsParams{OrgID: req.OrgId, Active: p.Active, Lim: paging.Fetch(limit)}
	if p.Cursor != nil {
		var c nameCursor
		if err := paging.DecodeCursor(*p.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		params.AfterName, params.AfterID = &c.Name, &c.ID
	}
	rows, err := db.New(h.pool).ListVendors(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListVendors200JSONResponse{Body: make([]api.Vendor, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.Vendor) any { return nameCursor{Name: strings.ToLower(last.Name), ID: last.ID} })
	for _, r := range rows {
		out.Body = append(out.Body, vendorToAPI(r))
	}
	return out, nil
}

// vendorFields validates a vendor's input into the columns it writes.
func vendorFields(in api.VendorInput) (db.InsertVendorParams, error) {
	var p db.InsertVendorParams
	p.Name = strings.TrimSpace(in.Name)
	if p.Name == "" {
		return p, apierr.InvalidField("name", "must not be blank")
	}
	p.AccountNumber = nonBlank(in.AccountNumber)
	if in.Contact != nil {
		p.ContactName, p.ContactPhone = nonBlank(in.Contact.Name), nonBlank(in.Contact.Phone)
		if in.Contact.Email != nil {
			p.ContactEmail = nonBlank((*string)(in.Contact.Email))
		}
	}
	if in.OrderEmail != nil {
		p.OrderEmail = nonBlank((*string)(in.OrderEmail))
	}
	if in.LeadTimeDays != nil {
		p.LeadTimeDays = int32(*in.LeadTimeDays)
	}
	if in.MinOrderCents != nil {
		p.MinOrderCents = *in.MinOrderCents
	}
	p.OrderDays = []string{}
	if in.OrderDays != nil {
		// In week order, whatever order they came in.
		for _, d := range []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"} {
			for _, g := range *in.OrderDays {
				if string(g) == d {
					p.OrderDays = append(p.OrderDays, d)
					break
				}
			}
		}
	}
	p.Active = in.Active == nil || *in.Active
	return p, nil
}

func (h *Handlers) CreateVendor(ctx context.Context, req api.CreateVendorRequestObject) (api.CreateVendorResponseObject, error) {
	p, err := vendorFields(*req.Body)
	if err != nil {
		return nil, err
	}
	p.ID, p.OrgID, p.Now = uuid.Must(uuid.NewV7()), req.OrgId, h.clock.Now()
	var v db.Vendor
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		var err error
		v, err = q.InsertVendor(ctx, p)
		if pg.IsNoRows(err) {
			return errVendorName
		}
		if err != nil {
			return err
		}
		return audit.Record(ctx, q, req.OrgId, v.ID, p.Now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateVendor201JSONResponse{Body: vendorToAPI(v)}, nil
}

func (h *Handlers) UpdateVendor(ctx context.Context, req api.UpdateVendorRequestObject) (api.UpdateVendorResponseObject, error) {
	p, err := vendorFields(*req.Body)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var v db.Vendor
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		var err error
		v, err = q.UpdateVendor(ctx, db.UpdateVendorParams{
			OrgID: req.OrgId, ID: req.Id, Name: p.Name, AccountNumber: p.AccountNumber, ContactName: p.ContactName,
			ContactEmail: p.ContactEmail, ContactPhone: p.ContactPhone, OrderEmail: p.OrderEmail, LeadTimeDays: p.LeadTimeDays,
			MinOrderCents: p.MinOrderCents, OrderDays: p.OrderDays, Active: p.Active, Now: now,
		})
		if _, dup := pg.IsUniqueViolation(err); dup {
			return errVendorName
		}
		if pg.IsNoRows(err) {
			return errVendorNotFound
		}
		if err != nil {
			return err
		}
		return audit.Record(ctx, q, req.OrgId, v.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateVendor200JSONResponse(vendorToAPI(v)), nil
}

func getVendor(ctx context.Context, q *db.Queries, orgID, id uuid.UUID) (db.Vendor, error) {
	v, err := q.GetVendor(ctx, db.GetVendorParams{OrgID: orgID, ID: id})
	if pg.IsNoRows(err) {
		return v, errVendorNotFound
	}
	return v, err
}

func vendorToAPI(v db.Vendor) api.Vendor {
	days := make([]api.Weekday, 0, len(v.OrderDays))
	for _, d := range v.OrderDays {
		days = append(days, api.Weekday(d))
	}
	out := api.Vendor{
		Id: v.ID, Name: v.Name, AccountNumber: v.AccountNumber, OrderEmail: v.OrderEmail, LeadTimeDays: int(v.LeadTimeDays),
		MinOrderCents: v.MinOrderCents, OrderDays: days, Active: v.Active, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt,
	}
	out.Contact.Name, out.Contact.Phone = v.ContactName, v.ContactPhone
	if v.ContactEmail != nil {
		e := openapi_types.Email(*v.ContactEmail)
		out.Contact.Email = &e
	}
	return out
}

// Vendor items.

func (h *Handlers) ListVendorItems(ctx context.Context, req api.ListVendorItemsRequestObject) (api.ListVendorItemsResponseObject, error) {
	p := req.Params
	limit := paging.Limit(p.Limit)
	params := db.ListVendorItemsParams{OrgID: req.OrgId, VendorID: req.Id, Lim: paging.Fetch(limit)}
	if p.Cursor != nil {
		var c nameCursor
		if err := paging.DecodeCursor(*p.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		params.AfterSku, params.AfterID = &c.Name, &c.ID
	}
	q := db.New(h.pool)
	if _, err := getVendor(ctx, q, req.OrgId, req.Id); err != nil {
		return nil, err
	}
	rows, err := q.ListVendorItems(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListVendorItems200JSONResponse{Body: make([]api.VendorItem, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.VendorItem) any { return nameCursor{Name: strings.ToLower(last.Sku), ID: last.ID} })
	for _, r := range rows {
		out.Body = append(out.Body, vendorItemToAPI(r))
	}
	return out, nil
}

func (h *Handlers) CreateVendorItem(ctx context.Context, req api.CreateVendorItemRequestObject) (api.CreateVendorItemResponseObject, error) {
	b := req.Body
	sku := strings.TrimSpace(b.Sku)
	if sku == "" {
		return nil, apierr.InvalidField("sku", "must not be blank")
	}
	size, err := parsePacks("packSize", b.PackSize)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var vi db.VendorItem
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if _, err := getVendor(ctx, q, req.OrgId, req.Id); err != nil {
			return err
		}
		it, err := inventory.GetItem(ctx, q, req.OrgId, b.ItemId)
		if err == inventory.ErrItemNotFound {
			return apierr.InvalidField("itemId", "is no inventory item of the organization")
		}
		if err != nil {
			return err
		}
		if err := checkPackUnit("packUnit", it, size, b.PackUnit); err != nil {
			return err
		}
		preferred := b.Preferred != nil && *b.Preferred
		id := uuid.Must(uuid.NewV7())
		if preferred {
			if err := q.ClearPreferred(ctx, db.ClearPreferredParams{OrgID: req.OrgId, ItemIds: []uuid.UUID{it.ID}, Keep: []uuid.UUID{id}, Now: now}); err != nil {
				return err
			}
		}
		vi, err = q.InsertVendorItem(ctx, db.InsertVendorItemParams{
			ID: id, OrgID: req.OrgId, VendorID: req.Id, ItemID: it.ID, Sku: sku, Description: nonBlank(b.Description),
			PackSize: size, PackUnit: b.PackUnit, PriceCents: b.PriceCents, Preferred: preferred, Active: b.Active == nil || *b.Active, Now: now,
		})
		if pg.IsNoRows(err) {
			return errVendorSKU
		}
		if err != nil {
			return err
		}
		return audit.Record(ctx, q, req.OrgId, vi.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateVendorItem201JSONResponse{Body: vendorItemToAPI(vi)}, nil
}

// checkPackUnit answers 400 when the item cannot convert a pack to its base unit.
func checkPackUnit(field string, it inventory.Item, size decimal.Decimal, unit string) error {
	base, err := it.Units.ToBase(size, unit)
	if err != nil {
		return apierr.InvalidField(field, err.Error())
	}
	if !base.IsPositive() {
		return apierr.InvalidField(field, fmt.Sprintf("a pack is too small to count in %s", it.Units.Base))
	}
	return nil
}

func vendorItemToAPI(v db.VendorItem) api.VendorItem {
	return api.VendorItem{
		Id: v.ID, VendorId: v.VendorID, ItemId: v.ItemID, Sku: v.Sku, Description: v.Description, PackSize: api.Quantity(fmtQty(v.PackSize)),
		PackUnit: v.PackUnit, PriceCents: v.PriceCents, Preferred: v.Preferred, Active: v.Active, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt,
	}
}
