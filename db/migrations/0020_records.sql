-- +goose Up
-- Operations records: what an operator shows a health inspector or a regional director.
-- Policies staff sign, inspections (from templates) whose failed items become findings and
-- findings tasks, audit engagements grouping inspections, guided walkthroughs, equipment and its
-- work orders, staff certifications, and generated reports.

-- A policy: its versions are drafts until published; the published one with the highest number
-- is current. site_ids empty: for every site.
CREATE TABLE policies (
    id              uuid PRIMARY KEY,
    org_id          uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    title           text        NOT NULL,
    site_ids        uuid[]      NOT NULL DEFAULT '{}',
    current_version integer,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    UNIQUE (org_id, id)
);
CREATE INDEX policies_org_title_idx ON policies (org_id, title);

CREATE TABLE policy_versions (
    org_id       uuid        NOT NULL,
    policy_id    uuid        NOT NULL,
    version      integer     NOT NULL CHECK (version >= 1),
    body         text        NOT NULL,
    summary      text        NOT NULL DEFAULT '',
    created_by   uuid        REFERENCES users (id) ON DELETE SET NULL,
    created_at   timestamptz NOT NULL,
    -- Set once: a published version never changes.
    published_at timestamptz,
    published_by uuid        REFERENCES users (id) ON DELETE SET NULL,
    PRIMARY KEY (policy_id, version),
    FOREIGN KEY (org_id, policy_id) REFERENCES policies (org_id, id) ON DELETE CASCADE
);

-- Who acknowledged which version: once per member and version.
CREATE TABLE policy_acknowledgements (
    org_id          uuid        NOT NULL,
    policy_id       uuid        NOT NULL,
    version         integer     NOT NULL,
    user_id         uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    acknowledged_at timestamptz NOT NULL,
    PRIMARY KEY (policy_id, version, user_id),
    FOREIGN KEY (org_id, policy_id) REFERENCES policies (org_id, id) ON DELETE CASCADE
);

-- Inspection templates: sections of items (JSON, as the API writes them).
CREATE TABLE inspection_templates (
    id         uuid PRIMARY KEY,
    org_id     uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    name         text        NOT NULL,
    pass_percent integer     NOT NULL DEFAULT 80 CHECK (pass_percent BETWEEN 0 AND 100),
    sections     jsonb       NOT NULL,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    UNIQUE (org_id, id)
);
CREATE INDEX inspection_templates_org_idx ON inspection_templates (org_id, name);

-- Audit engagements group inspections of some sites over a period; finalized, they and their
-- inspections are frozen and the engagement's report is kept.
CREATE TABLE engagements (
    id           uuid PRIMARY KEY,
    org_id       uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    name         text        NOT NULL,
    site_ids     uuid[]      NOT NULL,
    auditor      text        NOT NULL,
    period_from  date        NOT NULL,
    period_to    date        NOT NULL,
    status       text        NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'finalized')),
    report       jsonb,
    finalized_at timestamptz,
    finalized_by uuid        REFERENCES users (id) ON DELETE SET NULL,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    UNIQUE (org_id, id),
    CHECK (period_from <= period_to)
);
CREATE INDEX engagements_org_idx ON engagements (org_id, created_at DESC);

-- An inspection: a template's sections frozen at creation, answered, then completed (scored).
CREATE TABLE inspections (
    id                uuid PRIMARY KEY,
    org_id            uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    site_id           uuid        NOT NULL,
    template_id       uuid        NOT NULL,
    template_name     text        NOT NULL,
    pass_percent      integer     NOT NULL,
    sections          jsonb       NOT NULL,
    engagement_id     uuid,
    inspector_user_id uuid        REFERENCES users (id) ON DELETE SET NULL,
    scheduled_for     timestamptz NOT NULL,
    status            text        NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'in_progress', 'completed')),
    responses         jsonb       NOT NULL DEFAULT '{}',
    notes             text,
    score             numeric,
    max_score         numeric,
    percent           numeric,
    result            text CHECK (result IN ('pass', 'fail')),
    frozen            boolean     NOT NULL DEFAULT false,
    completed_at      timestamptz,
    completed_by      uuid        REFERENCES users (id) ON DELETE SET NULL,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, template_id) REFERENCES inspection_templates (org_id, id),
    FOREIGN KEY (org_id, engagement_id) REFERENCES engagements (org_id, id)
);
CREATE INDEX inspections_site_idx ON inspections (org_id, site_id, scheduled_for DESC);
CREATE INDEX inspections_engagement_idx ON inspections (org_id, engagement_id) WHERE engagement_id IS NOT NULL;

-- A finding: a failed item of a completed inspection; its corrective action is a task (made
-- through the tasks capability, source audit_finding, source_id the finding).
CREATE TABLE inspection_findings (
    id            uuid PRIMARY KEY,
    org_id        uuid        NOT NULL,
    inspection_id uuid        NOT NULL,
    site_id       uuid        NOT NULL,
    section       text        NOT NULL,
    item_key      text        NOT NULL,
    prompt        text        NOT NULL,
    critical      boolean     NOT NULL,
    note          text,
    task_id       uuid,
    created_at    timestamptz NOT NULL,
    UNIQUE (org_id, id),
    UNIQUE (inspection_id, item_key),
    FOREIGN KEY (org_id, inspection_id) REFERENCES inspections (org_id, id) ON DELETE CASCADE
);

-- Guided walkthroughs (opening, closing, line checks): ordered steps. site_ids empty: every site.
CREATE TABLE walkthroughs (
    id         uuid PRIMARY KEY,
    org_id     uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    name       text        NOT NULL,
    kind       text        NOT NULL CHECK (kind IN ('opening', 'closing', 'line_check', 'other')),
    steps      jsonb       NOT NULL,
    site_ids   uuid[]      NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    UNIQUE (org_id, id)
);
CREATE INDEX walkthroughs_org_idx ON walkthroughs (org_id, name);

CREATE TABLE walkthrough_runs (
    id             uuid PRIMARY KEY,
    org_id         uuid        NOT NULL,
    walkthrough_id uuid        NOT NULL,
    site_id        uuid        NOT NULL,
    steps          jsonb       NOT NULL,
    responses      jsonb       NOT NULL DEFAULT '{}',
    status         text        NOT NULL DEFAULT 'in_progress' CHECK (status IN ('in_progress', 'submitted')),
    started_by     uuid        REFERENCES users (id) ON DELETE SET NULL,
    started_at     timestamptz NOT NULL,
    submitted_by   uuid        REFERENCES users (id) ON DELETE SET NULL,
    submitted_at   timestamptz,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, walkthrough_id) REFERENCES walkthroughs (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE
);
CREATE INDEX walkthrough_runs_site_idx ON walkthrough_runs (org_id, site_id, started_at DESC);

-- Equipment at a site, optionally standing in one of the site's storage locations.
CREATE TABLE equipment (
    id          uuid PRIMARY KEY,
    org_id      uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    site_id     uuid        NOT NULL,
    name        text        NOT NULL,
    kind        text        NOT NULL,
    make        text,
    model       text,
    serial      text,
    location_id uuid,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, site_id, location_id) REFERENCES storage_locations (org_id, site_id, id) ON DELETE SET NULL (location_id)
);
CREATE INDEX equipment_site_idx ON equipment (org_id, site_id, name);

-- Equipment tags may now name their equipment (target_id) and stand at its site, as storage
-- location tags name their location. Label-only tags printed before stay valid.
ALTER TABLE tags DROP CONSTRAINT tags_target_check;
ALTER TABLE tags ADD CONSTRAINT tags_target_check CHECK (
    target_type = 'site'
    OR (target_type IN ('storage_location', 'equipment') AND target_id IS NOT NULL AND site_id IS NOT NULL)
    OR (target_id IS NULL AND label IS NOT NULL));

CREATE TABLE work_orders (
    id              uuid PRIMARY KEY,
    org_id          uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    site_id         uuid        NOT NULL,
    equipment_id    uuid        NOT NULL,
    title           text        NOT NULL,
    description     text        NOT NULL DEFAULT '',
    priority        text        NOT NULL CHECK (priority IN ('low', 'medium', 'high', 'critical')),
    status          text        NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'in_progress', 'resolved', 'cancelled')),
    resolution_note text,
    alert_id        uuid,
    created_by      uuid        REFERENCES users (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    started_at      timestamptz,
    closed_at       timestamptz,
    closed_by       uuid        REFERENCES users (id) ON DELETE SET NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, equipment_id) REFERENCES equipment (org_id, id) ON DELETE CASCADE,
    CHECK (status <> 'resolved' OR resolution_note IS NOT NULL)
);
CREATE INDEX work_orders_site_idx ON work_orders (org_id, site_id, created_at DESC);
-- One work order per alert, whoever asks first.
CREATE UNIQUE INDEX work_orders_alert_idx ON work_orders (org_id, alert_id) WHERE alert_id IS NOT NULL;

-- Staff certifications, held by a member at a site. warned_for / lapsed_for: the expiry date
-- whose 30-day and expiry alerts were opened, so each opens once per expiry date.
CREATE TABLE certifications (
    id          uuid PRIMARY KEY,
    org_id      uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    site_id     uuid        NOT NULL,
    user_id     uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind        text        NOT NULL CHECK (kind IN ('food_handler', 'food_manager', 'allergen', 'haccp', 'other')),
    number      text,
    issued_on   date        NOT NULL,
    expires_on  date        NOT NULL,
    warned_for  date,
    lapsed_for  date,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE,
    CHECK (issued_on <= expires_on)
);
CREATE INDEX certifications_site_idx ON certifications (org_id, site_id, expires_on);
-- The periodic sweep reads certifications by expiry.
CREATE INDEX certifications_expiry_idx ON certifications (expires_on);

-- Generated reports: the JSON kept as generated; the PDF is rendered from it on request.
CREATE TABLE reports (
    id           uuid PRIMARY KEY,
    org_id       uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    scope        text        NOT NULL CHECK (scope IN ('site', 'account')),
    site_id      uuid,
    kind         text        NOT NULL CHECK (kind IN ('operations')),
    period_from  date        NOT NULL,
    period_to    date        NOT NULL,
    content      jsonb       NOT NULL,
    created_by   uuid        REFERENCES users (id) ON DELETE SET NULL,
    created_at   timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE,
    CHECK ((scope = 'site') = (site_id IS NOT NULL))
);
CREATE INDEX reports_org_idx ON reports (org_id, created_at DESC, id DESC);

-- +goose Down
DROP TABLE reports;
DROP TABLE certifications;
DROP TABLE work_orders;
ALTER TABLE tags DROP CONSTRAINT tags_target_check;
UPDATE tags SET target_id = NULL WHERE target_type = 'equipment';
ALTER TABLE tags ADD CONSTRAINT tags_target_check CHECK (
    target_type = 'site'
    OR (target_type = 'storage_location' AND target_id IS NOT NULL AND site_id IS NOT NULL)
    OR (target_id IS NULL AND label IS NOT NULL));
DROP TABLE equipment;
DROP TABLE walkthrough_runs;
DROP TABLE walkthroughs;
DROP TABLE inspection_findings;
DROP TABLE inspections;
DROP TABLE engagements;
DROP TABLE inspection_templates;
DROP TABLE policy_acknowledgements;
DROP TABLE policy_versions;
DROP TABLE policies;
