-- name: SearchFoods :many
-- USDA's Standard Reference foods (global, no org_id: every organization reads them) and the
-- organization's own foods matching q: its words (stemmed), or, when those find fewer than 5
-- foods, trigram word similarity ≥ 0.6, so that "buter salted" still finds "Butter, salted".
-- Bounded: of each source, the 50 best full-text matches (by rank) and the 20 nearest trigram
-- matches (the names the GIN trigram index finds, by word similarity) are the candidates, at
-- most 140 foods. The trigram path checks at most 200 names of each source that are similar
-- enough: a typo that resembles more (a misspelt supplier name, a tenant's 2,000 "Harvest Dairy"
-- foods: 30 ms, then 3.7) is answered from the first 200 found, every one of them similar
-- enough, a bound on the work rather than a ranking of all. Score: a food its words
-- match ranks above one found by trigrams only, by full-text rank divided by the name's length
-- (so "Butter, salted" leads "Butter, whipped, with salt"), trigram-only ones by word
-- similarity; a name that starts with the first word of q gets half a point more ("apple"
-- finds "Apples, raw, with skin" before "Strudel, apple"). Keyset-paged on (score desc,
-- lower(name), id). Each food of the page comes with its household measures (portions: USDA's
-- from usda_weights in USDA's order, amounts as JSON numbers; an organization's as stored, amounts
-- as strings). Run with a generic plan (search.go says why). In such a plan @q is a
-- parameter, so a function of it alone is not folded into a constant: the words' tsquery and
-- q's first word are made once (the scalar subqueries over terms, each evaluated once), where
-- written in line they were made again for every candidate row (2,000 rows ranked for a
-- supplier's name: 7.3 ms, then 3.3).
WITH terms AS (
    SELECT websearch_to_tsquery('english', @q::text) AS words, lower(substring(@q::text from '^\W*(\w+)')) AS first_word
), usda_words AS (
    SELECT f.ndb_no FROM usda_foods f
    WHERE coalesce(sqlc.narg(source)::text, 'usda') = 'usda' AND f.search @@ (SELECT words FROM terms)
    ORDER BY ts_rank(f.search, (SELECT words FROM terms)) DESC LIMIT 50
), org_words AS (
    -- The organization is checked on each match, never read from an index: the trigram index
    -- leads with org_id, and a bitmap of all the organization's foods ANDed with the words'
    -- would cost in proportion to its catalogue, not to the matches (0081, 0085).
    SELECT o.id FROM org_foods o
    WHERE coalesce(sqlc.narg(source)::text, 'org') = 'org' AND (o.org_id = @org_id) IS TRUE AND o.search @@ (SELECT words FROM terms)
    ORDER BY ts_rank(o.search, (SELECT words FROM terms)) DESC LIMIT 50
), few AS (
    -- The trigram search costs more than the full-text one: it is for words that find little.
    SELECT (SELECT count(*) FROM usda_words) + (SELECT count(*) FROM org_words) < 5 AS yes
), usda AS (
    SELECT ndb_no FROM usda_words
    UNION
    (SELECT c.ndb_no FROM (
         SELECT f.ndb_no, f.name FROM usda_foods f
         WHERE (SELECT yes FROM few) AND coalesce(sqlc.narg(source)::text, 'usda') = 'usda' AND @q::text <% f.name
         LIMIT 200) c
     ORDER BY @q::text <<-> c.name LIMIT 20)
), org AS (
    SELECT id FROM org_words
    UNION
    (SELECT c.id FROM (
         SELECT o.id, o.name FROM org_foods o
         WHERE (SELECT yes FROM few) AND coalesce(sqlc.narg(source)::text, 'org') = 'org' AND o.org_id = @org_id AND @q::text <% o.name
         LIMIT 200) c
     ORDER BY @q::text <<-> c.name LIMIT 20)
)
SELECT p.source, p.id, p.ndb_no, p.name, p.food_group, p.score, p.sort_name,
       (CASE WHEN p.source = 'usda'
            THEN coalesce((SELECT jsonb_agg(jsonb_build_object('amount', w.amount, 'measure', w.measure, 'grams', w.grams) ORDER BY w.seq)
                           FROM usda_weights w WHERE w.ndb_no = p.ndb_no), '[]'::jsonb)
            ELSE p.portions END)::jsonb AS portions
FROM (
SELECT source, id, ndb_no, name, food_group, score, lower(name)::text AS sort_name, portions FROM (
    SELECT 'usda'::text AS source, f.id, f.ndb_no::text AS ndb_no, f.name, g.name::text AS food_group, '[]'::jsonb AS portions,
           (CASE WHEN f.search @@ (SELECT words FROM terms)
                 THEN 1 + ts_rank(f.search, (SELECT words FROM terms), 2)
                 ELSE word_similarity(@q::text, f.name) END
            + CASE WHEN starts_with(lower(f.name), (SELECT first_word FROM terms)) THEN 0.5 ELSE 0 END)::float8 AS score
    FROM usda u JOIN usda_foods f ON f.ndb_no = u.ndb_no JOIN usda_food_groups g ON g.code = f.food_group
    UNION ALL
    SELECT 'org'::text, o.id, ''::text, o.name, ''::text, o.portions,
           (CASE WHEN o.search @@ (SELECT words FROM terms)
                 THEN 1 + ts_rank(o.search, (SELECT words FROM terms), 2)
                 ELSE word_similarity(@q::text, o.name) END
            + CASE WHEN starts_with(lower(o.name), (SELECT first_word FROM terms)) THEN 0.5 ELSE 0 END)::float8
    FROM org c JOIN org_foods o ON o.org_id = @org_id AND o.id = c.id
) m
WHERE sqlc.narg(cursor_score)::float8 IS NULL
   OR m.score < sqlc.narg(cursor_score)::float8
   OR (m.score = sqlc.narg(cursor_score)::float8 AND (lower(m.name), m.id) > (sqlc.narg(cursor_name)::text, sqlc.narg(cursor_id)::uuid))
ORDER BY m.score DESC, lower(m.name), m.id
LIMIT @max_rows
) p
ORDER BY p.score DESC, p.sort_name, p.id;

-- name: ListFoods :many
-- USDA and the organization's foods by name, keyset-paged on (lower(name), id): each source's
-- page read in index order, then the two merged. (The SR28 import, COPY into staging tables,
-- is in internal/foods, outside sqlc.)
SELECT m.source, m.id, m.ndb_no, m.name, coalesce(g.name, '')::text AS food_group, lower(m.name)::text AS sort_name FROM (
    (SELECT 'usda'::text AS source, f.id, f.ndb_no::text AS ndb_no, f.name, f.food_group
     FROM usda_foods f
     WHERE coalesce(sqlc.narg(source)::text, 'usda') = 'usda'
       AND (sqlc.narg(cursor_name)::text IS NULL OR (lower(f.name), f.id) > (sqlc.narg(cursor_name)::text, sqlc.narg(cursor_id)::uuid))
     ORDER BY lower(f.name), f.id
     LIMIT @max_rows)
    UNION ALL
    (SELECT 'org'::text, o.id, ''::text, o.name, ''::text
     FROM org_foods o
     WHERE o.org_id = @org_id AND coalesce(sqlc.narg(source)::text, 'org') = 'org'
       AND (sqlc.narg(cursor_name)::text IS NULL OR (lower(o.name), o.id) > (sqlc.narg(cursor_name)::text, sqlc.narg(cursor_id)::uuid))
     ORDER BY lower(o.name), o.id
     LIMIT @max_rows)
) m LEFT JOIN usda_food_groups g ON g.code = m.food_group
ORDER BY lower(m.name), m.id
LIMIT @max_rows;

-- name: UsdaWeightsOf :many
SELECT ndb_no, seq, amount, measure, grams FROM usda_weights WHERE ndb_no = ANY (@ndb_nos::text[]) ORDER BY ndb_no, seq;

-- name: OrgFoodPortionsOf :many
SELECT id, portions FROM org_foods WHERE org_id = @org_id AND id = ANY (@ids::uuid[]);

-- name: GetUsdaFood :one
SELECT f.id, f.ndb_no, f.name, g.name::text AS food_group
FROM usda_foods f JOIN usda_food_groups g ON g.code = f.food_group
WHERE f.id = @id;

-- name: UsdaNutrientValuesOf :many
-- The food's values of the nutrients asked for; a nutrient with no row was not analysed.
SELECT nutr_no, value FROM usda_nutrient_values WHERE ndb_no = @ndb_no AND nutr_no = ANY (@nutr_nos::text[]);

-- name: GetOrgFood :one
SELECT * FROM org_foods WHERE org_id = @org_id AND id = @id;

-- name: OrgFoodNutrients :many
SELECT nutrient, amount FROM org_food_nutrients WHERE org_id = @org_id AND food_id = @food_id;

-- name: CreateOrgFood :one
INSERT INTO org_foods (org_id, id, name, per_serving, basis_grams, portions, allergens, created_at, updated_at)
VALUES (@org_id, @id, @name, @per_serving, @basis_grams, @portions, @allergens, @now, @now)
RETURNING *;

-- name: UpdateOrgFood :one
UPDATE org_foods SET name = @name, per_serving = @per_serving, basis_grams = @basis_grams, portions = @portions,
    allergens = @allergens, updated_at = @now, revision = revision + 1
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: DeleteOrgFood :execrows
DELETE FROM org_foods WHERE org_id = @org_id AND id = @id;

-- name: DeleteOrgFoodNutrients :exec
DELETE FROM org_food_nutrients WHERE org_id = @org_id AND food_id = @food_id;

-- name: InsertOrgFoodNutrients :exec
INSERT INTO org_food_nutrients (org_id, food_id, nutrient, amount)
SELECT @org_id, @food_id, unnest(@nutrients::text[]), unnest(@amounts::numeric[]);
