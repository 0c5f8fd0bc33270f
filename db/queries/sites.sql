-- name: CreateSite :one
INSERT INTO sites (id, org_id, name, timezone, day_parts, created_at, updated_at)
VALUES (@id, @org_id, @name, @timezone, @day_parts, @now, @now)
RETURNING *;

-- name: ListSites :many
-- Every site of the organization: the list is kept in memory at orgs.sites_version, and a member
-- limited to some sites is shown theirs from it (internal/orgs/sites_cache.go).
SELECT * FROM sites
WHERE org_id = @org_id
ORDER BY name, id;

-- name: GetSite :one
SELECT * FROM sites WHERE org_id = @org_id AND id = @id;

-- name: UpdateSite :one
UPDATE sites
SET name = @name, timezone = @timezone, day_parts = @day_parts, updated_at = @now
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: CountSitesIn :one
SELECT count(*)::int FROM sites WHERE org_id = @org_id AND id = ANY (@ids::uuid[]);
