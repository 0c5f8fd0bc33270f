-- Inventory: the item catalog, storage locations, the stock ledger and its balances, lots,
-- counts and waste (internal/inventory).

-- name: CreateInventoryItem :one
INSERT INTO inventory_items (id, org_id, name, sku, category, base_unit, units, shelf_life_days, allergens, active, created_at, updated_at)
VALUES (@id, @org_id, @name, @sku, @category, @base_unit, @units, @shelf_life_days, @allergens, @active, @now, @now)
RETURNING *;

-- name: UpdateInventoryItem :one
UPDATE inventory_items
SET name = @name, sku = @sku, category = @category, base_unit = @base_unit, units = @units,
    shelf_life_days = @shelf_life_days, allergens = @allergens, active = @active, updated_at = @now
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: GetInventoryItem :one
SELECT * FROM inventory_items WHERE org_id = @org_id AND id = @id;

-- name: GetInventoryItemForUpdate :one
SELECT * FROM inventory_items WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: GetInventoryItems :many
SELECT * FROM inventory_items WHERE org_id = @org_id AND id = ANY (@ids::uuid[]);

-- name: ListInventoryItems :many
-- By name, keyset-paged on (lower(name), id).
SELECT * FROM inventory_items
WHERE org_id = @org_id
  AND (sqlc.narg(q)::text IS NULL OR strpos(lower(name), lower(sqlc.narg(q))) > 0 OR strpos(lower(coalesce(sku, '')), lower(sqlc.narg(q))) > 0)
  AND (sqlc.narg(category)::text IS NULL OR lower(category) = lower(sqlc.narg(category)))
  AND (sqlc.narg(active)::boolean IS NULL OR active = sqlc.narg(active))
  AND (sqlc.narg(cursor_name)::text IS NULL OR (lower(name), id) > (sqlc.narg(cursor_name)::text, sqlc.narg(cursor_id)::uuid))
ORDER BY lower(name), id
LIMIT @max_rows;

-- name: ItemHasHistory :one
SELECT EXISTS (SELECT 1 FROM stock_txns WHERE org_id = @org_id AND item_id = @item_id)::boolean;

-- name: ParLevelsOf :many
SELECT * FROM inventory_par_levels WHERE org_id = @org_id AND item_id = ANY (@item_ids::uuid[]) ORDER BY item_id, site_id;

-- name: DeleteParLevels :exec
DELETE FROM inventory_par_levels WHERE org_id = @org_id AND item_id = @item_id;

-- name: InsertParLevel :exec
INSERT INTO inventory_par_levels (org_id, item_id, site_id, par, reorder_point)
VALUES (@org_id, @item_id, @site_id, @par, @reorder_point);

-- name: CostsOf :many
-- The moving-average cost and on-hand of items at each site where they were ever stocked.
SELECT * FROM stock_costs WHERE org_id = @org_id AND item_id = ANY (@item_ids::uuid[]) ORDER BY item_id, site_id;

-- name: CreateStorageLocation :one
INSERT INTO storage_locations (id, org_id, site_id, name, kind, min_temp_f, max_temp_f, active, created_at, updated_at)
VALUES (@id, @org_id, @site_id, @name, @kind, @min_temp_f, @max_temp_f, @active, @now, @now)
RETURNING *;

-- name: UpdateStorageLocation :one
UPDATE storage_locations
SET name = @name, kind = @kind, min_temp_f = @min_temp_f, max_temp_f = @max_temp_f, active = @active, updated_at = @now
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: GetStorageLocation :one
SELECT * FROM storage_locations WHERE org_id = @org_id AND id = @id;

-- name: GetStorageLocations :many
SELECT * FROM storage_locations WHERE org_id = @org_id AND id = ANY (@ids::uuid[]);

-- name: ListStorageLocations :many
-- scope empty means every site.
SELECT l.* FROM storage_locations l
JOIN sites s ON s.org_id = l.org_id AND s.id = l.site_id
WHERE l.org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR l.site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR l.site_id = sqlc.narg(site_id))
  AND (sqlc.narg(active)::boolean IS NULL OR l.active = sqlc.narg(active))
ORDER BY s.name, s.id, lower(l.name), l.id;

-- name: LocationBalances :many
-- Every bucket of an item at a location holding stock, in FEFO order: lots by earliest expiry,
-- then oldest receipt; lots without expiry after them; stock outside any lot last. Emptied
-- buckets are left out (every receipt makes a lot, so they pile up; a posting that adds to one
-- again upserts it).
SELECT b.lot_id, b.quantity, l.expires_on, l.received_at
FROM stock_balances b
LEFT JOIN lots l ON l.org_id = b.org_id AND l.id = b.lot_id
WHERE b.org_id = @org_id AND b.item_id = @item_id AND b.location_id = @location_id AND b.quantity > 0
ORDER BY (b.lot_id IS NULL), l.expires_on NULLS LAST, l.received_at, b.lot_id
FOR UPDATE OF b;

-- name: GetLots :many
SELECT * FROM lots WHERE org_id = @org_id AND id = ANY (@ids::uuid[]);

-- name: FindLot :one
SELECT * FROM lots WHERE org_id = @org_id AND site_id = @site_id AND item_id = @item_id AND code = @code;

-- name: CreateLot :one
INSERT INTO lots (id, org_id, site_id, item_id, code, expires_on, received_at)
VALUES (@id, @org_id, @site_id, @item_id, @code, @expires_on, @now)
ON CONFLICT (org_id, site_id, item_id, code) DO NOTHING
RETURNING *;

-- name: StockItemsPage :many
-- The items a page of GET /stock walks, in name order from the cursor's item on (inclusive:
-- the cursor's item may have locations left). Driven by inventory_items_name_idx, so a page
-- reads a page's worth of items, never the catalog.
SELECT id, name, base_unit, lower(name)::text AS sort_name FROM inventory_items
WHERE org_id = @org_id
  AND (sqlc.narg(item_id)::uuid IS NULL OR id = sqlc.narg(item_id))
  AND (sqlc.narg(cursor_name)::text IS NULL OR (lower(name), id) >= (sqlc.narg(cursor_name)::text, sqlc.narg(cursor_item)::uuid))
ORDER BY lower(name), id
LIMIT @max_rows;

-- name: StockOfItems :many
-- On-hand per item × location of the given items (with their lots), their average cost and
-- par level at the location's site. scope empty means every site. Each lookup is driven by an
-- item id (LATERAL), so the plan stays on the indexes before any statistics exist.
SELECT x.item_id::uuid AS item_id, b.site_id, b.location_id, sl.name AS location_name, b.quantity::numeric AS quantity, b.lots::jsonb AS lots,
       coalesce(c.avg_cost, 0)::numeric AS avg_cost, coalesce(c.on_hand, 0)::numeric AS site_on_hand,
       -- -1: no par level at the site.
       coalesce(p.par, -1)::numeric AS par, coalesce(p.reorder_point, -1)::numeric AS reorder_point
FROM unnest(@item_ids::uuid[]) AS x(item_id)
CROSS JOIN LATERAL (
    SELECT sb.site_id, sb.location_id, sum(sb.quantity) AS quantity,
           coalesce(jsonb_agg(jsonb_build_object('lotId', lo.id, 'code', lo.code, 'expiresOn', lo.expires_on, 'quantity', sb.quantity::text)
                              ORDER BY lo.expires_on NULLS LAST, lo.received_at, lo.id)
                    FILTER (WHERE sb.lot_id IS NOT NULL AND sb.quantity > 0), '[]') AS lots
    FROM stock_balances sb
    LEFT JOIN lots lo ON lo.id = sb.lot_id
    WHERE sb.org_id = @org_id AND sb.item_id = x.item_id
      AND (sqlc.narg(site_id)::uuid IS NULL OR sb.site_id = sqlc.narg(site_id))
      AND (cardinality(@scope::uuid[]) = 0 OR sb.site_id = ANY (@scope::uuid[]))
      AND (sqlc.narg(location_id)::uuid IS NULL OR sb.location_id = sqlc.narg(location_id))
    GROUP BY sb.site_id, sb.location_id
) b
JOIN storage_locations sl ON sl.org_id = @org_id AND sl.id = b.location_id
LEFT JOIN LATERAL (SELECT sc.avg_cost, sc.on_hand FROM stock_costs sc WHERE sc.org_id = @org_id AND sc.item_id = x.item_id AND sc.site_id = b.site_id) c ON true
LEFT JOIN LATERAL (SELECT pl.par, pl.reorder_point FROM inventory_par_levels pl WHERE pl.org_id = @org_id AND pl.item_id = x.item_id AND pl.site_id = b.site_id) p ON true;

-- name: ListStockTxns :many
-- The ledger, newest first, keyset-paged on (at, id). scope empty means every site.
SELECT sqlc.embed(t), i.base_unit FROM stock_txns t
JOIN inventory_items i ON i.org_id = t.org_id AND i.id = t.item_id
WHERE t.org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR t.site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR t.site_id = sqlc.narg(site_id))
  AND (sqlc.narg(item_id)::uuid IS NULL OR t.item_id = sqlc.narg(item_id))
  AND (sqlc.narg(location_id)::uuid IS NULL OR t.location_id = sqlc.narg(location_id))
  AND (sqlc.narg(kind)::text IS NULL OR t.kind = sqlc.narg(kind))
  AND (sqlc.narg(from_at)::timestamptz IS NULL OR t.at >= sqlc.narg(from_at))
  AND (sqlc.narg(to_at)::timestamptz IS NULL OR t.at < sqlc.narg(to_at))
  AND (sqlc.narg(cursor_at)::timestamptz IS NULL OR (t.at, t.id) < (sqlc.narg(cursor_at)::timestamptz, sqlc.narg(cursor_id)::uuid))
ORDER BY t.at DESC, t.id DESC
LIMIT @max_rows;

-- name: ListLots :many
-- Lots by earliest expiry (none last), then receipt, keyset-paged; with their on-hand per
-- location. scope empty means every site.
SELECT lo.*, i.base_unit, coalesce(sum(b.quantity), 0)::numeric AS on_hand,
       coalesce(jsonb_agg(jsonb_build_object('locationId', b.location_id, 'quantity', b.quantity::text) ORDER BY b.location_id)
                FILTER (WHERE b.quantity > 0), '[]')::jsonb AS locations
FROM lots lo
JOIN inventory_items i ON i.org_id = lo.org_id AND i.id = lo.item_id
LEFT JOIN stock_balances b ON b.org_id = lo.org_id AND b.lot_id = lo.id
WHERE lo.org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR lo.site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR lo.site_id = sqlc.narg(site_id))
  AND (sqlc.narg(item_id)::uuid IS NULL OR lo.item_id = sqlc.narg(item_id))
  AND (sqlc.narg(expires_before)::date IS NULL OR lo.expires_on < sqlc.narg(expires_before))
  AND (sqlc.narg(cursor_expiry)::date IS NULL
       OR (coalesce(lo.expires_on, 'infinity'::date), lo.received_at, lo.id) > (sqlc.narg(cursor_expiry)::date, sqlc.narg(cursor_received)::timestamptz, sqlc.narg(cursor_id)::uuid))
GROUP BY lo.org_id, lo.id, i.base_unit
HAVING @include_empty::boolean OR coalesce(sum(b.quantity), 0) > 0
ORDER BY coalesce(lo.expires_on, 'infinity'::date), lo.received_at, lo.id
LIMIT @max_rows;

-- name: CreateCount :one
INSERT INTO counts (id, org_id, site_id, name, location_ids, counted_at, created_by, created_at)
VALUES (@id, @org_id, @site_id, @name, @location_ids, @counted_at, @created_by, @now)
RETURNING *;

-- name: GetCount :one
SELECT * FROM counts WHERE org_id = @org_id AND id = @id;

-- name: GetCountForUpdate :one
SELECT * FROM counts WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: ListCounts :many
-- Newest countedAt first, keyset-paged on (counted_at, id). scope empty means every site.
SELECT * FROM counts
WHERE org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR site_id = sqlc.narg(site_id))
  AND (sqlc.narg(status)::text IS NULL OR status = sqlc.narg(status))
  AND (sqlc.narg(cursor_at)::timestamptz IS NULL OR (counted_at, id) < (sqlc.narg(cursor_at)::timestamptz, sqlc.narg(cursor_id)::uuid))
ORDER BY counted_at DESC, id DESC
LIMIT @max_rows;

-- name: CloseCount :one
UPDATE counts SET status = 'closed', closed_at = @now, closed_by = @closed_by
WHERE org_id = @org_id AND id = @id AND status = 'open'
RETURNING *;

-- name: CountLinesOf :many
SELECT l.*, i.base_unit FROM count_lines l
JOIN inventory_items i ON i.org_id = l.org_id AND i.id = l.item_id
WHERE l.org_id = @org_id AND l.count_id = ANY (@count_ids::uuid[])
ORDER BY l.count_id, lower(i.name), l.item_id, l.location_id, l.lot_id NULLS FIRST;

-- name: UpsertCountLine :exec
INSERT INTO count_lines (org_id, count_id, item_id, location_id, lot_id, quantity, unit, quantity_base, updated_at)
VALUES (@org_id, @count_id, @item_id, @location_id, @lot_id, @quantity, @unit, @quantity_base, @now)
ON CONFLICT (org_id, count_id, item_id, location_id, lot_id) DO UPDATE
SET quantity = excluded.quantity, unit = excluded.unit, quantity_base = excluded.quantity_base, updated_at = excluded.updated_at;

-- name: DeleteCountLine :exec
DELETE FROM count_lines
WHERE org_id = @org_id AND count_id = @count_id AND item_id = @item_id AND location_id = @location_id
  AND lot_id IS NOT DISTINCT FROM sqlc.narg(lot_id)::uuid;

-- name: SetCountLineResult :exec
UPDATE count_lines SET expected = @expected, variance = @variance, value_cents = @value_cents, flagged = @flagged
WHERE org_id = @org_id AND count_id = @count_id AND item_id = @item_id AND location_id = @location_id
  AND lot_id IS NOT DISTINCT FROM sqlc.narg(lot_id)::uuid;

-- name: BookOfLot :one
-- The ledger's quantity of an item at a location in a lot, up to and including @at.
SELECT coalesce(sum(quantity), 0)::numeric FROM stock_txns
WHERE org_id = @org_id AND item_id = @item_id AND location_id = @location_id AND lot_id = @lot_id AND at <= @at;

-- name: BookExceptLots :one
-- The ledger's quantity of an item at a location outside the lots @excluded, up to and
-- including @at.
SELECT coalesce(sum(quantity), 0)::numeric FROM stock_txns
WHERE org_id = @org_id AND item_id = @item_id AND location_id = @location_id AND at <= @at
  AND (lot_id IS NULL OR NOT (lot_id = ANY (@excluded::uuid[])));

-- name: GetSupplySettings :one
SELECT coalesce(s.variance_flag_percent, 10)::numeric AS variance_flag_percent,
       coalesce(s.variance_flag_cents, 5000)::bigint AS variance_flag_cents,
       coalesce(s.over_receipt_percent, 10)::numeric AS over_receipt_percent
FROM (SELECT 1) one
LEFT JOIN supply_settings s ON s.org_id = @org_id::uuid;

-- name: UpsertSupplySettings :one
-- over_receipt_percent NULL keeps the one set (10 at first).
INSERT INTO supply_settings (org_id, variance_flag_percent, variance_flag_cents, over_receipt_percent, updated_at)
VALUES (@org_id, @variance_flag_percent, @variance_flag_cents, coalesce(sqlc.narg(over_receipt_percent)::numeric, 10), @now)
ON CONFLICT (org_id) DO UPDATE
SET variance_flag_percent = excluded.variance_flag_percent, variance_flag_cents = excluded.variance_flag_cents,
    over_receipt_percent = coalesce(sqlc.narg(over_receipt_percent)::numeric, supply_settings.over_receipt_percent),
    updated_at = excluded.updated_at
RETURNING over_receipt_percent;

-- name: CreateWasteLog :one
INSERT INTO waste_logs (id, org_id, site_id, location_id, item_id, lot_id, quantity, unit, quantity_base, reason, note, value_cents, created_by, created_at)
VALUES (@id, @org_id, @site_id, @location_id, @item_id, @lot_id, @quantity, @unit, @quantity_base, @reason, @note, @value_cents, @created_by, @now)
RETURNING *;

-- name: CreateRunWasteLog :one
-- A production run's output thrown away (no item, location or ledger row; see 0023).
INSERT INTO waste_logs (id, org_id, site_id, run_id, recipe_name, quantity, unit, quantity_base, reason, note, value_cents, created_by, created_at)
VALUES (@id, @org_id, @site_id, @run_id, @recipe_name, @quantity, @unit, @quantity, @reason, @note, @value_cents, @created_by, @now)
RETURNING *;

-- name: GetWasteLog :one
-- A run's waste has no item: its quantity is already in its own (standard) unit.
SELECT sqlc.embed(w), coalesce(i.base_unit, w.unit)::text AS base_unit
FROM waste_logs w
LEFT JOIN inventory_items i ON i.org_id = w.org_id AND i.id = w.item_id
WHERE w.org_id = @org_id AND w.id = @id;

-- name: ListWasteLogs :many
-- Newest first, keyset-paged on (created_at, id). scope empty means every site.
SELECT sqlc.embed(w), coalesce(i.base_unit, w.unit)::text AS base_unit
FROM waste_logs w
LEFT JOIN inventory_items i ON i.org_id = w.org_id AND i.id = w.item_id
WHERE w.org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR w.site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(run_id)::uuid IS NULL OR w.run_id = sqlc.narg(run_id))
  AND (sqlc.narg(site_id)::uuid IS NULL OR w.site_id = sqlc.narg(site_id))
  AND (sqlc.narg(item_id)::uuid IS NULL OR w.item_id = sqlc.narg(item_id))
  AND (sqlc.narg(reason)::text IS NULL OR w.reason = sqlc.narg(reason))
  AND (sqlc.narg(from_at)::timestamptz IS NULL OR w.created_at >= sqlc.narg(from_at))
  AND (sqlc.narg(to_at)::timestamptz IS NULL OR w.created_at < sqlc.narg(to_at))
  AND (sqlc.narg(cursor_at)::timestamptz IS NULL OR (w.created_at, w.id) < (sqlc.narg(cursor_at)::timestamptz, sqlc.narg(cursor_id)::uuid))
ORDER BY w.created_at DESC, w.id DESC
LIMIT @max_rows;

-- name: ExpiringLots :many
-- Lots holding stock that expire within @days of their site's local today, about which no
-- lot_expiring alert was ever opened.
SELECT lo.id, lo.org_id, lo.site_id, lo.code, lo.expires_on, i.name AS item_name, i.base_unit,
       (SELECT coalesce(sum(b.quantity), 0) FROM stock_balances b WHERE b.org_id = lo.org_id AND b.lot_id = lo.id)::numeric AS on_hand
FROM lots lo
JOIN sites s ON s.org_id = lo.org_id AND s.id = lo.site_id
JOIN inventory_items i ON i.org_id = lo.org_id AND i.id = lo.item_id
WHERE lo.expires_on IS NOT NULL
  AND lo.expires_on <= (timezone(s.timezone, sqlc.arg(now)::timestamptz)::date + sqlc.arg(days)::int)
  AND EXISTS (SELECT 1 FROM stock_balances b WHERE b.org_id = lo.org_id AND b.lot_id = lo.id AND b.quantity > 0)
  AND NOT EXISTS (SELECT 1 FROM alerts a WHERE a.org_id = lo.org_id AND a.kind = 'lot_expiring' AND a.subject_id = lo.id)
ORDER BY lo.org_id, lo.expires_on
LIMIT @max_rows;

-- name: EmptiedExpiringLotAlerts :many
-- Open lot_expiring alerts whose lot holds nothing any more.
SELECT a.org_id, a.subject_id FROM alerts a
WHERE a.kind = 'lot_expiring' AND a.resolved_at IS NULL
  AND NOT EXISTS (SELECT 1 FROM stock_balances b WHERE b.org_id = a.org_id AND b.lot_id = a.subject_id AND b.quantity > 0)
LIMIT @max_rows;

-- name: WasteTxns :many
-- The ledger rows of waste logs.
SELECT source_id, id FROM stock_txns
WHERE org_id = @org_id AND source_type = 'waste_log' AND source_id = ANY (@waste_ids::uuid[])
ORDER BY source_id, id;

-- name: FlushPosting :one
-- Writes a posting in one statement: the net change of each bucket (takes where stock leaves,
-- adds where it arrives), the ledger rows (each with its own source and actor: one posting may
-- carry several requests' adjustments) and each item's site on-hand and average. The poster
-- holds the items' cost-row locks and has checked every take against the locked balances; the
-- take guard (quantity >= q) and the balances' CHECK are the backstop. Nullable ids travel as the
-- nil uuid.
WITH taken AS (
    UPDATE stock_balances b SET quantity = b.quantity - d.q, updated_at = @now
    FROM (SELECT unnest(@take_items::uuid[]) AS item_id, unnest(@take_locations::uuid[]) AS location_id, unnest(@take_lots::uuid[]) AS lot_id, unnest(@take_qty::numeric[]) AS q) AS d
    WHERE b.org_id = @org_id AND b.item_id = ANY (@take_items::uuid[]) AND b.item_id = d.item_id AND b.location_id = d.location_id
      AND b.lot_id IS NOT DISTINCT FROM nullif(d.lot_id, '00000000-0000-0000-0000-000000000000'::uuid)
      AND b.quantity >= d.q
    RETURNING 1
), added AS (
    INSERT INTO stock_balances (org_id, site_id, item_id, location_id, lot_id, quantity, updated_at)
    SELECT @org_id, @site_id, d.item_id, d.location_id, nullif(d.lot_id, '00000000-0000-0000-0000-000000000000'::uuid), d.q, @now
    FROM (SELECT unnest(@add_items::uuid[]) AS item_id, unnest(@add_locations::uuid[]) AS location_id, unnest(@add_lots::uuid[]) AS lot_id, unnest(@add_qty::numeric[]) AS q) AS d
    ON CONFLICT (org_id, item_id, location_id, lot_id) DO UPDATE
    SET quantity = stock_balances.quantity + excluded.quantity, updated_at = excluded.updated_at
    RETURNING 1
), txns AS (
    INSERT INTO stock_txns (id, org_id, site_id, at, kind, item_id, location_id, lot_id, quantity, unit_cost, value_cents,
                            avg_cost_after, on_hand_after, reason, source_type, source_id, actor_id)
    SELECT t.id, @org_id, @site_id, @now, t.kind, t.item_id, t.location_id, nullif(t.lot_id, '00000000-0000-0000-0000-000000000000'::uuid),
           t.quantity, t.unit_cost, t.value_cents, t.avg_cost_after, t.on_hand_after, t.reason, t.source_type, t.source_id,
           nullif(t.actor_id, '00000000-0000-0000-0000-000000000000'::uuid)
    FROM (SELECT unnest(@txn_ids::uuid[]) AS id, unnest(@txn_kinds::text[]) AS kind, unnest(@txn_items::uuid[]) AS item_id, unnest(@txn_locations::uuid[]) AS location_id, unnest(@txn_lots::uuid[]) AS lot_id, unnest(@txn_qty::numeric[]) AS quantity, unnest(@txn_unit_costs::numeric[]) AS unit_cost, unnest(@txn_values::bigint[]) AS value_cents, unnest(@txn_avgs::numeric[]) AS avg_cost_after, unnest(@txn_on_hands::numeric[]) AS on_hand_after, unnest(@txn_reasons::text[]) AS reason,
                 unnest(@txn_source_types::text[]) AS source_type, unnest(@txn_source_ids::uuid[]) AS source_id, unnest(@txn_actors::uuid[]) AS actor_id) AS t
    RETURNING 1
), costs AS (
    -- An upsert, though every row exists (locked by the poster): the conflict check finds each
    -- row through the key, a lookup no estimate can turn into a scan. The UPDATE … FROM join it
    -- replaces was planned, on a database without statistics, as a scan of every cost row of
    -- the site for each posting of more than one item.
    INSERT INTO stock_costs (org_id, item_id, site_id, on_hand, avg_cost, updated_at)
    SELECT @org_id, d.item_id, @site_id, d.on_hand, d.avg_cost, @now
    FROM (SELECT unnest(@cost_items::uuid[]) AS item_id, unnest(@cost_on_hand::numeric[]) AS on_hand, unnest(@cost_avg::numeric[]) AS avg_cost) AS d
    ON CONFLICT (org_id, item_id, site_id) DO UPDATE
    SET on_hand = excluded.on_hand, avg_cost = excluded.avg_cost, updated_at = excluded.updated_at
    RETURNING 1
)
SELECT (SELECT count(*) FROM taken)::int AS taken, (SELECT count(*) FROM added)::int AS added,
       (SELECT count(*) FROM txns)::int AS txns, (SELECT count(*) FROM costs)::int AS costs;

-- name: ParStockOfSite :many
-- Each active item with a par level at the site: its par, reorder point, units, average cost,
-- and what is on hand and available there (not in a lot expired before @today). Driven by the
-- par levels of the site, each item's balances looked up by its id (LATERAL).
SELECT i.id, i.name, i.base_unit, i.units, i.shelf_life_days, i.sku, pl.par, pl.reorder_point,
       coalesce((SELECT sc.avg_cost FROM stock_costs sc WHERE sc.org_id = pl.org_id AND sc.item_id = pl.item_id AND sc.site_id = pl.site_id), 0)::numeric AS avg_cost,
       coalesce(b.available, 0)::numeric AS available
FROM inventory_par_levels pl
JOIN inventory_items i ON i.org_id = pl.org_id AND i.id = pl.item_id AND i.active
LEFT JOIN LATERAL (
    SELECT sum(sb.quantity) AS available FROM stock_balances sb
    LEFT JOIN lots lo ON lo.org_id = sb.org_id AND lo.id = sb.lot_id
    WHERE sb.org_id = pl.org_id AND sb.item_id = pl.item_id AND sb.site_id = pl.site_id
      AND (lo.expires_on IS NULL OR lo.expires_on >= @today::date)
) b ON true
WHERE pl.org_id = @org_id AND pl.site_id = @site_id
ORDER BY lower(i.name), i.id;

-- name: ItemStockOfSite :many
-- ParStockOfSite for the active items of @ids (par and reorder point 0 where the site has none):
-- the items a forecast needs.
SELECT i.id, i.name, i.base_unit, i.units, i.shelf_life_days, i.sku,
       coalesce(pl.par, 0)::numeric AS par, coalesce(pl.reorder_point, 0)::numeric AS reorder_point,
       coalesce((SELECT sc.avg_cost FROM stock_costs sc WHERE sc.org_id = i.org_id AND sc.item_id = i.id AND sc.site_id = @site_id), 0)::numeric AS avg_cost,
       coalesce(b.available, 0)::numeric AS available
FROM inventory_items i
LEFT JOIN inventory_par_levels pl ON pl.org_id = i.org_id AND pl.item_id = i.id AND pl.site_id = @site_id
LEFT JOIN LATERAL (
    SELECT sum(sb.quantity) AS available FROM stock_balances sb
    LEFT JOIN lots lo ON lo.org_id = sb.org_id AND lo.id = sb.lot_id
    WHERE sb.org_id = i.org_id AND sb.item_id = i.id AND sb.site_id = @site_id
      AND (lo.expires_on IS NULL OR lo.expires_on >= @today::date)
) b ON true
WHERE i.org_id = @org_id AND i.id = ANY (@ids::uuid[]) AND i.active
ORDER BY lower(i.name), i.id;

-- name: FindLotsByKeys :many
-- The site's lots of (item, code) pairs, for a receipt of many lines at once.
SELECT l.* FROM lots l
JOIN (SELECT unnest(@item_ids::uuid[]) AS item_id, unnest(@codes::text[]) AS code) k ON k.item_id = l.item_id AND k.code = l.code
WHERE l.org_id = @org_id AND l.site_id = @site_id;

-- name: CreateLots :many
INSERT INTO lots (id, org_id, site_id, item_id, code, expires_on, received_at)
SELECT k.id, @org_id, @site_id, k.item_id, k.code, k.expires_on, @now
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@item_ids::uuid[]) AS item_id, unnest(@codes::text[]) AS code,
             unnest(@expires::date[]) AS expires_on) k
ON CONFLICT (org_id, site_id, item_id, code) DO NOTHING
RETURNING *;

-- name: LockStockCosts :many
-- The items' cost rows at the site, created at zero where absent, and locked in item id order
-- (the order every posting locks in): every ledger write of an item at a site takes its lock
-- first, so they are serialized.
INSERT INTO stock_costs (org_id, item_id, site_id, on_hand, avg_cost, updated_at)
SELECT @org_id, x.item_id, @site_id, 0, 0, @now FROM unnest(@item_ids::uuid[]) AS x(item_id) ORDER BY x.item_id
ON CONFLICT (org_id, item_id, site_id) DO UPDATE SET updated_at = stock_costs.updated_at
RETURNING *;

-- name: LocationBalancesOfPairs :many
-- LocationBalances for many item × location pairs at once (a receipt's lines), in FEFO order
-- within each pair; emptied buckets left out.
SELECT b.item_id, b.location_id, b.lot_id, b.quantity, l.expires_on
FROM stock_balances b
JOIN (SELECT unnest(@item_ids::uuid[]) AS item_id, unnest(@location_ids::uuid[]) AS location_id) k
  ON k.item_id = b.item_id AND k.location_id = b.location_id
LEFT JOIN lots l ON l.org_id = b.org_id AND l.id = b.lot_id
WHERE b.org_id = @org_id AND b.quantity > 0
ORDER BY b.item_id, b.location_id, (b.lot_id IS NULL), l.expires_on NULLS LAST, l.received_at, b.lot_id
FOR UPDATE OF b;
-- name: WasteByReason :many
-- A site's waste logged in [from_at, to_at), per reason (stock and runs' output alike).
SELECT reason, count(*)::int AS logs, coalesce(sum(value_cents), 0)::bigint AS value_cents
FROM waste_logs
WHERE org_id = @org_id AND site_id = @site_id AND created_at >= @from_at AND created_at < @to_at
GROUP BY reason
ORDER BY reason;

-- name: LastGeneratedLotNumbers :many
-- The highest n among the site's lots of each item coded @prefix || n (R20260304-n), for the
-- next generated code. The caller holds the items' cost-row locks, which every receipt of the
-- item at the site takes, so no other receipt numbers a lot meanwhile.
SELECT l.item_id, max(substring(l.code FROM length(@prefix::text) + 1)::int)::int AS last
FROM lots l
WHERE l.org_id = @org_id AND l.site_id = @site_id AND l.item_id = ANY (@item_ids::uuid[])
  AND starts_with(l.code, @prefix::text) AND substring(l.code FROM length(@prefix::text) + 1) ~ '^[1-9][0-9]{0,8}$'
GROUP BY l.item_id;

-- name: SetInventoryItemFood :exec
-- The item's link to its food and how its units weigh (nutrition analysis), written with the
-- rest of the item on create and update.
UPDATE inventory_items
SET food_id = @food_id, grams_per = @grams_per, edible = @edible, added_sugar = @added_sugar
WHERE org_id = @org_id AND id = @id;

-- name: ScanOpenCount :one
-- The newest open count sheet counting a storage location, for a scan of its tag.
SELECT * FROM counts
WHERE org_id = @org_id AND site_id = @site_id AND status = 'open' AND @location_id::uuid = ANY (location_ids)
ORDER BY counted_at DESC, id DESC
LIMIT 1;
