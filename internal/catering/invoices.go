package catering

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/capability"
	"github.com/sous-app/sous/internal/events"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
)

const (
	invoiceOpen = "open"
	invoicePaid = "paid"
	invoiceVoid = "void"
)

func errInvoiceNotOpen(msg string) error {
	return apierr.Conflict(msg).WithCode(apierr.CodeInvoiceNotOpen)
}

// invoiceFor loads an invoice whose event's site the member can see.
func invoiceFor(ctx context.Context, q *db.Queries, a authz.Access, orgID, id uuid.UUID, lock bool) (db.CateringInvoice, uuid.UUID, error) {
	var (
		row db.GetCateringInvoiceRow
		err error
	)
	if lock {
		var r db.GetCateringInvoiceForUpdateRow
		r, err = q.GetCateringInvoiceForUpdate(ctx, db.GetCateringInvoiceForUpdateParams{OrgID: orgID, ID: id})
		row = db.GetCateringInvoiceRow(r)
	} else {
		row, err = q.GetCateringInvoice(ctx, db.GetCateringInvoiceParams{OrgID: orgID, ID: id})
	}
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(row.SiteID)) {
		return db.CateringInvoice{}, uuid.Nil, errInvoiceNotFound
	}
	return row.CateringInvoice, row.SiteID, err
}

func toAPIInvoice(r db.CateringInvoice, payments []db.CateringPayment) (api.Invoice, error) {
	out := api.Invoice{
		Id: r.ID, QuoteId: r.QuoteID, EventId: r.EventID, Number: r.Number, Kind: api.InvoiceKind(r.Kind), Status: api.InvoiceStatus(r.Status),
		TotalCents: r.TotalCents, PaidCents: r.PaidCents, BalanceCents: r.TotalCents - r.PaidCents,
		Payments: make([]api.Payment, 0, len(payments)), CreatedAt: r.CreatedAt, PaidAt: r.PaidAt, VoidedAt: r.VoidedAt,
	}
	if r.Status == invoiceVoid {
		out.BalanceCents = 0
	}
	if err := json.Unmarshal(r.Lines, &out.Lines); err != nil {
		return api.Invoice{}, err
	}
	for _, p := range payments {
		out.Payments = append(out.Payments, api.Payment{Id: p.ID, AmountCents: p.AmountCents, Method: api.PaymentMethod(p.Method), PaidAt: p.PaidAt, Reference: p.Reference, CreatedAt: p.CreatedAt})
	}
	return out, nil
}

func (h *Handlers) invoiceWithPayments(ctx context.Context, q *db.Queries, r db.CateringInvoice) (api.Invoice, error) {
	ps, err := q.ListCateringPayments(ctx, db.ListCateringPaymentsParams{OrgID: r.OrgID, InvoiceID: r.ID})
	if err != nil {
		return api.Invoice{}, err
	}
	return toAPIInvoice(r, ps)
}

func (h *Handlers) ListCateringInvoices(ctx context.Context, req api.ListCateringInvoicesRequestObject) (api.ListCateringInvoicesResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	limit := paging.Limit(req.Params.Limit)
	p := db.ListCateringInvoicesParams{OrgID: req.OrgId, Scope: a.SiteScope(), QuoteID: req.Params.QuoteId, MaxRows: paging.Fetch(limit)}
	if req.Params.Cursor != nil {
		var c idCursor
		if err := paging.DecodeCursor(*req.Params.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		p.CursorID = &c.ID
	}
	q := db.New(h.pool)
	rows, err := q.ListCateringInvoices(ctx, p)
	if err != nil {
		return nil, err
	}
	out := api.ListCateringInvoices200JSONResponse{Body: make([]api.Invoice, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.ListCateringInvoicesRow) any { return idCursor{ID: last.CateringInvoice.ID} })
	ids := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		ids[i] = r.CateringInvoice.ID
	}
	payments, err := q.ListCateringPaymentsOfInvoices(ctx, db.ListCateringPaymentsOfInvoicesParams{OrgID: req.OrgId, InvoiceIds: ids})
	if err != nil {
		return nil, err
	}
	byInvoice := map[uuid.UUID][]db.CateringPayment{}
	for _, p := range payments {
		byInvoice[p.InvoiceID] = append(byInvoice[p.InvoiceID], p)
	}
	for _, r := range rows {
		inv, err := toAPIInvoice(r.CateringInvoice, byInvoice[r.CateringInvoice.ID])
		if err != nil {
			return nil, err
		}
		out.Body = append(out.Body, inv)
	}
	return out, nil
}

func (h *Handlers) GetCateringInvoice(ctx context.Context, req api.GetCateringInvoiceRequestObject) (api.GetCateringInvoiceResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	inv, _, err := invoiceFor(ctx, q, a, req.OrgId, req.Id, false)
	if err != nil {
		return nil, err
	}
	out, err := h.invoiceWithPayments(ctx, q, inv)
	if err != nil {
		return nil, err
	}
	return api.GetCateringInvoice200JSONResponse(out), nil
}

// invoiceNumber is a display number from the id's random tail.
func invoiceNumber(id uuid.UUID) string {
	return "INV-" + strings.ToUpper(hex.EncodeToString(id[10:]))
}

// CreateCateringInvoice bills the contract: a deposit invoice its depositCents, a final invoice
// its total less the deposits paid. The quote and its live invoices are locked, so two invoices
// of a kind cannot be made at once.
func (h *Handlers) CreateCateringInvoice(ctx context.Context, req api.CreateCateringInvoiceRequestObject) (api.CreateCateringInvoiceResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out api.Invoice
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		quote, site, _, err := quoteFor(ctx, q, a, req.OrgId, req.Body.QuoteId, true)
		if err != nil {
			return err
		}
		if quote.Status != quoteAccepted {
			return apierr.Conflict("Only an accepted quote (the contract) can be invoiced").WithCode(apierr.CodeQuoteNotOpen)
		}
		live, err := q.LiveInvoicesOfQuote(ctx, db.LiveInvoicesOfQuoteParams{OrgID: req.OrgId, QuoteID: quote.ID})
		if err != nil {
			return err
		}
		kind := string(req.Body.Kind)
		var paidDeposits int64
		for _, inv := range live {
			if inv.Kind == kind {
				return apierr.Conflict(fmt.Sprintf("The contract already has a %s invoice (%s); void it first", kind, inv.Number))
			}
			if inv.Kind == "deposit" {
				paidDeposits += inv.PaidCents
				if inv.Status == invoiceOpen && kind == "final" {
					// Billing the rest now would bill the deposit's balance twice.
					return apierr.Conflict(fmt.Sprintf("The deposit invoice %s is still open: settle it, or void it if it has no payments, first", inv.Number)).WithCode(apierr.CodeInvoiceNotOpen)
				}
			}
		}
		var lines []api.InvoiceLine
		var total int64
		switch req.Body.Kind {
		case api.InvoiceKindDeposit:
			total = quote.DepositCents
			lines = []api.InvoiceLine{{Description: fmt.Sprintf("Deposit, %d%% of the contract total", quote.DepositPercent), AmountCents: total}}
		case api.InvoiceKindFinal:
			total = quote.TotalCents - paidDeposits
			lines = []api.InvoiceLine{{Description: fmt.Sprintf("Contract total (quote version %d)", quote.Version), AmountCents: quote.TotalCents}}
			if paidDeposits > 0 {
				lines = append(lines, api.InvoiceLine{Description: "Less deposits paid", AmountCents: -paidDeposits})
			}
		default:
			return apierr.InvalidField("kind", "must be deposit or final")
		}
		if total <= 0 {
			return apierr.Conflict("Nothing is left to bill on this contract")
		}
		raw, _ := json.Marshal(lines)
		id := uuid.Must(uuid.NewV7())
		row, err := q.CreateCateringInvoice(ctx, db.CreateCateringInvoiceParams{
			ID: id, OrgID: req.OrgId, QuoteID: quote.ID, EventID: quote.EventID, Kind: kind, Lines: raw, TotalCents: total,
			Number: invoiceNumber(id), Now: now,
		})
		if err != nil {
			return err
		}
		if out, err = toAPIInvoice(row, nil); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, site, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateCateringInvoice201JSONResponse{Body: out}, nil
}

// RecordCateringPayment applies a payment to an open invoice under a lock of the invoice, so
// concurrent payments are applied one at a time and can never overpay together.
func (h *Handlers) RecordCateringPayment(ctx context.Context, req api.RecordCateringPaymentRequestObject) (api.RecordCateringPaymentResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	now := h.clock.Now()
	var out api.Invoice
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		inv, site, err := invoiceFor(ctx, q, a, req.OrgId, req.Id, true)
		if err != nil {
			return err
		}
		if inv.Status != invoiceOpen {
			return errInvoiceNotOpen("The invoice is " + inv.Status + " and takes no payments")
		}
		if balance := inv.TotalCents - inv.PaidCents; b.AmountCents > balance {
			return apierr.InvalidField("amountCents", fmt.Sprintf("exceeds the balance of %d cents", balance))
		}
		if _, err := q.InsertCateringPayment(ctx, db.InsertCateringPaymentParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: req.OrgId, InvoiceID: inv.ID, AmountCents: b.AmountCents, Method: string(b.Method),
			PaidAt: b.PaidAt.UTC(), Reference: trimmed(b.Reference), RecordedBy: a.Actor(), Now: now,
		}); err != nil {
			return err
		}
		row, err := q.AddInvoicePaid(ctx, db.AddInvoicePaidParams{OrgID: req.OrgId, ID: inv.ID, AmountCents: b.AmountCents, PaidAt: now})
		if err != nil {
			return err
		}
		if row.Status == invoicePaid {
			data := api.CateringInvoicePaidData{EventId: row.EventID, InvoiceId: row.ID, TotalCents: int(row.TotalCents)}
			if _, err := events.Publish(ctx, q, req.OrgId, events.CateringInvoicePaid, now, data); err != nil {
				return err
			}
		}
		if out, err = h.invoiceWithPayments(ctx, q, row); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, site, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.RecordCateringPayment201JSONResponse{Body: out}, nil
}

func (h *Handlers) VoidCateringInvoice(ctx context.Context, req api.VoidCateringInvoiceRequestObject) (api.VoidCateringInvoiceResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out api.Invoice
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		inv, site, err := invoiceFor(ctx, q, a, req.OrgId, req.Id, true)
		if err != nil {
			return err
		}
		if inv.Status != invoiceOpen || inv.PaidCents > 0 {
			return errInvoiceNotOpen("Only an open invoice without payments can be voided")
		}
		row, err := q.VoidCateringInvoice(ctx, db.VoidCateringInvoiceParams{OrgID: req.OrgId, ID: inv.ID, Now: now})
		if err != nil {
			return err
		}
		if _, err := capability.Revoke(ctx, q, req.OrgId, capability.Invoice, inv.ID, now); err != nil {
			return err
		}
		if out, err = toAPIInvoice(row, nil); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, site, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.VoidCateringInvoice200JSONResponse(out), nil
}

func (h *Handlers) ShareCateringInvoice(ctx context.Context, req api.ShareCateringInvoiceRequestObject) (api.ShareCateringInvoiceResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var token string
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		inv, site, err := invoiceFor(ctx, q, a, req.OrgId, req.Id, true)
		if err != nil {
			return err
		}
		if inv.Status == invoiceVoid {
			return errInvoiceNotOpen("A void invoice cannot be shared")
		}
		if token, err = capability.Issue(ctx, q, req.OrgId, capability.Invoice, inv.ID, now, capability.Options{CreatedBy: a.Actor()}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, site, inv.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.ShareCateringInvoice200JSONResponse{Url: h.webURL + "/share/i/" + token, Token: token}, nil
}
