-- +goose Up
-- Dispatched events are pruned after the delivery retention (30 days; webhooks.Retention), so the
-- outbox does not grow with every change ever made. This index finds them without scanning the
-- table; undispatched events (still work to do) are left out of it.
CREATE INDEX events_dispatched_at_idx ON events (dispatched_at) WHERE dispatched_at IS NOT NULL;

-- +goose Down
DROP INDEX events_dispatched_at_idx;
