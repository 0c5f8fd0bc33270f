-- name: CreateTag :one
-- No row when the code is taken; the caller draws another.
INSERT INTO tags (id, org_id, code, target_type, target_id, site_id, label, created_by, created_at)
VALUES (@id, @org_id, @code, @target_type, sqlc.narg(target_id), sqlc.narg(site_id), sqlc.narg(label), sqlc.narg(created_by), @now)
ON CONFLICT (code) DO NOTHING
RETURNING *;

-- name: ListTags :many
-- scope empty means every site; tags placed at no site are visible to every member.
SELECT * FROM tags
WHERE org_id = @org_id
  AND retired_at IS NULL
  AND (cardinality(@scope::uuid[]) = 0 OR site_id IS NULL OR site_id = ANY (@scope::uuid[]))
ORDER BY created_at, id;

-- name: GetTag :one
SELECT * FROM tags WHERE org_id = @org_id AND id = @id;

-- name: ResolveTag :one
SELECT t.id, t.code, t.target_type, t.target_id, t.site_id, t.label,
       s.name AS site_name, s.timezone AS site_timezone
FROM tags t
LEFT JOIN sites s ON s.org_id = t.org_id AND s.id = t.site_id
WHERE t.org_id = @org_id AND t.code = @code AND t.retired_at IS NULL;

-- name: RetireTag :exec
-- Retiring twice keeps the first time.
UPDATE tags SET retired_at = coalesce(retired_at, @now::timestamptz)
WHERE org_id = @org_id AND id = @id;

-- name: InsertSupportInquiry :one
INSERT INTO support_inquiries (id, name, email, org, topic, message, ip, received_at)
VALUES (@id, @name, @email, sqlc.narg(org), @topic, @message, sqlc.narg(ip), @now)
RETURNING id, received_at;

-- name: RevokeCapabilityTokens :execrows
UPDATE capability_tokens SET revoked_at = @now::timestamptz
WHERE org_id = @org_id AND kind = @kind AND target_id = @target_id AND revoked_at IS NULL;

-- name: InsertCapabilityToken :one
INSERT INTO capability_tokens (id, org_id, kind, target_id, token_hash, created_by, created_at, expires_at)
VALUES (@id, @org_id, @kind, @target_id, @token_hash, sqlc.narg(created_by), @now, sqlc.narg(expires_at))
RETURNING *;

-- name: GetCapabilityTokenByHash :one
SELECT * FROM capability_tokens WHERE token_hash = @token_hash;

-- name: GetLiveCapabilityToken :one
SELECT * FROM capability_tokens
WHERE org_id = @org_id AND kind = @kind AND target_id = @target_id AND revoked_at IS NULL;
