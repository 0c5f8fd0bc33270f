-- +goose Up
-- Rows of tenant tables reference each other by (org_id, id), so a row of one organization can
-- never point at another's; UNIQUE (org_id, id) is what those composite keys reference.
ALTER TABLE orgs ADD CONSTRAINT orgs_plan_trial_check CHECK (trial_ends_at IS NULL OR plan_tier <> 'free');

CREATE TABLE sites (
    id         uuid PRIMARY KEY,
    org_id     uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    name       text        NOT NULL,
    timezone   text        NOT NULL,
    day_parts  jsonb       NOT NULL DEFAULT '[]',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    UNIQUE (org_id, id)
);
CREATE INDEX sites_org_name_idx ON sites (org_id, name);

CREATE TABLE invitations (
    id          uuid PRIMARY KEY,
    org_id      uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    email       text        NOT NULL,
    role        text        NOT NULL CHECK (role IN ('owner', 'admin', 'manager', 'inspector', 'viewer')),
    site_ids    uuid[]      NOT NULL DEFAULT '{}',
    credentials text[]      NOT NULL DEFAULT '{}',
    token_hash  bytea       NOT NULL UNIQUE,
    invited_by  uuid        REFERENCES users (id) ON DELETE SET NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    accepted_at timestamptz,
    accepted_by uuid        REFERENCES users (id) ON DELETE SET NULL,
    revoked_at  timestamptz,
    UNIQUE (org_id, id)
);
CREATE INDEX invitations_pending_idx ON invitations (org_id, lower(email))
    WHERE accepted_at IS NULL AND revoked_at IS NULL;

CREATE TABLE api_keys (
    id           uuid PRIMARY KEY,
    org_id       uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    name         text        NOT NULL,
    prefix       text        NOT NULL,
    key_hash     bytea       NOT NULL UNIQUE,
    created_by   uuid        REFERENCES users (id) ON DELETE SET NULL,
    created_at   timestamptz NOT NULL,
    last_used_at timestamptz,
    revoked_at   timestamptz,
    UNIQUE (org_id, id)
);
CREATE INDEX api_keys_org_idx ON api_keys (org_id, created_at DESC);

CREATE TABLE audit_log (
    id         uuid PRIMARY KEY,
    org_id     uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    at         timestamptz NOT NULL,
    actor_kind text        NOT NULL CHECK (actor_kind IN ('user', 'api_key', 'device', 'system')),
    actor_id   uuid,
    action     text        NOT NULL,
    target_id  uuid,
    ip         text,
    request_id text
);
CREATE INDEX audit_log_org_at_idx ON audit_log (org_id, at DESC, id DESC);
CREATE INDEX audit_log_org_actor_idx ON audit_log (org_id, actor_id, at DESC);

-- +goose Down
DROP TABLE audit_log;
DROP TABLE api_keys;
DROP TABLE invitations;
DROP TABLE sites;
ALTER TABLE orgs DROP CONSTRAINT orgs_plan_trial_check;
