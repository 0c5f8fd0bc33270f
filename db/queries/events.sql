-- name: InsertEvent :exec
INSERT INTO events (id, org_id, name, at, data) VALUES (@id, @org_id, @name, @at, @data);

-- name: NotifyEvent :exec
-- Delivered to listeners only when the transaction commits.
SELECT pg_notify('sous_events', @payload::text);
