-- Vendors.

-- name: ListVendors :many
SELECT * FROM vendors
WHERE org_id = @org_id
  AND (sqlc.narg(active)::boolean IS NULL OR active = sqlc.narg(active))
  AND (sqlc.narg(after_name)::text IS NULL OR (lower(name), id) > (sqlc.narg(after_name)::text, sqlc.narg(after_id)::uuid))
ORDER BY lower(name), id
LIMIT @lim;

-- name: GetVendor :one
SELECT * FROM vendors WHERE org_id = @org_id AND id = @id;

-- name: InsertVendor :one
INSERT INTO vendors (id, org_id, name, account_number, contact_name, contact_email, contact_phone, order_email,
                     lead_time_days, min_order_cents, order_days, active, created_at, updated_at)
VALUES (@id, @org_id, @name, @account_number, @contact_name, @contact_email, @contact_phone, @order_email,
        @lead_time_days, @min_order_cents, @order_days, @active, @now, @now)
ON CONFLICT DO NOTHING
RETURNING *;

-- name: UpdateVendor :one
UPDATE vendors SET name = @name, account_number = @account_number, contact_name = @contact_name,
    contact_email = @contact_email, contact_phone = @contact_phone, order_email = @order_email,
    lead_time_days = @lead_time_days, min_order_cents = @min_order_cents, order_days = @order_days,
    active = @active, updated_at = @now
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: VendorNameTaken :one
SELECT EXISTS (SELECT 1 FROM vendors WHERE org_id = @org_id AND lower(name) = lower(@name) AND id <> @id);

-- Vendor items.

-- name: ListVendorItems :many
SELECT * FROM vendor_items
WHERE org_id = @org_id AND vendor_id = @vendor_id
  AND (sqlc.narg(after_sku)::text IS NULL OR (lower(sku), id) > (sqlc.narg(after_sku)::text, sqlc.narg(after_id)::uuid))
ORDER BY lower(sku), id
LIMIT @lim;

-- name: AllVendorItems :many
SELECT * FROM vendor_items WHERE org_id = @org_id AND vendor_id = @vendor_id;

-- name: GetVendorItems :many
SELECT * FROM vendor_items WHERE org_id = @org_id AND id = ANY(@ids::uuid[]);

-- name: ClearPreferred :exec
UPDATE vendor_items SET preferred = false, updated_at = @now
WHERE org_id = @org_id AND item_id = ANY(@item_ids::uuid[]) AND preferred AND NOT (id = ANY(@keep::uuid[]));

-- name: InsertVendorItem :one
INSERT INTO vendor_items (id, org_id, vendor_id, item_id, sku, description, pack_size, pack_unit, price_cents,
                          preferred, active, created_at, updated_at)
VALUES (@id, @org_id, @vendor_id, @item_id, @sku, @description, @pack_size, @pack_unit, @price_cents,
        @preferred, @active, @now, @now)
ON CONFLICT DO NOTHING
RETURNING *;

-- name: UpsertVendorItems :execrows
-- The rows of an order-guide import, created or updated by SKU in one statement.
INSERT INTO vendor_items (id, org_id, vendor_id, item_id, sku, description, pack_size, pack_unit, price_cents,
                          preferred, active, created_at, updated_at)
SELECT u.id, @org_id, @vendor_id, u.item_id, u.sku, NULLIF(u.description, ''), u.pack_size, u.pack_unit, u.price_cents,
       false, true, @now, @now
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@item_ids::uuid[]) AS item_id, unnest(@skus::text[]) AS sku, unnest(@descriptions::text[]) AS description, unnest(@pack_sizes::numeric[]) AS pack_size, unnest(@pack_units::text[]) AS pack_unit, unnest(@prices::bigint[]) AS price_cents) AS u
ON CONFLICT (org_id, vendor_id, lower(sku)) DO UPDATE SET
    item_id = EXCLUDED.item_id, description = EXCLUDED.description, pack_size = EXCLUDED.pack_size,
    pack_unit = EXCLUDED.pack_unit, price_cents = EXCLUDED.price_cents, updated_at = EXCLUDED.updated_at;

-- name: MatchItemsByNameOrSku :many
-- Inventory items whose exact name or SKU (case-insensitively) is among keys, for guide rows.
SELECT id, name, sku FROM inventory_items
WHERE org_id = @org_id AND (lower(name) = ANY(@keys::text[]) OR lower(sku) = ANY(@keys::text[]));

-- Purchase orders.

-- name: InsertPurchaseOrder :one
INSERT INTO purchase_orders (id, org_id, site_id, vendor_id, deliver_on, status, note, requisition_id, order_list_id,
                             created_by, created_at, updated_at)
VALUES (@id, @org_id, @site_id, @vendor_id, @deliver_on, 'draft', @note, @requisition_id, @order_list_id,
        @created_by, @now, @now)
RETURNING *;

-- name: InsertPurchaseOrderLines :exec
INSERT INTO purchase_order_lines (id, org_id, po_id, position, vendor_item_id, item_id, sku, description, pack_size,
                                  pack_unit, packs, price_cents)
SELECT u.id, @org_id, @po_id, u.position, u.vendor_item_id, u.item_id, u.sku, NULLIF(u.description, ''), u.pack_size,
       u.pack_unit, u.packs, u.price_cents
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@positions::int[]) AS position, unnest(@vendor_item_ids::uuid[]) AS vendor_item_id, unnest(@item_ids::uuid[]) AS item_id, unnest(@skus::text[]) AS sku, unnest(@descriptions::text[]) AS description, unnest(@pack_sizes::numeric[]) AS pack_size, unnest(@pack_units::text[]) AS pack_unit, unnest(@packs::numeric[]) AS packs, unnest(@prices::bigint[]) AS price_cents) AS u;

-- name: GetPurchaseOrder :one
SELECT * FROM purchase_orders WHERE org_id = @org_id AND id = @id;

-- name: LockPurchaseOrder :one
SELECT * FROM purchase_orders WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: PurchaseOrderLines :many
SELECT * FROM purchase_order_lines WHERE org_id = @org_id AND po_id = ANY(@po_ids::uuid[]) ORDER BY po_id, position;

-- name: ListPurchaseOrders :many
SELECT * FROM purchase_orders
WHERE org_id = @org_id
  AND (sqlc.narg(site_id)::uuid IS NULL OR site_id = sqlc.narg(site_id))
  AND (sqlc.narg(site_ids)::uuid[] IS NULL OR site_id = ANY(sqlc.narg(site_ids)::uuid[]))
  AND (sqlc.narg(vendor_id)::uuid IS NULL OR vendor_id = sqlc.narg(vendor_id))
  AND (sqlc.narg(status)::text IS NULL OR status = sqlc.narg(status))
  AND (sqlc.narg(before_at)::timestamptz IS NULL OR (created_at, id) < (sqlc.narg(before_at)::timestamptz, sqlc.narg(before_id)::uuid))
ORDER BY created_at DESC, id DESC
LIMIT @lim;

-- name: SetPurchaseOrderStatus :one
UPDATE purchase_orders SET status = @status, updated_at = @now,
    submitted_at = CASE WHEN @status = 'submitted' THEN @now ELSE submitted_at END,
    received_at  = CASE WHEN @status = 'received' THEN @now ELSE received_at END,
    closed_at    = CASE WHEN @status = 'closed' THEN @now ELSE closed_at END,
    cancelled_at = CASE WHEN @status = 'cancelled' THEN @now ELSE cancelled_at END
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: ReceiveLines :exec
UPDATE purchase_order_lines l SET received_packs = l.received_packs + u.packs,
    invoice_price_cents = COALESCE(NULLIF(u.invoice_price, -1), l.invoice_price_cents)
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@packs::numeric[]) AS packs, unnest(@invoice_prices::bigint[]) AS invoice_price) AS u
WHERE l.org_id = @org_id AND l.id = u.id;

-- Requisitions.

-- name: InsertRequisition :one
INSERT INTO requisitions (id, org_id, site_id, from_location_id, to_location_id, needed_on, note, created_by, created_at, updated_at)
VALUES (@id, @org_id, @site_id, @from_location_id, @to_location_id, @needed_on, @note, @created_by, @now, @now)
RETURNING *;

-- name: InsertRequisitionLines :exec
INSERT INTO requisition_lines (id, org_id, requisition_id, position, item_id, quantity, unit, quantity_base)
SELECT u.id, @org_id, @requisition_id, u.position, u.item_id, u.quantity, u.unit, u.quantity_base
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@positions::int[]) AS position, unnest(@item_ids::uuid[]) AS item_id,
             unnest(@quantities::numeric[]) AS quantity, unnest(@units::text[]) AS unit, unnest(@bases::numeric[]) AS quantity_base) AS u;

-- name: GetRequisition :one
SELECT * FROM requisitions WHERE org_id = @org_id AND id = @id;

-- name: LockRequisition :one
SELECT * FROM requisitions WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: RequisitionLines :many
SELECT * FROM requisition_lines WHERE org_id = @org_id AND requisition_id = ANY(@requisition_ids::uuid[]) ORDER BY requisition_id, position;

-- name: RequisitionPurchaseOrders :many
SELECT requisition_id, id FROM purchase_orders WHERE org_id = @org_id AND requisition_id = ANY(@requisition_ids::uuid[]) ORDER BY created_at, id;

-- name: ListRequisitions :many
SELECT * FROM requisitions
WHERE org_id = @org_id
  AND (sqlc.narg(site_id)::uuid IS NULL OR site_id = sqlc.narg(site_id))
  AND (sqlc.narg(site_ids)::uuid[] IS NULL OR site_id = ANY(sqlc.narg(site_ids)::uuid[]))
  AND (sqlc.narg(status)::text IS NULL OR status = sqlc.narg(status))
  AND (sqlc.narg(before_at)::timestamptz IS NULL OR (created_at, id) < (sqlc.narg(before_at)::timestamptz, sqlc.narg(before_id)::uuid))
ORDER BY created_at DESC, id DESC
LIMIT @lim;

-- name: SetRequisitionStatus :one
UPDATE requisitions SET status = @status, updated_at = @now,
    submitted_at = CASE WHEN @status = 'submitted' THEN @now ELSE submitted_at END,
    approved_at  = CASE WHEN @status = 'approved' THEN @now ELSE approved_at END,
    approved_by  = CASE WHEN @status = 'approved' THEN sqlc.narg(actor)::uuid ELSE approved_by END,
    fulfilled_at = CASE WHEN @status = 'fulfilled' THEN @now ELSE fulfilled_at END,
    cancelled_at = CASE WHEN @status = 'cancelled' THEN @now ELSE cancelled_at END
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: FulfillLines :exec
UPDATE requisition_lines l SET fulfilled_base = l.fulfilled_base + u.base
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@bases::numeric[]) AS base) AS u
WHERE l.org_id = @org_id AND l.id = u.id;

-- name: PreferredVendorItems :many
-- The preferred, active vendor item of each item among item_ids, with its vendor active.
SELECT vi.* FROM vendor_items vi JOIN vendors v ON v.org_id = vi.org_id AND v.id = vi.vendor_id
WHERE vi.org_id = @org_id AND vi.item_id = ANY(@item_ids::uuid[]) AND vi.preferred AND vi.active AND v.active;

-- name: OnOrderLines :many
-- What is on order at the site: the outstanding packs of submitted and partially received orders.
SELECT l.item_id, l.pack_size, l.pack_unit, (l.packs - l.received_packs)::numeric AS outstanding
FROM purchase_orders po JOIN purchase_order_lines l ON l.org_id = po.org_id AND l.po_id = po.id
WHERE po.org_id = @org_id AND po.site_id = @site_id AND po.status IN ('submitted', 'partially_received') AND l.packs > l.received_packs;

-- name: RequisitionedBySite :many
-- What approved requisitions of the site still have to take, per item, in the base unit.
SELECT l.item_id, sum(l.quantity_base - l.fulfilled_base)::numeric AS outstanding
FROM requisitions r JOIN requisition_lines l ON l.org_id = r.org_id AND l.requisition_id = r.id
WHERE r.org_id = @org_id AND r.site_id = @site_id AND r.status IN ('approved', 'partially_fulfilled') AND l.quantity_base > l.fulfilled_base
GROUP BY l.item_id;

-- name: AllPreferredVendorItems :many
SELECT vi.*, v.name AS vendor_name FROM vendor_items vi JOIN vendors v ON v.org_id = vi.org_id AND v.id = vi.vendor_id
WHERE vi.org_id = @org_id AND vi.preferred AND vi.active AND v.active;

-- Order lists.

-- name: InsertOrderList :one
INSERT INTO order_lists (id, org_id, site_id, from_date, to_date, basis, split_by_vendor, created_by, created_at, updated_at)
VALUES (@id, @org_id, @site_id, @from_date, @to_date, @basis, @split_by_vendor, @created_by, @now, @now)
RETURNING *;

-- name: InsertOrderListLines :exec
INSERT INTO order_list_lines (id, org_id, order_list_id, position, item_id, needed, on_hand, par, on_order, requisitioned, quantity,
                              vendor_item_id, packs, unit_cost_cents, line_total_cents, include)
SELECT u.id, @org_id, @order_list_id, u.position, u.item_id, u.needed, u.on_hand, u.par, u.on_order, u.requisitioned, u.quantity,
       NULLIF(u.vendor_item_id, '00000000-0000-0000-0000-000000000000'::uuid), u.packs, u.unit_cost, u.line_total, u.include
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@positions::int[]) AS position, unnest(@item_ids::uuid[]) AS item_id,
             unnest(@neededs::numeric[]) AS needed, unnest(@on_hands::numeric[]) AS on_hand, unnest(@pars::numeric[]) AS par,
             unnest(@on_orders::numeric[]) AS on_order, unnest(@requisitioneds::numeric[]) AS requisitioned,
             unnest(@quantities::numeric[]) AS quantity, unnest(@vendor_item_ids::uuid[]) AS vendor_item_id,
             unnest(@packs::numeric[]) AS packs, unnest(@unit_costs::bigint[]) AS unit_cost,
             unnest(@line_totals::bigint[]) AS line_total, unnest(@includes::boolean[]) AS include) AS u;

-- name: GetOrderList :one
SELECT * FROM order_lists WHERE org_id = @org_id AND id = @id;

-- name: LockOrderList :one
SELECT * FROM order_lists WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: OrderListLines :many
SELECT l.*, vi.vendor_id AS vendor_id, vi.sku AS sku, vi.description AS description, vi.pack_size AS pack_size,
       vi.pack_unit AS pack_unit, vi.price_cents AS price_cents, v.name AS vendor_name
FROM order_list_lines l
LEFT JOIN vendor_items vi ON vi.org_id = l.org_id AND vi.id = l.vendor_item_id
LEFT JOIN vendors v ON v.org_id = vi.org_id AND v.id = vi.vendor_id
WHERE l.org_id = @org_id AND l.order_list_id = ANY(@order_list_ids::uuid[])
ORDER BY l.order_list_id, l.position;

-- name: OrderListPurchaseOrders :many
SELECT order_list_id, id FROM purchase_orders WHERE org_id = @org_id AND order_list_id = ANY(@order_list_ids::uuid[]) ORDER BY created_at, id;

-- name: ListOrderLists :many
SELECT * FROM order_lists
WHERE org_id = @org_id
  AND (sqlc.narg(site_id)::uuid IS NULL OR site_id = sqlc.narg(site_id))
  AND (sqlc.narg(site_ids)::uuid[] IS NULL OR site_id = ANY(sqlc.narg(site_ids)::uuid[]))
  AND (sqlc.narg(before_at)::timestamptz IS NULL OR (created_at, id) < (sqlc.narg(before_at)::timestamptz, sqlc.narg(before_id)::uuid))
ORDER BY created_at DESC, id DESC
LIMIT @lim;

-- name: UpdateOrderListLine :one
UPDATE order_list_lines SET quantity = @quantity, vendor_item_id = @vendor_item_id, packs = @packs, unit_cost_cents = @unit_cost_cents,
    line_total_cents = @line_total_cents, include = @include
WHERE org_id = @org_id AND order_list_id = @order_list_id AND id = @id
RETURNING *;

-- name: GetOrderListLine :one
SELECT * FROM order_list_lines WHERE org_id = @org_id AND order_list_id = @order_list_id AND id = @id;

-- name: TouchOrderList :exec
UPDATE order_lists SET updated_at = @now WHERE org_id = @org_id AND id = @id;

-- name: MarkOrderListOrdered :one
UPDATE order_lists SET status = 'ordered', ordered_at = @now::timestamptz, updated_at = @now::timestamptz WHERE org_id = @org_id AND id = @id RETURNING *;

-- name: NearestClosedCount :one
-- The site's closed count whose counted_at is nearest @at (earlier first on a tie), other than @not_id.
SELECT id, counted_at FROM counts
WHERE org_id = @org_id AND site_id = @site_id AND status = 'closed' AND id <> @not_id
ORDER BY abs(extract(epoch FROM counted_at - @at::timestamptz)), counted_at, id
LIMIT 1;

-- name: CountTotals :many
SELECT item_id, sum(quantity_base)::numeric AS quantity FROM count_lines
WHERE org_id = @org_id AND count_id = @count_id GROUP BY item_id;

-- name: SiteFlowsBetween :many
-- The site's receipt and transfer ledger rows after @after up to @upto.
SELECT id, item_id, kind, quantity FROM stock_txns
WHERE org_id = @org_id AND site_id = @site_id AND kind IN ('receipt', 'transfer_in', 'transfer_out')
  AND at > @after AND at <= @upto
ORDER BY at, id;

-- name: SiteUsageBetween :many
-- The usage recorded by the site's done production runs dated @from_date..@to_date.
SELECT u.run_id, u.item_id, u.quantity_base FROM production_usage u
JOIN production_runs r ON r.org_id = u.org_id AND r.id = u.run_id AND r.status = 'done'
WHERE u.org_id = @org_id AND u.site_id = @site_id AND u.date BETWEEN @from_date AND @to_date
ORDER BY u.date, u.run_id;

-- name: SiteItemWasteBetween :many
SELECT id, item_id, quantity_base FROM waste_logs
WHERE org_id = @org_id AND site_id = @site_id AND item_id IS NOT NULL AND created_at > @after AND created_at <= @upto
ORDER BY created_at, id;

-- name: SiteAvgCosts :many
SELECT item_id, avg_cost FROM stock_costs WHERE org_id = @org_id AND site_id = @site_id AND item_id = ANY (@item_ids::uuid[]);
