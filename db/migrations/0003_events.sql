-- +goose Up
-- Organization events (the spec's Events table), written in the same transaction as the change
-- that caused them. Webhook dispatch reads them after commit; dispatched_at marks the ones whose
-- deliveries have been queued.
CREATE TABLE events (
    id            uuid PRIMARY KEY,
    org_id        uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    name          text        NOT NULL,
    at            timestamptz NOT NULL,
    data          jsonb       NOT NULL,
    dispatched_at timestamptz,
    UNIQUE (org_id, id)
);
CREATE INDEX events_undispatched_idx ON events (at, id) WHERE dispatched_at IS NULL;
CREATE INDEX events_org_at_idx ON events (org_id, at DESC);

-- +goose Down
DROP TABLE events;
