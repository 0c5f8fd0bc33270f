-- name: InsertAudit :exec
INSERT INTO audit_log (id, org_id, at, actor_kind, actor_id, action, target_id, site_id, ip, request_id)
VALUES (@id, @org_id, @at, @actor_kind, sqlc.narg(actor_id), @action, sqlc.narg(target_id), sqlc.narg(site_id), sqlc.narg(ip), sqlc.narg(request_id));

-- name: InsertAudits :exec
-- Several audit rows in one statement (writes posted together, each with its own row).
INSERT INTO audit_log (id, org_id, at, actor_kind, actor_id, action, target_id, site_id, ip, request_id)
SELECT r.id, @org_id, r.at, r.actor_kind, nullif(r.actor_id, '00000000-0000-0000-0000-000000000000'::uuid), r.action,
       nullif(r.target_id, '00000000-0000-0000-0000-000000000000'::uuid), nullif(r.site_id, '00000000-0000-0000-0000-000000000000'::uuid),
       nullif(r.ip, ''), nullif(r.request_id, '')
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@ats::timestamptz[]) AS at, unnest(@actor_kinds::text[]) AS actor_kind,
             unnest(@actor_ids::uuid[]) AS actor_id, unnest(@actions::text[]) AS action, unnest(@target_ids::uuid[]) AS target_id,
             unnest(@site_ids::uuid[]) AS site_id, unnest(@ips::text[]) AS ip, unnest(@request_ids::text[]) AS request_id) AS r;

-- name: DeleteAuditsOfTransaction :exec
-- Takes back audit rows written earlier in the same transaction for writes that then failed
-- (a shared stock posting writes its requests' rows before it takes its locks). Rows of other
-- transactions are never touched: only the ids this transaction made are named.
DELETE FROM audit_log WHERE org_id = @org_id AND id = ANY (@ids::uuid[]);

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
