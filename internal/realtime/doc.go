// Package realtime tells devices (kitchen wallboards, menu boards) when to
// refetch their state, across every replica of the server.
//
// Devices poll GET /v1/device/state and also hold a WebSocket (see
// ServeSocket). A frame on the socket means "refetch now" and carries no
// data, so the socket is only ever a latency optimisation: a device whose
// socket is down keeps working on polling alone, and nothing is lost by
// missing, merging or repeating frames.
//
// # Producing hints
//
// Any change that alters what a device shows must call Notify (or NotifyOrg
// for every device of an organization, or DisconnectDevice when a device is
// unpaired) with the transaction making the change. The hint is a PostgreSQL
// NOTIFY on Channel, which the server delivers only if and when that
// transaction commits, to every replica listening, whichever replica wrote.
//
// Changes that come with time alone (a new local date, a menu board's next
// day part) need no notification: every replica sees the same clock, so the
// socket itself sends a frame when SocketOptions.NextChange says one is due.
//
// # Delivering hints
//
// Each replica runs one Hub, which holds one dedicated connection listening
// on Channel and fans notifications out to the sockets it serves. That
// connection is opened with the pool's settings but outside the pool, so
// count one more per replica against max_connections; and LISTEN needs a
// session of its own, so it cannot go through a transaction-pooling proxy
// such as PgBouncer in transaction mode (sending hints can). The hub must run for as long as the replica serves sockets:
//
//	hub := realtime.NewHub(pool, logger)
//	go hub.Run(ctx)
//
// and the device route, once it has authenticated the device token, hands
// the request over:
//
//	err := realtime.ServeSocket(w, r, hub, device.ID, device.OrgID, realtime.SocketOptions{Admit: recheckToken})
//
// The handler then lives as long as the socket. http.Server.Shutdown does not
// wait for or cancel hijacked connections such as WebSockets: cancel the
// hub's context (or the server's BaseContext) on shutdown, which closes every
// socket with 1001 so devices reconnect to another replica.
//
// # Payloads
//
// A notification's payload is a comma-separated list of tokens, each a device
// id (hint that device), "org:" followed by an organization id (hint all its
// devices), "revoke:" followed by a device id (close that device's sockets
// with StatusRevoked) or "replace:" followed by a socket id (close that one
// socket with StatusReplaced). Batches stay far below PostgreSQL's 8000-byte
// limit.
// Tokens a replica does not understand are logged and skipped, so new kinds
// can be rolled out replica by replica.
//
// # Limits
//
// A socket holds a file descriptor, goroutines and buffers for hours, so
// their number is bounded (Hub.SetLimits, see limits.go): a ceiling per
// replica, checked first and below the process's open-file limit so that the
// replica can still accept every other request; and caps per device, per
// organization and per client address, counted over every replica in the
// realtime_sockets table (ledger.go), where each replica enters its sockets
// under a lease it renews, so that a crashed replica's sockets stop counting
// within one lease. Past the per-device cap the newest connection wins: the
// device's oldest socket, on whichever replica, is closed with StatusReplaced
// (through a "replace:" token sent in the admitting transaction). Past the
// other caps and the ceiling the upgrade is refused with a *RefusedError.
//
// # Revocation
//
// DisconnectDevice closes a device's open sockets on every replica the moment
// its unpairing commits; new sockets are refused by the token check of the
// device route. A token check that races with the unpairing (checked just
// before the commit, subscribed just after the revocation was delivered)
// would leave a socket open on a dead token, so the route checks the token
// again in SocketOptions.Admit, which runs once the subscription is in place:
// the unpairing is then either seen by that check or heard by the
// subscription. A revocation sent while a replica's listener is reconnecting
// is missed like any hint; the hint every socket gets on reconnection makes
// the device refetch, and that fetch is refused.
package realtime
