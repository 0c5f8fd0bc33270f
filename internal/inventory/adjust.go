package inventory

import (
	"context"
	"errors"
	"fmt"
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
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/quantity"
)

// Source types of ledger rows written by this package.
const (
	SourceAdjustment = "adjustment"
	SourceWasteLog   = "waste_log"
	SourceCount      = "count"
)

// siteContext is what a posting needs of its site: the site, its local today, the member.
type siteContext struct {
	site  db.Site
	today time.Time
}

// loadSite reads a site the member may see; outside their scope or absent it is 404.
func loadSite(ctx context.Context, q *db.Queries, a authz.Access, orgID, siteID uuid.UUID, now time.Time) (siteContext, error) {
	if err := a.CheckSite(siteID); err != nil {
		return siteContext{}, err
	}
	s, err := q.GetSite(ctx, db.GetSiteParams{OrgID: orgID, ID: siteID})
	if err != nil {
		return siteContext{}, notFound(err, "Site")
	}
	return siteContext{site: s, today: localDate(now, s.Timezone)}, nil
}

// lineRefs resolves what request lines name: items, locations (of the site) and lots.
type lineRefs struct {
	items     map[uuid.UUID]Item
	locations map[uuid.UUID]db.StorageLocation
	lots      map[uuid.UUID]db.Lot
}

func resolveRefs(ctx context.Context, q *db.Queries, orgID uuid.UUID, itemIDs, locationIDs, lotIDs []uuid.UUID) (lineRefs, error) {
	r := lineRefs{locations: map[uuid.UUID]db.StorageLocation{}, lots: map[uuid.UUID]db.Lot{}}
	var err error
	// Items alone: a posting needs their units, not their par levels or costs.
	rows, err := q.GetInventoryItems(ctx, db.GetInventoryItemsParams{OrgID: orgID, Ids: itemIDs})
	if err != nil {
		return r, err
	}
	r.items = make(map[uuid.UUID]Item, len(rows))
	for _, row := range rows {
		if r.items[row.ID], err = fromRow(row); err != nil {
			return r, err
		}
	}
	locs, err := q.GetStorageLocations(ctx, db.GetStorageLocationsParams{OrgID: orgID, Ids: locationIDs})
	if err != nil {
		return r, err
	}
	for _, l := range locs {
		r.locations[l.ID] = l
	}
	if len(lotIDs) > 0 {
		lots, err := q.GetLots(ctx, db.GetLotsParams{OrgID: orgID, Ids: lotIDs})
		if err != nil {
			return r, err
		}
		for _, l := range lots {
			r.lots[l.ID] = l
		}
	}
	return r, nil
}

// checkItem, checkLocation and checkLot answer 400 naming field for what a line cannot name.
func (r lineRefs) checkItem(field string, id uuid.UUID) (Item, error) {
	it, ok := r.items[id]
	if !ok {
		return it, apierr.InvalidField(field, "is no inventory item of the organization")
	}
	return it, nil
}

func (r lineRefs) checkLocation(field string, id, siteID uuid.UUID) (db.StorageLocation, error) {
	l, ok := r.locations[id]
	switch {
	case !ok:
		return l, apierr.InvalidField(field, "is no storage location of the organization")
	case l.SiteID != siteID:
		return l, apierr.InvalidField(field, "is a storage location of another site")
	}
	return l, nil
}

func (r lineRefs) checkLot(field string, id uuid.UUID, it Item, siteID uuid.UUID) (db.Lot, error) {
	l, ok := r.lots[id]
	switch {
	case !ok:
		return l, apierr.InvalidField(field, "is no lot of the organization")
	case l.ItemID != it.ID:
		return l, apierr.InvalidField(field, fmt.Sprintf("is a lot of another item, not of %q", it.Name))
	case l.SiteID != siteID:
		return l, apierr.InvalidField(field, "is a lot of another site")
	}
	return l, nil
}

// toBase converts a line's quantity to the item's base unit: 400 naming the item and both
// units when the item cannot convert it.
func toBase(field string, it Item, q decimal.Decimal, unit string) (decimal.Decimal, error) {
	b, err := it.Units.ToBase(q, unit)
	var ce *quantity.ConversionError
	if errors.As(err, &ce) {
		return b, apierr.InvalidField(field, ce.Error())
	}
	if err == nil && b.IsZero() && !q.IsZero() {
		return b, apierr.InvalidField(field, fmt.Sprintf("is too small to count in %s", it.Units.Base))
	}
	return b, err
}

// adjustLine is a validated line of POST /stock/adjust.
type adjustLine struct {
	m       movement
	newLot  *lotName // a lot named by code on a positive line, to find or create
	lotCode string   // a lot named by code on a negative line
	// genLot: the line goes into a lot the adjustment generates (m.lotExpires its expiry).
	genLot bool
	item   Item
	field  string
}

// lotName names a lot by code, with the expiry a new one gets when given.
type lotName struct {
	code    string
	expires *time.Time
}

// adjustment is one POST /stock/adjust on its way through a posting, alone or with other
// requests' adjustments of the same site (see adjustQueue). Each keeps its own source, actor,
// audit row and outcome: its lines are written all together or not at all.
type adjustment struct {
	in     []api.StockAdjustLine
	source Source
	actor  *uuid.UUID
	audit  audit.Entry

	lines     []adjustLine // validated
	generated receiptLots  // the lots its lines generate, written only if it succeeds
	txns      []Txn
	units     map[uuid.UUID]string // base unit per item, for the answer
	err       error                // this adjustment's own failure (a 400 or a 409); the others go on
}

// sharesPosting reports whether lines may be posted together with other requests' lines: a lot
// named by code may be created by the posting, and a failed request must leave no lot behind,
// so such requests post alone (their whole transaction rolls back). Generated lots are written
// after the posting, for the requests that succeeded only, so they share.
func sharesPosting(lines []api.StockAdjustLine) bool {
	for _, l := range lines {
		if l.Lot != nil && l.Lot.Code != nil {
			return false
		}
	}
	return true
}

func (h *Handlers) AdjustStock(ctx context.Context, req api.AdjustStockRequestObject) (api.AdjustStockResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	if err := a.CheckSite(b.SiteId); err != nil {
		return nil, err
	}
	adj := &adjustment{in: b.Lines, source: Source{Type: SourceAdjustment, ID: uuid.Must(uuid.NewV7())}, actor: a.Actor()}
	adj.audit = audit.EntryFor(ctx, b.SiteId, adj.source.ID, time.Time{})
	var at time.Time
	if sharesPosting(b.Lines) {
		at, err = h.adjustments.post(ctx, siteKey{org: req.OrgId, site: b.SiteId}, adj)
	} else {
		at, err = h.postAdjustments(ctx, req.OrgId, b.SiteId, []*adjustment{adj})
	}
	if err == nil {
		err = adj.err
	}
	if err != nil {
		return nil, err
	}
	out := api.AdjustStock200JSONResponse{Id: adj.source.ID, SiteId: b.SiteId, At: at, Txns: make([]api.StockTxn, 0, len(adj.txns))}
	for _, t := range adj.txns {
		out.Txns = append(out.Txns, txnToAPI(t, adj.units[t.ItemID]))
	}
	return out, nil
}

// postAdjustments posts adjustments of one site in one transaction: the site, items, locations
// and lots they name read once, their items' cost rows locked and balances read once, each
// adjustment posted in turn in memory (one that fails is undone and keeps its error), and what
// the others wrote flushed in one statement, each with its audit row. The error returned concerns
// them all (the site, the database); it returns the posting's time.
func (h *Handlers) postAdjustments(ctx context.Context, orgID, siteID uuid.UUID, adjs []*adjustment) (time.Time, error) {
	now := h.clock.Now()
	err := pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		site, err := q.GetSite(ctx, db.GetSiteParams{OrgID: orgID, ID: siteID})
		if err != nil {
			return notFound(err, "Site")
		}
		sc := siteContext{site: site, today: localDate(now, site.Timezone)}
		var in []api.StockAdjustLine
		for _, adj := range adjs {
			adj.lines, adj.txns, adj.err, adj.generated = nil, nil, nil, receiptLots{} // a retried transaction starts over
			in = append(in, adj.in...)
		}
		refs, err := resolveLineRefs(ctx, q, orgID, in)
		if err != nil {
			return err
		}
		var ms []movement
		for _, adj := range adjs {
			if adj.lines, adj.err = readAdjustLines(refs, sc, adj.in); adj.err != nil {
				continue
			}
			if err := resolveLineLots(ctx, q, orgID, sc, now, adj.lines); err != nil {
				// Only an adjustment posting alone names lots by code: its transaction ends here.
				return err
			}
			for i := range adj.lines {
				if l := &adj.lines[i]; l.genLot {
					id := adj.generated.lot(l.item.ID, l.m.lotExpires)
					l.m.lotID = &id
				}
			}
			adj.units = map[uuid.UUID]string{}
			for _, l := range adj.lines {
				ms = append(ms, l.m)
				adj.units[l.item.ID] = l.item.Units.Base
			}
		}
		if len(ms) == 0 {
			return nil
		}
		// The audit rows before the items' locks, so that the locks are held for as short a
		// time as possible; those of adjustments that fail under the locks are taken back.
		var written, failed []audit.Entry
		for _, adj := range adjs {
			if adj.err == nil {
				adj.audit.At = now
				written = append(written, adj.audit)
			}
		}
		if err := audit.RecordAll(ctx, q, orgID, written); err != nil {
			return err
		}
		p := &poster{q: q, orgID: orgID, siteID: siteID, now: now, today: sc.today}
		if err := p.load(ctx, ms); err != nil {
			return err
		}
		for _, adj := range adjs {
			if adj.err != nil {
				continue
			}
			mark := p.mark()
			p.source, p.actor = adj.source, adj.actor
			if err := postAdjustLines(ctx, p, adj.lines); err != nil {
				if !isRequestError(err) {
					return err
				}
				p.rollback(mark)
				adj.err = err
				failed = append(failed, adj.audit)
				continue
			}
			// Later adjustments append after these rows or, undone, truncate back to them.
			adj.txns = p.txns[mark.txns:]
		}
		if err := audit.Withdraw(ctx, q, orgID, failed); err != nil {
			return err
		}
		if len(p.txns) == 0 {
			return nil
		}
		// The lots the successful adjustments generated, numbered under the items' locks.
		var generated []pendingLot
		for _, adj := range adjs {
			if adj.err == nil {
				generated = append(generated, adj.generated.lots...)
			}
		}
		if err := createGeneratedLots(ctx, q, orgID, siteID, now, sc.today, generated); err != nil {
			return err
		}
		return p.finish(ctx)
	})
	return now, err
}

// isRequestError reports whether err is one request's own failure (bad input, short stock)
// rather than the posting's.
func isRequestError(err error) bool {
	e, ok := apierr.As(err)
	return ok && e.Kind != apierr.KindInternal && e.Kind != apierr.KindUnavailable
}

// resolveLineRefs reads the items, locations and lots request lines name.
func resolveLineRefs(ctx context.Context, q *db.Queries, orgID uuid.UUID, in []api.StockAdjustLine) (lineRefs, error) {
	var itemIDs, locIDs, lotIDs []uuid.UUID
	for _, l := range in {
		itemIDs, locIDs = append(itemIDs, l.ItemId), append(locIDs, l.LocationId)
		if l.LotId != nil {
			lotIDs = append(lotIDs, *l.LotId)
		}
	}
	return resolveRefs(ctx, q, orgID, itemIDs, locIDs, lotIDs)
}

// resolveLineLots finds or creates the lots lines name by code.
func resolveLineLots(ctx context.Context, q *db.Queries, orgID uuid.UUID, sc siteContext, now time.Time, lines []adjustLine) error {
	for i := range lines {
		l := &lines[i]
		if l.newLot != nil {
			lot, err := findOrCreateLot(ctx, q, orgID, sc.site.ID, l.item, *l.newLot, now, sc.today, l.field+".lot")
			if err != nil {
				return err
			}
			l.m.lotID = &lot.ID
			if lot.ExpiresOn.Valid {
				t := lot.ExpiresOn.Time
				l.m.lotExpires = &t
			}
		}
		if l.lotCode != "" {
			lot, err := q.FindLot(ctx, db.FindLotParams{OrgID: orgID, SiteID: sc.site.ID, ItemID: l.m.itemID, Code: l.lotCode})
			if pg.IsNoRows(err) {
				return apierr.InvalidField(l.field+".lot.code", fmt.Sprintf("no lot %q of %q at this site", l.lotCode, l.item.Name))
			}
			if err != nil {
				return err
			}
			l.m.lotID = &lot.ID
		}
	}
	return nil
}

// postAdjustLines posts one adjustment's lines. A transfer_in that names no lot takes the lots
// the adjustment's transfer_out lines of its item took, in order, then the stock outside any lot.
func postAdjustLines(ctx context.Context, p *poster, lines []adjustLine) error {
	moved := map[uuid.UUID][]bucket{}
	for _, l := range lines {
		m := l.m
		if m.kind == KindTransferIn && m.lotID == nil && len(moved[m.itemID]) > 0 {
			rest := m.qty
			for len(moved[m.itemID]) > 0 && rest.IsPositive() {
				src := &moved[m.itemID][0]
				take := decimal.Min(src.qty, rest)
				part := m
				part.qty, part.lotID = take, src.lotID
				if err := p.post(ctx, part); err != nil {
					return err
				}
				rest, src.qty = rest.Sub(take), src.qty.Sub(take)
				if src.qty.IsZero() {
					moved[m.itemID] = moved[m.itemID][1:]
				}
			}
			if rest.IsPositive() {
				m.qty = rest
				if err := p.post(ctx, m); err != nil {
					return err
				}
			}
			continue
		}
		before := len(p.txns)
		if err := p.post(ctx, m); err != nil {
			return err
		}
		if m.kind == KindTransferOut {
			for _, t := range p.txns[before:] {
				moved[m.itemID] = append(moved[m.itemID], bucket{lotID: t.LotID, qty: t.Quantity.Neg()})
			}
		}
	}
	return nil
}

// readAdjustLines validates every line of an adjustment before anything is written.
func readAdjustLines(refs lineRefs, sc siteContext, in []api.StockAdjustLine) ([]adjustLine, error) {
	out := make([]adjustLine, 0, len(in))
	for i, l := range in {
		field := fmt.Sprintf("lines.%d", i)
		it, err := refs.checkItem(field+".itemId", l.ItemId)
		if err != nil {
			return nil, err
		}
		loc, err := refs.checkLocation(field+".locationId", l.LocationId, sc.site.ID)
		if err != nil {
			return nil, err
		}
		qty, err := parseQty(field+".quantity", string(l.Quantity))
		if err != nil {
			return nil, err
		}
		reason := string(l.Reason)
		switch {
		case qty.IsZero():
			return nil, apierr.InvalidField(field+".quantity", "must not be zero")
		case qty.IsNegative() && (reason == KindReceipt || reason == KindOpeningBalance || reason == KindTransferIn):
			return nil, apierr.InvalidField(field+".quantity", fmt.Sprintf("must be positive for %s", reason))
		case qty.IsPositive() && (reason == KindIssue || reason == KindTransferOut):
			return nil, apierr.InvalidField(field+".quantity", fmt.Sprintf("must be negative for %s (stock leaving the location)", reason))
		case qty.IsPositive() && !loc.Active:
			return nil, apierr.InvalidField(field+".locationId", fmt.Sprintf("%q is inactive and takes no new stock", loc.Name))
		}
		base, err := toBase(field+".unit", it, qty, l.Unit)
		if err != nil {
			return nil, err
		}
		line := adjustLine{item: it, field: field, m: movement{
			kind: reason, reason: reason, itemID: it.ID, locationID: loc.ID, qty: base, unit: it.Units.Base,
			expiredOK: reason != KindIssue,
		}}
		if l.UnitCostCents != nil {
			if reason != KindReceipt && reason != KindOpeningBalance {
				return nil, apierr.InvalidField(field+".unitCostCents", "is accepted on receipts and opening balances only; other movements are valued at the average cost")
			}
			perBase, err := it.Units.PerBase(decimal.NewFromInt(*l.UnitCostCents), l.Unit, CostScale)
			if err != nil {
				return nil, apierr.InvalidField(field+".unit", err.Error())
			}
			line.m.cost = &perBase
		}
		switch {
		case l.LotId != nil && l.Lot != nil:
			return nil, apierr.InvalidField(field+".lot", "name the lot by lotId or by lot, not both")
		case l.LotId != nil:
			lot, err := refs.checkLot(field+".lotId", *l.LotId, it, sc.site.ID)
			if err != nil {
				return nil, err
			}
			line.m.lotID = &lot.ID
			if lot.ExpiresOn.Valid {
				t := lot.ExpiresOn.Time
				line.m.lotExpires = &t
			}
		case l.Lot != nil:
			var given *time.Time
			if l.Lot.ExpiresOn != nil {
				t := l.Lot.ExpiresOn.Time
				given = &t
			}
			if qty.IsPositive() && reason == KindReceipt && given != nil && given.Before(sc.today) {
				return nil, apierr.InvalidField(field+".lot.expiresOn", "is in the past: expired stock is not received")
			}
			switch {
			case l.Lot.Code == nil && qty.IsPositive():
				line.genLot, line.m.lotExpires = true, receiptExpiry(given, it, sc.today)
			case l.Lot.Code == nil:
				return nil, apierr.InvalidField(field+".lot.code", "is required to take from a lot (or name the lot by lotId)")
			case strings.TrimSpace(*l.Lot.Code) == "":
				return nil, apierr.InvalidField(field+".lot.code", "must not be blank (leave it out for a generated code)")
			case qty.IsPositive():
				line.newLot = &lotName{code: strings.TrimSpace(*l.Lot.Code), expires: given}
			default:
				line.lotCode = strings.TrimSpace(*l.Lot.Code)
			}
		case reason == KindReceipt:
			// Every receipt goes into a lot: one of the adjustment's own.
			line.genLot, line.m.lotExpires = true, receiptExpiry(nil, it, sc.today)
		}
		out = append(out, line)
	}
	return out, nil
}

// findOrCreateLot finds the lot of the item at the site by code, or creates it (a receipt). An
// existing lot named with another expiry is a 400: a code names one lot.
func findOrCreateLot(ctx context.Context, q *db.Queries, orgID, siteID uuid.UUID, it Item, ref lotName, now, today time.Time, field string) (db.Lot, error) {
	expires := receiptExpiry(ref.expires, it, today)
	for range 2 {
		lot, err := q.FindLot(ctx, db.FindLotParams{OrgID: orgID, SiteID: siteID, ItemID: it.ID, Code: ref.code})
		if err == nil {
			if ref.expires != nil && (!lot.ExpiresOn.Valid || !lot.ExpiresOn.Time.Equal(*ref.expires)) {
				return lot, apierr.InvalidField(field+".expiresOn", fmt.Sprintf("lot %q of %q has another expiry", ref.code, it.Name))
			}
			return lot, nil
		}
		if !pg.IsNoRows(err) {
			return lot, err
		}
		lot, err = q.CreateLot(ctx, db.CreateLotParams{ID: uuid.Must(uuid.NewV7()), OrgID: orgID, SiteID: siteID, ItemID: it.ID, Code: ref.code, ExpiresOn: pgDate(expires), Now: now})
		if err == nil {
			return lot, nil
		}
		if !pg.IsNoRows(err) {
			return lot, err
		}
		// Created by a concurrent receipt: read it.
	}
	return db.Lot{}, errors.New("inventory: lot neither found nor created")
}

func txnToAPI(t Txn, baseUnit string) api.StockTxn {
	out := api.StockTxn{
		Id: t.ID, At: t.At, SiteId: t.SiteID, Kind: api.TxnKind(t.Kind), ItemId: t.ItemID, LocationId: t.LocationID, LotId: t.LotID,
		Quantity: api.Quantity(fmtQty(t.Quantity)), Unit: api.StandardUnit(baseUnit), UnitCost: api.CostCents(fmtQty(t.UnitCost)),
		ValueCents: t.ValueCents, AvgCostAfter: api.CostCents(fmtQty(t.AvgCostAfter)), OnHandAfter: api.Quantity(fmtQty(t.OnHandAfter)),
		Reason: t.Reason, Actor: t.ActorID,
	}
	out.Source.Type, out.Source.Id = t.SourceType, t.SourceID
	return out
}
