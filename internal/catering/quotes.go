package catering

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

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

// storedLine is a quote line as kept (jsonb): what was asked and what it came to.
type storedLine struct {
	Kind           string     `json:"kind"`
	RecipeID       *uuid.UUID `json:"recipeId"`
	Description    string     `json:"description"`
	Quantity       string     `json:"quantity"`
	UnitPriceCents int64      `json:"unitPriceCents"`
	Taxable        bool       `json:"taxable"`
	TotalCents     int64      `json:"totalCents"`
}

// Quote states as stored; expired is read from validUntil.
const (
	quoteDraft    = "draft"
	quoteSent     = "sent"
	quoteAccepted = "accepted"
	quoteDeclined = "declined"
	quoteExpired  = "expired"
)

var (
	errQuoteNotOpen = func(status string) error {
		return apierr.Conflict("The quote is " + status + " and can no longer be accepted, declined or shared").WithCode(apierr.CodeQuoteNotOpen)
	}
	errContract = apierr.Conflict("The quote was accepted: it is the contract and cannot change").WithCode(apierr.CodeContractImmutable)
)

// priced is a quote request checked and computed.
type priced struct {
	lines  []storedLine
	totals Totals
	rates  Rates
}

func price(b *api.QuoteRequest) (priced, error) {
	var details []apierr.FieldError
	in := make([]Line, len(b.Lines))
	out := make([]storedLine, len(b.Lines))
	for i, l := range b.Lines {
		field := fmt.Sprintf("lines[%d]", i)
		q, err := decimal.NewFromString(l.Quantity)
		if err != nil || !q.IsPositive() {
			details = append(details, apierr.FieldError{Field: field + ".quantity", Message: "must be a positive decimal"})
		}
		desc := strings.TrimSpace(l.Description)
		if desc == "" {
			details = append(details, apierr.FieldError{Field: field + ".description", Message: "must not be blank"})
		}
		in[i] = Line{Discount: l.Kind == api.QuoteLineKindDiscount, Quantity: q, UnitPriceCents: l.UnitPriceCents, Taxable: l.Taxable}
		out[i] = storedLine{Kind: string(l.Kind), RecipeID: l.RecipeId, Description: desc, Quantity: q.String(), UnitPriceCents: l.UnitPriceCents, Taxable: l.Taxable}
	}
	if len(details) > 0 {
		return priced{}, apierr.Invalid("The quote's lines are invalid", details...)
	}
	rates := Rates{ServiceChargeBps: b.ServiceChargeBps, TaxRateBps: b.TaxRateBps, DepositPercent: b.DepositPercent}
	t, err := Compute(in, rates)
	switch err {
	case nil:
	case errNegativeSubtotal:
		return priced{}, apierr.InvalidField("lines", "discounts may not take the subtotal below 0")
	default:
		return priced{}, apierr.InvalidField("lines", err.Error())
	}
	for i := range out {
		out[i].TotalCents = t.Lines[i]
	}
	return priced{lines: out, totals: t, rates: rates}, nil
}

// pastValidity reports whether the quote's last day (validUntil, in the site's zone) is over.
func pastValidity(q db.CateringQuote, timezone string, now time.Time) bool {
	return !now.Before(expiresAt(q.ValidUntil, timezone))
}

// checkValidUntil refuses a validity that is already over in the site's zone.
func checkValidUntil(d pgtype.Date, timezone string, now time.Time) error {
	if !now.Before(expiresAt(d, timezone)) {
		return apierr.InvalidField("validUntil", "is already over in the site's time zone")
	}
	return nil
}

// status is the quote's state as read now: a sent quote past its validity reads expired.
func quoteStatus(q db.CateringQuote, timezone string, now time.Time) string {
	if q.Status == quoteSent && !now.Before(expiresAt(q.ValidUntil, timezone)) {
		return quoteExpired
	}
	return q.Status
}

func (h *Handlers) toAPIQuote(q db.CateringQuote, timezone string) (api.Quote, error) {
	var lines []storedLine
	if err := json.Unmarshal(q.Lines, &lines); err != nil {
		return api.Quote{}, err
	}
	out := api.Quote{
		Id: q.ID, EventId: q.EventID, Version: int(q.Version), Status: api.QuoteStatus(quoteStatus(q, timezone, h.clock.Now())),
		Lines: make([]api.QuoteLine, len(lines)), ServiceChargeBps: int(q.ServiceChargeBps), TaxRateBps: int(q.TaxRateBps),
		DepositPercent: int(q.DepositPercent), ValidUntil: fromPGDate(q.ValidUntil), Terms: q.Terms, Totals: totalsOf(q),
		SentAt: q.SentAt, CreatedAt: q.CreatedAt, UpdatedAt: q.UpdatedAt,
	}
	for i, l := range lines {
		out.Lines[i] = api.QuoteLine{Kind: api.QuoteLineKind(l.Kind), RecipeId: l.RecipeID, Description: l.Description, Quantity: l.Quantity,
			UnitPriceCents: l.UnitPriceCents, Taxable: l.Taxable, TotalCents: l.TotalCents}
	}
	if q.AcceptedAt != nil {
		out.Acceptance = &api.Acceptance{Name: deref(q.AcceptedByName), Email: q.AcceptedByEmail, At: *q.AcceptedAt, Via: api.AcceptanceVia(deref(q.AcceptedVia))}
	}
	return out, nil
}

func totalsOf(q db.CateringQuote) api.QuoteTotals {
	return api.QuoteTotals{SubtotalCents: q.SubtotalCents, ServiceChargeCents: q.ServiceChargeCents, TaxCents: q.TaxCents, TotalCents: q.TotalCents, DepositCents: q.DepositCents}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// quoteFor loads a quote whose event's site the member can see.
func quoteFor(ctx context.Context, q *db.Queries, a authz.Access, orgID, id uuid.UUID, lock bool) (db.CateringQuote, uuid.UUID, string, error) {
	var (
		row db.GetCateringQuoteRow
		err error
	)
	if lock {
		var r db.GetCateringQuoteForUpdateRow
		r, err = q.GetCateringQuoteForUpdate(ctx, db.GetCateringQuoteForUpdateParams{OrgID: orgID, ID: id})
		row = db.GetCateringQuoteRow(r)
	} else {
		row, err = q.GetCateringQuote(ctx, db.GetCateringQuoteParams{OrgID: orgID, ID: id})
	}
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(row.SiteID)) {
		return db.CateringQuote{}, uuid.Nil, "", errQuoteNotFound
	}
	return row.CateringQuote, row.SiteID, row.Timezone, err
}

type idCursor struct {
	ID uuid.UUID `json:"i"`
}

func (h *Handlers) ListCateringQuotes(ctx context.Context, req api.ListCateringQuotesRequestObject) (api.ListCateringQuotesResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	limit := paging.Limit(req.Params.Limit)
	p := db.ListCateringQuotesParams{OrgID: req.OrgId, Scope: a.SiteScope(), EventID: req.Params.EventId, MaxRows: paging.Fetch(limit)}
	if req.Params.Cursor != nil {
		var c idCursor
		if err := paging.DecodeCursor(*req.Params.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		p.CursorID = &c.ID
	}
	rows, err := db.New(h.pool).ListCateringQuotes(ctx, p)
	if err != nil {
		return nil, err
	}
	out := api.ListCateringQuotes200JSONResponse{Body: make([]api.Quote, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.ListCateringQuotesRow) any { return idCursor{ID: last.CateringQuote.ID} })
	for _, r := range rows {
		q, err := h.toAPIQuote(r.CateringQuote, r.Timezone)
		if err != nil {
			return nil, err
		}
		out.Body = append(out.Body, q)
	}
	return out, nil
}

func (h *Handlers) GetCateringQuote(ctx context.Context, req api.GetCateringQuoteRequestObject) (api.GetCateringQuoteResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q, _, tz, err := quoteFor(ctx, db.New(h.pool), a, req.OrgId, req.Id, false)
	if err != nil {
		return nil, err
	}
	out, err := h.toAPIQuote(q, tz)
	if err != nil {
		return nil, err
	}
	return api.GetCateringQuote200JSONResponse(out), nil
}

func (h *Handlers) CreateCateringQuote(ctx context.Context, req api.CreateCateringQuoteRequestObject) (api.CreateCateringQuoteResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	p, err := price(req.Body)
	if err != nil {
		return nil, err
	}
	lines, _ := json.Marshal(p.lines)
	now := h.clock.Now()
	var (
		row db.CateringQuote
		tz  string
	)
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		e, err := eventFor(ctx, q, a, req.OrgId, req.Body.EventId, false)
		if err != nil {
			return err
		}
		site, err := q.GetSite(ctx, db.GetSiteParams{OrgID: req.OrgId, ID: e.SiteID})
		if err != nil {
			return err
		}
		tz = site.Timezone
		if err := checkValidUntil(toPGDate(req.Body.ValidUntil), tz, now); err != nil {
			return err
		}
		t := p.totals
		row, err = q.CreateCateringQuote(ctx, db.CreateCateringQuoteParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: req.OrgId, EventID: e.ID, Lines: lines,
			ServiceChargeBps: int32(p.rates.ServiceChargeBps), TaxRateBps: int32(p.rates.TaxRateBps), DepositPercent: int32(p.rates.DepositPercent),
			SubtotalCents: t.Subtotal, ServiceChargeCents: t.ServiceCharge, TaxCents: t.Tax, TotalCents: t.Total, DepositCents: t.Deposit,
			ValidUntil: toPGDate(req.Body.ValidUntil), Terms: req.Body.Terms, Now: now,
		})
		if err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, e.SiteID, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	out, err := h.toAPIQuote(row, tz)
	if err != nil {
		return nil, err
	}
	return api.CreateCateringQuote201JSONResponse{Body: out}, nil
}

// UpdateCateringQuote replaces a quote that is not yet the contract. A quote that left draft
// gets a new version and back to draft, and its link stops working.
func (h *Handlers) UpdateCateringQuote(ctx context.Context, req api.UpdateCateringQuoteRequestObject) (api.UpdateCateringQuoteResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	p, err := price(req.Body)
	if err != nil {
		return nil, err
	}
	lines, _ := json.Marshal(p.lines)
	now := h.clock.Now()
	var (
		row db.CateringQuote
		tz  string
	)
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		cur, site, zone, err := quoteFor(ctx, q, a, req.OrgId, req.Id, true)
		if err != nil {
			return err
		}
		tz = zone
		if cur.Status == quoteAccepted {
			return errContract
		}
		if req.Body.EventId != cur.EventID {
			return apierr.InvalidField("eventId", "cannot change; make a new quote for another event")
		}
		if err := checkValidUntil(toPGDate(req.Body.ValidUntil), zone, now); err != nil {
			return err
		}
		if cur.Status != quoteDraft {
			if _, err := capability.Revoke(ctx, q, req.OrgId, capability.Quote, cur.ID, now); err != nil {
				return err
			}
		}
		t := p.totals
		row, err = q.UpdateCateringQuote(ctx, db.UpdateCateringQuoteParams{
			ID: cur.ID, OrgID: req.OrgId, Lines: lines,
			ServiceChargeBps: int32(p.rates.ServiceChargeBps), TaxRateBps: int32(p.rates.TaxRateBps), DepositPercent: int32(p.rates.DepositPercent),
			SubtotalCents: t.Subtotal, ServiceChargeCents: t.ServiceCharge, TaxCents: t.Tax, TotalCents: t.Total, DepositCents: t.Deposit,
			ValidUntil: toPGDate(req.Body.ValidUntil), Terms: req.Body.Terms, Now: now,
		})
		if err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, site, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	out, err := h.toAPIQuote(row, tz)
	if err != nil {
		return nil, err
	}
	return api.UpdateCateringQuote200JSONResponse(out), nil
}

func (h *Handlers) ShareCateringQuote(ctx context.Context, req api.ShareCateringQuoteRequestObject) (api.ShareCateringQuoteResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var token string
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		cur, site, tz, err := quoteFor(ctx, q, a, req.OrgId, req.Id, true)
		if err != nil {
			return err
		}
		if st := quoteStatus(cur, tz, now); st != quoteDraft && st != quoteSent {
			return errQuoteNotOpen(st)
		}
		if pastValidity(cur, tz, now) {
			return errQuoteNotOpen(quoteExpired)
		}
		if _, err := q.MarkCateringQuoteSent(ctx, db.MarkCateringQuoteSentParams{OrgID: req.OrgId, ID: cur.ID, Now: now}); err != nil {
			return err
		}
		e, err := q.GetCateringEventForUpdate(ctx, db.GetCateringEventForUpdateParams{OrgID: req.OrgId, ID: cur.EventID})
		if err != nil {
			return err
		}
		if e.Status == "inquiry" {
			if err := q.SetCateringEventStatus(ctx, db.SetCateringEventStatusParams{OrgID: req.OrgId, ID: e.ID, Status: "quoted", Now: now}); err != nil {
				return err
			}
		}
		if token, err = capability.Issue(ctx, q, req.OrgId, capability.Quote, cur.ID, now, capability.Options{CreatedBy: a.Actor()}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, site, cur.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.ShareCateringQuote200JSONResponse{Url: h.webURL + "/share/q/" + token, Token: token}, nil
}

// acceptance is who accepted a quote, and how.
type acceptance struct {
	name  string
	email *string
	via   string // link or staff
}

// accept makes the quote the contract in the transaction behind tx: the quote must be open
// (draft or sent for staff, sent for the link) and within its validity, and its event must have
// no contract yet. The event becomes contracted and catering.quote_accepted is published.
func (h *Handlers) accept(ctx context.Context, tx pgx.Tx, orgID uuid.UUID, cur db.CateringQuote, site uuid.UUID, tz string, who acceptance) (db.CateringQuote, error) {
	q := db.New(tx)
	now := h.clock.Now()
	st := quoteStatus(cur, tz, now)
	if st != quoteSent && (who.via != "staff" || st != quoteDraft) {
		return db.CateringQuote{}, errQuoteNotOpen(st)
	}
	if pastValidity(cur, tz, now) {
		return db.CateringQuote{}, errQuoteNotOpen(quoteExpired)
	}
	e, err := q.GetCateringEventForUpdate(ctx, db.GetCateringEventForUpdateParams{OrgID: orgID, ID: cur.EventID})
	if err != nil {
		return db.CateringQuote{}, err
	}
	if e.Status == "contracted" {
		return db.CateringQuote{}, apierr.Conflict("The event already has an accepted quote").WithCode(apierr.CodeQuoteNotOpen)
	}
	row, err := q.AcceptCateringQuote(ctx, db.AcceptCateringQuoteParams{OrgID: orgID, ID: cur.ID, Now: now, Name: who.name, Email: who.email, Via: who.via})
	if err != nil {
		return db.CateringQuote{}, err
	}
	if err := q.SetCateringEventStatus(ctx, db.SetCateringEventStatusParams{OrgID: orgID, ID: e.ID, Status: "contracted", Now: now}); err != nil {
		return db.CateringQuote{}, err
	}
	data := api.CateringQuoteAcceptedData{EventId: e.ID, QuoteId: row.ID, TotalCents: int(row.TotalCents)}
	if _, err := events.Publish(ctx, q, orgID, events.CateringQuoteAccepted, now, data); err != nil {
		return db.CateringQuote{}, err
	}
	return row, audit.RecordSite(ctx, q, orgID, site, row.ID, now)
}

func (h *Handlers) AcceptCateringQuote(ctx context.Context, req api.AcceptCateringQuoteRequestObject) (api.AcceptCateringQuoteResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(req.Body.Name)
	if name == "" {
		return nil, apierr.InvalidField("name", "must not be blank")
	}
	who := acceptance{name: name, via: "staff"}
	if req.Body.Email != nil {
		e := string(*req.Body.Email)
		who.email = &e
	}
	var (
		row db.CateringQuote
		tz  string
	)
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		cur, site, zone, err := quoteFor(ctx, db.New(tx), a, req.OrgId, req.Id, true)
		if err != nil {
			return err
		}
		tz = zone
		row, err = h.accept(ctx, tx, req.OrgId, cur, site, zone, who)
		return err
	})
	if err != nil {
		return nil, err
	}
	out, err := h.toAPIQuote(row, tz)
	if err != nil {
		return nil, err
	}
	return api.AcceptCateringQuote200JSONResponse(out), nil
}

func (h *Handlers) DeclineCateringQuote(ctx context.Context, req api.DeclineCateringQuoteRequestObject) (api.DeclineCateringQuoteResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var (
		row db.CateringQuote
		tz  string
	)
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		cur, site, zone, err := quoteFor(ctx, q, a, req.OrgId, req.Id, true)
		if err != nil {
			return err
		}
		tz = zone
		if cur.Status != quoteDraft && cur.Status != quoteSent {
			return errQuoteNotOpen(cur.Status)
		}
		if row, err = q.DeclineCateringQuote(ctx, db.DeclineCateringQuoteParams{OrgID: req.OrgId, ID: cur.ID, Now: now}); err != nil {
			return err
		}
		if _, err := capability.Revoke(ctx, q, req.OrgId, capability.Quote, cur.ID, now); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, site, cur.ID, now)
	})
	if err != nil {
		return nil, err
	}
	out, err := h.toAPIQuote(row, tz)
	if err != nil {
		return nil, err
	}
	return api.DeclineCateringQuote200JSONResponse(out), nil
}
