-- +goose Up
-- Tray line: rules per diet of the vocabulary, and one meal ticket per patient in house per
-- site, date and day part, with the items checked against the patient's allergens and diets.
--
-- A recipe's nutrition per portion and IDDSI level live in its versioned body (recipe_versions.body),
-- like every other part of its definition; nothing here changes the kitchen's tables.

-- The rules of one diet of the vocabulary, per organization (a diet without a row has no rules).
CREATE TABLE diet_rules (
    org_id     uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    diet       text        NOT NULL,
    rules      jsonb       NOT NULL,
    updated_by uuid,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (org_id, diet)
);

-- One ticket per patient per site, date and day part. A discharged patient's queued ticket is
-- cancelled (and revived if they are in house again at the next generation); a ticket past
-- queued is never rewritten by generation.
CREATE TABLE tray_tickets (
    id           uuid PRIMARY KEY,
    org_id       uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    site_id      uuid        NOT NULL,
    date         date        NOT NULL,
    day_part     text        NOT NULL,
    patient_id   uuid        NOT NULL,
    unit         text        NOT NULL DEFAULT '',
    room         text        NOT NULL DEFAULT '',
    bed          text        NOT NULL DEFAULT '',
    diets        text[]      NOT NULL DEFAULT '{}',
    allergens    text[]      NOT NULL DEFAULT '{}',
    texture      integer,
    items        jsonb       NOT NULL DEFAULT '[]',
    selected     boolean     NOT NULL DEFAULT false,
    conflict     boolean     NOT NULL DEFAULT false,
    notes        text        NOT NULL DEFAULT '',
    status       text        NOT NULL CHECK (status IN ('queued', 'assembled', 'checked', 'delivered', 'cancelled')),
    assembled_by uuid,
    checked_by   uuid,
    history      jsonb       NOT NULL DEFAULT '[]',
    starts_at    timestamptz NOT NULL,
    -- When tray_late opened for the ticket (45 minutes after its meal's start, not delivered).
    late_at      timestamptz,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    UNIQUE (org_id, site_id, date, day_part, patient_id)
);
CREATE INDEX tray_tickets_list_idx ON tray_tickets (org_id, site_id, date, day_part, unit, room, bed);
CREATE INDEX tray_tickets_patient_queued_idx ON tray_tickets (org_id, patient_id) WHERE status = 'queued';
CREATE INDEX tray_tickets_late_idx ON tray_tickets (starts_at) WHERE status IN ('queued', 'assembled', 'checked') AND late_at IS NULL;

-- +goose Down
DROP TABLE tray_tickets;
DROP TABLE diet_rules;
