-- +goose Up
-- Supply I: the inventory catalog, storage locations, the stock ledger with its materialized
-- balances and moving-average costs, lots with expiry, count sheets and waste logs.
--
-- Quantities are numeric in the item's base unit; costs are numeric cents per base unit; money
-- totals are bigint cents.

-- Where stock sits at a site: a dry store, a walk-in cooler, a freezer, a bar.
CREATE TABLE storage_locations (
    id          uuid PRIMARY KEY,
    org_id      uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    site_id     uuid        NOT NULL,
    name        text        NOT NULL,
    kind        text        NOT NULL CHECK (kind IN ('dry', 'cooler', 'freezer', 'bar', 'other')),
    min_temp_f  numeric,
    max_temp_f  numeric,
    active      boolean     NOT NULL DEFAULT true,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    UNIQUE (org_id, id),
    UNIQUE (org_id, site_id, id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE,
    CHECK (min_temp_f IS NULL OR max_temp_f IS NULL OR min_temp_f <= max_temp_f)
);
CREATE UNIQUE INDEX storage_locations_name_idx ON storage_locations (org_id, site_id, lower(name));

-- The organization-wide catalog of what is stocked. units holds the declared units
-- ([{"name": "case", "factor": "6"}], factors to the base unit as decimal strings); allergens
-- maps Allergen vocabulary terms to contains, free or unknown.
CREATE TABLE inventory_items (
    id              uuid PRIMARY KEY,
    org_id          uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    name            text        NOT NULL,
    sku             text,
    category        text        NOT NULL,
    base_unit       text        NOT NULL,
    units           jsonb       NOT NULL DEFAULT '[]',
    shelf_life_days integer CHECK (shelf_life_days > 0),
    allergens       jsonb       NOT NULL DEFAULT '{}',
    active          boolean     NOT NULL DEFAULT true,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    UNIQUE (org_id, id)
);
CREATE UNIQUE INDEX inventory_items_sku_idx ON inventory_items (org_id, lower(sku)) WHERE sku IS NOT NULL;
CREATE INDEX inventory_items_name_idx ON inventory_items (org_id, lower(name), id);

-- Par level and reorder point of an item at a site, in the item's base unit.
CREATE TABLE inventory_par_levels (
    org_id        uuid    NOT NULL,
    item_id       uuid    NOT NULL,
    site_id       uuid    NOT NULL,
    par           numeric NOT NULL CHECK (par >= 0),
    reorder_point numeric NOT NULL CHECK (reorder_point >= 0),
    PRIMARY KEY (org_id, item_id, site_id),
    FOREIGN KEY (org_id, item_id) REFERENCES inventory_items (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE
);

-- The moving average cost of an item at a site (cents per base unit, 12 places) and the site's
-- on-hand it was computed against. Every ledger write of the item at the site locks this row
-- first, so writes of one item at one site are serialized and writes of others run in parallel.
CREATE TABLE stock_costs (
    org_id     uuid        NOT NULL,
    item_id    uuid        NOT NULL,
    site_id    uuid        NOT NULL,
    on_hand    numeric     NOT NULL CHECK (on_hand >= 0),
    avg_cost   numeric     NOT NULL CHECK (avg_cost >= 0),
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (org_id, item_id, site_id),
    FOREIGN KEY (org_id, item_id) REFERENCES inventory_items (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE
);

-- A received lot of an item at a site; its code is unique per item and site.
CREATE TABLE lots (
    id          uuid PRIMARY KEY,
    org_id      uuid        NOT NULL,
    site_id     uuid        NOT NULL,
    item_id     uuid        NOT NULL,
    code        text        NOT NULL,
    expires_on  date,
    received_at timestamptz NOT NULL,
    UNIQUE (org_id, id),
    UNIQUE (org_id, site_id, item_id, code),
    FOREIGN KEY (org_id, item_id) REFERENCES inventory_items (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE
);
CREATE INDEX lots_expiry_idx ON lots (expires_on) WHERE expires_on IS NOT NULL;

-- On-hand per item × location × lot (lot_id NULL: stock received without a lot): the ledger's
-- sum, kept by the same transactions that append to it.
CREATE TABLE stock_balances (
    org_id      uuid        NOT NULL,
    site_id     uuid        NOT NULL,
    item_id     uuid        NOT NULL,
    location_id uuid        NOT NULL,
    lot_id      uuid,
    quantity    numeric     NOT NULL CHECK (quantity >= 0),
    updated_at  timestamptz NOT NULL,
    FOREIGN KEY (org_id, item_id) REFERENCES inventory_items (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, site_id, location_id) REFERENCES storage_locations (org_id, site_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, lot_id) REFERENCES lots (org_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX stock_balances_key_idx ON stock_balances (org_id, item_id, location_id, lot_id) NULLS NOT DISTINCT;
CREATE INDEX stock_balances_site_idx ON stock_balances (org_id, site_id, item_id, location_id);
CREATE INDEX stock_balances_lot_idx ON stock_balances (org_id, lot_id) WHERE lot_id IS NOT NULL;

-- The stock ledger: append-only (a trigger refuses UPDATE and DELETE; a correction is a new
-- row). quantity is signed, in the base unit; unit_cost is the cents per base unit the row was
-- valued at and avg_cost_after the item's site average after it, so history never changes.
CREATE TABLE stock_txns (
    id             uuid PRIMARY KEY,
    org_id         uuid        NOT NULL,
    site_id        uuid        NOT NULL,
    at             timestamptz NOT NULL,
    kind           text        NOT NULL CHECK (kind IN ('receipt', 'correction', 'transfer_in', 'transfer_out', 'issue',
                                                        'opening_balance', 'waste', 'count_variance')),
    item_id        uuid        NOT NULL,
    location_id    uuid        NOT NULL,
    lot_id         uuid,
    quantity       numeric     NOT NULL,
    unit_cost      numeric     NOT NULL,
    value_cents    bigint      NOT NULL,
    avg_cost_after numeric     NOT NULL,
    on_hand_after  numeric     NOT NULL,
    reason         text        NOT NULL,
    source_type    text        NOT NULL,
    source_id      uuid        NOT NULL,
    actor_id       uuid,
    FOREIGN KEY (org_id, item_id) REFERENCES inventory_items (org_id, id),
    FOREIGN KEY (org_id, site_id, location_id) REFERENCES storage_locations (org_id, site_id, id),
    FOREIGN KEY (org_id, lot_id) REFERENCES lots (org_id, id)
);
CREATE INDEX stock_txns_site_at_idx ON stock_txns (org_id, site_id, at DESC, id DESC);
CREATE INDEX stock_txns_item_idx ON stock_txns (org_id, item_id, location_id, at);

-- +goose StatementBegin
CREATE FUNCTION stock_txns_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the stock ledger is append-only: % refused', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER stock_txns_append_only BEFORE UPDATE OR DELETE ON stock_txns
    FOR EACH ROW EXECUTE FUNCTION stock_txns_append_only();
CREATE TRIGGER stock_txns_no_truncate BEFORE TRUNCATE ON stock_txns
    FOR EACH STATEMENT EXECUTE FUNCTION stock_txns_append_only();

-- Count sheets: what was on the shelves at counted_at. Closing posts count_variance rows.
CREATE TABLE counts (
    id           uuid PRIMARY KEY,
    org_id       uuid        NOT NULL,
    site_id      uuid        NOT NULL,
    name         text        NOT NULL,
    location_ids uuid[]      NOT NULL,
    counted_at   timestamptz NOT NULL,
    status       text        NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
    created_by   uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at   timestamptz NOT NULL,
    closed_at    timestamptz,
    closed_by    uuid REFERENCES users (id) ON DELETE SET NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE
);
CREATE INDEX counts_site_idx ON counts (org_id, site_id, counted_at DESC, id DESC);

-- A count line: the quantity counted of an item at a location (and lot). After the close it
-- carries what the close found.
CREATE TABLE count_lines (
    org_id        uuid        NOT NULL,
    count_id      uuid        NOT NULL,
    item_id       uuid        NOT NULL,
    location_id   uuid        NOT NULL,
    lot_id        uuid,
    quantity      numeric     NOT NULL CHECK (quantity >= 0),
    unit          text        NOT NULL,
    quantity_base numeric     NOT NULL CHECK (quantity_base >= 0),
    updated_at    timestamptz NOT NULL,
    expected      numeric,
    variance      numeric,
    value_cents   bigint,
    flagged       boolean,
    FOREIGN KEY (org_id, count_id) REFERENCES counts (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, item_id) REFERENCES inventory_items (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, location_id) REFERENCES storage_locations (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, lot_id) REFERENCES lots (org_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX count_lines_key_idx ON count_lines (org_id, count_id, item_id, location_id, lot_id) NULLS NOT DISTINCT;

-- Waste: stock thrown away, with why; each writes one waste ledger row per lot it takes from.
CREATE TABLE waste_logs (
    id            uuid PRIMARY KEY,
    org_id        uuid        NOT NULL,
    site_id       uuid        NOT NULL,
    location_id   uuid        NOT NULL,
    item_id       uuid        NOT NULL,
    lot_id        uuid,
    quantity      numeric     NOT NULL CHECK (quantity > 0),
    unit          text        NOT NULL,
    quantity_base numeric     NOT NULL,
    reason        text        NOT NULL CHECK (reason IN ('spoilage', 'expired', 'overproduction', 'trim', 'dropped',
                                                         'contaminated', 'returned', 'other')),
    note          text,
    value_cents   bigint      NOT NULL,
    created_by    uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at    timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, site_id, location_id) REFERENCES storage_locations (org_id, site_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, item_id) REFERENCES inventory_items (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, lot_id) REFERENCES lots (org_id, id) ON DELETE CASCADE
);
CREATE INDEX waste_logs_site_idx ON waste_logs (org_id, site_id, created_at DESC, id DESC);

-- An organization's supply settings: when a count line's variance is flagged (both over the
-- percentage of the book quantity and over the value).
CREATE TABLE supply_settings (
    org_id                 uuid PRIMARY KEY REFERENCES orgs (id) ON DELETE CASCADE,
    variance_flag_percent  numeric     NOT NULL DEFAULT 10 CHECK (variance_flag_percent >= 0),
    variance_flag_cents    bigint      NOT NULL DEFAULT 5000 CHECK (variance_flag_cents >= 0),
    updated_at             timestamptz NOT NULL
);

-- Tags of storage locations name the location by id (targetId), as site tags name their site,
-- and stand at its site. Tags printed before, describing a location by label only, stay valid.
ALTER TABLE tags DROP CONSTRAINT tags_check1;
ALTER TABLE tags ADD CONSTRAINT tags_target_check CHECK (
    target_type = 'site'
    OR (target_type = 'storage_location' AND target_id IS NOT NULL AND site_id IS NOT NULL)
    OR (target_id IS NULL AND label IS NOT NULL));

-- +goose Down
ALTER TABLE tags DROP CONSTRAINT tags_target_check;
DELETE FROM tags WHERE target_type = 'storage_location' AND target_id IS NOT NULL AND label IS NULL;
UPDATE tags SET target_id = NULL WHERE target_type = 'storage_location';
ALTER TABLE tags ADD CONSTRAINT tags_check1 CHECK (target_type = 'site' OR (target_id IS NULL AND label IS NOT NULL));
DROP TABLE supply_settings;
DROP TABLE waste_logs;
DROP TABLE count_lines;
DROP TABLE counts;
DROP TABLE stock_txns;
DROP FUNCTION stock_txns_append_only();
DROP TABLE stock_balances;
DROP TABLE lots;
DROP TABLE stock_costs;
DROP TABLE inventory_par_levels;
DROP TABLE inventory_items;
DROP TABLE storage_locations;
