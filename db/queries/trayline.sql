-- name: GetDietRules :one
SELECT * FROM diet_rules WHERE org_id = @org_id AND diet = @diet;

-- name: ListDietRules :many
SELECT * FROM diet_rules WHERE org_id = @org_id;

-- name: UpsertDietRules :one
INSERT INTO diet_rules (org_id, diet, rules, updated_by, updated_at)
VALUES (@org_id, @diet, @rules, @updated_by, @updated_at)
ON CONFLICT (org_id, diet) DO UPDATE SET rules = EXCLUDED.rules, updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at
RETURNING *;

-- name: TrayCensus :many
-- The patients in house at a site, with what the tray line checks.
SELECT id, unit, room, bed, allergies, diet_orders
FROM patients
WHERE org_id = @org_id AND site_id = @site_id AND encounter_id IS NOT NULL;

-- name: TrayPatients :many
-- Names and MRNs of patients, for members with viewClinical, and their diet orders, whose limits
-- and exclusions every ticket shows.
SELECT id, mrn, family_name, given_name, diet_orders FROM patients WHERE org_id = @org_id AND id = ANY (@ids::uuid[]);

-- name: TrayPatientFacts :many
-- What the re-check reads of patients.
SELECT id, site_id, unit, room, bed, encounter_id, allergies, diet_orders FROM patients WHERE org_id = @org_id AND id = ANY (@ids::uuid[]);

-- name: MealTickets :many
SELECT * FROM tray_tickets
WHERE org_id = @org_id AND site_id = @site_id AND date = @date AND day_part = @day_part
FOR UPDATE;

-- name: UpsertTrayTickets :execrows
-- Writes the tickets of a generation: new ones, and queued or cancelled ones rebuilt; a ticket
-- past queued is left as it is.
INSERT INTO tray_tickets AS t (id, org_id, site_id, date, day_part, patient_id, unit, room, bed, diets, allergens, texture,
                               items, selected, conflict, notes, status, history, starts_at, created_at, updated_at)
SELECT r.id, @org_id, @site_id, @date, @day_part, r.patient_id, r.unit, r.room, r.bed, r.diets, r.allergens, r.texture,
       r.items, false, r.conflict, '', 'queued', r.history, @starts_at, @now, @now
FROM jsonb_to_recordset(@rows::jsonb) AS r (id uuid, patient_id uuid, unit text, room text, bed text, diets text[], allergens text[],
                                             texture integer, items jsonb, conflict boolean, history jsonb)
ON CONFLICT (org_id, site_id, date, day_part, patient_id) DO UPDATE
SET unit = EXCLUDED.unit, room = EXCLUDED.room, bed = EXCLUDED.bed, diets = EXCLUDED.diets, allergens = EXCLUDED.allergens,
    texture = EXCLUDED.texture, items = EXCLUDED.items, conflict = EXCLUDED.conflict,
    history = CASE WHEN t.status = 'cancelled' THEN t.history || EXCLUDED.history ELSE t.history END,
    status = 'queued', updated_at = EXCLUDED.updated_at
WHERE t.status IN ('queued', 'cancelled');

-- name: CancelTrayTickets :execrows
UPDATE tray_tickets
SET status = 'cancelled', history = history || jsonb_build_array(jsonb_build_object('status', 'cancelled', 'at', @now::timestamptz, 'by', sqlc.narg(by)::uuid)),
    updated_at = @now
WHERE org_id = @org_id AND id = ANY (@ids::uuid[]) AND status = 'queued';

-- name: ListTrayTickets :many
SELECT * FROM tray_tickets
WHERE org_id = @org_id AND site_id = @site_id AND date = @date AND day_part = @day_part
  AND (sqlc.narg(status)::text IS NULL OR status = sqlc.narg(status))
  AND (sqlc.narg(unit)::text IS NULL OR unit = sqlc.narg(unit))
ORDER BY unit, room, bed, id;

-- name: GetTrayTicketForUpdate :one
SELECT * FROM tray_tickets WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: UpdateTrayTicket :one
UPDATE tray_tickets
SET items = @items, selected = @selected, conflict = @conflict, notes = @notes, status = @status,
    assembled_by = @assembled_by, checked_by = @checked_by, history = @history, updated_at = @updated_at
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: QueuedTicketsOfPatients :many
-- The queued tickets of patients, for the census hook (transfer, new diet order, discharge).
SELECT * FROM tray_tickets WHERE org_id = @org_id AND patient_id = ANY (@patient_ids::uuid[]) AND status = 'queued'
ORDER BY id FOR UPDATE;

-- name: RecheckTrayTicket :exec
UPDATE tray_tickets
SET unit = @unit, room = @room, bed = @bed, diets = @diets, allergens = @allergens, texture = @texture, items = @items,
    conflict = @conflict, updated_at = @updated_at
WHERE org_id = @org_id AND id = @id;

-- name: MarkLateTrayTickets :many
-- Tickets not delivered although their meal started before the cut-off, marked once.
UPDATE tray_tickets t SET late_at = @now
WHERE t.id IN (SELECT x.id FROM tray_tickets x
               WHERE x.status IN ('queued', 'assembled', 'checked') AND x.late_at IS NULL AND x.starts_at <= @cutoff
               ORDER BY x.starts_at, x.id LIMIT @max_rows FOR UPDATE SKIP LOCKED)
RETURNING t.id, t.org_id, t.site_id, t.day_part, t.unit, t.room, t.bed, t.starts_at;

-- name: TrayQueue :many
-- A site's tickets of a meal in order, for its tray-line screens: each ticket's unit and row
-- version (xmin and updated_at: every update writes a new xmin), so that a screen's cache
-- reads the stored columns (TrayScreenTickets) only of the tickets that changed.
SELECT id, unit, xmin::text::bigint AS xmin, updated_at
FROM tray_tickets
WHERE org_id = @org_id AND site_id = @site_id AND date = @date AND day_part = @day_part AND status <> 'cancelled'
ORDER BY unit, room, bed, id;

-- name: TrayScreenTickets :many
-- What a tray-line screen shows of some tickets, with their row versions (see TrayQueue).
SELECT id, unit, room, bed, diets, allergens, texture, items, conflict, status, xmin::text::bigint AS xmin, updated_at
FROM tray_tickets
WHERE org_id = @org_id AND id = ANY(@ids::uuid[]);

-- name: LockTrayMeal :exec
-- Serializes the generations of one site's meal (until the transaction ends).
SELECT pg_advisory_xact_lock(hashtextextended(@key::text, 0));

-- name: TrayRevision :one
-- The revision of a site's tray queue (tray_revisions); 0 before its first ticket.
SELECT coalesce((SELECT revision FROM tray_revisions WHERE org_id = @org_id AND site_id = @site_id), 0)::bigint AS revision;

-- name: PatientDayItems :many
-- The items of the patients' trays of a local date (every day part, cancelled ones left out), for
-- the nutrients of their planned day.
SELECT patient_id, day_part, items FROM tray_tickets
WHERE org_id = @org_id AND date = @date AND patient_id = ANY (@patient_ids::uuid[]) AND status <> 'cancelled';

-- name: LockPatientDays :exec
-- Serializes everything that plans or judges these patients' days (keys sorted by the caller,
-- so two holders of several never wait on each other in a circle), until the transaction ends.
SELECT count(pg_advisory_xact_lock(hashtextextended(k, 0)))
FROM unnest(@keys::text[]) WITH ORDINALITY AS u (k, n);

-- name: DayBreaches :many
-- The breaches of these patients' days (pairs by position), and whether the nutrition_risk
-- alert of each has ever opened (open or resolved).
SELECT b.patient_id, b.date, b.site_id, b.since,
       EXISTS (SELECT 1 FROM alerts a
               WHERE a.org_id = b.org_id AND a.kind = 'nutrition_risk' AND a.cause = 'nutrient_limit'
                 AND a.subject_id = b.patient_id AND a.occurrence = b.since) AS alerted
FROM nutrient_day_breaches b
WHERE b.org_id = @org_id
  AND (b.patient_id, b.date) IN (SELECT unnest(@patient_ids::uuid[]), unnest(@dates::date[]));

-- name: BreachedPatientsOn :many
-- The patients whose day of a date at a site is over a limit (a generation judges them again
-- even when they left the census or their limit).
SELECT patient_id FROM nutrient_day_breaches WHERE org_id = @org_id AND site_id = @site_id AND date = @date;

-- name: BreachedDaysOf :many
-- The breached days of these patients (a census change judges them again).
SELECT patient_id, date FROM nutrient_day_breaches WHERE org_id = @org_id AND patient_id = ANY (@patient_ids::uuid[]);

-- name: DaysToJudgeForDiet :many
-- What a diet's rules changing may change: the days of queued tickets of patients on the diet,
-- and every breached day of the organization.
SELECT t.patient_id, t.date FROM tray_tickets t
WHERE t.org_id = @org_id AND t.status = 'queued' AND @diet::text = ANY (t.diets)
UNION
SELECT b.patient_id, b.date FROM nutrient_day_breaches b WHERE b.org_id = @org_id;

-- name: BeginDayBreaches :exec
-- Breaches beginning now: patients[i]'s date dates[i] at site sites[i] (one statement for a
-- generation's many).
INSERT INTO nutrient_day_breaches (org_id, patient_id, date, site_id, since)
SELECT @org_id::uuid, unnest(@patient_ids::uuid[]), unnest(@dates::date[]), unnest(@site_ids::uuid[]), @since::timestamptz
ON CONFLICT (org_id, patient_id, date) DO NOTHING;

-- name: EndDayBreach :one
DELETE FROM nutrient_day_breaches WHERE org_id = @org_id AND patient_id = @patient_id AND date = @date
RETURNING since;

-- name: TrayTicketDay :one
-- The patient and date of a ticket (neither ever changes), read before its day is locked.
SELECT patient_id, date FROM tray_tickets WHERE org_id = @org_id AND id = @id;
