package inventory

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
)

// ReceiptLine is stock received into a storage location at a cost: what a purchase order
// receipt posts.
type ReceiptLine struct {
	// Field names the request line in errors ("lines.0").
	Field      string
	ItemID     uuid.UUID
	LocationID uuid.UUID
	// Quantity is in the item's base unit, positive.
	Quantity decimal.Decimal
	// CostPerBase is the received cost in cents per base unit; the moving average takes it in.
	CostPerBase decimal.Decimal
	// Lot is the lot to create or top up by code; without a code (or without Lot) the receipt
	// makes a lot of its own with a generated code, shared by its lines of the same item and
	// expiry. A new lot without ExpiresOn expires today + the item's shelf life, or never.
	Lot *LotInput
}

// LotInput names a lot by code (empty: a generated one), with its expiry (a local date of the
// site) when known.
type LotInput struct {
	Code      string
	ExpiresOn *time.Time
}

// Receive posts receipt ledger rows of a site in the caller's transaction: it checks each
// location (of the site, active) and lot, creates or tops up the lots (every receipt goes into
// one), locks the items' cost rows and updates their moving averages at the received costs. A
// bad line is a 400 naming its field; nothing is written then, as the caller's transaction
// rolls back. It returns the rows written.
func Receive(ctx context.Context, q *db.Queries, orgID, siteID uuid.UUID, source Source, actor *uuid.UUID, now time.Time, lines []ReceiptLine) ([]Txn, error) {
	site, err := q.GetSite(ctx, db.GetSiteParams{OrgID: orgID, ID: siteID})
	if err != nil {
		return nil, notFound(err, "Site")
	}
	today := localDate(now, site.Timezone)
	var itemIDs, locIDs []uuid.UUID
	for _, l := range lines {
		itemIDs, locIDs = append(itemIDs, l.ItemID), append(locIDs, l.LocationID)
	}
	refs, err := resolveRefs(ctx, q, orgID, itemIDs, locIDs, nil)
	if err != nil {
		return nil, err
	}
	ms := make([]movement, 0, len(lines))
	type lotKey struct {
		item uuid.UUID
		code string
	}
	wanted := map[lotKey]*time.Time{} // the lots named, with the expiry a new one gets
	var lotOf []*lotKey
	var generated receiptLots
	for _, l := range lines {
		it, err := refs.checkItem(l.Field+".itemId", l.ItemID)
		if err != nil {
			return nil, err
		}
		loc, err := refs.checkLocation(l.Field+".locationId", l.LocationID, siteID)
		if err != nil {
			return nil, err
		}
		if !loc.Active {
			return nil, apierr.InvalidField(l.Field+".locationId", "\""+loc.Name+"\" is inactive and takes no new stock")
		}
		if !l.Quantity.IsPositive() {
			return nil, apierr.InvalidField(l.Field+".quantity", "must be positive for a receipt")
		}
		cost := l.CostPerBase
		ms = append(ms, movement{kind: KindReceipt, reason: KindReceipt, itemID: it.ID, locationID: loc.ID, qty: l.Quantity, cost: &cost, unit: it.Units.Base, expiredOK: true})
		var given *time.Time
		if l.Lot != nil {
			given = l.Lot.ExpiresOn
		}
		if given != nil && given.Before(today) {
			return nil, apierr.InvalidField(l.Field+".lot.expiresOn", "is in the past: expired stock is not received")
		}
		expires := receiptExpiry(given, it, today)
		if l.Lot == nil || l.Lot.Code == "" {
			id := generated.lot(it.ID, expires)
			ms[len(ms)-1].lotID, ms[len(ms)-1].lotExpires = &id, expires
			lotOf = append(lotOf, nil)
			continue
		}
		k := lotKey{it.ID, l.Lot.Code}
		if prev, seen := wanted[k]; !seen || prev == nil {
			wanted[k] = expires
		}
		lotOf = append(lotOf, &k)
	}
	// The lots: found by (item, code) in one query, the missing ones created in another (a lot
	// created meanwhile by a concurrent receipt is read again).
	found := map[lotKey]db.Lot{}
	if len(wanted) > 0 {
		var f db.FindLotsByKeysParams
		f.OrgID, f.SiteID = orgID, siteID
		for k := range wanted {
			f.ItemIds, f.Codes = append(f.ItemIds, k.item), append(f.Codes, k.code)
		}
		for attempt := 0; attempt < 2 && len(found) < len(wanted); attempt++ {
			rows, err := q.FindLotsByKeys(ctx, f)
			if err != nil {
				return nil, err
			}
			for _, r := range rows {
				found[lotKey{r.ItemID, r.Code}] = r
			}
			var c db.CreateLotsParams
			c.OrgID, c.SiteID, c.Now = orgID, siteID, now
			for k, exp := range wanted {
				if _, ok := found[k]; !ok {
					c.Ids, c.ItemIds, c.Codes, c.Expires = append(c.Ids, uuid.Must(uuid.NewV7())), append(c.ItemIds, k.item), append(c.Codes, k.code), append(c.Expires, pgDate(exp))
				}
			}
			if len(c.Ids) == 0 {
				break
			}
			made, err := q.CreateLots(ctx, c)
			if err != nil {
				return nil, err
			}
			for _, r := range made {
				found[lotKey{r.ItemID, r.Code}] = r
			}
		}
	}
	for i, l := range lines {
		k := lotOf[i]
		if k == nil {
			continue
		}
		lot, ok := found[*k]
		if !ok {
			return nil, errors.New("inventory: lot neither found nor created")
		}
		if e := l.Lot.ExpiresOn; e != nil && (!lot.ExpiresOn.Valid || !lot.ExpiresOn.Time.Equal(*e)) {
			return nil, apierr.InvalidField(l.Field+".lot.expiresOn", fmt.Sprintf("lot %q of %q has another expiry", l.Lot.Code, refs.items[l.ItemID].Name))
		}
		ms[i].lotID = &lot.ID
		if lot.ExpiresOn.Valid {
			t := lot.ExpiresOn.Time
			ms[i].lotExpires = &t
		}
	}
	p := &poster{q: q, orgID: orgID, siteID: siteID, now: now, today: today, source: source, actor: actor}
	if err := p.load(ctx, ms); err != nil {
		return nil, err
	}
	for _, m := range ms {
		if err := p.post(ctx, m); err != nil {
			return nil, err
		}
	}
	// Under the items' locks, taken by load: the generated lots' numbers are the next free.
	if err := createGeneratedLots(ctx, q, orgID, siteID, now, today, generated.lots); err != nil {
		return nil, err
	}
	if err := p.finish(ctx); err != nil {
		return nil, err
	}
	return p.txns, nil
}

// TxnToAPI is a ledger row as the API shows it; baseUnit is its item's base unit.
func TxnToAPI(t Txn, baseUnit string) api.StockTxn { return txnToAPI(t, baseUnit) }

// TransferLine moves a quantity of an item (base unit, positive) between two storage locations
// of one site.
type TransferLine struct {
	// Field names the request line in errors ("lines.0").
	Field  string
	ItemID uuid.UUID
	From   uuid.UUID
	To     uuid.UUID
	// Quantity is in the item's base unit, positive.
	Quantity decimal.Decimal
}

// Transfer posts, in the caller's transaction, a transfer_out of each line from its source
// location, first expiring first out and never from an expired lot, and a transfer_in of the same
// lots at the destination, at the average cost in force (the site's average does not change).
// Stock short at the source is the 409 of insufficient stock. It returns the rows written.
func Transfer(ctx context.Context, q *db.Queries, orgID, siteID uuid.UUID, source Source, actor *uuid.UUID, now time.Time, lines []TransferLine) ([]Txn, error) {
	site, err := q.GetSite(ctx, db.GetSiteParams{OrgID: orgID, ID: siteID})
	if err != nil {
		return nil, notFound(err, "Site")
	}
	var itemIDs, locIDs []uuid.UUID
	for _, l := range lines {
		itemIDs, locIDs = append(itemIDs, l.ItemID), append(locIDs, l.From, l.To)
	}
	refs, err := resolveRefs(ctx, q, orgID, itemIDs, locIDs, nil)
	if err != nil {
		return nil, err
	}
	for _, l := range lines {
		if _, err := refs.checkItem(l.Field+".itemId", l.ItemID); err != nil {
			return nil, err
		}
		if _, err := refs.checkLocation(l.Field+".fromLocationId", l.From, siteID); err != nil {
			return nil, err
		}
		to, err := refs.checkLocation(l.Field+".toLocationId", l.To, siteID)
		if err != nil {
			return nil, err
		}
		if !to.Active {
			return nil, apierr.InvalidField(l.Field+".toLocationId", "\""+to.Name+"\" is inactive and takes no new stock")
		}
		if !l.Quantity.IsPositive() {
			return nil, apierr.InvalidField(l.Field+".quantity", "must be positive")
		}
	}
	p := &poster{q: q, orgID: orgID, siteID: siteID, now: now, today: localDate(now, site.Timezone), source: source, actor: actor}
	if err := p.lock(ctx, itemIDs); err != nil {
		return nil, err
	}
	for _, l := range lines {
		unit := refs.items[l.ItemID].Units.Base
		before := len(p.txns)
		out := movement{kind: KindTransferOut, reason: KindTransferOut, itemID: l.ItemID, locationID: l.From, qty: l.Quantity.Neg(), unit: unit}
		if err := p.post(ctx, out); err != nil {
			return nil, err
		}
		taken := append([]Txn(nil), p.txns[before:]...)
		for _, t := range taken {
			in := movement{kind: KindTransferIn, reason: KindTransferIn, itemID: l.ItemID, locationID: l.To, lotID: t.LotID, qty: t.Quantity.Neg(), unit: unit}
			if err := p.post(ctx, in); err != nil {
				return nil, err
			}
		}
	}
	if err := p.finish(ctx); err != nil {
		return nil, err
	}
	return p.txns, nil
}
