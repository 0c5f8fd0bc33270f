-- name: CreateSensor :exec
INSERT INTO sensors (id, org_id, site_id, gateway_device_id, external_id, name, kind, storage_location_id, equipment_id,
                     min_temp_f, max_temp_f, excursion_minutes, active, created_at, updated_at)
VALUES (@id, @org_id, @site_id, @gateway_device_id, @external_id, @name, @kind, sqlc.narg(storage_location_id), sqlc.narg(equipment_id),
        sqlc.narg(min_temp_f), sqlc.narg(max_temp_f), @excursion_minutes, @active, @now, @now);

-- name: CreateSensorState :exec
INSERT INTO sensor_states (sensor_id, org_id, phase) VALUES (@sensor_id, @org_id, 'in_range');

-- name: UpdateSensor :execrows
UPDATE sensors
SET site_id = @site_id, gateway_device_id = @gateway_device_id, external_id = @external_id, name = @name, kind = @kind,
    storage_location_id = sqlc.narg(storage_location_id), equipment_id = sqlc.narg(equipment_id),
    min_temp_f = sqlc.narg(min_temp_f), max_temp_f = sqlc.narg(max_temp_f),
    excursion_minutes = @excursion_minutes, active = @active, updated_at = @now
WHERE org_id = @org_id AND id = @id;

-- name: GetSensorForUpdate :one
SELECT * FROM sensors WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: GetSensorView :one
SELECT * FROM sensor_views WHERE org_id = @org_id AND id = @id;

-- name: ListSensorViews :many
-- By name, keyset-paged on (name, id). scope empty means every site.
SELECT * FROM sensor_views
WHERE org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR site_id = sqlc.narg(site_id))
  AND (sqlc.narg(gateway_device_id)::uuid IS NULL OR gateway_device_id = sqlc.narg(gateway_device_id))
  AND (sqlc.narg(cursor_name)::text IS NULL OR (name, id) > (sqlc.narg(cursor_name)::text, sqlc.narg(cursor_id)::uuid))
ORDER BY name, id
LIMIT @max_rows;

-- name: GatewaySensors :many
-- The sensors of a gateway that readings name, with what judging them needs. Only those at the
-- gateway's site: a database from before migration 0074 may hold sensors a gateway left behind
-- when it moved, whose site's readings it must not write.
SELECT * FROM sensor_views v
WHERE v.org_id = @org_id AND v.gateway_device_id = @gateway_device_id AND v.external_id = ANY (@external_ids::text[])
  AND EXISTS (SELECT 1 FROM devices d WHERE d.org_id = v.org_id AND d.id = v.gateway_device_id AND d.site_id = v.site_id);

-- name: LockSensorStates :many
-- In id order, so calls storing readings of the same sensors never wait on each other in a cycle.
SELECT * FROM sensor_states WHERE org_id = @org_id AND sensor_id = ANY (@sensor_ids::uuid[]) ORDER BY sensor_id FOR UPDATE;

-- name: SensorHasHistory :one
-- Whether a sensor has anything recorded at its site: a reading (or had one since dropped by
-- retention: its state keeps the last) or an excursion.
SELECT (EXISTS (SELECT 1 FROM sensor_states st WHERE st.org_id = @org_id AND st.sensor_id = @sensor_id AND st.last_at IS NOT NULL)
    OR EXISTS (SELECT 1 FROM sensor_readings r WHERE r.org_id = @org_id AND r.sensor_id = @sensor_id)
    OR EXISTS (SELECT 1 FROM sensor_excursions e WHERE e.org_id = @org_id AND e.sensor_id = @sensor_id))::bool AS has;

-- name: GatewayKeepsSensors :one
-- How many of @sensor_ids are still the gateway's, once their states are locked: a sensor's
-- move takes its state's lock too, so a move that committed after the gateway's sensors were
-- read shows here.
SELECT count(*) FROM sensors
WHERE org_id = @org_id AND gateway_device_id = @gateway_device_id AND id = ANY (@sensor_ids::uuid[]);

-- name: InsertReadings :many
-- Stores the readings not stored yet; returns those it stored.
INSERT INTO sensor_readings (org_id, sensor_id, at, value, received_at)
SELECT @org_id, unnest(@sensor_ids::uuid[]), unnest(@ats::timestamptz[]), unnest(@vals::text[])::numeric, @now
ON CONFLICT (sensor_id, at) DO NOTHING
RETURNING sensor_id, at, value;

-- name: ReadingsAfter :many
-- A sensor's readings after @after (evaluation reads them in time order, a bounded slice at a time).
SELECT at, value FROM sensor_readings
WHERE sensor_id = @sensor_id AND at > @after::timestamptz
ORDER BY at
LIMIT @max_rows;

-- name: SaveSensorStates :exec
-- Saves where the judging of several sensors stands, one statement for a whole call: @states is
-- a JSON array of {sensor_id, phase, last_at, last_value, out_since, in_since, peak, excursion_id,
-- fault_run, fault_since, fault_at}.
UPDATE sensor_states st
SET phase = u.phase, last_at = u.last_at, last_value = u.last_value, out_since = u.out_since, in_since = u.in_since,
    peak = u.peak, excursion_id = u.excursion_id, fault_run = u.fault_run, fault_since = u.fault_since, fault_at = u.fault_at
FROM jsonb_to_recordset(@states::jsonb) AS u(sensor_id uuid, phase text, last_at timestamptz, last_value numeric,
                                             out_since timestamptz, in_since timestamptz, peak numeric, excursion_id uuid,
                                             fault_run integer, fault_since timestamptz, fault_at timestamptz)
WHERE st.sensor_id = u.sensor_id;

-- name: InsertExcursion :one
-- Records an excursion unless the same one (sensor, kind, when it left range) already is: then no row.
INSERT INTO sensor_excursions (id, org_id, sensor_id, kind, started_at, confirmed_at, peak, min_temp_f, max_temp_f, created_at)
VALUES (@id, @org_id, @sensor_id, @kind, @started_at, @confirmed_at, @peak, sqlc.narg(min_temp_f), sqlc.narg(max_temp_f), @now)
ON CONFLICT (sensor_id, kind, started_at) DO NOTHING
RETURNING id;

-- name: SetExcursionAlert :exec
UPDATE sensor_excursions SET alert_id = @alert_id WHERE id = @id;

-- name: EndExcursion :one
UPDATE sensor_excursions SET ended_at = @ended_at, resolved_at = @resolved_at, peak = @peak
WHERE id = @id AND resolved_at IS NULL
RETURNING *;

-- name: SensorRawReadings :many
SELECT at, value FROM sensor_readings
WHERE sensor_id = @sensor_id AND at >= @from_at AND at < @to_at
ORDER BY at
LIMIT @max_rows;

-- name: SensorReadingBuckets :many
-- min, mean (2 places) and max per bucket of @width, aligned on the Unix epoch (UTC).
SELECT date_bin(make_interval(secs => @width_seconds::int), at, '1970-01-01T00:00:00Z'::timestamptz)::timestamptz AS bucket,
       min(value)::numeric AS min_value, round(avg(value), 2)::numeric AS mean_value, max(value)::numeric AS max_value,
       count(*)::int AS readings
FROM sensor_readings
WHERE sensor_id = @sensor_id AND at >= @from_at AND at < @to_at
GROUP BY 1
ORDER BY 1;

-- name: EnsureReadingsPartition :one
SELECT sensor_readings_ensure(@at::timestamptz);

-- name: DropReadingsPartitionsBefore :many
SELECT sensor_readings_drop_before(@cutoff::timestamptz)::text AS dropped;

-- name: ReadingsPartitions :many
-- The monthly partitions, oldest first (tests and operators).
SELECT p::text AS name FROM sensor_readings_partitions() AS p ORDER BY 1;

-- name: ReadingsBefore :many
-- A sensor's latest readings before @before, newest first (a late reading's judging looks back
-- for where to start again).
SELECT at, value FROM sensor_readings
WHERE sensor_id = @sensor_id AND at < @before::timestamptz
ORDER BY at DESC
LIMIT @max_rows;

-- name: ExcursionsAfter :one
-- Whether an excursion of the sensor is open, or ended after @after: judging again from
-- @after would meet it.
SELECT EXISTS (
    SELECT 1 FROM sensor_excursions
    WHERE sensor_id = @sensor_id AND (resolved_at IS NULL OR resolved_at > @after::timestamptz));

-- name: CountReadingsAfter :one
-- How many readings of the sensor are after @after, counting no further than @max_rows.
SELECT count(*)::int FROM (
    SELECT 1 FROM sensor_readings WHERE sensor_id = @sensor_id AND at > @after::timestamptz LIMIT @max_rows) r;

-- name: TemperatureLogSensors :many
-- A site's temperature sensors as the temperature log lists them: by location (else equipment)
-- name, then sensor name; those watching neither come last.
SELECT * FROM sensor_views
WHERE org_id = @org_id AND site_id = @site_id AND kind = 'temperature'
ORDER BY coalesce(location_name, equipment_name) NULLS LAST, name, id
LIMIT @max_rows;

-- name: TemperatureLogBuckets :many
-- min, mean (2 places) and max per bucket of @width for each of the sensors, buckets counted
-- from @origin; by sensor, then time.
SELECT sensor_id,
       date_bin(make_interval(secs => @width_seconds::int), at, @origin::timestamptz)::timestamptz AS bucket,
       min(value)::numeric AS min_value, round(avg(value), 2)::numeric AS mean_value, max(value)::numeric AS max_value,
       count(*)::int AS readings
FROM sensor_readings
WHERE sensor_id = ANY (@sensor_ids::uuid[]) AND at >= @from_at AND at < @to_at
GROUP BY 1, 2
ORDER BY 1, 2;

-- name: TemperatureLogExcursions :many
-- The temperature excursions of the sensors overlapping [from, to), oldest first; an open one's
-- peak is the sensor's running worst.
SELECT e.id, e.sensor_id, e.kind, e.started_at, e.ended_at, e.min_temp_f, e.max_temp_f, e.alert_id,
       coalesce(CASE WHEN st.excursion_id = e.id THEN st.peak END, e.peak)::numeric AS peak
FROM sensor_excursions e
LEFT JOIN sensor_states st ON st.sensor_id = e.sensor_id
WHERE e.org_id = @org_id AND e.sensor_id = ANY (@sensor_ids::uuid[]) AND e.kind = 'temperature_excursion'
  AND e.started_at < @to_at::timestamptz AND (e.ended_at IS NULL OR e.ended_at >= @from_at::timestamptz)
ORDER BY e.sensor_id, e.started_at
LIMIT @max_rows;

-- name: SiteTemperatures :many
-- A site's active temperature sensors with their latest reading (kitchen wallboards).
SELECT * FROM sensor_views
WHERE org_id = @org_id AND site_id = @site_id AND kind = 'temperature' AND active
ORDER BY coalesce(location_name, equipment_name) NULLS LAST, name, id
LIMIT @max_rows;

-- name: SilentSensors :many
-- Active sensors of paired gateways with no reading for 3 of their gateway's report intervals
-- (none since they were registered, for a sensor never heard), whose gateway has been heard
-- from an interval or more after the sensor's last reading (a gateway silent itself is its own
-- alert, not one per probe), and with no alert about this silence yet: none open, and none
-- about the same last reading (one a member resolved while the silence goes on is not opened
-- again).
SELECT s.id, s.org_id, s.site_id, s.name, l.name AS location_name, q.name AS equipment_name, si.timezone, st.last_at,
       coalesce(st.last_at, s.created_at)::timestamptz AS silent_since, coalesce(jsonb_extract_path_text(d.config, 'reportIntervalSeconds')::int, 60)::int AS interval_seconds
FROM sensors s
JOIN sensor_states st ON st.sensor_id = s.id
JOIN devices d ON d.org_id = s.org_id AND d.id = s.gateway_device_id
JOIN sites si ON si.org_id = s.org_id AND si.id = s.site_id
LEFT JOIN storage_locations l ON l.org_id = s.org_id AND l.id = s.storage_location_id
LEFT JOIN equipment q ON q.org_id = s.org_id AND q.id = s.equipment_id
WHERE s.active AND d.kind = 'sensor_gateway' AND d.token_hash IS NOT NULL
  AND coalesce(st.last_at, s.created_at) < sqlc.arg(now)::timestamptz - 3 * coalesce(jsonb_extract_path_text(d.config, 'reportIntervalSeconds')::int, 60) * interval '1 second'
  AND d.last_seen_at >= coalesce(st.last_at, s.created_at) + coalesce(jsonb_extract_path_text(d.config, 'reportIntervalSeconds')::int, 60) * interval '1 second'
  AND NOT EXISTS (
      SELECT 1 FROM alerts a
      WHERE a.org_id = s.org_id AND a.kind = 'sensor_offline' AND a.subject_id = s.id
        AND (a.resolved_at IS NULL OR a.occurrence = coalesce(st.last_at, s.created_at)))
ORDER BY s.org_id
LIMIT sqlc.arg(max_rows);

-- name: RecoveredSilentSensors :many
-- Open sensor_offline alerts about sensors that sent a reading since, were deactivated, moved
-- to another site, lost their paired gateway or no longer exist.
SELECT a.org_id, a.subject_id
FROM alerts a
LEFT JOIN sensors s ON s.org_id = a.org_id AND s.id = a.subject_id
LEFT JOIN sensor_states st ON st.sensor_id = s.id
LEFT JOIN devices d ON d.org_id = s.org_id AND d.id = s.gateway_device_id
WHERE a.kind = 'sensor_offline' AND a.subject_type = 'sensor' AND a.resolved_at IS NULL
  AND (s.id IS NULL OR NOT s.active OR s.site_id <> a.site_id OR d.token_hash IS NULL
       OR st.last_at > a.occurrence)
LIMIT @max_rows;

-- name: ScanTemperatureSensors :many
-- The active temperature sensors in a storage location or a piece of equipment, the latest
-- reading first (sensors that never reported last).
SELECT * FROM sensor_views
WHERE org_id = @org_id AND kind = 'temperature' AND active
  AND (storage_location_id = sqlc.narg(storage_location_id)::uuid OR equipment_id = sqlc.narg(equipment_id)::uuid)
ORDER BY last_at DESC NULLS LAST, name, id
LIMIT 5;
