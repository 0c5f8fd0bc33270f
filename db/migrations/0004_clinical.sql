-- +goose Up
-- The clinical census fed by HL7 v2 ADT. A patient belongs to one site (each hospital's feed has
-- its own MRN namespace) and carries its current allergies and diet orders as JSON documents,
-- written whole by the ingest (AL1 and ODS segments arrive as complete lists). Encounters are
-- admissions; their movements are the applied messages of the trail (hl7_messages).
CREATE TABLE patients (
    id            uuid PRIMARY KEY,
    -- No foreign key of its own: (org_id, site_id) references the site, which implies the
    -- organization and cascades from it, and every key checked costs the ingest per row.
    org_id        uuid        NOT NULL,
    site_id       uuid        NOT NULL,
    mrn           text        NOT NULL,
    mrn_source    text        NOT NULL CHECK (mrn_source IN ('pid3_mr', 'pid3_first')),
    mrn_authority text        NOT NULL DEFAULT '',
    family_name   text        NOT NULL DEFAULT '',
    given_name    text        NOT NULL DEFAULT '',
    middle_name   text        NOT NULL DEFAULT '',
    -- YYYY, YYYY-MM or YYYY-MM-DD: as much as the sender gave; '' when unknown.
    birth_date    text        NOT NULL DEFAULT '',
    sex           text        NOT NULL DEFAULT '',
    -- The open encounter while in house; NULL once discharged.
    encounter_id  uuid,
    unit          text        NOT NULL DEFAULT '',
    room          text        NOT NULL DEFAULT '',
    bed           text        NOT NULL DEFAULT '',
    admitted_at   timestamptz,
    -- json, not jsonb: the ingest writes these documents far more often than anything searches
    -- them, and json only checks the syntax where jsonb builds a tree. The rare searches (which
    -- in-house patients carry a code) cast to jsonb.
    allergies     json        NOT NULL DEFAULT '[]',
    diet_orders   json        NOT NULL DEFAULT '[]',
    -- The ids of diet_orders, comma-separated, which the ingest reads to tell a new order from a
    -- restated one without reading the documents.
    diet_order_ids text       NOT NULL DEFAULT '',
    -- FNV-64 of the documents as the ingest wrote them (0: unknown), so that a message restating
    -- them, as most updates do, rewrites nothing.
    allergies_hash   bigint   NOT NULL DEFAULT 0,
    diet_orders_hash bigint   NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    UNIQUE (org_id, id),
    UNIQUE (org_id, site_id, mrn),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE
) WITH (fillfactor = 70); -- room for HOT updates of rows that messages change
-- The census: in-house patients in site, unit, room, bed order.
CREATE INDEX patients_census_idx ON patients (org_id, site_id, unit, room, bed, id) WHERE encounter_id IS NOT NULL;

CREATE TABLE encounters (
    id            uuid PRIMARY KEY,
    org_id        uuid        NOT NULL, -- (org_id, patient_id) implies the organization
    patient_id    uuid        NOT NULL,
    visit_number  text        NOT NULL DEFAULT '',
    patient_class text        NOT NULL DEFAULT '',
    admitted_at   timestamptz NOT NULL,
    discharged_at timestamptz,
    unit          text        NOT NULL DEFAULT '',
    room          text        NOT NULL DEFAULT '',
    bed           text        NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, patient_id) REFERENCES patients (org_id, id) ON DELETE CASCADE
) WITH (fillfactor = 70);
CREATE INDEX encounters_patient_idx ON encounters (patient_id, admitted_at DESC);

-- The message trail: every message received, whatever its outcome, with its raw text. A control
-- id (MSH-10) is consumed by an applied or skipped message; a resend is then a duplicate.
-- The trail has no foreign keys, unlike the other tenant tables: it is an append-only log written
-- at feed rates (a key checked per row cost the ingest a tenth of its database time), its site is
-- checked by the ingest in the same request, and nothing references its rows. Deleting an
-- organization or a site must delete its trail explicitly.
CREATE TABLE hl7_messages (
    id            uuid PRIMARY KEY,
    org_id        uuid        NOT NULL,
    site_id       uuid        NOT NULL,
    received_at   timestamptz NOT NULL,
    request_id    text,
    actor_kind    text        NOT NULL CHECK (actor_kind IN ('user', 'api_key', 'system')),
    actor_id      uuid,
    batch_index   integer     NOT NULL,
    control_id    text        NOT NULL DEFAULT '',
    message_type  text        NOT NULL DEFAULT '',
    outcome       text        NOT NULL CHECK (outcome IN ('applied', 'skipped', 'duplicate', 'rejected')),
    action        text CHECK (action IN ('admitted', 'transferred', 'updated', 'discharged', 'diet_ordered')),
    reason        text,
    mrn           text,
    patient_id    uuid,
    encounter_id  uuid,
    -- When the event happened (EVN-6, PV1-44/45, EVN-2 or MSH-7) and where the patient was after it.
    event_at      timestamptz,
    unit          text,
    room          text,
    bed           text,
    raw           text        NOT NULL
);
CREATE UNIQUE INDEX hl7_messages_control_id_key ON hl7_messages (org_id, control_id)
    WHERE outcome IN ('applied', 'skipped') AND control_id <> '';
CREATE INDEX hl7_messages_org_received_idx ON hl7_messages (org_id, received_at DESC, id DESC);
CREATE INDEX hl7_messages_encounter_idx ON hl7_messages (encounter_id, event_at) WHERE encounter_id IS NOT NULL;

-- Allergen and diet codes no vocabulary term matched, per organization, and the mappings people
-- gave them. targets NULL means still unmapped; an empty array means reviewed, nothing to map.
CREATE TABLE clinical_codes (
    org_id        uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    kind          text        NOT NULL CHECK (kind IN ('allergen', 'diet')),
    code          text        NOT NULL,
    text          text        NOT NULL DEFAULT '',
    system        text        NOT NULL DEFAULT '',
    occurrences   bigint      NOT NULL DEFAULT 0,
    -- NULL for a code mapped before any message carried it.
    first_seen_at timestamptz,
    last_seen_at  timestamptz,
    targets       text[],
    mapped_at     timestamptz,
    mapped_by     uuid,
    PRIMARY KEY (org_id, kind, code)
);
CREATE INDEX clinical_codes_seen_idx ON clinical_codes (org_id, last_seen_at DESC, kind, code);

-- Diet sign-offs: a submitted review of one diet order, decided by a registered dietitian.
CREATE TABLE signoffs (
    id            uuid PRIMARY KEY,
    org_id        uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    site_id       uuid        NOT NULL,
    patient_id    uuid        NOT NULL,
    diet_order_id uuid        NOT NULL,
    diet_order    json        NOT NULL,
    status        text        NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
    note          text        NOT NULL DEFAULT '',
    submitted_by  uuid        NOT NULL,
    submitted_at  timestamptz NOT NULL,
    decided_by    uuid,
    decided_at    timestamptz,
    decision_note text,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, patient_id) REFERENCES patients (org_id, id) ON DELETE CASCADE
);
CREATE INDEX signoffs_org_submitted_idx ON signoffs (org_id, submitted_at DESC, id DESC);
CREATE UNIQUE INDEX signoffs_pending_order_key ON signoffs (org_id, diet_order_id) WHERE status = 'pending';

-- +goose Down
DROP TABLE signoffs;
DROP TABLE clinical_codes;
DROP TABLE hl7_messages;
DROP TABLE encounters;
DROP TABLE patients;
