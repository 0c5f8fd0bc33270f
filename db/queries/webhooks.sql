-- name: LockOrgWebhooks :exec
-- Serialises subscription creation per organization, so the cap holds under concurrency.
SELECT pg_advisory_xact_lock(hashtextextended('webhook_subscriptions:' || sqlc.arg(org_id)::text, 0));

-- name: CountWebhooks :one
SELECT count(*)::int FROM webhook_subscriptions WHERE org_id = @org_id;

-- name: CreateWebhook :one
INSERT INTO webhook_subscriptions (id, org_id, url, events, secret, created_by, created_at, updated_at)
VALUES (@id, @org_id, @url, @events, @secret, sqlc.narg(created_by), @now, @now)
RETURNING *;

-- name: ListWebhooks :many
SELECT * FROM webhook_subscriptions WHERE org_id = @org_id ORDER BY created_at, id;

-- name: GetWebhook :one
SELECT * FROM webhook_subscriptions WHERE org_id = @org_id AND id = @id;

-- name: UpdateWebhook :one
UPDATE webhook_subscriptions
SET url = @url, events = @events, active = @active, updated_at = @now
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: DropQueuedDeliveries :exec
-- A paused subscription's queued deliveries are dropped: events that occur while it is paused
-- are not delivered later.
DELETE FROM webhook_deliveries
WHERE org_id = @org_id AND subscription_id = @subscription_id AND attempted_at IS NULL;

-- name: DeleteWebhook :execrows
DELETE FROM webhook_subscriptions WHERE org_id = @org_id AND id = @id;

-- name: ListWebhookDeliveries :many
SELECT * FROM webhook_deliveries
WHERE org_id = @org_id AND subscription_id = @subscription_id
ORDER BY queued_at DESC, id DESC
LIMIT @max_rows;

-- name: GetWebhookDelivery :one
SELECT * FROM webhook_deliveries WHERE id = @id;

-- name: ClaimUndispatchedEvents :many
-- Dispatch, step 1: take a batch of committed events no dispatcher has handled. SKIP LOCKED lets
-- several replicas dispatch at once without taking the same event.
SELECT id, org_id, name FROM events
WHERE dispatched_at IS NULL
ORDER BY at, id
LIMIT @max_rows
FOR UPDATE SKIP LOCKED;

-- name: MatchingWebhooks :many
-- The active subscriptions of an organization whose filter takes the event: its name, or "*"
-- (the catalogue; webhook.test is never matched).
SELECT id FROM webhook_subscriptions
WHERE org_id = @org_id
  AND active
  AND (@event::text = ANY (events) OR (events = ARRAY['*']::text[] AND @event::text <> 'webhook.test'))
ORDER BY id;

-- name: QueueDelivery :exec
INSERT INTO webhook_deliveries (id, org_id, subscription_id, event_id, event, queued_at)
VALUES (@id, @org_id, @subscription_id, @event_id, @event, @now)
ON CONFLICT (subscription_id, event_id) DO NOTHING;

-- name: MarkEventsDispatched :exec
UPDATE events SET dispatched_at = @now::timestamptz WHERE id = ANY (@ids::uuid[]);

-- name: InsertClaimedDelivery :one
-- A test delivery: queued and claimed at once, sent by the request that made it.
INSERT INTO webhook_deliveries (id, org_id, subscription_id, event_id, event, queued_at, attempted_at)
VALUES (@id, @org_id, @subscription_id, @event_id, @event, @now, @now)
RETURNING *;

-- name: ClaimDelivery :one
-- Delivery: claim the oldest queued delivery and mark it attempted. The claim commits before
-- the request is sent, so no other dispatcher (or a restart) can send it again: at most once.
UPDATE webhook_deliveries d
SET attempted_at = @now::timestamptz
WHERE d.id = (
    SELECT q.id FROM webhook_deliveries q
    WHERE q.attempted_at IS NULL
    ORDER BY q.queued_at, q.id
    LIMIT 1
    FOR UPDATE SKIP LOCKED
)
RETURNING d.id;

-- name: GetDeliveryWork :one
-- What sending a claimed delivery needs: the subscription's URL and secret, the event.
SELECT d.id, d.org_id, d.subscription_id, d.event_id, d.event, d.attempted_at,
       s.url, s.secret, e.at AS event_at, e.data AS event_data
FROM webhook_deliveries d
JOIN webhook_subscriptions s ON s.org_id = d.org_id AND s.id = d.subscription_id
JOIN events e ON e.org_id = d.org_id AND e.id = d.event_id
WHERE d.id = @id;

-- name: FinishDelivery :one
UPDATE webhook_deliveries
SET finished_at = @now::timestamptz, status = @status::int, delivered = @delivered::boolean,
    duration_ms = @duration_ms::int, error = sqlc.narg(error)
WHERE id = @id
RETURNING *;

-- name: RecordWebhookAttempt :exec
-- Every attempt updates the subscription's last outcome; a success resets the failure count.
UPDATE webhook_subscriptions
SET last_delivery_at = @attempted_at::timestamptz,
    last_status = @status::int,
    failure_count = CASE WHEN @delivered::boolean THEN 0 ELSE failure_count + 1 END
WHERE org_id = @org_id AND id = @id;

-- name: AbandonStaleDeliveries :execrows
-- Deliveries claimed by a process that stopped before recording the outcome. They may or may not
-- have reached the receiver; they are closed without a status and never sent again.
UPDATE webhook_deliveries
SET finished_at = @now::timestamptz, delivered = false, error = 'the server stopped before the outcome was recorded'
WHERE attempted_at IS NOT NULL AND finished_at IS NULL AND attempted_at < @stale_before::timestamptz;

-- name: PruneDeliveries :execrows
DELETE FROM webhook_deliveries WHERE queued_at < @before;

-- name: OutboxBacklog :one
-- Monitoring: how much of the outbox waits (committed events not dispatched plus deliveries not
-- yet attempted, each count capped so a huge backlog stays cheap to measure) and the age in
-- seconds of the oldest of it (0 when nothing waits). Both read the partial indexes of the
-- pending rows only.
SELECT
    ((SELECT count(*) FROM (SELECT 1 FROM events WHERE dispatched_at IS NULL LIMIT 100000) e)
   + (SELECT count(*) FROM (SELECT 1 FROM webhook_deliveries WHERE attempted_at IS NULL LIMIT 100000) d))::bigint AS pending,
    COALESCE(extract(epoch FROM now() - LEAST(
        (SELECT min(at) FROM events WHERE dispatched_at IS NULL),
        (SELECT min(queued_at) FROM webhook_deliveries WHERE attempted_at IS NULL)
    )), 0)::float8 AS oldest_age_seconds;
