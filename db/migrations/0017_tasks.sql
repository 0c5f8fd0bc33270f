-- +goose Up
-- Tasks and routines: what a kitchen's day is made of besides cooking. A task is one thing to do
-- at a site by a time, completed with evidence; routines make tasks from a recurrence rule;
-- positions are roles on the floor tasks can be assigned to; guides are the documents tasks
-- link to; huddles are shift meetings whose actions become tasks.

CREATE TABLE positions (
    id         uuid PRIMARY KEY,
    org_id     uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    site_id    uuid        NOT NULL,
    name       text        NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE
);
CREATE INDEX positions_site_idx ON positions (org_id, site_id, name);

CREATE TABLE position_members (
    org_id      uuid NOT NULL,
    position_id uuid NOT NULL,
    user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (org_id, position_id, user_id),
    FOREIGN KEY (org_id, position_id) REFERENCES positions (org_id, id) ON DELETE CASCADE
);
-- "My tasks" looks up a member's positions.
CREATE INDEX position_members_user_idx ON position_members (org_id, user_id);

-- Guide documents. site_ids empty: for every site.
CREATE TABLE guides (
    id         uuid PRIMARY KEY,
    org_id     uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    title      text        NOT NULL,
    body       text        NOT NULL,
    media_ids  uuid[]      NOT NULL DEFAULT '{}',
    site_ids   uuid[]      NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    UNIQUE (org_id, id)
);
CREATE INDEX guides_org_title_idx ON guides (org_id, title);

-- A routine: an RFC 5545 rule expanded in its site's zone from starts_on, and the items each
-- occurrence makes into tasks (JSON, as the API writes them). planned_zone is the zone its
-- planned tasks were computed in: when the site's zone changes, the runner plans them again.
CREATE TABLE routines (
    id           uuid PRIMARY KEY,
    org_id       uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    site_id      uuid        NOT NULL,
    name         text        NOT NULL,
    rrule        text        NOT NULL,
    starts_on    date        NOT NULL,
    active       boolean     NOT NULL DEFAULT true,
    items        jsonb       NOT NULL,
    planned_zone text,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE
);
CREATE INDEX routines_site_idx ON routines (org_id, site_id, name);
CREATE INDEX routines_active_idx ON routines (id) WHERE active;

-- One row per routine and occurrence whose tasks were made: the key that makes the runner on
-- any number of replicas create an occurrence's tasks once. occurrence is the instant;
-- run-now occurrences are keyed by their own instant and marked manual.
CREATE TABLE routine_occurrences (
    org_id     uuid        NOT NULL,
    routine_id uuid        NOT NULL,
    occurrence timestamptz NOT NULL,
    manual     boolean     NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (routine_id, occurrence),
    FOREIGN KEY (org_id, routine_id) REFERENCES routines (org_id, id) ON DELETE CASCADE
);

CREATE TABLE huddles (
    id         uuid PRIMARY KEY,
    org_id     uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    site_id    uuid        NOT NULL,
    date       date        NOT NULL,
    day_part   text,
    notes      text        NOT NULL DEFAULT '',
    created_by uuid        REFERENCES users (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE
);
CREATE INDEX huddles_site_idx ON huddles (org_id, site_id, date DESC, created_at DESC);

CREATE TABLE tasks (
    id                   uuid PRIMARY KEY,
    org_id               uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    site_id              uuid        NOT NULL,
    title                text        NOT NULL,
    description          text,
    kind                 text        NOT NULL CHECK (kind IN ('cleaning', 'temperature_log', 'maintenance', 'receiving', 'prep',
                                                          'safety', 'inspection', 'opening', 'closing', 'other')),
    priority             text        NOT NULL CHECK (priority IN ('low', 'medium', 'high', 'critical')),
    status               text        NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done', 'missed', 'cancelled')),
    required             boolean     NOT NULL DEFAULT false,
    requires_scan        boolean     NOT NULL DEFAULT false,
    requires_photo       boolean     NOT NULL DEFAULT false,
    requires_temp        boolean     NOT NULL DEFAULT false,
    temp_min_f           numeric,
    temp_max_f           numeric,
    -- What a scan must hit: a tag's target (type, id, name as it read when the task was made).
    target_type          text,
    target_id            uuid,
    target_name          text,
    linked_doc_ids       uuid[]      NOT NULL DEFAULT '{}',
    assignee_user_id     uuid        REFERENCES users (id) ON DELETE SET NULL,
    assignee_position_id uuid,
    due_at               timestamptz NOT NULL,
    grace_minutes        integer     NOT NULL DEFAULT 30 CHECK (grace_minutes >= 0),
    -- due_at + grace: an open task past it is missed (kept as a column so the runner's sweep
    -- reads an index).
    missed_after         timestamptz NOT NULL,
    source               text        NOT NULL CHECK (source IN ('manual', 'routine', 'huddle', 'audit_finding', 'sensor_alert')),
    source_id            uuid,
    -- The routine occurrence the task belongs to (routines only).
    occurrence           timestamptz,
    completed_at         timestamptz,
    completed_by         uuid        REFERENCES users (id) ON DELETE SET NULL,
    evidence             jsonb,
    late                 boolean     NOT NULL DEFAULT false,
    missed_at            timestamptz,
    created_at           timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, assignee_position_id) REFERENCES positions (org_id, id) ON DELETE SET NULL (assignee_position_id),
    CHECK (assignee_user_id IS NULL OR assignee_position_id IS NULL),
    CHECK ((source = 'manual') = (source_id IS NULL))
);
-- Lists: a site's tasks by due time (and by status).
CREATE INDEX tasks_site_due_idx ON tasks (org_id, site_id, due_at, id);
CREATE INDEX tasks_site_status_due_idx ON tasks (org_id, site_id, status, due_at, id);
CREATE INDEX tasks_org_due_idx ON tasks (org_id, due_at, id);
CREATE INDEX tasks_user_idx ON tasks (org_id, assignee_user_id, due_at) WHERE assignee_user_id IS NOT NULL;
CREATE INDEX tasks_position_idx ON tasks (org_id, assignee_position_id, due_at) WHERE assignee_position_id IS NOT NULL;
-- The missed sweep.
CREATE INDEX tasks_open_missed_after_idx ON tasks (missed_after) WHERE status = 'open';
-- A routine's tasks (re-planning) and a huddle's.
CREATE INDEX tasks_source_idx ON tasks (org_id, source_id, due_at) WHERE source_id IS NOT NULL;
-- An alert makes at most one task.
CREATE UNIQUE INDEX tasks_sensor_alert_once_idx ON tasks (org_id, source_id) WHERE source = 'sensor_alert';

-- Photos attached to tasks as evidence, bytes included (checked as board images are).
CREATE TABLE task_photos (
    id           uuid PRIMARY KEY,
    org_id       uuid        NOT NULL,
    task_id      uuid        NOT NULL,
    content_type text        NOT NULL,
    size         integer     NOT NULL CHECK (size > 0),
    sha256       bytea       NOT NULL,
    filename     text,
    data         bytea       NOT NULL,
    created_by   uuid        REFERENCES users (id) ON DELETE SET NULL,
    created_at   timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, task_id) REFERENCES tasks (org_id, id) ON DELETE CASCADE
);
ALTER TABLE task_photos ALTER COLUMN data SET STORAGE EXTERNAL;
CREATE INDEX task_photos_task_idx ON task_photos (org_id, task_id, created_at, id);

-- A task as the API shows it: the site's zone (dueAt is written in it), the assignee's name and
-- the photos' ids, oldest first.
CREATE VIEW task_views AS
SELECT t.*, s.timezone,
       coalesce(u.name, p.name, '') AS assignee_name,
       coalesce((SELECT array_agg(ph.id ORDER BY ph.created_at, ph.id) FROM task_photos ph
                 WHERE ph.org_id = t.org_id AND ph.task_id = t.id), '{}')::uuid[] AS photo_ids
FROM tasks t
JOIN sites s ON s.org_id = t.org_id AND s.id = t.site_id
LEFT JOIN users u ON u.id = t.assignee_user_id
LEFT JOIN positions p ON p.org_id = t.org_id AND p.id = t.assignee_position_id;

-- +goose Down
DROP VIEW task_views;
DROP TABLE task_photos;
DROP TABLE tasks;
DROP TABLE huddles;
DROP TABLE routine_occurrences;
DROP TABLE routines;
DROP TABLE guides;
DROP TABLE position_members;
DROP TABLE positions;
