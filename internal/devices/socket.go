package devices

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/principal"
	"github.com/sous-app/sous/internal/realtime"
	"github.com/sous-app/sous/internal/reqinfo"
)

// ServeSocket serves GET /v1/board/ws. The request pipeline has already authenticated the token
// in the query (401 as JSON before any upgrade); this upgrades the connection and holds it until
// the device goes away, is unpaired, or the server stops. Errors returned before the upgrade go
// through the error renderer; once upgraded, there is nobody to answer, so failures are logged.
func (h *Handlers) ServeSocket(w http.ResponseWriter, r *http.Request) error {
	p, ok := principal.From(r.Context())
	if !ok || p.Kind != principal.Device {
		return errInvalidToken
	}
	if !headerHasToken(r.Header, "Connection", "upgrade") || !headerHasToken(r.Header, "Upgrade", "websocket") {
		return apierr.Invalid("This endpoint needs a WebSocket upgrade (Connection: Upgrade, Upgrade: websocket)",
			apierr.FieldError{Field: "Upgrade", Message: "must be websocket"})
	}
	if h.hub == nil {
		return apierr.Internal(errors.New("devices: no realtime hub wired"))
	}
	// The token is checked again once the socket listens for its revocation: unpaired in between,
	// the device gets its 401 now rather than a socket that would never close.
	var refused error
	admit := func(ctx context.Context) error {
		again, err := h.Authenticate(ctx, r.URL.Query().Get("token"))
		if err == nil && again.DeviceID != p.DeviceID {
			err = errInvalidToken
		}
		refused = err
		return err
	}
	// Frames also mark what time changes in the state (the local date, a menu board's day part),
	// so a screen that relies on its socket is not a poll late. Read afresh each time: a hint may
	// have moved the device or changed its site.
	nextChange := func(ctx context.Context) time.Duration {
		row, err := db.New(h.pool).GetDeviceState(ctx, db.GetDeviceStateParams{OrgID: p.OrgID, ID: p.DeviceID})
		if err != nil {
			return 0 // gone or unreachable: hints and polling still work
		}
		now := h.clock.Now()
		at := h.nextTimedChange(row, now)
		if at.IsZero() {
			return 0
		}
		return at.Sub(now)
	}
	err := realtime.ServeSocket(w, r, h.hub, p.DeviceID, p.OrgID, realtime.SocketOptions{
		Admit: admit, NextChange: nextChange, ClientKey: reqinfo.ClientKey(r.Context()),
	})
	if limit, ok := realtime.AsRefused(err); ok {
		// The refused client's connection is closed after the answer rather than kept alive: a
		// replica at its limits needs the descriptor more than the client needs the reuse.
		w.Header().Set("Connection", "close")
		return socketRefusal(limit)
	}
	switch {
	case refused != nil:
		return refused
	case err == nil, errors.Is(err, realtime.ErrRevoked), errors.Is(err, realtime.ErrReplaced):
	case errors.Is(err, realtime.ErrLedger):
		// Refused before the upgrade: the renderer answers, 503 for a database outage.
		return err
	default:
		// The device vanished or stopped answering pings; it reconnects or polls.
		h.logger.InfoContext(r.Context(), "device socket ended", "device_id", p.DeviceID, "err", err.Error())
	}
	return nil
}

// socketRefusal is the answer to an upgrade a socket limit refused: 503 when this replica is at
// its ceiling (another replica may have room), 429 when the organization or the client address
// holds its cap of sockets over all replicas.
func socketRefusal(e *realtime.RefusedError) *apierr.Error {
	if e.Reason == realtime.ReasonCeiling {
		return apierr.Unavailable(apierr.CodeSocketCapacityReached,
			"This server holds as many device sockets as it can; retry after the time in Retry-After (polling GET /device/state keeps working)",
			e.RetryAfter)
	}
	who := "organization"
	if e.Reason == realtime.ReasonAddress {
		who = "client address"
	}
	err := apierr.RateLimited(e.RetryAfter).WithCode(apierr.CodeSocketLimitReached)
	err.Message = fmt.Sprintf("This %s already holds %d device sockets, its limit; retry after the time in Retry-After (polling GET /device/state keeps working)", who, e.Limit)
	return err
}

// headerHasToken reports whether a comma-separated header holds token, case-insensitively.
func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}
