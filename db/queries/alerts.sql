-- name: OpenAlert :one
-- Opens the alert unless one is already open for the same kind and subject: then no row.
INSERT INTO alerts (id, org_id, site_id, kind, severity, message, subject_type, subject_id, occurrence, opened_at, cause)
VALUES (@id, @org_id, @site_id, @kind, @severity, @message, @subject_type, @subject_id, @occurrence, @now, @cause)
ON CONFLICT (org_id, kind, subject_id) WHERE resolved_at IS NULL DO NOTHING
RETURNING *;

-- name: CloseAlertsOf :many
-- Closes the open alerts of a kind about these subjects (their condition cleared).
UPDATE alerts SET resolved_at = @now::timestamptz
WHERE org_id = @org_id AND kind = @kind AND subject_id = ANY (@subject_ids::uuid[]) AND resolved_at IS NULL
RETURNING id, site_id;

-- name: ResolveAlert :one
UPDATE alerts SET resolved_at = @now::timestamptz, resolved_by = @resolved_by::uuid
WHERE org_id = @org_id AND id = @id AND resolved_at IS NULL
RETURNING *;

-- name: GetAlertForUpdate :one
SELECT * FROM alerts WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: ListAlerts :many
-- Newest first, keyset-paged on (opened_at, id). scope empty means every site.
SELECT * FROM alerts
WHERE org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR site_id = sqlc.narg(site_id))
  AND (sqlc.narg(kind)::text IS NULL OR kind = sqlc.narg(kind))
  AND (resolved_at IS NULL) = @open::boolean
  AND (sqlc.narg(cursor_at)::timestamptz IS NULL OR (opened_at, id) < (sqlc.narg(cursor_at)::timestamptz, sqlc.narg(cursor_id)::uuid))
ORDER BY opened_at DESC, id DESC
LIMIT @max_rows;

-- name: SilentSensorGateways :many
-- Paired sensor gateways last heard from before @silent_since (or never, paired before it) with
-- no alert about this silence yet: none open, and none about the same last contact (one a member
-- resolved while the silence goes on is not opened again).
SELECT d.id, d.org_id, d.site_id, d.name, d.last_seen_at, coalesce(d.last_seen_at, d.paired_at)::timestamptz AS silent_since, s.timezone
FROM devices d
JOIN sites s ON s.org_id = d.org_id AND s.id = d.site_id
WHERE d.kind = 'sensor_gateway' AND d.token_hash IS NOT NULL
  AND coalesce(d.last_seen_at, d.paired_at) < @silent_since::timestamptz
  AND NOT EXISTS (
      SELECT 1 FROM alerts a
      WHERE a.org_id = d.org_id AND a.kind = 'sensor_offline' AND a.subject_id = d.id
        AND (a.resolved_at IS NULL OR a.occurrence = coalesce(d.last_seen_at, d.paired_at)))
ORDER BY d.org_id
LIMIT @max_rows;

-- name: RecoveredSensorAlerts :many
-- Open sensor_offline alerts whose gateway spoke again since @silent_since, was unpaired or
-- moved to another site, or no longer exists. (Alerts about a silent sensor, subject_type
-- sensor, are the sensors' own: see RecoveredSilentSensors.)
SELECT a.id, a.org_id, a.site_id, a.subject_id
FROM alerts a
LEFT JOIN devices d ON d.org_id = a.org_id AND d.id = a.subject_id
WHERE a.kind = 'sensor_offline' AND a.subject_type = 'device' AND a.resolved_at IS NULL
  AND (d.id IS NULL OR d.token_hash IS NULL OR d.kind <> 'sensor_gateway' OR d.site_id <> a.site_id
       OR coalesce(d.last_seen_at, d.paired_at) >= @silent_since::timestamptz)
LIMIT @max_rows;

-- name: SiteDeviceIDs :many
-- The paired devices of a site: the screens an alert change must hint.
SELECT id FROM devices WHERE org_id = @org_id AND site_id = @site_id AND token_hash IS NOT NULL;

-- name: CountAlertsOpened :one
-- Alerts of a kind opened at a site in [from, to) (reports of internal/records).
SELECT count(*) FROM alerts
WHERE org_id = @org_id AND site_id = @site_id AND kind = @kind AND opened_at >= @from_at AND opened_at < @to_at;

-- name: CloseAlertWithMessage :one
-- Closes one open alert whose condition cleared, with its message saying how it ended.
UPDATE alerts SET resolved_at = @now::timestamptz, message = @message
WHERE org_id = @org_id AND id = @id AND resolved_at IS NULL
RETURNING id, site_id;

-- name: CloseAlertOccurrence :many
-- Closes the open alert of a kind and cause about a subject that opened for this occurrence
-- (its condition cleared), leaving the kind's other causes alone.
UPDATE alerts SET resolved_at = @now::timestamptz
WHERE org_id = @org_id AND kind = @kind AND cause = @cause AND subject_id = @subject_id AND occurrence = @occurrence AND resolved_at IS NULL
RETURNING id, site_id;
