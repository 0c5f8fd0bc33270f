package devices

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/principal"
)

// stateCacheControl keeps the state per device and makes every use revalidate.
const stateCacheControl = "private, no-cache"

// dayPart is a site's service period, as the sites table stores it (local HH:MM; an end before
// the start runs past midnight).
type dayPart struct {
	Name  string `json:"name"`
	Start string `json:"start"`
	End   string `json:"end"`
}

func decodeDayParts(raw []byte) ([]dayPart, error) {
	var parts []dayPart
	if len(raw) == 0 {
		return parts, nil
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, fmt.Errorf("devices: site day parts: %w", err)
	}
	return parts, nil
}

// minutes reads "HH:MM" as minutes after midnight.
func minutes(hhmm string) int {
	var h, m int
	_, _ = fmt.Sscanf(hhmm, "%d:%d", &h, &m)
	return h*60 + m
}

// inProgress reports whether the local minute of the day falls within the part.
func (p dayPart) inProgress(minute int) bool {
	s, e := minutes(p.Start), minutes(p.End)
	if s <= e {
		return s <= minute && minute < e
	}
	return minute >= s || minute < e // runs past midnight
}

// menuDayPart picks what a menu board shows: the pinned part when the site still has it, else
// the part in progress, else the next to begin (wrapping past midnight). nil when the site has no
// day parts.
func menuDayPart(parts []dayPart, pinned string, local time.Time) (*dayPart, bool) {
	minute := local.Hour()*60 + local.Minute()
	if pinned != "" {
		for _, p := range parts {
			if strings.EqualFold(p.Name, pinned) {
				return &p, p.inProgress(minute)
			}
		}
	}
	var next *dayPart
	best := 24 * 60
	for i, p := range parts {
		if p.inProgress(minute) {
			return &parts[i], true
		}
		if wait := (minutes(p.Start) - minute + 24*60) % (24 * 60); wait < best {
			best, next = wait, &parts[i]
		}
	}
	return next, false
}

// zoneCache keeps loaded time zones: time.LoadLocation reads and parses the zone file on every
// call, too slow for a path polled hundreds of times a second.
type zoneCache struct{ m sync.Map }

func (z *zoneCache) load(name string) (*time.Location, error) {
	if loc, ok := z.m.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	z.m.Store(name, loc)
	return loc, nil
}

// GetDeviceState answers the device's state with a strong ETag over everything but serverTime,
// and 304 when If-None-Match holds it. One query in all: the token lookup (Authenticate) is a
// join of device, site and organization that loads the state with it.
func (h *Handlers) GetDeviceState(ctx context.Context, req api.GetDeviceStateRequestObject) (api.GetDeviceStateResponseObject, error) {
	p, ok := principal.From(ctx)
	if !ok || p.Kind != principal.Device {
		return nil, errInvalidToken
	}
	row, ok := p.Loaded.(*db.DeviceState)
	if !ok || row.ID != p.DeviceID {
		r, err := db.New(h.pool).GetDeviceState(ctx, db.GetDeviceStateParams{OrgID: p.OrgID, ID: p.DeviceID})
		if pg.IsNoRows(err) {
			return nil, errInvalidToken // deleted since the token was checked
		}
		if err != nil {
			return nil, err
		}
		row = &r
	}
	now := h.clock.Now()
	state, trays, err := h.buildState(ctx, *row, now)
	if err != nil {
		return nil, err
	}
	// The state is encoded once: the ETag hashes those bytes (serverTime left at zero) and the
	// tray queue's sum, and the response is the same bytes with serverTime set in place, then
	// the queue's bytes as the tray line encoded them.
	raw, etag, err := encodeState(state, trays)
	if err != nil {
		return nil, err
	}
	cc := stateCacheControl
	if req.Params.IfNoneMatch != nil && etagMatches(*req.Params.IfNoneMatch, etag) {
		return api.GetDeviceState304Response{Headers: api.GetDeviceState304ResponseHeaders{ETag: &etag, CacheControl: &cc}}, nil
	}
	state.ServerTime = now.Truncate(time.Millisecond)
	if head, ok := withServerTime(raw, state.ServerTime); ok {
		r := encodedState{head: head, etag: etag, cacheControl: cc}
		if trays != nil {
			r.trays = trays.JSON
		}
		return r, nil
	}
	if trays != nil {
		all := json.RawMessage(trays.JSON)
		state.Trays = &all
	}
	return api.GetDeviceState200JSONResponse{
		Body: state, Headers: api.GetDeviceState200ResponseHeaders{ETag: &etag, CacheControl: &cc},
	}, nil
}

// zeroServerTime is serverTime as encodeState leaves it.
var zeroServerTime = []byte(`"serverTime":"0001-01-01T00:00:00Z"`)

// encodeState encodes the state without trays and with serverTime at zero, since it changes on
// every call and including it would make every poll a 200, and gives the ETag of those bytes
// and, on tray-line screens, of the tray queue's sum. Encoding is deterministic (struct fields
// in order, map keys sorted, stored JSON passed through as PostgreSQL normalized it).
//
// The queue (hundreds of tickets) stays out of json.Marshal, which would check and copy its
// bytes on every poll, and out of the hash, which takes its sum as the tray line computed it
// once; the response appends it as the last field, where the spec's field order puts it.
func encodeState(s api.DeviceState, trays *EncodedTrays) ([]byte, string, error) {
	s.ServerTime = time.Time{}
	s.Trays = nil
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, "", err
	}
	h := sha256.New()
	h.Write(raw)
	if trays != nil {
		h.Write(trays.Sum[:])
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return raw, `"` + hex.EncodeToString(sum[:16]) + `"`, nil
}

// withServerTime sets serverTime in the encoded state (trays left out). Only site follows
// serverTime, and it passes no stored JSON through that could hold the key, so the last
// occurrence is the field itself.
func withServerTime(raw []byte, at time.Time) ([]byte, bool) {
	i := bytes.LastIndex(raw, zeroServerTime)
	if i < 0 {
		return nil, false
	}
	ts, err := json.Marshal(at)
	if err != nil {
		return nil, false
	}
	out := make([]byte, 0, len(raw)+len(ts)+1)
	out = append(out, raw[:i]...)
	out = append(out, `"serverTime":`...)
	out = append(out, ts...)
	return append(out, raw[i+len(zeroServerTime):]...), true
}

// traysField opens the trays field appended to the state's object.
var traysField = []byte(`,"trays":`)

// encodedState is a 200 of GET /device/state whose body is already encoded: head is the state
// without trays (an object), trays the queue's array or nil. The queue is written from the
// tray line's shared bytes, not copied into one body.
type encodedState struct {
	head, trays        []byte
	etag, cacheControl string
}

func (r encodedState) VisitGetDeviceStateResponse(w http.ResponseWriter) error {
	n := len(r.head) + 1
	if r.trays != nil {
		n += len(traysField) + len(r.trays)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", r.cacheControl)
	w.Header().Set("ETag", r.etag)
	w.Header().Set("Content-Length", strconv.Itoa(n))
	w.WriteHeader(http.StatusOK)
	if r.trays == nil {
		if _, err := w.Write(r.head); err != nil {
			return err
		}
		_, err := w.Write([]byte{'\n'})
		return err
	}
	for _, b := range [][]byte{r.head[:len(r.head)-1], traysField, r.trays, []byte("}\n")} {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// emptyTrays is the queue of a screen with no tray line or no day part.
var emptyTrays = EncodedTrays{JSON: []byte(`[]`), Sum: sha256.Sum256([]byte(`[]`))}

// buildState answers the device's state and, on tray-line screens, the tray queue apart (see
// encodeState); nil trays on other kinds.
func (h *Handlers) buildState(ctx context.Context, row db.DeviceState, now time.Time) (api.DeviceState, *EncodedTrays, error) {
	loc, err := h.zones.load(row.Timezone)
	if err != nil {
		return api.DeviceState{}, nil, apierr.Internal(fmt.Errorf("site %s time zone %q: %w", row.SiteID, row.Timezone, err))
	}
	local := now.In(loc)
	kind := Kind(row.Kind)
	s := api.DeviceState{
		Device: api.StateDevice{Id: row.ID, Name: row.Name, Kind: api.DeviceKind(row.Kind)},
		Org: api.StateOrg{Name: row.OrgName, Brand: api.Brand{
			Primary: api.HexColor(row.BrandPrimary), Accent: api.HexColor(row.BrandAccent),
		}},
		Site:       api.StateSite{Id: row.SiteID, Name: row.SiteName, Timezone: row.Timezone},
		Date:       openapi_types.Date{Time: time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)},
		Production: json.RawMessage(`[]`),
		Alerts:     []api.DeviceAlert{},
		Handoffs:   json.RawMessage(`[]`),
	}
	if err := s.Device.Config.UnmarshalJSON(row.Config); err != nil {
		return s, nil, err
	}
	if s.Cast, err = decodeCast(row.CastContent); err != nil {
		return s, nil, err
	}
	// Production timers and handoffs come from the kitchen (wallboards), the menu from its
	// effective menu (menu boards); the tray queue is filled when the tray line lands. The spec's fields are on every kind;
	// what only one kind shows (the menu, the tray queue) is on that kind alone, so the other
	// kinds' state is exactly the spec's object.
	switch kind {
	case WallboardBOH, WallboardFOH:
		// The state query loads the site's open alerts for wallboards only.
		cfg, err := decodeConfig(row.Config)
		if err != nil {
			return s, nil, err
		}
		if cfg.showAlerts() && len(row.Alerts) > 0 {
			if err := json.Unmarshal(row.Alerts, &s.Alerts); err != nil {
				return s, nil, fmt.Errorf("devices: state alerts: %w", err)
			}
		}
		if h.kitchen != nil {
			dayStart := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
			prod, hand, err := h.kitchen.Production(ctx, row.OrgID, row.SiteID, s.Date.Time, dayStart, cfg.stations(), cfg.flag("showHandoffs"))
			if err != nil {
				return s, nil, err
			}
			s.Production, s.Handoffs = prod, hand
		}
		if kind == WallboardBOH {
			temps := []api.StateTemperature{}
			if h.temps != nil {
				if temps, err = h.temps.Live(ctx, row.OrgID, row.SiteID, now); err != nil {
					return s, nil, err
				}
			}
			s.Temperatures = &temps
		}
	case TrayLine:
		// The queue of the day part in progress, else the next to begin.
		trays := emptyTrays
		if h.trays != nil {
			cfg, err := decodeConfig(row.Config)
			if err != nil {
				return s, nil, err
			}
			parts, err := decodeDayParts(row.DayParts)
			if err != nil {
				return s, nil, err
			}
			if p, _ := menuDayPart(parts, "", local); p != nil {
				if trays, err = h.trays.Queue(ctx, row.OrgID, row.SiteID, s.Date.Time, p.Name, cfg.units()); err != nil {
					return s, nil, err
				}
			}
		}
		return s, &trays, nil
	case MenuBoard:
		cfg, err := decodeConfig(row.Config)
		if err != nil {
			return s, nil, err
		}
		parts, err := decodeDayParts(row.DayParts)
		if err != nil {
			return s, nil, err
		}
		menu := &api.StateMenu{Items: []map[string]any{}}
		if p, inProgress := menuDayPart(parts, cfg.dayPart(), local); p != nil {
			menu.DayPart = &api.StateDayPart{Name: p.Name, Start: api.LocalTime(p.Start), End: api.LocalTime(p.End)}
			menu.InProgress = inProgress
			if h.kitchen != nil {
				items, err := h.kitchen.Menu(ctx, row.OrgID, row.SiteID, s.Date.Time, p.Name, cfg.flag("showPrices"), cfg.flag("showAllergens"))
				if err != nil {
					return s, nil, err
				}
				menu.Items = items
			}
		}
		s.Menu = menu
	}
	return s, nil, nil
}

// nextTimedChange is the first instant after now at which the device's state changes by the
// passage of time alone: the site's next local midnight (date), and on menu boards the next start
// or end of a day part (which part is shown and whether it is in progress). Zero if the zone
// cannot be loaded.
func (h *Handlers) nextTimedChange(row db.DeviceState, now time.Time) time.Time {
	loc, err := h.zones.load(row.Timezone)
	if err != nil {
		return time.Time{}
	}
	local := now.In(loc)
	y, m, d := local.Date()
	next := time.Date(y, m, d+1, 0, 0, 0, 0, loc)
	if k := Kind(row.Kind); k != MenuBoard && k != TrayLine {
		return next
	}
	parts, err := decodeDayParts(row.DayParts)
	if err != nil {
		return next
	}
	for _, p := range parts {
		for _, hhmm := range []string{p.Start, p.End} {
			mm := minutes(hhmm)
			at := time.Date(y, m, d, mm/60, mm%60, 0, 0, loc)
			if !at.After(now) {
				at = time.Date(y, m, d+1, mm/60, mm%60, 0, 0, loc)
			}
			if at.Before(next) {
				next = at
			}
		}
	}
	return next
}

// etagMatches applies If-None-Match: a list of entity tags or "*", compared weakly (RFC 9110
// §13.1.2), so a W/ prefix added by a proxy still matches.
func etagMatches(header, etag string) bool {
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" || strings.TrimPrefix(tag, "W/") == strings.TrimPrefix(etag, "W/") {
			return true
		}
	}
	return false
}
