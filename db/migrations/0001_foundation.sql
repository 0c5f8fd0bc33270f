-- +goose Up
-- Users, organizations and memberships: the least the sign-in slice needs. Sites, invitations
-- and the rest of tenancy arrive in later migrations.
CREATE TABLE users (
    id            uuid PRIMARY KEY,
    email         text        NOT NULL,
    name          text        NOT NULL,
    password_hash text        NOT NULL,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL
);
-- Emails compare case-insensitively; the stored spelling is the user's own.
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE orgs (
    id            uuid PRIMARY KEY,
    name          text        NOT NULL,
    plan_tier     text        NOT NULL CHECK (plan_tier IN ('free', 'pro', 'enterprise')),
    -- While trial_ends_at is in the future the org is on pro; afterwards it falls to free
    -- unless plan_tier was upgraded. Computed at read time, so no job has to flip it.
    trial_ends_at timestamptz,
    brand_primary text        NOT NULL DEFAULT '#1F2937',
    brand_accent  text        NOT NULL DEFAULT '#F59E0B',
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL
);

CREATE TABLE memberships (
    org_id      uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    user_id     uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role        text        NOT NULL CHECK (role IN ('owner', 'admin', 'manager', 'inspector', 'viewer')),
    site_ids    uuid[]      NOT NULL DEFAULT '{}',
    credentials text[]      NOT NULL DEFAULT '{}',
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (org_id, user_id)
);
CREATE INDEX memberships_user_idx ON memberships (user_id);

-- Refresh tokens rotate: each refresh consumes one row and issues its child in the same family.
-- A consumed token presented again means it was copied, so the whole family is revoked.
CREATE TABLE refresh_tokens (
    id          uuid PRIMARY KEY,
    user_id     uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    family_id   uuid        NOT NULL,
    parent_id   uuid REFERENCES refresh_tokens (id) ON DELETE SET NULL,
    token_hash  bytea       NOT NULL UNIQUE,
    issued_at   timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    consumed_at timestamptz,
    revoked_at  timestamptz
);
CREATE INDEX refresh_tokens_family_idx ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_user_live_idx ON refresh_tokens (user_id)
    WHERE consumed_at IS NULL AND revoked_at IS NULL;

-- Sliding-window rate limits and sign-in locks live here so every replica sees the same counts.
CREATE TABLE rate_events (
    bucket text        NOT NULL,
    key    text        NOT NULL,
    at     timestamptz NOT NULL
);
CREATE INDEX rate_events_bucket_key_at_idx ON rate_events (bucket, key, at);

CREATE TABLE rate_locks (
    bucket       text        NOT NULL,
    key          text        NOT NULL,
    locked_until timestamptz NOT NULL,
    PRIMARY KEY (bucket, key)
);

-- +goose Down
DROP TABLE rate_locks;
DROP TABLE rate_events;
DROP TABLE refresh_tokens;
DROP TABLE memberships;
DROP TABLE orgs;
DROP TABLE users;
