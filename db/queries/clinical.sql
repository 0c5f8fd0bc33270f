-- HL7 ingest ------------------------------------------------------------------------------------

-- name: LockClinicalOrg :exec
-- Excludes every other census writer of the organization across replicas, until the transaction
-- ends: what rewrites patients across the census (a code mapping re-applied) or a body too large
-- to lock patient by patient. Ingests hold the same key shared (LockClinicalKeys).
SELECT pg_advisory_xact_lock(hashtextextended('sous.clinical:' || cast(@org_id::uuid AS text), 0));

-- name: LockClinicalKeys :exec
-- The locks of one ingest body across replicas, until the transaction ends, in one round trip:
-- the organization shared (LockClinicalOrg excludes it), then the body's patient and control-id
-- keys, exclusively. keys must be sorted (unnest returns them in array order), so that bodies of
-- different replicas sharing keys take them in one order and cannot deadlock.
SELECT count(*) FROM (
    SELECT pg_advisory_xact_lock_shared(hashtextextended('sous.clinical:' || cast(@org_id::uuid AS text), 0))
    UNION ALL
    SELECT pg_advisory_xact_lock(k) FROM unnest(@keys::bigint[]) AS k
) AS l;

-- name: ConsumedControlIDs :many
-- Which of the batch's (sending application, sending facility, control id) keys an applied or
-- skipped message already consumed: one probe of the partial unique index per key, whatever the
-- table's statistics say. A plain join let the planner of an un-analyzed table scan the
-- organization's whole trail and filter it (what `control_id = ANY` got too); the LIMIT keeps
-- the probe a subquery run per key, so its index condition always holds all four columns. The
-- index's predicate is repeated so that a generic plan may use it.
SELECT m.sending_application, m.sending_facility, m.control_id
FROM (SELECT unnest(@sending_applications::text[]) AS app, unnest(@sending_facilities::text[]) AS facility,
             unnest(@control_ids::text[]) AS control_id) AS k
CROSS JOIN LATERAL (
    SELECT h.sending_application, h.sending_facility, h.control_id FROM hl7_messages h
    WHERE h.org_id = @org_id AND h.sending_application = k.app AND h.sending_facility = k.facility
      AND h.control_id = k.control_id AND h.outcome IN ('applied', 'skipped') AND h.control_id <> ''
    LIMIT 1
) AS m;

-- name: PatientsByMRN :many
-- The state the ingest needs of the batch's patients (mrns: distinct), one probe of the unique
-- (org_id, site_id, mrn) index per MRN and one of the encounters' primary key per patient, as
-- ConsumedControlIDs and for the same reason: the row without its allergies (AL1 lists replace
-- them whole, never merge, so they are not read) and the open encounter. Diet orders come whole
-- only for the patients of order messages (full_mrns), which change them one by one; for the
-- others the ids of their orders suffice, to tell a new order from a restated one. Allergies
-- come only for the patients of FHIR AllergyIntolerance and NutritionOrder entries
-- (allergy_mrns), which add or remove one allergy at a time.
SELECT p.id, p.mrn, p.mrn_source, p.mrn_authority, p.family_name, p.given_name, p.middle_name, p.birth_date,
       p.sex, p.encounter_id, p.unit, p.room, p.bed, p.admitted_at, p.allergies_hash, p.diet_orders_hash,
       (CASE WHEN p.mrn = ANY (@full_mrns::text[]) THEN p.diet_orders END)::json AS diet_orders, p.diet_order_ids,
       (CASE WHEN p.mrn = ANY (@allergy_mrns::text[]) THEN p.allergies END)::json AS allergies,
       coalesce(e.visit_number, '')::text AS visit_number,
       coalesce(e.patient_class, '')::text AS patient_class,
       coalesce(e.admitted_at, '0001-01-01 00:00:00+00')::timestamptz AS encounter_admitted_at -- zero: none
FROM unnest(@mrns::text[]) AS k(mrn)
CROSS JOIN LATERAL (
    SELECT * FROM patients x WHERE x.org_id = @org_id AND x.site_id = @site_id AND x.mrn = k.mrn LIMIT 1
) AS p
LEFT JOIN LATERAL (
    SELECT y.visit_number, y.patient_class, y.admitted_at FROM encounters y WHERE y.id = p.encounter_id LIMIT 1
) AS e ON true;

-- name: CodeMappings :many
-- Read through clinical_codes_mapped_idx: the mapped codes alone, however many await review.
SELECT kind, code, targets::text[] AS targets FROM clinical_codes WHERE org_id = @org_id AND targets IS NOT NULL;

-- name: UpsertPatients :exec
-- The final state of every patient a batch touched, one array element per patient (arrays
-- travel in binary). An empty allergies or diet_orders keeps the stored list
-- of an existing patient (the messages carried no AL1 or ODS); it becomes the JSON null so that
-- the proposed row still satisfies NOT NULL. A nil encounter id and a zero admitted_at are NULL.
INSERT INTO patients (id, org_id, site_id, mrn, mrn_source, mrn_authority, family_name, given_name, middle_name,
                      birth_date, sex, encounter_id, unit, room, bed, admitted_at, allergies, diet_orders,
                      diet_order_ids, allergies_hash, diet_orders_hash, created_at, updated_at)
SELECT r.id, @org_id, @site_id, r.mrn, r.mrn_source, r.mrn_authority, r.family_name, r.given_name, r.middle_name,
       r.birth_date, r.sex, nullif(r.encounter_id, '00000000-0000-0000-0000-000000000000'::uuid), r.unit, r.room, r.bed,
       nullif(r.admitted_at, '0001-01-01 00:00:00+00'::timestamptz),
       coalesce(nullif(r.allergies, ''), 'null')::json, coalesce(nullif(r.diet_orders, ''), 'null')::json,
       r.diet_order_ids, r.allergies_hash, r.diet_orders_hash, @now, @now
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@mrns::text[]) AS mrn, unnest(@mrn_sources::text[]) AS mrn_source,
             unnest(@mrn_authorities::text[]) AS mrn_authority, unnest(@family_names::text[]) AS family_name,
             unnest(@given_names::text[]) AS given_name, unnest(@middle_names::text[]) AS middle_name,
             unnest(@birth_dates::text[]) AS birth_date, unnest(@sexes::text[]) AS sex,
             unnest(@encounter_ids::uuid[]) AS encounter_id, unnest(@units::text[]) AS unit,
             unnest(@rooms::text[]) AS room, unnest(@beds::text[]) AS bed,
             unnest(@admitted_ats::timestamptz[]) AS admitted_at, unnest(@allergies::text[]) AS allergies,
             unnest(@diet_orders::text[]) AS diet_orders, unnest(@diet_order_ids::text[]) AS diet_order_ids,
             unnest(@allergies_hashes::bigint[]) AS allergies_hash,
             unnest(@diet_orders_hashes::bigint[]) AS diet_orders_hash) AS r
ON CONFLICT (id) DO UPDATE SET
    mrn_source    = excluded.mrn_source,
    mrn_authority = excluded.mrn_authority,
    family_name   = excluded.family_name,
    given_name    = excluded.given_name,
    middle_name   = excluded.middle_name,
    birth_date    = excluded.birth_date,
    sex           = excluded.sex,
    encounter_id  = excluded.encounter_id,
    unit          = excluded.unit,
    room          = excluded.room,
    bed           = excluded.bed,
    admitted_at   = excluded.admitted_at,
    allergies     = CASE WHEN excluded.allergies::text = 'null' THEN patients.allergies ELSE excluded.allergies END,
    diet_orders   = CASE WHEN excluded.diet_orders::text = 'null' THEN patients.diet_orders ELSE excluded.diet_orders END,
    diet_order_ids = CASE WHEN excluded.diet_orders::text = 'null' THEN patients.diet_order_ids ELSE excluded.diet_order_ids END,
    allergies_hash   = CASE WHEN excluded.allergies::text = 'null' THEN patients.allergies_hash ELSE excluded.allergies_hash END,
    diet_orders_hash = CASE WHEN excluded.diet_orders::text = 'null' THEN patients.diet_orders_hash ELSE excluded.diet_orders_hash END,
    updated_at    = excluded.updated_at;

-- name: UpsertEncounters :exec
-- One array element per encounter; a zero discharged_at is NULL.
INSERT INTO encounters (id, org_id, patient_id, visit_number, patient_class, admitted_at, discharged_at,
                        unit, room, bed, created_at, updated_at)
SELECT r.id, @org_id, r.patient_id, r.visit_number, r.patient_class, r.admitted_at,
       nullif(r.discharged_at, '0001-01-01 00:00:00+00'::timestamptz), r.unit, r.room, r.bed, @now, @now
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@patient_ids::uuid[]) AS patient_id,
             unnest(@visit_numbers::text[]) AS visit_number, unnest(@patient_classes::text[]) AS patient_class,
             unnest(@admitted_ats::timestamptz[]) AS admitted_at, unnest(@discharged_ats::timestamptz[]) AS discharged_at,
             unnest(@units::text[]) AS unit, unnest(@rooms::text[]) AS room, unnest(@beds::text[]) AS bed) AS r
ON CONFLICT (id) DO UPDATE SET
    visit_number  = excluded.visit_number,
    patient_class = excluded.patient_class,
    admitted_at   = excluded.admitted_at,
    discharged_at = excluded.discharged_at,
    unit          = excluded.unit,
    room          = excluded.room,
    bed           = excluded.bed,
    updated_at    = excluded.updated_at;

-- name: InsertHl7Messages :exec
-- The trail rows of a batch, one array element per message. Empty strings, a nil uuid and a zero
-- time stand for NULL.
INSERT INTO hl7_messages (id, org_id, site_id, received_at, request_id, actor_kind, actor_id, batch_index,
                          sending_application, sending_facility, control_id, message_type, outcome, action, reason, mrn, patient_id, encounter_id,
                          event_at, unit, room, bed, raw)
SELECT r.id, @org_id, @site_id, @received_at, sqlc.narg(request_id), @actor_kind, sqlc.narg(actor_id), r.batch_index,
       r.sending_application, r.sending_facility, r.control_id, r.message_type, r.outcome, nullif(r.action, ''), nullif(r.reason, ''), nullif(r.mrn, ''),
       nullif(r.patient_id, '00000000-0000-0000-0000-000000000000'::uuid),
       nullif(r.encounter_id, '00000000-0000-0000-0000-000000000000'::uuid),
       nullif(r.event_at, '0001-01-01 00:00:00+00'::timestamptz), nullif(r.unit, ''), nullif(r.room, ''),
       nullif(r.bed, ''), r.raw
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@batch_indexes::int[]) AS batch_index,
             unnest(@sending_applications::text[]) AS sending_application,
             unnest(@sending_facilities::text[]) AS sending_facility,
             unnest(@control_ids::text[]) AS control_id, unnest(@message_types::text[]) AS message_type,
             unnest(@outcomes::text[]) AS outcome, unnest(@actions::text[]) AS action,
             unnest(@reasons::text[]) AS reason, unnest(@mrns::text[]) AS mrn,
             unnest(@patient_ids::uuid[]) AS patient_id, unnest(@encounter_ids::uuid[]) AS encounter_id,
             unnest(@event_ats::timestamptz[]) AS event_at, unnest(@units::text[]) AS unit,
             unnest(@rooms::text[]) AS room, unnest(@beds::text[]) AS bed, unnest(@raws::text[]) AS raw) AS r;

-- name: RecordCodeOccurrences :exec
-- rows: the batch's unmapped codes with how many messages carried each.
INSERT INTO clinical_codes (org_id, kind, code, text, system, occurrences, first_seen_at, last_seen_at)
SELECT @org_id, r.kind, r.code, r.text, r.system, r.n, @now::timestamptz, @now::timestamptz
FROM jsonb_to_recordset(@rows::jsonb) AS r(kind text, code text, text text, system text, n bigint)
ON CONFLICT (org_id, kind, code) DO UPDATE SET
    text          = excluded.text,
    system        = excluded.system,
    occurrences   = clinical_codes.occurrences + excluded.occurrences,
    first_seen_at = coalesce(clinical_codes.first_seen_at, excluded.first_seen_at),
    last_seen_at  = excluded.last_seen_at;

-- Census and patients ---------------------------------------------------------------------------

-- name: ListCensus :many
-- In-house patients in (site, unit, room, bed, id) order, keyset-paged; scope empty means every site.
SELECT * FROM patients
WHERE org_id = @org_id AND encounter_id IS NOT NULL
  AND (cardinality(@scope::uuid[]) = 0 OR site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR site_id = sqlc.narg(site_id))
  AND (sqlc.narg(unit)::text IS NULL OR unit = sqlc.narg(unit))
  AND (sqlc.narg(cursor_id)::uuid IS NULL
       OR (site_id, unit, room, bed, id) > (@cursor_site::uuid, @cursor_unit::text, @cursor_room::text, @cursor_bed::text, sqlc.narg(cursor_id)::uuid))
ORDER BY site_id, unit, room, bed, id
LIMIT @max_rows;

-- name: GetPatient :one
SELECT * FROM patients WHERE org_id = @org_id AND id = @id;

-- name: GetPatientForUpdate :one
SELECT * FROM patients WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: ListEncounters :many
SELECT * FROM encounters WHERE org_id = @org_id AND patient_id = @patient_id ORDER BY admitted_at DESC, id DESC;

-- name: ListMovements :many
SELECT encounter_id::uuid AS encounter_id, coalesce(event_at, received_at)::timestamptz AS at, action::text AS action,
       coalesce(unit, '')::text AS unit, coalesce(room, '')::text AS room, coalesce(bed, '')::text AS bed, control_id
FROM hl7_messages
WHERE org_id = @org_id AND encounter_id = ANY (@encounter_ids::uuid[]) AND outcome = 'applied'
ORDER BY coalesce(event_at, received_at), received_at, batch_index;

-- name: ListHl7Messages :many
-- Newest first, keyset-paged on (received_at, id).
SELECT * FROM hl7_messages
WHERE org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR site_id = sqlc.narg(site_id))
  AND (sqlc.narg(control_id)::text IS NULL OR control_id = sqlc.narg(control_id))
  AND (sqlc.narg(outcome)::text IS NULL OR outcome = sqlc.narg(outcome))
  AND (sqlc.narg(cursor_id)::uuid IS NULL OR (received_at, id) < (@cursor_at::timestamptz, sqlc.narg(cursor_id)::uuid))
ORDER BY received_at DESC, id DESC
LIMIT @max_rows;

-- Unmapped codes --------------------------------------------------------------------------------

-- name: ListClinicalCodes :many
-- Most recently seen first (codes mapped before being seen last), keyset-paged.
SELECT c.kind, c.code, c.text, c.system, c.occurrences, c.first_seen_at, c.last_seen_at,
       c.targets::text[] AS targets, c.mapped_at, c.mapped_by,
       coalesce(c.last_seen_at, '-infinity')::timestamptz AS sort_at
FROM clinical_codes c
WHERE c.org_id = @org_id
  AND (sqlc.narg(kind)::text IS NULL OR c.kind = sqlc.narg(kind))
  AND (@status::text = 'all' OR (@status::text = 'mapped') = (c.targets IS NOT NULL))
  -- A non-empty scope (a site-limited member's sites): only the codes their in-house patients carry.
  AND (cardinality(@scope::uuid[]) = 0 OR EXISTS (
        SELECT 1 FROM patients p
        WHERE p.org_id = c.org_id AND p.site_id = ANY (@scope::uuid[]) AND p.encounter_id IS NOT NULL AND (
            (c.kind = 'allergen' AND p.allergies::jsonb @> jsonb_build_array(jsonb_build_object('key', c.code)))
         OR (c.kind = 'diet' AND p.diet_orders::jsonb @> jsonb_build_array(jsonb_build_object('codes', jsonb_build_array(jsonb_build_object('key', c.code))))))))
  AND (sqlc.narg(cursor_kind)::text IS NULL
       OR (coalesce(c.last_seen_at, '-infinity'), c.kind, c.code) < (@cursor_at::timestamptz, sqlc.narg(cursor_kind)::text, @cursor_code::text))
ORDER BY coalesce(c.last_seen_at, '-infinity') DESC, c.kind DESC, c.code DESC
LIMIT @max_rows;

-- name: GetClinicalCode :one
SELECT kind, code, text, system, occurrences, first_seen_at, last_seen_at, targets::text[] AS targets, mapped_at, mapped_by
FROM clinical_codes WHERE org_id = @org_id AND kind = @kind AND code = @code;

-- name: MapClinicalCode :one
INSERT INTO clinical_codes (org_id, kind, code, targets, mapped_at, mapped_by)
VALUES (@org_id, @kind, @code, @targets::text[], @now::timestamptz, sqlc.narg(mapped_by)::uuid)
ON CONFLICT (org_id, kind, code) DO UPDATE SET
    targets = excluded.targets, mapped_at = excluded.mapped_at, mapped_by = excluded.mapped_by
RETURNING kind, code, text, system, occurrences, first_seen_at, last_seen_at, targets::text[] AS targets, mapped_at, mapped_by;

-- name: InHousePatientsWithAllergyKey :many
SELECT id, allergies FROM patients
WHERE org_id = @org_id AND encounter_id IS NOT NULL AND allergies::jsonb @> jsonb_build_array(jsonb_build_object('key', @key::text))
FOR UPDATE;

-- name: InHousePatientsWithDietKey :many
SELECT id, diet_orders FROM patients
WHERE org_id = @org_id AND encounter_id IS NOT NULL
  AND diet_orders::jsonb @> jsonb_build_array(jsonb_build_object('codes', jsonb_build_array(jsonb_build_object('key', @key::text))))
FOR UPDATE;

-- name: CountInHouseWithCodes :many
-- How many in-house patients carry each of the given codes (keys: [{kind, code}]), at the
-- scope's sites (empty: every site).
SELECT k.kind::text AS kind, k.code::text AS code, count(p.id)::int AS patients
FROM jsonb_to_recordset(@keys::jsonb) AS k(kind text, code text)
LEFT JOIN patients p ON p.org_id = @org_id AND p.encounter_id IS NOT NULL
  AND (cardinality(@scope::uuid[]) = 0 OR p.site_id = ANY (@scope::uuid[])) AND (
    (k.kind = 'allergen' AND p.allergies::jsonb @> jsonb_build_array(jsonb_build_object('key', k.code)))
 OR (k.kind = 'diet' AND p.diet_orders::jsonb @> jsonb_build_array(jsonb_build_object('codes', jsonb_build_array(jsonb_build_object('key', k.code))))))
GROUP BY k.kind, k.code;

-- name: SetPatientAllergies :exec
-- The hash becomes unknown: the next message with allergies rewrites them.
UPDATE patients SET allergies = @allergies, allergies_hash = 0, updated_at = @now WHERE org_id = @org_id AND id = @id;

-- name: SetPatientDietOrders :exec
UPDATE patients SET diet_orders = @diet_orders, diet_orders_hash = 0, updated_at = @now WHERE org_id = @org_id AND id = @id;

-- Sign-offs -------------------------------------------------------------------------------------

-- name: CreateSignoff :one
INSERT INTO signoffs (id, org_id, site_id, patient_id, diet_order_id, diet_order, status, note, submitted_by, submitted_at)
VALUES (@id, @org_id, @site_id, @patient_id, @diet_order_id, @diet_order, 'pending', @note, @submitted_by, @now)
RETURNING *;

-- name: GetSignoff :one
SELECT s.*, p.mrn FROM signoffs s JOIN patients p ON p.id = s.patient_id
WHERE s.org_id = @org_id AND s.id = @id;

-- name: GetSignoffForUpdate :one
SELECT * FROM signoffs WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: DecideSignoff :one
UPDATE signoffs SET status = @status, decided_by = @decided_by::uuid, decided_at = @now::timestamptz, decision_note = sqlc.narg(decision_note)
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: ListSignoffs :many
-- Newest first, keyset-paged on (submitted_at, id).
SELECT s.*, p.mrn FROM signoffs s JOIN patients p ON p.id = s.patient_id
WHERE s.org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR s.site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR s.site_id = sqlc.narg(site_id))
  AND (sqlc.narg(patient_id)::uuid IS NULL OR s.patient_id = sqlc.narg(patient_id))
  AND (sqlc.narg(status)::text IS NULL OR s.status = sqlc.narg(status))
  AND (sqlc.narg(cursor_id)::uuid IS NULL OR (s.submitted_at, s.id) < (@cursor_at::timestamptz, sqlc.narg(cursor_id)::uuid))
ORDER BY s.submitted_at DESC, s.id DESC
LIMIT @max_rows;

-- Trail expiry ----------------------------------------------------------------------------------

-- name: OrgsWithTrailBefore :many
-- Organizations with trail rows received before the cutoff (one probe of
-- hl7_messages_org_received_idx each), keyset-paged on id.
SELECT o.id FROM orgs o
WHERE EXISTS (SELECT 1 FROM hl7_messages m WHERE m.org_id = o.id AND m.received_at < @cutoff::timestamptz)
  AND (sqlc.narg(after_id)::uuid IS NULL OR o.id > sqlc.narg(after_id)::uuid)
ORDER BY o.id
LIMIT @max_rows;

-- name: ExpireTrailRaw :one
-- Clears the raw text of the organization's next slice of trail rows received before the cutoff
-- (at most max_rows, oldest first, after the rows already done) and records how far it got. The
-- slice is read through hl7_messages_org_received_idx; n is how many rows the slice held.
WITH mark AS (
    SELECT e.through_at, e.through_id FROM hl7_trail_expiry e WHERE e.org_id = @org_id
), slice AS (
    SELECT m.id, m.received_at FROM hl7_messages m
    WHERE m.org_id = @org_id AND m.received_at < @cutoff::timestamptz
      AND (m.received_at, m.id) > (coalesce((SELECT through_at FROM mark), '-infinity'),
                                   coalesce((SELECT through_id FROM mark), '00000000-0000-0000-0000-000000000000'::uuid))
    ORDER BY m.received_at, m.id
    LIMIT @max_rows
), cleared AS (
    UPDATE hl7_messages m SET raw = '' FROM slice s WHERE m.id = s.id AND m.raw <> ''
), last AS (
    SELECT received_at, id FROM slice ORDER BY received_at DESC, id DESC LIMIT 1
), marked AS (
    INSERT INTO hl7_trail_expiry (org_id, through_at, through_id)
    SELECT @org_id, received_at, id FROM last
    ON CONFLICT (org_id) DO UPDATE SET through_at = excluded.through_at, through_id = excluded.through_id
    WHERE (hl7_trail_expiry.through_at, hl7_trail_expiry.through_id) < (excluded.through_at, excluded.through_id)
)
SELECT count(*)::int AS n FROM slice;

-- name: RestrictedDietPatients :many
-- In-house patients whose diet orders name NPO or clear liquids (a textual filter; the
-- nutrition-risk rule itself is decided in Go), keyset-paged on id, with the occurrence of their
-- latest nutrition_risk alert and whether one is open.
SELECT p.id, p.org_id, p.site_id, p.mrn, p.family_name, p.given_name, p.unit, p.room, p.bed, p.diet_orders,
       -- The epoch stands for "never".
       coalesce((SELECT max(a.occurrence) FROM alerts a
                 WHERE a.org_id = p.org_id AND a.kind = 'nutrition_risk' AND a.cause = '' AND a.subject_id = p.id),
                'epoch'::timestamptz)::timestamptz AS last_occurrence,
       EXISTS (SELECT 1 FROM alerts a
               WHERE a.org_id = p.org_id AND a.kind = 'nutrition_risk' AND a.subject_id = p.id AND a.resolved_at IS NULL) AS alert_open
FROM patients p
WHERE p.encounter_id IS NOT NULL
  AND p.diet_orders::text ~ '"(npo|clear_liquid)"'
  AND (sqlc.narg(after_id)::uuid IS NULL OR p.id > sqlc.narg(after_id)::uuid)
ORDER BY p.id
LIMIT @max_rows;

-- name: OpenNutritionRiskAlerts :many
-- Open nutrition_risk alerts with their patient's stay and diet orders (NULLs once the patient
-- is gone), for closing those whose condition has cleared: the NPO cause's only (a nutrient-limit
-- alert is the tray line's).
SELECT a.org_id, a.subject_id, p.encounter_id, p.diet_orders
FROM alerts a
LEFT JOIN patients p ON p.org_id = a.org_id AND p.id = a.subject_id
WHERE a.kind = 'nutrition_risk' AND a.cause = '' AND a.resolved_at IS NULL
  AND (sqlc.narg(after_id)::uuid IS NULL OR a.subject_id > sqlc.narg(after_id)::uuid)
ORDER BY a.subject_id
LIMIT @max_rows;

-- name: GetClinicalSettings :one
-- '' when the organization has set nothing.
SELECT coalesce((SELECT s.fhir_mrn_system FROM clinical_settings s WHERE s.org_id = @org_id), '')::text AS fhir_mrn_system;

-- name: UpsertClinicalSettings :exec
INSERT INTO clinical_settings (org_id, fhir_mrn_system, updated_at) VALUES (@org_id, @fhir_mrn_system, @now)
ON CONFLICT (org_id) DO UPDATE SET fhir_mrn_system = excluded.fhir_mrn_system, updated_at = excluded.updated_at;
