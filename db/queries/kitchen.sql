-- Kitchen: recipes, menus, forecasts, production runs.

-- name: CreateRecipe :one
INSERT INTO recipes (id, org_id, name, category, current_version, created_at, updated_at)
VALUES (@id, @org_id, @name, @category, 1, @now, @now)
RETURNING *;

-- name: InsertRecipeVersion :exec
INSERT INTO recipe_versions (org_id, recipe_id, version, body, sub_recipe_ids, created_by, created_at)
VALUES (@org_id, @recipe_id, @version, @body, @sub_recipe_ids, sqlc.narg(created_by), @now);

-- name: GetRecipeForUpdate :one
SELECT * FROM recipes WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: UpdateRecipeHead :exec
UPDATE recipes SET name = @name, category = @category, current_version = @version, updated_at = @now
WHERE org_id = @org_id AND id = @id;

-- name: ArchiveRecipe :one
UPDATE recipes SET archived_at = coalesce(archived_at, @now), updated_at = @now
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: GetRecipes :many
-- The recipes among ids with their current version's body.
SELECT r.id, r.name, r.category, r.current_version, r.archived_at, r.created_at, r.updated_at,
       v.body, v.sub_recipe_ids
FROM recipes r
JOIN recipe_versions v ON v.org_id = r.org_id AND v.recipe_id = r.id AND v.version = r.current_version
WHERE r.org_id = @org_id AND r.id = ANY (@ids::uuid[]);

-- name: GetPinnedVersions :many
-- Given versions of recipes: ids[i] at versions[i].
SELECT v.recipe_id, v.version, v.body, r.archived_at
FROM recipe_versions v
JOIN recipes r ON r.org_id = v.org_id AND r.id = v.recipe_id
WHERE v.org_id = @org_id
  AND (v.recipe_id, v.version) IN (SELECT unnest(@ids::uuid[]), unnest(@versions::int[]));

-- name: SubRecipeEdges :many
-- The current versions' sub-recipes of the recipes among ids.
SELECT r.id, r.name, v.sub_recipe_ids
FROM recipes r
JOIN recipe_versions v ON v.org_id = r.org_id AND v.recipe_id = r.id AND v.version = r.current_version
WHERE r.org_id = @org_id AND r.id = ANY (@ids::uuid[]);

-- name: ListRecipes :many
SELECT r.id FROM recipes r
WHERE r.org_id = @org_id
  AND (sqlc.narg(q)::text IS NULL OR r.name ILIKE '%' || sqlc.narg(q) || '%')
  AND (sqlc.narg(category)::text IS NULL OR lower(r.category) = lower(sqlc.narg(category)))
  AND (sqlc.narg(archived)::boolean IS NULL OR (r.archived_at IS NOT NULL) = sqlc.narg(archived))
  AND (sqlc.narg(cursor_name)::text IS NULL OR (lower(r.name), r.id) > (sqlc.narg(cursor_name), sqlc.narg(cursor_id)::uuid))
ORDER BY lower(r.name), r.id
LIMIT @max_rows;

-- name: ListRecipeVersions :many
SELECT v.version, v.body->>'name' AS name, v.created_by, v.created_at
FROM recipe_versions v
WHERE v.org_id = @org_id AND v.recipe_id = @recipe_id
ORDER BY v.version DESC;

-- name: CreateMenu :one
INSERT INTO menus (id, org_id, site_id, name, starts_on, cycle_weeks, items, created_at, updated_at)
VALUES (@id, @org_id, @site_id, @name, @starts_on, @cycle_weeks, @items, @now, @now)
RETURNING *;

-- name: UpdateMenu :one
UPDATE menus SET name = @name, starts_on = @starts_on, cycle_weeks = @cycle_weeks, items = @items, updated_at = @now
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: GetMenu :one
SELECT * FROM menus WHERE org_id = @org_id AND id = @id;

-- name: ListMenus :many
SELECT * FROM menus
WHERE org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR site_id = sqlc.narg(site_id))
ORDER BY starts_on DESC, id;

-- name: UpsertMenuOverride :exec
INSERT INTO menu_date_overrides (org_id, menu_id, date, items, updated_at)
VALUES (@org_id, @menu_id, @date, @items, @now)
ON CONFLICT (org_id, menu_id, date) DO UPDATE SET items = excluded.items, updated_at = excluded.updated_at;

-- name: MenuOverrides :many
SELECT date, items FROM menu_date_overrides WHERE org_id = @org_id AND menu_id = @menu_id ORDER BY date;

-- name: EffectiveMenu :one
-- The menu of the site in force on date (the latest starts_on not after it) and its override
-- for the date, if any.
SELECT m.*, o.items AS override_items
FROM menus m
LEFT JOIN menu_date_overrides o ON o.org_id = m.org_id AND o.menu_id = m.id AND o.date = @date::date
WHERE m.org_id = @org_id AND m.site_id = @site_id AND m.starts_on <= @date::date
ORDER BY m.starts_on DESC, m.created_at DESC
LIMIT 1;

-- name: UpsertForecast :one
INSERT INTO forecasts (id, org_id, site_id, date, day_part, covers, items, created_at, updated_at)
VALUES (@id, @org_id, @site_id, @date, @day_part, @covers, @items, @now, @now)
ON CONFLICT (org_id, site_id, date, day_part) DO UPDATE
SET covers = excluded.covers, items = excluded.items, updated_at = excluded.updated_at
RETURNING *, (xmax = 0) AS inserted;

-- name: ListForecasts :many
SELECT * FROM forecasts
WHERE org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR site_id = sqlc.narg(site_id))
  AND (sqlc.narg(from_date)::date IS NULL OR date >= sqlc.narg(from_date))
  AND (sqlc.narg(to_date)::date IS NULL OR date <= sqlc.narg(to_date))
  AND (sqlc.narg(day_part)::text IS NULL OR day_part = sqlc.narg(day_part))
ORDER BY date, site_id, day_part
LIMIT 1000;

-- name: ForecastsOf :many
SELECT * FROM forecasts WHERE org_id = @org_id AND site_id = @site_id AND date = @date;

-- name: InsertRun :one
INSERT INTO production_runs (id, org_id, site_id, date, day_part, recipe_id, recipe_version, recipe_name, shelf_life_hours, versions,
                             station, status, source, portions, quantity, unit, batches, explain, status_since, created_at, updated_at)
VALUES (@id, @org_id, @site_id, @date, sqlc.narg(day_part), @recipe_id, @recipe_version, @recipe_name, sqlc.narg(shelf_life_hours), @versions,
        sqlc.narg(station), 'planned', @source, sqlc.narg(portions), @quantity, @unit, @batches, @explain, @now, @now, @now)
RETURNING *;

-- name: InsertRuns :many
-- Many generated runs in one statement: column arrays of equal length; '' is NULL for day part
-- and station, '' for portions, 0 for shelf life.
INSERT INTO production_runs (id, org_id, site_id, date, day_part, recipe_id, recipe_version, recipe_name, shelf_life_hours, versions,
                             station, status, source, portions, quantity, unit, batches, explain, status_since, created_at, updated_at)
SELECT r.id, @org_id, @site_id, @date, nullif(r.day_part, ''), r.recipe_id, r.recipe_version, r.recipe_name, nullif(r.shelf_life_hours, 0),
       r.versions, nullif(r.station, ''), 'planned', @source, nullif(r.portions, '')::numeric, r.quantity::numeric, r.unit, r.batches,
       r.explain, @now, @now, @now
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@day_parts::text[]) AS day_part, unnest(@recipe_ids::uuid[]) AS recipe_id,
             unnest(@recipe_versions::int[]) AS recipe_version, unnest(@recipe_names::text[]) AS recipe_name,
             unnest(@shelf_life_hours::int[]) AS shelf_life_hours, unnest(@versions::jsonb[]) AS versions,
             unnest(@stations::text[]) AS station, unnest(@portions::text[]) AS portions, unnest(@quantities::text[]) AS quantity,
             unnest(@units::text[]) AS unit, unnest(@batches::int[]) AS batches, unnest(@explains::jsonb[]) AS explain) AS r
RETURNING *;

-- name: ReplanRun :one
UPDATE production_runs
SET recipe_version = @recipe_version, recipe_name = @recipe_name, shelf_life_hours = sqlc.narg(shelf_life_hours), versions = @versions, station = sqlc.narg(station), portions = sqlc.narg(portions),
    quantity = @quantity, unit = @unit, batches = @batches, explain = @explain, updated_at = @now
WHERE org_id = @org_id AND id = @id AND status = 'planned'
RETURNING *;

-- name: DeleteRun :exec
DELETE FROM production_runs WHERE org_id = @org_id AND id = @id AND status = 'planned';

-- name: GeneratedRuns :many
SELECT * FROM production_runs
WHERE org_id = @org_id AND site_id = @site_id AND date = @date AND source = 'generated'
  AND day_part = ANY (@day_parts::text[])
FOR UPDATE;

-- name: ListRuns :many
SELECT pr.* FROM production_runs pr
WHERE pr.org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR pr.site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR pr.site_id = sqlc.narg(site_id))
  AND (sqlc.narg(date)::date IS NULL OR pr.date = sqlc.narg(date))
  AND (sqlc.narg(status)::text IS NULL OR pr.status = sqlc.narg(status))
  AND (sqlc.narg(station)::text IS NULL OR pr.station = sqlc.narg(station))
ORDER BY pr.date, pr.day_part NULLS LAST, pr.recipe_name, pr.id
LIMIT 1000;

-- name: GetRun :one
SELECT * FROM production_runs WHERE org_id = @org_id AND id = @id;

-- name: LockRun :one
SELECT * FROM production_runs WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: SetRunStatus :one
UPDATE production_runs
SET status = @status, status_since = @now, updated_at = @now,
    holding_since = CASE WHEN @status = 'holding' THEN @now ELSE holding_since END
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: SetRunStation :one
UPDATE production_runs SET station = @station, updated_at = @now
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: InsertRunEvent :one
INSERT INTO production_run_events (id, org_id, site_id, run_id, type, data, actor_kind, actor_id, at)
VALUES (@id, @org_id, @site_id, @run_id, @type, @data, @actor_kind, sqlc.narg(actor_id), @now)
RETURNING *;

-- name: ListRunEvents :many
SELECT * FROM production_run_events WHERE org_id = @org_id AND run_id = @run_id ORDER BY at, id;

-- name: InsertUsage :exec
INSERT INTO production_usage (org_id, run_id, site_id, date, item_id, quantity_base, cost_cents, recorded_at)
VALUES (@org_id, @run_id, @site_id, @date, @item_id, @quantity_base, sqlc.narg(cost_cents), @now)
ON CONFLICT (org_id, run_id, item_id) DO NOTHING;

-- name: RunUsage :many
SELECT item_id, quantity_base, cost_cents FROM production_usage WHERE org_id = @org_id AND run_id = @run_id ORDER BY item_id;

-- name: KitchenSite :one
SELECT id, name, timezone, day_parts FROM sites WHERE org_id = @org_id AND id = @id;

-- name: LiveRuns :many
-- A site's runs of date that a kitchen wallboard shows: prepped, in progress or holding at the
-- stations (lower-cased; all when empty), oldest status first.
SELECT id, recipe_id, recipe_name, portions, quantity, unit, station, status, status_since, holding_since, shelf_life_hours
FROM production_runs
WHERE org_id = @org_id AND site_id = @site_id AND date = @date
  AND status IN ('prepped', 'in_progress', 'holding')
  AND (cardinality(@stations::text[]) = 0 OR lower(station) = ANY (@stations::text[]))
ORDER BY status_since, id;

-- name: HandoffsSince :many
-- The handoffs at a site since a time to the stations (lower-cased; all when empty).
SELECT e.run_id, e.data, e.at, pr.recipe_name
FROM production_run_events e
JOIN production_runs pr ON pr.org_id = e.org_id AND pr.id = e.run_id
WHERE e.org_id = @org_id AND e.site_id = @site_id AND e.type = 'handoff' AND e.at >= @since
  AND (cardinality(@stations::text[]) = 0 OR lower(e.data->>'station') = ANY (@stations::text[]))
ORDER BY e.at, e.id;

-- name: RecipeTreeVersions :many
-- A recipe (at @version, 0 for current) and every sub-recipe at any depth (current versions),
-- in one round trip where loadTree reads a level at a time; a sub-recipe reached twice comes
-- once. No rows when the recipe is none of the organization's or has no such version.
WITH RECURSIVE tree AS (
    SELECT v.recipe_id, v.version, v.body, v.sub_recipe_ids, r.archived_at, 0 AS depth
    FROM recipes r
    JOIN recipe_versions v ON v.org_id = r.org_id AND v.recipe_id = r.id
     AND v.version = CASE WHEN @version::int > 0 THEN @version::int ELSE r.current_version END
    WHERE r.org_id = @org_id AND r.id = @root_id
  UNION ALL
    SELECT v.recipe_id, v.version, v.body, v.sub_recipe_ids, r.archived_at, t.depth + 1
    FROM tree t
    JOIN recipes r ON r.org_id = @org_id AND r.id = ANY (t.sub_recipe_ids)
    JOIN recipe_versions v ON v.org_id = r.org_id AND v.recipe_id = r.id AND v.version = r.current_version
    WHERE t.depth < 50
)
SELECT DISTINCT ON (recipe_id) recipe_id, version, body, archived_at FROM tree ORDER BY recipe_id, depth;
