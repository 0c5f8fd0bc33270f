-- name: InsertEvent :exec
INSERT INTO events (id, org_id, name, at, data) VALUES (@id, @org_id, @name, @at, @data);

-- name: NotifyEvent :exec
-- Delivered to listeners only when the transaction commits.
SELECT pg_notify('sous_events', @payload::text);

-- name: PruneEvents :execrows
-- Events dispatched before @before, a batch at a time so one pass never holds a long lock. Their
-- delivery rows go with them (ON DELETE CASCADE); undispatched events are still work and stay.
DELETE FROM events
WHERE id IN (
    SELECT e.id FROM events e
    WHERE e.dispatched_at < @before::timestamptz
    ORDER BY e.dispatched_at
    LIMIT @max_rows
);

-- name: EventPosition :one
-- Where the event feed resumes after event @id: its time, if it is an event of the organization
-- the feed still lists.
SELECT at FROM events
WHERE org_id = @org_id AND id = @id AND name <> 'webhook.test' AND at >= @since::timestamptz;

-- name: ListOrgEvents :many
-- The event feed: the organization's events since @since, oldest first, after the position
-- (@after_at, @after_id), which is always given (the start of the window and the nil id for a
-- first page) so that it is a range bound on events_org_feed_idx in every plan, generic ones
-- included. webhook.test events are sent to one subscription on request and are not
-- organization events.
SELECT id, name, at, data FROM events
WHERE org_id = @org_id
  AND (at, id) > (@after_at::timestamptz, @after_id::uuid)
  AND at >= @since::timestamptz
  AND name <> 'webhook.test'
  AND (sqlc.narg(types)::text[] IS NULL OR name = ANY (sqlc.narg(types)::text[]))
ORDER BY at, id
LIMIT @max_rows;
