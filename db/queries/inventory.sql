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
