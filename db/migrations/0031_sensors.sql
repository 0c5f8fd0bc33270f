-- +goose Up
-- Sensors: probes behind a sensor gateway (a device), at the gateway's site, named in the
-- gateway's readings by external_id. A temperature sensor's range is its own min/max, else its
-- storage location's (read when readings are judged, so a location's new range applies).
CREATE TABLE sensors (
    id                  uuid PRIMARY KEY,
    org_id              uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    site_id             uuid        NOT NULL,
    gateway_device_id   uuid        NOT NULL,
    external_id         text        NOT NULL,
    name                text        NOT NULL,
    kind                text        NOT NULL CHECK (kind IN ('temperature', 'humidity', 'door')),
    storage_location_id uuid,
    equipment_id        uuid,
    min_temp_f          numeric,
    max_temp_f          numeric,
    excursion_minutes   integer     NOT NULL CHECK (excursion_minutes BETWEEN 1 AND 1440),
    active              boolean     NOT NULL,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    UNIQUE (org_id, id),
    UNIQUE (gateway_device_id, external_id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, gateway_device_id) REFERENCES devices (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, site_id, storage_location_id) REFERENCES storage_locations (org_id, site_id, id) ON DELETE SET NULL (storage_location_id),
    FOREIGN KEY (org_id, equipment_id) REFERENCES equipment (org_id, id) ON DELETE SET NULL (equipment_id),
    CHECK (min_temp_f IS NULL OR max_temp_f IS NULL OR min_temp_f <= max_temp_f)
);
CREATE INDEX sensors_org_name_idx ON sensors (org_id, name, id);
CREATE INDEX sensors_site_idx ON sensors (org_id, site_id);

-- Where each sensor's evaluation stands, one row per sensor, locked (FOR UPDATE) by every call
-- that stores its readings: readings are judged one sensor at a time, in time order, by one
-- transaction at a time, whichever replica it runs on.
--   phase: in_range (nothing pending), pending (out of range since out_since, not yet for
--   excursion_minutes), excursion (excursion_id open), recovering (excursion_id open, back in
--   range since in_since). peak is the worst value since out_since.
CREATE TABLE sensor_states (
    sensor_id    uuid PRIMARY KEY,
    org_id       uuid        NOT NULL,
    phase        text        NOT NULL CHECK (phase IN ('in_range', 'pending', 'excursion', 'recovering')),
    last_at      timestamptz,
    last_value   numeric,
    out_since    timestamptz,
    in_since     timestamptz,
    peak         numeric,
    excursion_id uuid,
    FOREIGN KEY (org_id, sensor_id) REFERENCES sensors (org_id, id) ON DELETE CASCADE
);

-- Excursions: a sensor out of range (a door open) for its excursion_minutes. Keyed by when it
-- left range, so the same excursion is never recorded (nor alerted) twice.
CREATE TABLE sensor_excursions (
    id           uuid PRIMARY KEY,
    org_id       uuid        NOT NULL,
    sensor_id    uuid        NOT NULL,
    kind         text        NOT NULL CHECK (kind IN ('temperature_excursion', 'door_open')),
    started_at   timestamptz NOT NULL,
    confirmed_at timestamptz NOT NULL,
    -- The first reading back in range, and the one that proved it stayed there.
    ended_at     timestamptz,
    resolved_at  timestamptz,
    peak         numeric     NOT NULL,
    min_temp_f   numeric,
    max_temp_f   numeric,
    alert_id     uuid,
    created_at   timestamptz NOT NULL,
    UNIQUE (sensor_id, kind, started_at),
    FOREIGN KEY (org_id, sensor_id) REFERENCES sensors (org_id, id) ON DELETE CASCADE,
    CHECK ((ended_at IS NULL) = (resolved_at IS NULL))
);
CREATE INDEX sensor_excursions_org_idx ON sensor_excursions (org_id, started_at);

-- A sensor as the API shows it and as its readings are judged: with its storage location's range
-- (a temperature sensor's own limit, else its location's, applies), latest reading and
-- excursion in progress.
CREATE VIEW sensor_views AS
SELECT s.id, s.org_id, s.site_id, s.gateway_device_id, s.external_id, s.name, s.kind,
       s.storage_location_id, s.equipment_id, s.min_temp_f, s.max_temp_f,
       l.min_temp_f AS location_min_temp_f, l.max_temp_f AS location_max_temp_f,
       s.excursion_minutes, s.active, s.created_at, s.updated_at,
       st.last_at, st.last_value,
       e.kind AS excursion_kind, e.started_at AS excursion_started_at, st.peak AS excursion_peak, e.alert_id AS excursion_alert_id,
       l.name AS location_name, q.name AS equipment_name, si.timezone
FROM sensors s
JOIN sites si ON si.org_id = s.org_id AND si.id = s.site_id
LEFT JOIN storage_locations l ON l.org_id = s.org_id AND l.id = s.storage_location_id
LEFT JOIN equipment q ON q.org_id = s.org_id AND q.id = s.equipment_id
LEFT JOIN sensor_states st ON st.sensor_id = s.id
LEFT JOIN sensor_excursions e ON e.id = st.excursion_id;

-- Readings, partitioned by month on at: a month is dropped whole when it passes retention, and
-- a sensor's log reads one or two partitions' (sensor_id, at) index. Kept once per (sensor, at):
-- a gateway that resends changes nothing. value is °F for temperatures, percent for humidity,
-- 1 (open) or 0 (closed) for doors.
CREATE TABLE sensor_readings (
    org_id      uuid        NOT NULL,
    sensor_id   uuid        NOT NULL,
    at          timestamptz NOT NULL,
    value       numeric     NOT NULL,
    received_at timestamptz NOT NULL,
    PRIMARY KEY (sensor_id, at),
    FOREIGN KEY (org_id, sensor_id) REFERENCES sensors (org_id, id) ON DELETE CASCADE
) PARTITION BY RANGE (at);

-- sensor_readings_ensure makes the partition of the month holding at (named
-- sensor_readings_pYYYYMM) unless it exists, and reports whether it made it. Callers on any
-- replica may race: an advisory lock makes them take turns.
-- +goose StatementBegin
CREATE FUNCTION sensor_readings_ensure(at timestamptz) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    month_start timestamptz := date_trunc('month', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    part_name text := 'sensor_readings_p' || to_char(at AT TIME ZONE 'UTC', 'YYYYMM');
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('sensor_readings_partitions'));
    IF to_regclass(part_name) IS NOT NULL THEN
        RETURN false;
    END IF;
    EXECUTE format('CREATE TABLE %I PARTITION OF sensor_readings FOR VALUES FROM (%L) TO (%L)',
                   part_name, month_start, month_start + interval '1 month');
    RETURN true;
END
$$;
-- +goose StatementEnd

-- sensor_readings_drop_before drops the monthly partitions that end at or before cutoff and
-- returns their names.
-- +goose StatementBegin
CREATE FUNCTION sensor_readings_drop_before(cutoff timestamptz) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
    part text;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('sensor_readings_partitions'));
    FOR part IN
        SELECT c.relname::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'sensor_readings'::regclass AND c.relname ~ '^sensor_readings_p[0-9]{6}$'
          AND to_date(substr(c.relname, 18), 'YYYYMM') + interval '1 month' <= cutoff AT TIME ZONE 'UTC'
        ORDER BY 1
    LOOP
        EXECUTE format('DROP TABLE %I', part);
        RETURN NEXT part;
    END LOOP;
END
$$;
-- +goose StatementEnd

-- sensor_readings_partitions lists the monthly partitions' names.
-- +goose StatementBegin
CREATE FUNCTION sensor_readings_partitions() RETURNS SETOF text
LANGUAGE sql STABLE AS $$
    SELECT c.relname::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'sensor_readings'::regclass
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION sensor_readings_partitions();
DROP FUNCTION sensor_readings_drop_before(timestamptz);
DROP FUNCTION sensor_readings_ensure(timestamptz);
DROP VIEW sensor_views;
DROP TABLE sensor_readings;
DROP TABLE sensor_excursions;
DROP TABLE sensor_states;
DROP TABLE sensors;
