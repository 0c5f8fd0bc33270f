-- Food profiles for nutrition analysis (internal/foods/lookup.go): what the nutrition package
-- needs of USDA and organization foods by id, in three reads however many foods a recipe uses.

-- name: FoodProfileHeads :many
-- The foods among ids: USDA's (global) and the organization's own. basis_grams is the weight
-- an organization food's amounts are given for (100, or a spec sheet's serving); portions its
-- household measures (USDA's are in usda_weights).
SELECT 'usda'::text AS source, f.id, f.name, f.ndb_no::text AS ndb_no, 100::numeric AS basis_grams, '[]'::jsonb AS portions
FROM usda_foods f WHERE f.id = ANY (@ids::uuid[])
UNION ALL
SELECT 'org'::text, o.id, o.name, ''::text, o.basis_grams, o.portions
FROM org_foods o WHERE o.org_id = @org_id AND o.id = ANY (@ids::uuid[]);

-- name: FoodProfileValues :many
-- The foods' nutrient amounts: USDA's per 100 g by SR number (the caller keeps the numbers it
-- maps), the organization's per basis_grams by nutrient key. A nutrient with no row is unknown.
SELECT f.id AS food_id, v.nutr_no AS nutrient, v.value AS amount
FROM usda_foods f JOIN usda_nutrient_values v ON v.ndb_no = f.ndb_no
WHERE f.id = ANY (@ids::uuid[]) AND v.nutr_no = ANY (@nutr_nos::text[])
UNION ALL
SELECT n.food_id, n.nutrient, n.amount
FROM org_food_nutrients n WHERE n.org_id = @org_id AND n.food_id = ANY (@ids::uuid[]);

-- name: FoodProfileWeights :many
-- USDA foods' household measures in USDA's order.
SELECT f.id AS food_id, w.amount, w.measure, w.grams
FROM usda_foods f JOIN usda_weights w ON w.ndb_no = f.ndb_no
WHERE f.id = ANY (@ids::uuid[])
ORDER BY f.id, w.seq;
