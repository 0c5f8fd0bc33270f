-- name: CreateSite :one
INSERT INTO sites (id, org_id, name, timezone, day_parts, created_at, updated_at)
VALUES (@id, @org_id, @name, @timezone, @day_parts, @now, @now)
RETURNING *;

-- name: ListSites :many
-- scope empty means every site.
SELECT * FROM sites
WHERE org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR id = ANY (@scope::uuid[]))
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
