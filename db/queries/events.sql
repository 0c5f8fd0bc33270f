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
