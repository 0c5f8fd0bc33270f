-- +goose Up
-- Devices: screens and gateways registered at a site, paired with a short-lived code, then
-- authenticated by their own token. A device is paired while token_hash is set; revoking clears
-- it, so the token fails at once and the device stops counting against the plan's device cap.
CREATE TABLE devices (
    id           uuid PRIMARY KEY,
    org_id       uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    site_id      uuid        NOT NULL,
    name         text        NOT NULL,
    kind         text        NOT NULL CHECK (kind IN ('wallboard_boh', 'wallboard_foh', 'menu_board', 'tray_line', 'kiosk', 'sensor_gateway')),
    -- Normalized for the kind, every field present (internal/devices validates and fills it).
    config       jsonb       NOT NULL,
    -- What is cast to the screen ({type, ..., castAt}); NULL when nothing is.
    cast_content jsonb,
    token_hash   bytea UNIQUE,
    paired_at    timestamptz,
    -- Written at most once a minute per device, from its authenticated requests.
    last_seen_at timestamptz,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id),
    CHECK ((token_hash IS NULL) = (paired_at IS NULL))
);
CREATE INDEX devices_org_name_idx ON devices (org_id, name, id);
CREATE INDEX devices_site_idx ON devices (org_id, site_id);
-- The device cap counts paired devices.
CREATE INDEX devices_paired_idx ON devices (org_id) WHERE token_hash IS NOT NULL;

-- At most one live pairing code per device; minting again replaces it, claiming deletes it.
-- Codes are 6 characters of a 31-letter alphabet stored as SHA-256: unguessable enough for ten
-- minutes behind a per-IP claim limit, not meant to resist an offline search of a stolen table.
CREATE TABLE device_pairing_codes (
    device_id  uuid PRIMARY KEY,
    org_id     uuid        NOT NULL,
    code_hash  bytea       NOT NULL UNIQUE,
    created_by uuid        REFERENCES users (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    FOREIGN KEY (org_id, device_id) REFERENCES devices (org_id, id) ON DELETE CASCADE
);
CREATE INDEX device_pairing_codes_expiry_idx ON device_pairing_codes (expires_at);

-- Uploaded images, bytes included. A key's content never changes.
CREATE TABLE media (
    id           uuid PRIMARY KEY,
    org_id       uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    content_type text        NOT NULL,
    size         integer     NOT NULL CHECK (size > 0),
    sha256       bytea       NOT NULL,
    filename     text,
    data         bytea       NOT NULL,
    created_by   uuid        REFERENCES users (id) ON DELETE SET NULL,
    created_at   timestamptz NOT NULL,
    UNIQUE (org_id, id)
);
-- Images are compressed already: keep them out of line without trying to compress them again.
ALTER TABLE media ALTER COLUMN data SET STORAGE EXTERNAL;
CREATE INDEX media_org_created_idx ON media (org_id, created_at DESC, id DESC);

-- +goose Down
DROP TABLE media;
DROP TABLE device_pairing_codes;
DROP TABLE devices;
