-- name: LockRateKey :exec
-- Serializes concurrent checks of one key, so a limit of N cannot admit N+1 under a race.
SELECT pg_advisory_xact_lock(hashtextextended(@bucket::text || ':' || @key::text, 0));

-- name: CountRateEvents :one
SELECT count(*)::int AS n, coalesce(min(at), 'epoch'::timestamptz)::timestamptz AS oldest
FROM rate_events
WHERE bucket = @bucket AND key = @key AND at > @since;

-- name: InsertRateEvent :exec
INSERT INTO rate_events (bucket, key, at) VALUES (@bucket, @key, @at);

-- name: PruneRateEvents :exec
DELETE FROM rate_events WHERE bucket = @bucket AND key = @key AND at <= @before;

-- name: ClearRateEvents :exec
DELETE FROM rate_events WHERE bucket = @bucket AND key = @key;

-- name: GetRateLock :one
SELECT locked_until FROM rate_locks
WHERE bucket = @bucket AND key = @key AND locked_until > @now;

-- name: SetRateLock :exec
INSERT INTO rate_locks (bucket, key, locked_until) VALUES (@bucket, @key, @locked_until)
ON CONFLICT (bucket, key) DO UPDATE SET locked_until = EXCLUDED.locked_until;

-- name: InsertRateReservation :exec
INSERT INTO rate_events (bucket, key, at, reservation) VALUES (@bucket, @key, @at, @reservation);

-- name: SettleRateReservation :exec
-- The reserved attempt failed: it stays as a plain failure.
UPDATE rate_events SET reservation = NULL
WHERE bucket = @bucket AND key = @key AND reservation = @reservation;

-- name: CancelRateReservation :exec
DELETE FROM rate_events WHERE bucket = @bucket AND key = @key AND reservation = @reservation;

-- name: ClearSettledRateEvents :exec
-- Forgets settled failures (and the given reservation) but not attempts other requests are
-- still verifying: those settle on their own.
DELETE FROM rate_events
WHERE bucket = @bucket AND key = @key AND (reservation IS NULL OR reservation = @reservation);

-- name: CountSettledRateEvents :one
SELECT count(*)::int FROM rate_events
WHERE bucket = @bucket AND key = @key AND at > @since AND reservation IS NULL;
