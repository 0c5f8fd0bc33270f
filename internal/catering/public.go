package catering

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/capability"
	"github.com/sous-app/sous/internal/pg"
)

// The public pages show display data only: names, dates, amounts and the brand, never an id,
// an organization or a member. Every token that opens nothing is the same 404.

func (h *Handlers) sharedQuote(ctx context.Context, q *db.Queries, t capability.Target) (api.SharedQuote, error) {
	row, err := q.GetSharedQuote(ctx, db.GetSharedQuoteParams{OrgID: t.OrgID, ID: t.ID})
	if pg.IsNoRows(err) {
		return api.SharedQuote{}, capability.ErrNotFound
	}
	if err != nil {
		return api.SharedQuote{}, err
	}
	qt := row.CateringQuote
	var lines []storedLine
	if err := json.Unmarshal(qt.Lines, &lines); err != nil {
		return api.SharedQuote{}, err
	}
	out := api.SharedQuote{
		Brand:      api.PublicBrand{Name: row.OrgName, Primary: row.BrandPrimary, Accent: row.BrandAccent},
		ClientName: row.ClientName, EventName: row.EventName, EventStartsAt: row.StartsAt, EventEndsAt: row.EndsAt,
		Timezone: row.Timezone, Venue: row.Venue, GuestCount: int(row.GuestCount), Version: int(qt.Version),
		Status: api.QuoteStatus(quoteStatus(qt, row.Timezone, h.clock.Now())), Lines: make([]api.SharedQuoteLine, len(lines)),
		ServiceChargeBps: int(qt.ServiceChargeBps), TaxRateBps: int(qt.TaxRateBps), DepositPercent: int(qt.DepositPercent),
		Totals: totalsOf(qt), Terms: qt.Terms, ValidUntil: fromPGDate(qt.ValidUntil),
	}
	for i, l := range lines {
		out.Lines[i] = api.SharedQuoteLine{Kind: api.QuoteLineKind(l.Kind), Description: l.Description, Quantity: l.Quantity,
			UnitPriceCents: l.UnitPriceCents, Taxable: l.Taxable, TotalCents: l.TotalCents}
	}
	if qt.AcceptedAt != nil {
		out.Acceptance = &api.SharedAcceptance{Name: deref(qt.AcceptedByName), At: *qt.AcceptedAt}
	}
	return out, nil
}

func (h *Handlers) GetSharedQuote(ctx context.Context, req api.GetSharedQuoteRequestObject) (api.GetSharedQuoteResponseObject, error) {
	t, err := h.resolver.Resolve(ctx, capability.Quote, req.Token)
	if err != nil {
		return nil, err
	}
	out, err := h.sharedQuote(ctx, db.New(h.pool), t)
	if err != nil {
		return nil, err
	}
	return api.GetSharedQuote200JSONResponse{Body: out}, nil
}

// AcceptSharedQuote is the client accepting from the link. The quote row is locked, so of N
// simultaneous accepts one wins and the others find it accepted (409).
func (h *Handlers) AcceptSharedQuote(ctx context.Context, req api.AcceptSharedQuoteRequestObject) (api.AcceptSharedQuoteResponseObject, error) {
	b := req.Body
	name := strings.TrimSpace(b.Name)
	switch {
	case !b.Agree:
		return nil, apierr.InvalidField("agree", "must be true to accept the quote's terms")
	case name == "":
		return nil, apierr.InvalidField("name", "must not be blank")
	}
	t, err := h.resolver.ResolveWrite(ctx, capability.Quote, req.Token)
	if err != nil {
		return nil, err
	}
	who := acceptance{name: name, via: "link"}
	if b.Email != nil {
		e := string(*b.Email)
		who.email = &e
	}
	var out api.SharedQuote
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		cur, err := q.GetCateringQuoteForUpdate(ctx, db.GetCateringQuoteForUpdateParams{OrgID: t.OrgID, ID: t.ID})
		if pg.IsNoRows(err) {
			return capability.ErrNotFound
		}
		if err != nil {
			return err
		}
		if _, err := h.accept(ctx, tx, t.OrgID, cur.CateringQuote, cur.SiteID, cur.Timezone, who); err != nil {
			return err
		}
		out, err = h.sharedQuote(ctx, q, t)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.AcceptSharedQuote200JSONResponse{Body: out}, nil
}

func (h *Handlers) GetSharedInvoice(ctx context.Context, req api.GetSharedInvoiceRequestObject) (api.GetSharedInvoiceResponseObject, error) {
	out, _, err := h.SharedInvoice(ctx, req.Token)
	if err != nil {
		return nil, err
	}
	return api.GetSharedInvoice200JSONResponse{Body: out}, nil
}

// SharedInvoice is the invoice a public link opens, with the event site's IANA time zone for
// showing its dates (the hosted page prints them in that zone).
func (h *Handlers) SharedInvoice(ctx context.Context, token string) (api.SharedInvoice, string, error) {
	t, err := h.resolver.Resolve(ctx, capability.Invoice, token)
	if err != nil {
		return api.SharedInvoice{}, "", err
	}
	q := db.New(h.pool)
	row, err := q.GetSharedInvoice(ctx, db.GetSharedInvoiceParams{OrgID: t.OrgID, ID: t.ID})
	if pg.IsNoRows(err) || (err == nil && row.CateringInvoice.Status == invoiceVoid) {
		return api.SharedInvoice{}, "", capability.ErrNotFound
	}
	if err != nil {
		return api.SharedInvoice{}, "", err
	}
	inv := row.CateringInvoice
	payments, err := q.ListCateringPayments(ctx, db.ListCateringPaymentsParams{OrgID: t.OrgID, InvoiceID: inv.ID})
	if err != nil {
		return api.SharedInvoice{}, "", err
	}
	out := api.SharedInvoice{
		Brand:      api.PublicBrand{Name: row.OrgName, Primary: row.BrandPrimary, Accent: row.BrandAccent},
		ClientName: row.ClientName, EventName: row.EventName, EventStartsAt: row.StartsAt, Number: inv.Number,
		Kind: api.InvoiceKind(inv.Kind), Status: api.InvoiceStatus(inv.Status), TotalCents: inv.TotalCents, PaidCents: inv.PaidCents,
		BalanceCents: inv.TotalCents - inv.PaidCents, Payments: make([]api.SharedPayment, 0, len(payments)), IssuedAt: inv.CreatedAt,
	}
	if err := json.Unmarshal(inv.Lines, &out.Lines); err != nil {
		return api.SharedInvoice{}, "", err
	}
	for _, p := range payments {
		out.Payments = append(out.Payments, api.SharedPayment{AmountCents: p.AmountCents, Method: api.PaymentMethod(p.Method), PaidAt: p.PaidAt})
	}
	return out, row.Timezone, nil
}
