-- +goose Up
-- Webhook subscriptions and their deliveries. The secret is kept in clear: the server signs
-- every delivery with it, so a hash would not do (the one exception to storing secrets as
-- SHA-256 hashes). It is shown once, at creation, and never listed.
CREATE TABLE webhook_subscriptions (
    id               uuid PRIMARY KEY,
    org_id           uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    url              text        NOT NULL,
    events           text[]      NOT NULL CHECK (cardinality(events) > 0),
    secret           text        NOT NULL,
    active           boolean     NOT NULL DEFAULT true,
    created_by       uuid        REFERENCES users (id) ON DELETE SET NULL,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    last_delivery_at timestamptz,
    last_status      integer,
    failure_count    integer     NOT NULL DEFAULT 0,
    UNIQUE (org_id, id)
);
CREATE INDEX webhook_subscriptions_org_idx ON webhook_subscriptions (org_id, created_at);

-- One row per (event, subscription): queued when the event is dispatched, claimed (attempted_at)
-- in its own committed transaction before the request is sent, so a crash can lose a delivery
-- but never send it twice (at most once; no retry).
CREATE TABLE webhook_deliveries (
    id              uuid PRIMARY KEY,
    org_id          uuid        NOT NULL,
    subscription_id uuid        NOT NULL,
    event_id        uuid        NOT NULL,
    event           text        NOT NULL,
    queued_at       timestamptz NOT NULL,
    attempted_at    timestamptz,
    finished_at     timestamptz,
    status          integer,
    delivered       boolean,
    duration_ms     integer,
    error           text,
    FOREIGN KEY (org_id, subscription_id) REFERENCES webhook_subscriptions (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, event_id) REFERENCES events (org_id, id) ON DELETE CASCADE,
    UNIQUE (subscription_id, event_id)
);
CREATE INDEX webhook_deliveries_queued_idx ON webhook_deliveries (queued_at, id) WHERE attempted_at IS NULL;
CREATE INDEX webhook_deliveries_unfinished_idx ON webhook_deliveries (attempted_at) WHERE attempted_at IS NOT NULL AND finished_at IS NULL;
CREATE INDEX webhook_deliveries_subscription_idx ON webhook_deliveries (subscription_id, queued_at DESC, id DESC);
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);
CREATE INDEX webhook_deliveries_queued_at_idx ON webhook_deliveries (queued_at);

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE webhook_subscriptions;
