package kitchen

import (
	"context"
	"encoding/json"
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
	"github.com/sous-app/sous/internal/inventory"
	"github.com/sous-app/sous/internal/money"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/principal"
	"github.com/sous-app/sous/internal/quantity"
)

// lockRun locks a run the caller may see for a write.
func lockRun(ctx context.Context, q *db.Queries, a authz.Access, id uuid.UUID) (db.ProductionRun, error) {
	r, err := q.LockRun(ctx, db.LockRunParams{OrgID: a.OrgID, ID: id})
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(r.SiteID)) {
		return r, errRunNotFound
	}
	return r, err
}

func appendEvent(ctx context.Context, q *db.Queries, r db.ProductionRun, typ string, data map[string]any, now time.Time) (db.ProductionRunEvent, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return db.ProductionRunEvent{}, err
	}
	kind, actor := "system", (*uuid.UUID)(nil)
	if p, ok := principal.From(ctx); ok {
		switch p.Kind {
		case principal.User:
			kind, actor = "user", &p.UserID
		case principal.APIKey:
			kind, actor = "api_key", &p.APIKeyID
		case principal.Device:
			kind, actor = "device", &p.DeviceID
		}
	}
	return q.InsertRunEvent(ctx, db.InsertRunEventParams{ID: uuid.Must(uuid.NewV7()), OrgID: r.OrgID, SiteID: r.SiteID, RunID: r.ID,
		Type: typ, Data: raw, ActorKind: kind, ActorID: actor, Now: now})
}

func (h *Handlers) SetProductionRunStatus(ctx context.Context, req api.SetProductionRunStatusRequestObject) (api.SetProductionRunStatusResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	to := string(req.Body.Status)
	now := h.clock.Now()
	var out api.ProductionRun
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		r, err := lockRun(ctx, q, a, req.Id)
		if err != nil {
			return err
		}
		switch {
		case r.Status == "done":
			return apierr.Conflict("The run is done; done is final")
		case statusRank(to) <= statusRank(r.Status):
			return apierr.Conflict(fmt.Sprintf("The run is %s; it cannot move back or stay at %s", r.Status, to))
		}
		from := r.Status
		if r, err = q.SetRunStatus(ctx, db.SetRunStatusParams{OrgID: a.OrgID, ID: r.ID, Status: to, Now: now}); err != nil {
			return err
		}
		if _, err := appendEvent(ctx, q, r, "status", map[string]any{"from": from, "to": to}, now); err != nil {
			return err
		}
		if to == "done" {
			if err := recordUsage(ctx, q, r, now); err != nil {
				return err
			}
		}
		out = runToAPI(r)
		if err := hintSite(ctx, tx, a.OrgID, r.SiteID); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, r.SiteID, r.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.SetProductionRunStatus200JSONResponse(out), nil
}

// recordUsage writes the theoretical usage of a finished run: the pinned version's items × scale,
// in base units, costed at the site's moving averages where known.
func recordUsage(ctx context.Context, q *db.Queries, r db.ProductionRun, now time.Time) error {
	usage, err := runUsage(ctx, q, r)
	if err != nil {
		return err
	}
	for _, u := range usage {
		if err := q.InsertUsage(ctx, db.InsertUsageParams{OrgID: r.OrgID, RunID: r.ID, SiteID: r.SiteID, Date: r.Date, ItemID: u.itemID,
			QuantityBase: u.base, CostCents: u.cents, Now: now}); err != nil {
			return err
		}
	}
	return nil
}

// itemUsage is one ingredient item a run uses: its quantity in the item's base unit and, where
// the item has a cost at the run's site, that quantity's cost.
type itemUsage struct {
	itemID uuid.UUID
	base   decimal.Decimal
	cents  *int64
}

// runUsage is what the run's pinned recipe version uses, item by item, scaled to the run.
func runUsage(ctx context.Context, q *db.Queries, r db.ProductionRun) ([]itemUsage, error) {
	t, s, err := runTree(ctx, q, r)
	if err != nil {
		return nil, err
	}
	var out []itemUsage
	for itemID, base := range s.ItemNeeds(nil) {
		u := itemUsage{itemID: itemID, base: base}
		if cost, ok := itemCost(t.Items[itemID], r.SiteID); ok {
			c, err := money.Round(base.Mul(cost))
			if err != nil {
				return nil, err
			}
			u.cents = &c
		}
		out = append(out, u)
	}
	return out, nil
}

// recordWaste writes the waste log of part of a run's output: valued at the run's cost (its
// costed ingredients) in proportion to the quantity wasted, rounded half-even once. A reason that
// is one of the waste reasons is that reason; other free text makes it `other` with the text as
// the log's note; none, `overproduction`.
func recordWaste(ctx context.Context, q *db.Queries, r db.ProductionRun, wasted decimal.Decimal, reason, note *string, by *uuid.UUID, now time.Time) error {
	usage, err := runUsage(ctx, q, r)
	if err != nil {
		return err
	}
	var runCents int64
	for _, u := range usage {
		if u.cents != nil {
			if runCents, err = money.Add(runCents, *u.cents); err != nil {
				return err
			}
		}
	}
	value, err := money.Round(decimal.NewFromInt(runCents).Mul(wasted).Div(r.Quantity))
	if err != nil {
		return err
	}
	kind := api.WasteReasonOverproduction // what a run's leftover output most often is
	if reason != nil {
		if k := api.WasteReason(strings.TrimSpace(*reason)); k.Valid() {
			kind = k
		} else {
			kind = api.WasteReasonOther
			if note == nil {
				note = reason
			}
		}
	}
	_, err = inventory.RecordRunWaste(ctx, q, inventory.RunWaste{OrgID: r.OrgID, SiteID: r.SiteID, RunID: r.ID, RecipeName: r.RecipeName,
		Quantity: wasted, Unit: r.Unit, Reason: kind, Note: note, ValueCents: value, CreatedBy: by, At: now})
	return err
}

func (h *Handlers) HandoffProductionRun(ctx context.Context, req api.HandoffProductionRunRequestObject) (api.HandoffProductionRunResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	station := strings.TrimSpace(req.Body.Station)
	if station == "" {
		return nil, apierr.InvalidField("station", "must not be blank")
	}
	now := h.clock.Now()
	var out api.ProductionRun
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		r, err := lockRun(ctx, q, a, req.Id)
		if err != nil {
			return err
		}
		if r.Status == "done" {
			return apierr.Conflict("The run is done; it cannot be handed off")
		}
		data := map[string]any{"station": station}
		if r.Station != nil {
			data["from"] = *r.Station
		}
		if req.Body.Note != nil {
			data["note"] = *req.Body.Note
		}
		if r, err = q.SetRunStation(ctx, db.SetRunStationParams{OrgID: a.OrgID, ID: r.ID, Station: &station, Now: now}); err != nil {
			return err
		}
		if _, err := appendEvent(ctx, q, r, "handoff", data, now); err != nil {
			return err
		}
		out = runToAPI(r)
		if err := hintSite(ctx, tx, a.OrgID, r.SiteID); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, r.SiteID, r.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.HandoffProductionRun200JSONResponse(out), nil
}

func eventToAPI(e db.ProductionRunEvent) api.RunEvent {
	data := map[string]any{}
	_ = json.Unmarshal(e.Data, &data)
	kind := e.ActorKind
	return api.RunEvent{Id: e.ID, RunId: e.RunID, Type: api.RunEventType(e.Type), Data: data, ActorKind: &kind, ActorId: e.ActorID, At: e.At}
}

func (h *Handlers) ListProductionRunEvents(ctx context.Context, req api.ListProductionRunEventsRequestObject) (api.ListProductionRunEventsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	if _, err := loadRun(ctx, q, a, req.Id); err != nil {
		return nil, err
	}
	rows, err := q.ListRunEvents(ctx, db.ListRunEventsParams{OrgID: a.OrgID, RunID: req.Id})
	if err != nil {
		return nil, err
	}
	out := make(api.ListProductionRunEvents200JSONResponse, 0, len(rows))
	for _, e := range rows {
		out = append(out, eventToAPI(e))
	}
	return out, nil
}

func (h *Handlers) CreateProductionRunEvent(ctx context.Context, req api.CreateProductionRunEventRequestObject) (api.CreateProductionRunEventResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	typ := string(b.Type)
	data := map[string]any{}
	var temp, wasted decimal.Decimal
	switch typ {
	case "temp_check":
		if b.TempF == nil {
			return nil, apierr.InvalidField("tempF", "is required for a temp_check")
		}
		if temp, err = decimal.NewFromString(string(*b.TempF)); err != nil {
			return nil, apierr.InvalidField("tempF", "must be a temperature such as \"41\"")
		}
		data["tempF"] = quantity.Format(temp)
		if b.Probe != nil {
			data["probe"] = *b.Probe
		}
	case "portioned":
		if b.Portions == nil {
			return nil, apierr.InvalidField("portions", "is required for portioned")
		}
		p, err := parsePositive("portions", string(*b.Portions))
		if err != nil {
			return nil, err
		}
		data["portions"] = quantity.Format(p)
	case "waste":
		if b.Quantity == nil {
			return nil, apierr.InvalidField("quantity", "is required for waste")
		}
		if wasted, err = parsePositive("quantity", string(*b.Quantity)); err != nil {
			return nil, err
		}
		data["quantity"] = quantity.Format(wasted)
		if b.Reason != nil {
			data["reason"] = *b.Reason
		}
	case "photo":
		if b.MediaKey == nil {
			return nil, apierr.InvalidField("mediaKey", "is required for a photo")
		}
		data["mediaKey"] = b.MediaKey.String()
	case "note":
		if b.Text == nil || strings.TrimSpace(*b.Text) == "" {
			return nil, apierr.InvalidField("text", "is required for a note")
		}
	}
	if b.Text != nil {
		data["text"] = *b.Text
	}
	now := h.clock.Now()
	var out api.RunEvent
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		r, err := lockRun(ctx, q, a, req.Id)
		if err != nil {
			return err
		}
		if typ == "photo" {
			m, err := q.GetMediaInfo(ctx, db.GetMediaInfoParams{OrgID: a.OrgID, ID: *b.MediaKey})
			if pg.IsNoRows(err) || (err == nil && m.SiteID != nil && *m.SiteID != r.SiteID) {
				return apierr.InvalidField("mediaKey", "is no image of the run's site")
			}
			if err != nil {
				return err
			}
		}
		if typ == "waste" {
			data["unit"] = r.Unit
		}
		ev, err := appendEvent(ctx, q, r, typ, data, now)
		if err != nil {
			return err
		}
		out = eventToAPI(ev)
		if typ == "waste" {
			if err := recordWaste(ctx, q, r, wasted, b.Reason, b.Text, a.Actor(), now); err != nil {
				return err
			}
		}
		if typ == "temp_check" {
			if err := h.checkTemperature(ctx, tx, q, r, temp, now); err != nil {
				return err
			}
		}
		if err := hintSite(ctx, tx, a.OrgID, r.SiteID); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, r.SiteID, r.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateProductionRunEvent200JSONResponse(out), nil
}
