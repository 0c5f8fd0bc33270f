-- +goose Up
-- The device WebSockets every replica holds, so that the caps on them (per device, per
-- organization, per client address) are the same whichever replica a socket lands on.
--
-- A replica owns its rows through a lease it renews every few seconds. Sockets count only while
-- their replica's lease runs, so a replica that crashed (and deleted nothing) stops counting
-- within one lease; its rows are removed with it once the lease is long past (ON DELETE CASCADE).
-- Lease times are the database's clock: the one clock every replica reads alike.
CREATE TABLE realtime_replicas (
    id          uuid PRIMARY KEY,
    lease_until timestamptz NOT NULL
);

-- Keyed by organization like every tenant table; the per-address cap is the one count that spans
-- organizations (as rate_events' per-address limits do).
CREATE TABLE realtime_sockets (
    org_id     uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    id         uuid        NOT NULL,
    replica_id uuid        NOT NULL REFERENCES realtime_replicas (id) ON DELETE CASCADE,
    device_id  uuid        NOT NULL,
    -- The client as per-client limits count it (an IPv4 address, an IPv6 /64).
    client_key text        NOT NULL,
    -- Admission order, for "the newest connection wins": a sequence, not a clock, so that two
    -- admissions in the same microsecond are still ordered.
    seq        bigint      GENERATED ALWAYS AS IDENTITY,
    opened_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, id)
);
CREATE INDEX realtime_sockets_device ON realtime_sockets (org_id, device_id, seq);
CREATE INDEX realtime_sockets_client ON realtime_sockets (client_key);
CREATE INDEX realtime_sockets_replica ON realtime_sockets (replica_id);

-- +goose Down
DROP TABLE realtime_sockets;
DROP TABLE realtime_replicas;
