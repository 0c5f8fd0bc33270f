-- name: CreateDevice :one
INSERT INTO devices (id, org_id, site_id, name, kind, config, created_at, updated_at)
VALUES (@id, @org_id, @site_id, @name, @kind, @config, @now, @now)
RETURNING *;

-- name: GetDevice :one
SELECT * FROM devices WHERE org_id = @org_id AND id = @id;

-- name: GetDeviceForUpdate :one
SELECT * FROM devices WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: ListDevices :many
-- By name, keyset-paged on (name, id). scope empty means every site.
SELECT * FROM devices
WHERE org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR site_id = sqlc.narg(site_id))
  AND (sqlc.narg(cursor_name)::text IS NULL OR (name, id) > (sqlc.narg(cursor_name)::text, sqlc.narg(cursor_id)::uuid))
ORDER BY name, id
LIMIT @max_rows;

-- name: UpdateDevice :one
UPDATE devices
SET name = @name, kind = @kind, site_id = @site_id, config = @config, updated_at = @now
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: DeleteDevice :execrows
DELETE FROM devices WHERE org_id = @org_id AND id = @id;

-- name: UnpairDevice :one
UPDATE devices
SET token_hash = NULL, paired_at = NULL,
    updated_at = CASE WHEN token_hash IS NULL THEN updated_at ELSE @now END
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: PairDevice :one
UPDATE devices
SET token_hash = @token_hash, paired_at = @now::timestamptz, updated_at = @now::timestamptz
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: SetDeviceCast :one
UPDATE devices
SET cast_content = sqlc.narg(cast_content), updated_at = @now
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: ClearCastsOfMedia :many
UPDATE devices
SET cast_content = NULL, updated_at = @now
WHERE org_id = @org_id AND cast_content ->> 'mediaKey' = @media_key::text
RETURNING id;

-- name: CountPairedDevices :one
SELECT count(*)::int FROM devices WHERE org_id = @org_id AND token_hash IS NOT NULL;

-- name: LockOrgForPairing :one
-- Serializes pairings of one organization, so two claims cannot both take the last free slot
-- of the device cap. NO KEY UPDATE does not block rows that merely reference the organization.
SELECT plan_tier, trial_ends_at FROM orgs WHERE id = @id FOR NO KEY UPDATE;

-- name: AuthenticateDevice :one
-- The device of a token, with everything GET /device/state shows: for a polling screen, one
-- round trip both authenticates and loads the state.
SELECT * FROM device_states WHERE token_hash = @token_hash;

-- name: TouchDevice :exec
UPDATE devices SET last_seen_at = @now::timestamptz
WHERE id = @id AND (last_seen_at IS NULL OR last_seen_at <= @stale_before::timestamptz);

-- name: GetDeviceState :one
-- Everything GET /device/state shows, in one round trip.
SELECT * FROM device_states WHERE org_id = @org_id AND id = @id;

-- name: PruneExpiredPairingCodes :exec
DELETE FROM device_pairing_codes WHERE expires_at <= @now;

-- name: UpsertPairingCode :exec
INSERT INTO device_pairing_codes (device_id, org_id, code_hash, created_by, created_at, expires_at)
VALUES (@device_id, @org_id, @code_hash, sqlc.narg(created_by), @now, @expires_at)
ON CONFLICT (device_id) DO UPDATE
SET code_hash = excluded.code_hash, created_by = excluded.created_by,
    created_at = excluded.created_at, expires_at = excluded.expires_at;

-- name: FindPairingCode :one
SELECT device_id, org_id FROM device_pairing_codes WHERE code_hash = @code_hash AND expires_at > @now;

-- name: TakePairingCode :execrows
-- Claims a live code: the row is deleted, so a code works once. 0 rows: another claim took it,
-- or the device's code was replaced or discarded, since it was found.
DELETE FROM device_pairing_codes
WHERE code_hash = @code_hash AND device_id = @device_id AND expires_at > @now;

-- name: DeletePairingCode :exec
DELETE FROM device_pairing_codes WHERE org_id = @org_id AND device_id = @device_id;

-- name: CreateMedia :one
INSERT INTO media (id, org_id, site_id, content_type, size, sha256, filename, data, created_by, created_at)
VALUES (@id, @org_id, sqlc.narg(site_id), @content_type, @size, @sha256, sqlc.narg(filename), @data, sqlc.narg(created_by), @now)
RETURNING id, org_id, site_id, content_type, size, sha256, filename, created_by, created_at;

-- name: ListMedia :many
-- Newest first, keyset-paged on (created_at, id); never the bytes. A non-empty scope (a
-- site-limited member's sites) keeps those sites' images: organization-wide ones (no site) are
-- for members with every site.
SELECT id, org_id, site_id, content_type, size, sha256, filename, created_by, created_at
FROM media
WHERE org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(cursor_at)::timestamptz IS NULL OR (created_at, id) < (sqlc.narg(cursor_at), sqlc.narg(cursor_id)::uuid))
ORDER BY created_at DESC, id DESC
LIMIT @max_rows;

-- name: GetMediaInfo :one
SELECT id, org_id, site_id, content_type, size, sha256, filename, created_by, created_at
FROM media WHERE org_id = @org_id AND id = @id;

-- name: GetDeviceMediaInfo :one
-- An image a device may show: its own site's or an organization-wide one.
SELECT m.content_type, m.sha256
FROM media m JOIN devices d ON d.org_id = m.org_id AND d.id = @device_id
WHERE m.org_id = @org_id AND m.id = @id AND (m.site_id IS NULL OR m.site_id = d.site_id);

-- name: GetMediaContent :one
-- An image a device may show: its own site's or an organization-wide one.
SELECT m.content_type, m.sha256, m.data
FROM media m JOIN devices d ON d.org_id = m.org_id AND d.id = @device_id
WHERE m.org_id = @org_id AND m.id = @id AND (m.site_id IS NULL OR m.site_id = d.site_id);

-- name: DeleteMedia :one
-- A non-empty scope deletes only an image of those sites.
DELETE FROM media
WHERE org_id = @org_id AND id = @id
  AND (cardinality(@scope::uuid[]) = 0 OR site_id = ANY (@scope::uuid[]))
RETURNING site_id;
