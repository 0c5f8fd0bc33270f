-- name: ReserveIdempotencyKey :one
-- Takes the key when it is new, expired, or reserved by a request that has been gone too long
-- (stale_before). No row means another request holds it or completed it.
INSERT INTO idempotency_keys (scope, key_hash, token, request_hash, reserved_at, expires_at, role, site_ids, credentials)
VALUES (@scope, @key_hash, @token, @request_hash, @now, @expires_at, sqlc.narg(role), @site_ids, @credentials)
ON CONFLICT (scope, key_hash) DO UPDATE
SET token = EXCLUDED.token, request_hash = EXCLUDED.request_hash, reserved_at = EXCLUDED.reserved_at,
    expires_at = EXCLUDED.expires_at, status = NULL, response = NULL,
    role = EXCLUDED.role, site_ids = EXCLUDED.site_ids, credentials = EXCLUDED.credentials
WHERE idempotency_keys.expires_at <= @now
   OR (idempotency_keys.status IS NULL AND idempotency_keys.reserved_at <= @stale_before)
RETURNING token;

-- name: GetIdempotencyKey :one
SELECT token, request_hash, status, response, role, site_ids, credentials
FROM idempotency_keys
WHERE scope = @scope AND key_hash = @key_hash AND expires_at > @now;

-- name: TakeOverIdempotencyKey :one
-- Takes a completed key whose caller no longer holds the rights its response was made under,
-- for a run under the present ones; only from the completion that was read (old_token), so of
-- several retries one runs. No row means the key changed hands meanwhile.
UPDATE idempotency_keys
SET token = @token, request_hash = @request_hash, reserved_at = @now, expires_at = @expires_at,
    status = NULL, response = NULL, role = sqlc.narg(role), site_ids = @site_ids, credentials = @credentials
WHERE scope = @scope AND key_hash = @key_hash AND token = @old_token AND status IS NOT NULL
RETURNING token;

-- name: CompleteIdempotencyKey :exec
UPDATE idempotency_keys SET status = @status, response = @response
WHERE scope = @scope AND key_hash = @key_hash AND token = @token;

-- name: ReleaseIdempotencyKey :exec
DELETE FROM idempotency_keys WHERE scope = @scope AND key_hash = @key_hash AND token = @token;

-- name: PruneIdempotencyKeys :execrows
-- One batch of expired keys; the caller repeats while a batch comes back full.
DELETE FROM idempotency_keys AS k
WHERE k.ctid = ANY (ARRAY(SELECT e.ctid FROM idempotency_keys AS e WHERE e.expires_at <= @now LIMIT @batch));
