-- Food profiles for nutrition analysis (internal/foods/lookup.go): what the nutrition package
-- needs of USDA and organization foods by id: their revisions in one read however many foods a
-- recipe uses, and for the profiles a replica does not keep at those revisions, three reads more.

-- name: FoodProfileRevisions :many
-- Which of ids are foods the organization can use, and the revision of each one's profile:
-- USDA's release (a new one with every import that changes anything) or the organization's
-- food's own count of edits. The profiles themselves are kept in memory by revision.
SELECT 'usda'::text AS source, f.id, r.revision::text AS revision
FROM usda_foods f CROSS JOIN usda_release r WHERE f.id = ANY (@ids::uuid[])
UNION ALL
SELECT 'org'::text, o.id, o.revision::text
FROM org_foods o WHERE o.org_id = @org_id AND o.id = ANY (@ids::uuid[]);

-- name: FoodProfileHeads :many
-- The foods among ids: USDA's (global) and the organization's own, each with its revision (see
-- FoodProfileRevisions). basis_grams is the weight an organization food's amounts are given
-- for (100, or a spec sheet's serving); portions its household measures (USDA's are in
-- usda_weights).
SELECT 'usda'::text AS source, f.id, r.revision::text AS revision, f.name, f.ndb_no::text AS ndb_no, 100::numeric AS basis_grams, '[]'::jsonb AS portions
FROM usda_foods f CROSS JOIN usda_release r WHERE f.id = ANY (@ids::uuid[])
UNION ALL
SELECT 'org'::text, o.id, o.revision::text, o.name, ''::text, o.basis_grams, o.portions
FROM org_foods o WHERE o.org_id = @org_id AND o.id = ANY (@ids::uuid[]);

-- name: FoodProfileValues :many
-- The foods' nutrient amounts: USDA's per 100 g by SR number (the caller keeps the numbers it
-- maps), the organization's per basis_grams by nutrient key. A nutrient with no row is unknown.
-- Every food has at least one row (nutrient NULL when it has none), each with the revision the
-- statement read the food at, so the caller knows what revision the amounts are.
SELECT f.id AS food_id, r.revision::text AS revision, v.nutr_no AS nutrient, v.value AS amount
FROM usda_foods f CROSS JOIN usda_release r
LEFT JOIN usda_nutrient_values v ON v.ndb_no = f.ndb_no AND v.nutr_no = ANY (@nutr_nos::text[])
WHERE f.id = ANY (@ids::uuid[])
UNION ALL
SELECT o.id, o.revision::text, n.nutrient, n.amount
FROM org_foods o LEFT JOIN org_food_nutrients n ON n.org_id = o.org_id AND n.food_id = o.id
WHERE o.org_id = @org_id AND o.id = ANY (@ids::uuid[]);

-- name: FoodProfileWeights :many
-- USDA foods' household measures in USDA's order, each food with at least one row (measure
-- NULL when it has none) and the release it was read at.
SELECT f.id AS food_id, r.revision::text AS revision, w.amount, w.measure, w.grams
FROM usda_foods f CROSS JOIN usda_release r LEFT JOIN usda_weights w ON w.ndb_no = f.ndb_no
WHERE f.id = ANY (@ids::uuid[])
ORDER BY f.id, w.seq;
