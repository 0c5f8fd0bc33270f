-- +goose Up
-- Operational alerts: something at a site needs attention (a silent sensor gateway today; later
-- temperature excursions, expiring lots, missed tasks, nutrition risks). An alert opens once per
-- condition and subject, shows on the site's kitchen wallboards while open, fires alert.created
-- when it opens, and closes when the condition clears or someone resolves it.
CREATE TABLE alerts (
    id           uuid PRIMARY KEY,
    org_id       uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    site_id      uuid        NOT NULL,
    kind         text        NOT NULL,
    severity     text        NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
    message      text        NOT NULL,
    -- What the alert is about ("device", …) and its id: with kind, the key that keeps one open
    -- alert per condition. No foreign key: subjects live in many tables, and the code that opens
    -- an alert of a kind also closes it when its subject goes away.
    subject_type text        NOT NULL,
    subject_id   uuid        NOT NULL,
    -- When this occurrence of the condition began (a gateway's last contact, …): an alert about
    -- the same occurrence, open or resolved, is not opened again.
    occurrence   timestamptz NOT NULL,
    opened_at    timestamptz NOT NULL,
    resolved_at  timestamptz,
    -- NULL with resolved_at set: the condition cleared by itself.
    resolved_by  uuid REFERENCES users (id) ON DELETE SET NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX alerts_open_once_idx ON alerts (org_id, kind, subject_id) WHERE resolved_at IS NULL;
-- The wallboards' state and the open list read a site's open alerts.
CREATE INDEX alerts_open_site_idx ON alerts (org_id, site_id, opened_at DESC) WHERE resolved_at IS NULL;
CREATE INDEX alerts_org_opened_idx ON alerts (org_id, opened_at DESC, id DESC);
-- The sensor task looks for paired sensor gateways by last contact.
CREATE INDEX devices_gateway_seen_idx ON devices (last_seen_at) WHERE kind = 'sensor_gateway' AND token_hash IS NOT NULL;
-- Everything GET /device/state shows about a device, in one row: the device, its site and
-- organization and, for kitchen wallboards, the site's open alerts (most severe, then newest,
-- first). Both the token lookup and the state read select from it, so they cannot drift apart.
CREATE VIEW device_states AS
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

-- The nutrition-risk check walks the patients in house by id, across organizations.
CREATE INDEX patients_in_house_id_idx ON patients (id) WHERE encounter_id IS NOT NULL;

-- +goose Down
DROP VIEW device_states;
DROP INDEX patients_in_house_id_idx;
DROP INDEX devices_gateway_seen_idx;
DROP TABLE alerts;
