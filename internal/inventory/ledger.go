package inventory

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/money"
	"github.com/sous-app/sous/internal/tracing"
)

// Movement kinds: the ledger row kinds. The first six are the reasons POST /stock/adjust takes.
const (
	KindReceipt        = "receipt"
	KindCorrection     = "correction"
	KindTransferIn     = "transfer_in"
	KindTransferOut    = "transfer_out"
	KindIssue          = "issue"
	KindOpeningBalance = "opening_balance"
	KindWaste          = "waste"
	KindCountVariance  = "count_variance"
)

// CostScale is how many decimal places of a cent per base unit the moving average keeps: a
// thousand receipts stay within 0.0001 cent per base unit of the exact rational average.
const CostScale = 12

// Source names what a ledger row came from: an adjustment, a waste log, a count (later a
// purchase order receipt, a production run, a requisition).
type Source struct {
	Type string
	ID   uuid.UUID
}

// movement is one ledger write asked for: a signed quantity of an item in its base unit at a
// location, in a lot (nil: FEFO for a negative quantity, the stock outside any lot for a
// positive one; a receipt always names its lot).
type movement struct {
	kind       string
	reason     string
	itemID     uuid.UUID
	locationID uuid.UUID
	lotID      *uuid.UUID
	// lotExpires is the expiry of the lot a positive movement goes into, so that a lot new to
	// the location takes its FEFO place among the buckets in memory.
	lotExpires *time.Time
	qty        decimal.Decimal
	// cost is the cents per base unit of a receipt (nil: valued at the average in force).
	cost *decimal.Decimal
	// expiredOK lets a negative movement take expired lots (waste, corrections, counts, transfers);
	// issues never do.
	expiredOK bool
	// unit is the item's base unit, for the shortage's message.
	unit string
	// skip are lots a negative movement without a lot leaves alone (a count's lot lines).
	skip map[uuid.UUID]bool
}

// Txn is one ledger row written.
type Txn = db.StockTxn

// bucket is the on-hand of one item × location × lot, as locked at the start of the posting.
type bucket struct {
	lotID     *uuid.UUID
	qty       decimal.Decimal
	expiresOn *time.Time
}

type ilKey struct{ item, location uuid.UUID }

// poster writes movements of one site in one transaction: it locks each item's cost row at the
// site (items in id order, so two postings never deadlock), reads the buckets of each item ×
// location it touches once, and keeps on-hand and the average in memory while it writes.
type poster struct {
	q      *db.Queries
	orgID  uuid.UUID
	siteID uuid.UUID
	now    time.Time
	today  time.Time // the site's local date, as a UTC midnight
	source Source
	actor  *uuid.UUID

	costs   map[uuid.UUID]*db.StockCost
	buckets map[ilKey][]*bucket
	txns    []Txn
	// deltas is each bucket's net change so far, in order of first change.
	deltas map[bucketKey]decimal.Decimal
	order  []bucketKey
}

// lock takes the cost rows of the items not yet locked, in one statement, in id order (so two
// postings never deadlock), creating them at zero where absent.
func (p *poster) lock(ctx context.Context, items []uuid.UUID) error {
	if p.costs == nil {
		p.costs = map[uuid.UUID]*db.StockCost{}
		p.buckets = map[ilKey][]*bucket{}
	}
	var missing []uuid.UUID
	for _, id := range items {
		if _, ok := p.costs[id]; !ok && !slices.Contains(missing, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	costs, err := p.q.LockStockCosts(ctx, db.LockStockCostsParams{OrgID: p.orgID, SiteID: p.siteID, ItemIds: missing, Now: p.now})
	if err != nil {
		return err
	}
	for i := range costs {
		p.costs[costs[i].ItemID] = &costs[i]
	}
	return nil
}

// load locks the cost rows of every item the movements touch (one statement, in id order) and
// reads the buckets of every item × location they touch (one statement), so that posting them
// reads nothing more.
func (p *poster) load(ctx context.Context, ms []movement) error {
	items := make([]uuid.UUID, len(ms))
	for i, m := range ms {
		items[i] = m.itemID
	}
	if err := p.lock(ctx, items); err != nil {
		return err
	}
	var pairs db.LocationBalancesOfPairsParams
	pairs.OrgID = p.orgID
	for _, m := range ms {
		k := ilKey{m.itemID, m.locationID}
		if _, ok := p.buckets[k]; !ok {
			p.buckets[k] = []*bucket{}
			pairs.ItemIds, pairs.LocationIds = append(pairs.ItemIds, m.itemID), append(pairs.LocationIds, m.locationID)
		}
	}
	if len(pairs.ItemIds) == 0 {
		return nil
	}
	bals, err := p.q.LocationBalancesOfPairs(ctx, pairs)
	if err != nil {
		return err
	}
	for _, r := range bals {
		b := &bucket{lotID: r.LotID, qty: r.Quantity}
		if r.ExpiresOn.Valid {
			t := r.ExpiresOn.Time
			b.expiresOn = &t
		}
		k := ilKey{r.ItemID, r.LocationID}
		p.buckets[k] = append(p.buckets[k], b)
	}
	return nil
}

// posterMark is what a poster holds at a moment: rollback returns it there, so that one of
// several requests posted together can fail without touching the others'.
type posterMark struct {
	costs   map[uuid.UUID]db.StockCost
	buckets map[ilKey][]bucket
	txns    int
	deltas  map[bucketKey]decimal.Decimal
	order   int
}

func (p *poster) mark() posterMark {
	m := posterMark{costs: make(map[uuid.UUID]db.StockCost, len(p.costs)), buckets: make(map[ilKey][]bucket, len(p.buckets)),
		txns: len(p.txns), deltas: make(map[bucketKey]decimal.Decimal, len(p.deltas)), order: len(p.order)}
	for id, c := range p.costs {
		m.costs[id] = *c
	}
	for k, bs := range p.buckets {
		vs := make([]bucket, len(bs))
		for i, b := range bs {
			vs[i] = *b
		}
		m.buckets[k] = vs
	}
	for k, d := range p.deltas {
		m.deltas[k] = d
	}
	return m
}

func (p *poster) rollback(m posterMark) {
	for id, c := range p.costs {
		if saved, ok := m.costs[id]; ok {
			*c = saved
		} else {
			delete(p.costs, id)
		}
	}
	p.buckets = make(map[ilKey][]*bucket, len(m.buckets))
	for k, vs := range m.buckets {
		bs := make([]*bucket, len(vs))
		for i := range vs {
			b := vs[i]
			bs[i] = &b
		}
		p.buckets[k] = bs
	}
	p.txns, p.deltas, p.order = p.txns[:m.txns], m.deltas, p.order[:m.order]
}

func (p *poster) bucketsOf(ctx context.Context, item, location uuid.UUID) ([]*bucket, error) {
	k := ilKey{item, location}
	if b, ok := p.buckets[k]; ok {
		return b, nil
	}
	rows, err := p.q.LocationBalances(ctx, db.LocationBalancesParams{OrgID: p.orgID, ItemID: item, LocationID: location})
	if err != nil {
		return nil, err
	}
	out := make([]*bucket, 0, len(rows))
	for _, r := range rows {
		b := &bucket{lotID: r.LotID, qty: r.Quantity}
		if r.ExpiresOn.Valid {
			t := r.ExpiresOn.Time
			b.expiresOn = &t
		}
		out = append(out, b)
	}
	p.buckets[k] = out
	return out, nil
}

// insertFEFO places a bucket new to a location where FEFO takes it: a lot before the lots
// expiring later, after those expiring the same day or earlier (received before it), lots
// without expiry after every lot with one, and stock outside any lot last.
func insertFEFO(bs []*bucket, b *bucket) []*bucket {
	i := len(bs)
	if b.lotID != nil {
		i = slices.IndexFunc(bs, func(o *bucket) bool {
			return o.lotID == nil || b.expiresOn != nil && (o.expiresOn == nil || o.expiresOn.After(*b.expiresOn))
		})
		if i < 0 {
			i = len(bs)
		}
	}
	return slices.Insert(slices.Clip(bs), i, b)
}

func sameLot(a, b *uuid.UUID) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

func total(bs []*bucket) decimal.Decimal {
	t := decimal.Zero
	for _, b := range bs {
		t = t.Add(b.qty)
	}
	return t
}

// expired reports whether a lot's expiry is before the site's today.
func (p *poster) expired(b *bucket) bool {
	return b.expiresOn != nil && b.expiresOn.Before(p.today)
}

// post writes one movement: one ledger row, or for a negative quantity without a lot one row
// per lot it takes from (FEFO). A movement that would take on-hand below zero is the 409 of
// insufficient stock; the caller's transaction then writes nothing.
func (p *poster) post(ctx context.Context, m movement) error {
	cost := p.costs[m.itemID]
	bs, err := p.bucketsOf(ctx, m.itemID, m.locationID)
	if err != nil {
		return err
	}
	if m.qty.IsPositive() {
		var target *bucket
		for _, b := range bs {
			if sameLot(b.lotID, m.lotID) {
				target = b
			}
		}
		if target == nil {
			target = &bucket{lotID: m.lotID, expiresOn: m.lotExpires}
			bs = insertFEFO(bs, target)
			p.buckets[ilKey{m.itemID, m.locationID}] = bs
		}
		unitCost := cost.AvgCost
		if m.cost != nil {
			unitCost = *m.cost
			// avg = (onHand·avg + q·cost) / (onHand + q); at zero or less on hand, avg = cost.
			if cost.OnHand.IsPositive() {
				cost.AvgCost = cost.OnHand.Mul(cost.AvgCost).Add(m.qty.Mul(unitCost)).DivRound(cost.OnHand.Add(m.qty), CostScale)
			} else {
				cost.AvgCost = unitCost.Round(CostScale)
			}
		}
		target.qty = target.qty.Add(m.qty)
		cost.OnHand = cost.OnHand.Add(m.qty)
		return p.write(ctx, m, target.lotID, m.qty, unitCost, total(bs))
	}

	// Negative: from the named lot, or FEFO.
	need := m.qty.Neg()
	var from []*bucket
	available := decimal.Zero
	for _, b := range bs {
		if m.lotID != nil && !sameLot(b.lotID, m.lotID) || !b.qty.IsPositive() || m.lotID == nil && b.lotID != nil && m.skip[*b.lotID] {
			continue
		}
		if !m.expiredOK && p.expired(b) {
			continue
		}
		from = append(from, b)
		available = available.Add(b.qty)
	}
	if available.LessThan(need) {
		s := apierr.StockShortage{ItemID: m.itemID.String(), LocationID: m.locationID.String(), Available: fmtQty(available), Unit: m.unit}
		if m.lotID != nil {
			s.LotID = m.lotID.String()
		}
		return apierr.InsufficientStock(s)
	}
	for _, b := range from {
		if need.IsZero() {
			break
		}
		take := decimal.Min(b.qty, need)
		need = need.Sub(take)
		b.qty = b.qty.Sub(take)
		cost.OnHand = cost.OnHand.Sub(take)
		if err := p.write(ctx, m, b.lotID, take.Neg(), cost.AvgCost, total(bs)); err != nil {
			return err
		}
	}
	return nil
}

// write records the ledger row and the bucket's change; finish writes them all at once.
func (p *poster) write(_ context.Context, m movement, lot *uuid.UUID, qty, unitCost, onHandAfter decimal.Decimal) error {
	k := bucketKey{item: m.itemID, location: m.locationID}
	if lot != nil {
		k.lot = *lot
	}
	if p.deltas == nil {
		p.deltas = map[bucketKey]decimal.Decimal{}
	}
	if _, seen := p.deltas[k]; !seen {
		p.order = append(p.order, k)
	}
	p.deltas[k] = p.deltas[k].Add(qty)
	cost := p.costs[m.itemID]
	value, err := money.Round(qty.Mul(unitCost))
	if err != nil {
		return err
	}
	p.txns = append(p.txns, db.StockTxn{
		ID: uuid.Must(uuid.NewV7()), OrgID: p.orgID, SiteID: p.siteID, At: p.now, Kind: m.kind, ItemID: m.itemID,
		LocationID: m.locationID, LotID: lot, Quantity: qty, UnitCost: unitCost.Round(CostScale),
		ValueCents: value, AvgCostAfter: cost.AvgCost, OnHandAfter: onHandAfter,
		Reason: m.reason, SourceType: p.source.Type, SourceID: p.source.ID, ActorID: p.actor,
	})
	return nil
}

// bucketKey names a bucket; the nil uuid is the unlotted stock.
type bucketKey struct{ item, location, lot uuid.UUID }

// finish writes the posting in one statement: each bucket's net change, the ledger rows, and
// each item's new on-hand and average at the site.
func (p *poster) finish(ctx context.Context) (err error) {
	ctx, span := tracing.Tracer().Start(ctx, "stock posting")
	defer func() { endPosting(span, len(p.txns), err) }()
	var f db.FlushPostingParams
	f.OrgID, f.SiteID, f.Now = p.orgID, p.siteID, p.now
	f.TakeItems, f.TakeLocations, f.TakeLots, f.TakeQty = []uuid.UUID{}, []uuid.UUID{}, []uuid.UUID{}, []decimal.Decimal{}
	f.AddItems, f.AddLocations, f.AddLots, f.AddQty = []uuid.UUID{}, []uuid.UUID{}, []uuid.UUID{}, []decimal.Decimal{}
	for _, k := range p.order {
		switch d := p.deltas[k]; {
		case d.IsNegative():
			f.TakeItems, f.TakeLocations, f.TakeLots, f.TakeQty = append(f.TakeItems, k.item), append(f.TakeLocations, k.location), append(f.TakeLots, k.lot), append(f.TakeQty, d.Neg())
		case d.IsPositive():
			f.AddItems, f.AddLocations, f.AddLots, f.AddQty = append(f.AddItems, k.item), append(f.AddLocations, k.location), append(f.AddLots, k.lot), append(f.AddQty, d)
		}
	}
	n := len(p.txns)
	f.TxnIds, f.TxnKinds, f.TxnItems, f.TxnLocations, f.TxnLots = make([]uuid.UUID, n), make([]string, n), make([]uuid.UUID, n), make([]uuid.UUID, n), make([]uuid.UUID, n)
	f.TxnQty, f.TxnUnitCosts, f.TxnValues, f.TxnAvgs, f.TxnOnHands, f.TxnReasons = make([]decimal.Decimal, n), make([]decimal.Decimal, n), make([]int64, n), make([]decimal.Decimal, n), make([]decimal.Decimal, n), make([]string, n)
	f.TxnSourceTypes, f.TxnSourceIds, f.TxnActors = make([]string, n), make([]uuid.UUID, n), make([]uuid.UUID, n)
	for i, t := range p.txns {
		f.TxnIds[i], f.TxnKinds[i], f.TxnItems[i], f.TxnLocations[i] = t.ID, t.Kind, t.ItemID, t.LocationID
		f.TxnSourceTypes[i], f.TxnSourceIds[i] = t.SourceType, t.SourceID
		if t.LotID != nil {
			f.TxnLots[i] = *t.LotID
		}
		if t.ActorID != nil {
			f.TxnActors[i] = *t.ActorID
		}
		f.TxnQty[i], f.TxnUnitCosts[i], f.TxnValues[i], f.TxnAvgs[i], f.TxnOnHands[i], f.TxnReasons[i] = t.Quantity, t.UnitCost, t.ValueCents, t.AvgCostAfter, t.OnHandAfter, t.Reason
	}
	f.CostItems, f.CostOnHand, f.CostAvg = []uuid.UUID{}, []decimal.Decimal{}, []decimal.Decimal{}
	for id, c := range p.costs {
		f.CostItems, f.CostOnHand, f.CostAvg = append(f.CostItems, id), append(f.CostOnHand, c.OnHand), append(f.CostAvg, c.AvgCost)
	}
	res, err := p.q.FlushPosting(ctx, f)
	if err != nil {
		return err
	}
	if int(res.Taken) != len(f.TakeItems) || int(res.Txns) != n || int(res.Costs) != len(f.CostItems) {
		return fmt.Errorf("inventory: posting wrote %d takes of %d, %d rows of %d, %d costs of %d: balances changed under their locks",
			res.Taken, len(f.TakeItems), res.Txns, n, res.Costs, len(f.CostItems))
	}
	return nil
}

// localDate is t's date in the zone, as a UTC midnight (how pgtype.Date reads).
func localDate(t time.Time, tz string) time.Time {
	loc, err := time.LoadLocation(tz)
	if err != nil {
		loc = time.UTC
	}
	l := t.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, time.UTC)
}

func pgDate(t *time.Time) pgtype.Date {
	if t == nil {
		return pgtype.Date{}
	}
	return pgtype.Date{Time: *t, Valid: true}
}
