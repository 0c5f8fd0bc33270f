-- name: CreateAPIKey :one
INSERT INTO api_keys (id, org_id, name, prefix, key_hash, created_by, created_at)
VALUES (@id, @org_id, @name, @prefix, @key_hash, @created_by, @now)
RETURNING *;

-- name: ListAPIKeys :many
SELECT * FROM api_keys WHERE org_id = @org_id ORDER BY created_at DESC, id DESC;

-- name: RevokeAPIKey :one
-- Revoking twice keeps the first revocation time.
UPDATE api_keys SET revoked_at = coalesce(revoked_at, @now::timestamptz)
WHERE org_id = @org_id AND id = @id
RETURNING id;

-- name: GetAPIKeyByHash :one
SELECT id, org_id, name, revoked_at, last_used_at FROM api_keys WHERE key_hash = @key_hash;

-- name: TouchAPIKey :exec
-- At most one write a minute per key, however busy the key is.
UPDATE api_keys SET last_used_at = @now::timestamptz
WHERE id = @id AND (last_used_at IS NULL OR last_used_at < @stale_before::timestamptz);
