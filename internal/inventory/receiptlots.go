package inventory

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/db"
)

// A receipt that names no lot code makes a lot of its own: every receipt goes into a lot, so
// the item's shelf life applies, its lot_expiring alert can fire and FEFO issuing orders it.

// pendingLot is a lot a receipt generates. Its id and expiry are fixed when the receipt is read,
// so the posting can fill it in memory; its code is given and the row written only once the
// posting knows the receipt succeeded (a request that fails leaves no lot behind).
type pendingLot struct {
	id      uuid.UUID
	itemID  uuid.UUID
	expires *time.Time
}

// receiptLots gathers the generated lots of one receipt: lines of the same item and expiry
// share one.
type receiptLots struct {
	byKey map[genKey]uuid.UUID
	lots  []pendingLot
}

type genKey struct {
	item    uuid.UUID
	expires time.Time // zero: no expiry
}

// lot returns the generated lot of the receipt for the item and expiry, made on first ask.
func (r *receiptLots) lot(item uuid.UUID, expires *time.Time) uuid.UUID {
	k := genKey{item: item}
	if expires != nil {
		k.expires = *expires
	}
	if id, ok := r.byKey[k]; ok {
		return id
	}
	if r.byKey == nil {
		r.byKey = map[genKey]uuid.UUID{}
	}
	id := uuid.Must(uuid.NewV7())
	r.byKey[k] = id
	r.lots = append(r.lots, pendingLot{id: id, itemID: item, expires: expires})
	return id
}

// receiptExpiry is the expiry of a lot a receipt creates: the one given, else the received
// date (the site's local today) + the item's shelf life, else none.
func receiptExpiry(given *time.Time, it Item, today time.Time) *time.Time {
	if given != nil {
		return given
	}
	if it.ShelfLifeDays != nil {
		t := today.AddDate(0, 0, *it.ShelfLifeDays)
		return &t
	}
	return nil
}

// generatedLotPrefix is the code of the day's generated lots before their number:
// R<yyyymmdd>- of the site's local date.
func generatedLotPrefix(today time.Time) string { return "R" + today.Format("20060102") + "-" }

// createGeneratedLots numbers the pending lots, in order, after the highest number the item
// already has at the site that day (R20260304-1, R20260304-2, …) and writes them, received now.
// The caller holds the items' cost-row locks, which every receipt of an item at a site takes, so
// no other receipt numbers a lot meanwhile; a lot named by a code of the same shape created
// meanwhile (a receipt that names its code creates the lot before taking the lock) is stepped
// over by numbering again.
func createGeneratedLots(ctx context.Context, q *db.Queries, orgID, siteID uuid.UUID, now, today time.Time, lots []pendingLot) error {
	prefix := generatedLotPrefix(today)
	for attempt := 0; len(lots) > 0; attempt++ {
		if attempt == 3 {
			return fmt.Errorf("inventory: lot codes %s… taken three times over", prefix)
		}
		var items []uuid.UUID
		for _, l := range lots {
			items = append(items, l.itemID)
		}
		last, err := q.LastGeneratedLotNumbers(ctx, db.LastGeneratedLotNumbersParams{Prefix: prefix, OrgID: orgID, SiteID: siteID, ItemIds: items})
		if err != nil {
			return err
		}
		next := make(map[uuid.UUID]int32, len(last))
		for _, r := range last {
			next[r.ItemID] = r.Last
		}
		var c db.CreateLotsParams
		c.OrgID, c.SiteID, c.Now = orgID, siteID, now
		for _, l := range lots {
			next[l.itemID]++
			code := fmt.Sprintf("%s%d", prefix, next[l.itemID])
			c.Ids, c.ItemIds, c.Codes, c.Expires = append(c.Ids, l.id), append(c.ItemIds, l.itemID), append(c.Codes, code), append(c.Expires, pgDate(l.expires))
		}
		made, err := q.CreateLots(ctx, c)
		if err != nil {
			return err
		}
		done := make(map[uuid.UUID]bool, len(made))
		for _, m := range made {
			done[m.ID] = true
		}
		var rest []pendingLot
		for _, l := range lots {
			if !done[l.id] {
				rest = append(rest, l)
			}
		}
		lots = rest
	}
	return nil
}
