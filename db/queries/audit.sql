-- name: InsertAudit :exec
INSERT INTO audit_log (id, org_id, at, actor_kind, actor_id, action, target_id, site_id, ip, request_id)
VALUES (@id, @org_id, @at, @actor_kind, sqlc.narg(actor_id), @action, sqlc.narg(target_id), sqlc.narg(site_id), sqlc.narg(ip), sqlc.narg(request_id));

-- name: ListAudit :many
-- Newest first, keyset-paged on (at, id). A non-empty scope (a site-limited member's sites)
-- keeps the rows of those sites only: rows without a site are organization-wide.
SELECT a.*,
       coalesce(u.name, k.name, d.name, '')::text AS actor_name
FROM audit_log a
LEFT JOIN users u ON a.actor_kind = 'user' AND u.id = a.actor_id
LEFT JOIN api_keys k ON a.actor_kind = 'api_key' AND k.id = a.actor_id AND k.org_id = a.org_id
LEFT JOIN devices d ON a.actor_kind = 'device' AND d.id = a.actor_id AND d.org_id = a.org_id
WHERE a.org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR a.site_id = ANY(@scope::uuid[]))
  AND (sqlc.narg(actor_id)::uuid IS NULL OR a.actor_id = sqlc.narg(actor_id))
  AND (sqlc.narg(action)::text IS NULL OR a.action = sqlc.narg(action))
  AND (sqlc.narg(from_at)::timestamptz IS NULL OR a.at >= sqlc.narg(from_at))
  AND (sqlc.narg(to_at)::timestamptz IS NULL OR a.at < sqlc.narg(to_at))
  AND (sqlc.narg(cursor_at)::timestamptz IS NULL OR (a.at, a.id) < (sqlc.narg(cursor_at), sqlc.narg(cursor_id)::uuid))
ORDER BY a.at DESC, a.id DESC
LIMIT @max_rows;
