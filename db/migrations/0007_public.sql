-- +goose Up
-- Printed tags: a short code that identifies a target for members of the organization. A code
-- is not a credential. equipment and storage_location tags describe their target by label
-- until those resources exist; target_id is then null.
CREATE TABLE tags (
    id          uuid PRIMARY KEY,
    org_id      uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    code        text        NOT NULL,
    target_type text        NOT NULL CHECK (target_type IN ('site', 'equipment', 'storage_location')),
    target_id   uuid,
    site_id     uuid,
    label       text,
    created_by  uuid        REFERENCES users (id) ON DELETE SET NULL,
    created_at  timestamptz NOT NULL,
    retired_at  timestamptz,
    UNIQUE (org_id, id),
    -- Unique across organizations, so the web link {web_url}/scan/{code} names one tag; never
    -- reused, retired or not.
    UNIQUE (code),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE,
    CHECK (target_type <> 'site' OR (target_id IS NOT NULL AND site_id = target_id)),
    CHECK (target_type = 'site' OR (target_id IS NULL AND label IS NOT NULL))
);
CREATE INDEX tags_org_idx ON tags (org_id, created_at);

-- Messages from the public contact form. Not a tenant table: org is what the sender typed.
CREATE TABLE support_inquiries (
    id          uuid PRIMARY KEY,
    name        text        NOT NULL,
    email       text        NOT NULL,
    org         text,
    topic       text        NOT NULL,
    message     text        NOT NULL,
    ip          text,
    received_at timestamptz NOT NULL,
    handled_at  timestamptz
);
CREATE INDEX support_inquiries_open_idx ON support_inquiries (received_at) WHERE handled_at IS NULL;

-- Capability tokens behind public links (/survey/{token}, /share/q|i|insp/{token}): 256-bit
-- random values kept as SHA-256 hashes. One live token per target and kind; reissuing revokes
-- the previous one.
CREATE TABLE capability_tokens (
    id         uuid PRIMARY KEY,
    org_id     uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    kind       text        NOT NULL CHECK (kind IN ('survey', 'quote', 'invoice', 'inspection')),
    target_id  uuid        NOT NULL,
    token_hash bytea       NOT NULL UNIQUE,
    created_by uuid        REFERENCES users (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz,
    revoked_at timestamptz,
    UNIQUE (org_id, id)
);
CREATE UNIQUE INDEX capability_tokens_live_idx ON capability_tokens (org_id, kind, target_id) WHERE revoked_at IS NULL;

-- +goose Down
DROP TABLE capability_tokens;
DROP TABLE support_inquiries;
DROP TABLE tags;
