-- +goose Up
-- The wallboards' alerts carry their subject, so a screen shows the open alerts of one subject
-- (a sensor offline, out of range and faulty) as one line. The view keeps its columns; only the
-- alerts' JSON gains a field.
CREATE OR REPLACE VIEW device_states AS
SELECT d.id, d.org_id, d.token_hash, d.last_seen_at, d.name, d.kind, d.config, d.cast_content,
       s.id AS site_id, s.name AS site_name, s.timezone, s.day_parts,
       o.name AS org_name, o.brand_primary, o.brand_accent,
       (CASE WHEN d.kind IN ('wallboard_boh', 'wallboard_foh') THEN (
           SELECT coalesce(json_agg(json_build_object('kind', a.kind, 'severity', a.severity, 'message', a.message,
                                                      'subject', json_build_object('type', a.subject_type, 'id', a.subject_id))
                                    ORDER BY a.rank, a.opened_at DESC), '[]'::json)
           FROM (SELECT kind, severity, message, subject_type, subject_id, opened_at,
                        CASE severity WHEN 'critical' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END AS rank
                 FROM alerts
                 WHERE org_id = d.org_id AND site_id = d.site_id AND resolved_at IS NULL
                 ORDER BY rank, opened_at DESC
                 LIMIT 20) a
       ) END)::json AS alerts
FROM devices d
JOIN sites s ON s.org_id = d.org_id AND s.id = d.site_id
JOIN orgs o ON o.id = d.org_id;

-- +goose Down
CREATE OR REPLACE VIEW device_states AS
SELECT d.id, d.org_id, d.token_hash, d.last_seen_at, d.name, d.kind, d.config, d.cast_content,
       s.id AS site_id, s.name AS site_name, s.timezone, s.day_parts,
       o.name AS org_name, o.brand_primary, o.brand_accent,
       (CASE WHEN d.kind IN ('wallboard_boh', 'wallboard_foh') THEN (
           SELECT coalesce(json_agg(json_build_object('kind', a.kind, 'severity', a.severity, 'message', a.message)
                                    ORDER BY a.rank, a.opened_at DESC), '[]'::json)
           FROM (SELECT kind, severity, message, opened_at,
                        CASE severity WHEN 'critical' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END AS rank
                 FROM alerts
                 WHERE org_id = d.org_id AND site_id = d.site_id AND resolved_at IS NULL
                 ORDER BY rank, opened_at DESC
                 LIMIT 20) a
       ) END)::json AS alerts
FROM devices d
JOIN sites s ON s.org_id = d.org_id AND s.id = d.site_id
JOIN orgs o ON o.id = d.org_id;
