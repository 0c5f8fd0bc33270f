-- +goose Up
-- Supply II: vendors and how they sell inventory items, purchase orders and their receipts.
-- Packs are numeric; prices are bigint cents per pack; receipts post to the stock ledger through
-- the inventory package.

CREATE TABLE vendors (
    id              uuid PRIMARY KEY,
    org_id          uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    name            text        NOT NULL,
    account_number  text,
    contact_name    text,
    contact_email   text,
    contact_phone   text,
    order_email     text,
    lead_time_days  integer     NOT NULL DEFAULT 0 CHECK (lead_time_days >= 0),
    min_order_cents bigint      NOT NULL DEFAULT 0 CHECK (min_order_cents >= 0),
    order_days      text[]      NOT NULL DEFAULT '{}',
    active          boolean     NOT NULL DEFAULT true,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    UNIQUE (org_id, id)
);
CREATE UNIQUE INDEX vendors_name_idx ON vendors (org_id, lower(name));

-- How a vendor sells an inventory item: its SKU (unique per vendor), the pack and its price.
-- At most one vendor item per inventory item is preferred.
CREATE TABLE vendor_items (
    id          uuid PRIMARY KEY,
    org_id      uuid        NOT NULL,
    vendor_id   uuid        NOT NULL,
    item_id     uuid        NOT NULL,
    sku         text        NOT NULL,
    description text,
    pack_size   numeric     NOT NULL CHECK (pack_size > 0),
    pack_unit   text        NOT NULL,
    price_cents bigint      NOT NULL CHECK (price_cents >= 0),
    preferred   boolean     NOT NULL DEFAULT false,
    active      boolean     NOT NULL DEFAULT true,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, vendor_id) REFERENCES vendors (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, item_id) REFERENCES inventory_items (org_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX vendor_items_sku_idx ON vendor_items (org_id, vendor_id, lower(sku));
CREATE UNIQUE INDEX vendor_items_preferred_idx ON vendor_items (org_id, item_id) WHERE preferred;
CREATE INDEX vendor_items_item_idx ON vendor_items (org_id, item_id);

CREATE TABLE purchase_orders (
    id             uuid PRIMARY KEY,
    org_id         uuid        NOT NULL,
    site_id        uuid        NOT NULL,
    vendor_id      uuid        NOT NULL,
    deliver_on     date,
    status         text        NOT NULL DEFAULT 'draft'
                   CHECK (status IN ('draft', 'submitted', 'partially_received', 'received', 'closed', 'cancelled')),
    note           text,
    requisition_id uuid,
    order_list_id  uuid,
    created_by     uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    submitted_at   timestamptz,
    received_at    timestamptz,
    closed_at      timestamptz,
    cancelled_at   timestamptz,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, vendor_id) REFERENCES vendors (org_id, id)
);
CREATE INDEX purchase_orders_list_idx ON purchase_orders (org_id, created_at DESC, id DESC);
CREATE INDEX purchase_orders_site_idx ON purchase_orders (org_id, site_id, status);

-- A line: the vendor item and packs ordered, at the price agreed; what was received so far and
-- the invoice price when it differed.
CREATE TABLE purchase_order_lines (
    id                  uuid PRIMARY KEY,
    org_id              uuid        NOT NULL,
    po_id               uuid        NOT NULL,
    position            integer     NOT NULL,
    vendor_item_id      uuid        NOT NULL,
    item_id             uuid        NOT NULL,
    sku                 text        NOT NULL,
    description         text,
    pack_size           numeric     NOT NULL CHECK (pack_size > 0),
    pack_unit           text        NOT NULL,
    packs               numeric     NOT NULL CHECK (packs > 0),
    price_cents         bigint      NOT NULL CHECK (price_cents >= 0),
    received_packs      numeric     NOT NULL DEFAULT 0 CHECK (received_packs >= 0),
    invoice_price_cents bigint,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, po_id) REFERENCES purchase_orders (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, vendor_item_id) REFERENCES vendor_items (org_id, id),
    FOREIGN KEY (org_id, item_id) REFERENCES inventory_items (org_id, id)
);
CREATE INDEX purchase_order_lines_po_idx ON purchase_order_lines (org_id, po_id, position);

-- Requisitions: internal requests to move stock between locations of a site; once approved,
-- fulfilled by transfers (transfer_out FEFO, transfer_in at the same cost, lots carried over) or
-- turned into purchase orders.
CREATE TABLE requisitions (
    id               uuid PRIMARY KEY,
    org_id           uuid        NOT NULL,
    site_id          uuid        NOT NULL,
    from_location_id uuid        NOT NULL,
    to_location_id   uuid        NOT NULL,
    needed_on        date,
    note             text,
    status           text        NOT NULL DEFAULT 'draft'
                     CHECK (status IN ('draft', 'submitted', 'approved', 'partially_fulfilled', 'fulfilled', 'cancelled')),
    created_by       uuid REFERENCES users (id) ON DELETE SET NULL,
    approved_by      uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    submitted_at     timestamptz,
    approved_at      timestamptz,
    fulfilled_at     timestamptz,
    cancelled_at     timestamptz,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, site_id, from_location_id) REFERENCES storage_locations (org_id, site_id, id),
    FOREIGN KEY (org_id, site_id, to_location_id) REFERENCES storage_locations (org_id, site_id, id),
    CHECK (from_location_id <> to_location_id)
);
CREATE INDEX requisitions_list_idx ON requisitions (org_id, created_at DESC, id DESC);
CREATE INDEX requisitions_site_idx ON requisitions (org_id, site_id, status);

CREATE TABLE requisition_lines (
    id             uuid PRIMARY KEY,
    org_id         uuid        NOT NULL,
    requisition_id uuid        NOT NULL,
    position       integer     NOT NULL,
    item_id        uuid        NOT NULL,
    quantity       numeric     NOT NULL CHECK (quantity > 0),
    unit           text        NOT NULL,
    quantity_base  numeric     NOT NULL CHECK (quantity_base > 0),
    fulfilled_base numeric     NOT NULL DEFAULT 0 CHECK (fulfilled_base >= 0),
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, requisition_id) REFERENCES requisitions (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, item_id) REFERENCES inventory_items (org_id, id)
);
CREATE INDEX requisition_lines_req_idx ON requisition_lines (org_id, requisition_id, position);

ALTER TABLE purchase_orders ADD FOREIGN KEY (org_id, requisition_id) REFERENCES requisitions (org_id, id) ON DELETE SET NULL (requisition_id);

-- Order lists: what to buy for a site over a period, each line with the numbers it came from;
-- once ordered, read-only, with the purchase orders drafted from it.
CREATE TABLE order_lists (
    id              uuid PRIMARY KEY,
    org_id          uuid        NOT NULL,
    site_id         uuid        NOT NULL,
    from_date       date        NOT NULL,
    to_date         date        NOT NULL,
    basis           text        NOT NULL CHECK (basis IN ('par', 'forecast', 'both')),
    split_by_vendor boolean     NOT NULL,
    status          text        NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'ordered')),
    created_by      uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    ordered_at      timestamptz,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE,
    CHECK (from_date <= to_date)
);
CREATE INDEX order_lists_list_idx ON order_lists (org_id, created_at DESC, id DESC);

-- A line: needed, on hand, par and on order (base unit) as computed; the quantity to buy
-- (editable, base unit), the vendor item and its packs, costed at the moving average.
CREATE TABLE order_list_lines (
    id               uuid PRIMARY KEY,
    org_id           uuid        NOT NULL,
    order_list_id    uuid        NOT NULL,
    position         integer     NOT NULL,
    item_id          uuid        NOT NULL,
    needed           numeric     NOT NULL,
    on_hand          numeric     NOT NULL,
    par              numeric     NOT NULL,
    on_order         numeric     NOT NULL,
    requisitioned    numeric     NOT NULL,
    quantity         numeric     NOT NULL CHECK (quantity >= 0),
    vendor_item_id   uuid,
    packs            numeric     NOT NULL DEFAULT 0,
    unit_cost_cents  bigint      NOT NULL DEFAULT 0,
    line_total_cents bigint      NOT NULL DEFAULT 0,
    include          boolean     NOT NULL DEFAULT true,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, order_list_id) REFERENCES order_lists (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, item_id) REFERENCES inventory_items (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, vendor_item_id) REFERENCES vendor_items (org_id, id) ON DELETE SET NULL (vendor_item_id)
);
CREATE INDEX order_list_lines_list_idx ON order_list_lines (org_id, order_list_id, position);

ALTER TABLE purchase_orders ADD FOREIGN KEY (org_id, order_list_id) REFERENCES order_lists (org_id, id) ON DELETE SET NULL (order_list_id);

-- The over-receipt tolerance of the organization: a receipt taking a line over its ordered packs
-- by more than this percentage is refused.
ALTER TABLE supply_settings ADD COLUMN over_receipt_percent numeric NOT NULL DEFAULT 10 CHECK (over_receipt_percent >= 0);

-- +goose Down
ALTER TABLE supply_settings DROP COLUMN over_receipt_percent;
DROP TABLE purchase_order_lines;
DROP TABLE purchase_orders;
DROP TABLE order_list_lines;
DROP TABLE order_lists;
DROP TABLE requisition_lines;
DROP TABLE requisitions;
DROP TABLE vendor_items;
DROP TABLE vendors;
