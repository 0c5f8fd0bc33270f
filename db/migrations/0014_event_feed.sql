-- +goose Up
-- The event feed (GET /orgs/{orgId}/events) reads an organization's events in (at, id) order and
-- resumes after a position: this index makes the position a range bound, so a page costs the
-- same however deep into the 30 days it starts. It supersedes the (org_id, at DESC) index, which
-- a btree scanned backwards served, but which could not bound the id tiebreak.
CREATE INDEX events_org_feed_idx ON events (org_id, at, id);
DROP INDEX events_org_at_idx;

-- +goose Down
CREATE INDEX events_org_at_idx ON events (org_id, at DESC);
DROP INDEX events_org_feed_idx;
