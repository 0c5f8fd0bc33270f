-- +goose Up
-- Foods: USDA's Standard Reference (global, read-only reference data loaded only by
-- `sous foods import`, shared by every organization, hence no org_id) beside each
-- organization's own foods from its suppliers' spec sheets. One search answers both, ranked by
-- full-text match and trigram similarity (so a typo still finds its food). btree_gin and
-- btree_gist let the organization's indexes lead with org_id.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE EXTENSION IF NOT EXISTS btree_gist;

-- SR28 FD_GROUP: food group code (4 digits) and description.
CREATE TABLE usda_food_groups (
    code text PRIMARY KEY,
    name text NOT NULL
);

-- SR28 NUTR_DEF: the nutrients SR analyses, by USDA's 3-digit number.
CREATE TABLE usda_nutrient_defs (
    nutr_no  text PRIMARY KEY,
    units    text    NOT NULL,
    tagname  text    NOT NULL,
    name     text    NOT NULL,
    num_dec  integer NOT NULL,
    sr_order integer NOT NULL
);

-- SR28 FOOD_DES. id is a UUID v5 derived from the NDB number (docs/reference/foods.md), so a
-- food keeps its id across re-imports and releases; search is what the food search matches.
CREATE TABLE usda_foods (
    ndb_no      text PRIMARY KEY,
    id          uuid NOT NULL UNIQUE,
    food_group  text NOT NULL REFERENCES usda_food_groups (code),
    name        text NOT NULL,
    short_name  text NOT NULL,
    common_name text,
    search      tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', name), 'A') || setweight(to_tsvector('english', coalesce(common_name, '')), 'B')) STORED
);
-- Full-text matches by GIN; trigram word-similarity matches by GiST, which also yields them
-- nearest first (<<->), so a search ranks a bounded number of candidates.
CREATE INDEX usda_foods_search_idx ON usda_foods USING gin (search);
CREATE INDEX usda_foods_name_trgm_idx ON usda_foods USING gist (name gist_trgm_ops);
CREATE INDEX usda_foods_name_idx ON usda_foods (lower(name), id);

-- SR28 NUT_DATA: nutrient values per 100 g edible portion, in the nutrient's units, exactly
-- as USDA wrote them. A nutrient without a row was not analysed: unknown, never 0.
-- No foreign keys here or on usda_weights: only the importer writes these tables, it checks
-- every value's food and nutrient as it reads the files, and a per-row key check made the
-- first import of 679,045 values take most of a minute.
CREATE TABLE usda_nutrient_values (
    ndb_no  text    NOT NULL,
    nutr_no text    NOT NULL,
    value   numeric NOT NULL,
    PRIMARY KEY (ndb_no, nutr_no)
);

-- SR28 WEIGHT: household measures ("1 medium (3" dia)" = 182 g), in USDA's order.
CREATE TABLE usda_weights (
    ndb_no  text    NOT NULL,
    seq     integer NOT NULL,
    amount  numeric NOT NULL,
    measure text    NOT NULL,
    grams   numeric NOT NULL,
    PRIMARY KEY (ndb_no, seq)
);

-- An organization's own food, from a supplier's spec sheet. Its nutrients are kept as the sheet
-- gave them (org_food_nutrients), per basis_grams of food: 100 for a per-100 g sheet, the serving
-- weight for a per-serving one (per_serving). portions are household measures
-- ([{"amount": "1", "measure": "cup", "grams": "227"}], decimal strings); allergens map the
-- Allergen vocabulary to contains, free or unknown, as inventory items do.
CREATE TABLE org_foods (
    org_id      uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    id          uuid        NOT NULL,
    name        text        NOT NULL,
    per_serving boolean     NOT NULL,
    basis_grams numeric     NOT NULL CHECK (basis_grams > 0),
    portions    jsonb       NOT NULL DEFAULT '[]',
    allergens   jsonb       NOT NULL DEFAULT '{}',
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    search      tsvector GENERATED ALWAYS AS (to_tsvector('english', name)) STORED,
    PRIMARY KEY (org_id, id)
);
CREATE INDEX org_foods_search_idx ON org_foods USING gin (org_id, search);
CREATE INDEX org_foods_name_trgm_idx ON org_foods USING gist (org_id, name gist_trgm_ops);
CREATE INDEX org_foods_name_idx ON org_foods (org_id, lower(name), id);

-- An organization food's nutrient amounts per basis_grams, by the nutrient keys of the API
-- (energyKcal, fatG, …). A key without a row is unknown.
CREATE TABLE org_food_nutrients (
    org_id   uuid    NOT NULL,
    food_id  uuid    NOT NULL,
    nutrient text    NOT NULL,
    amount   numeric NOT NULL CHECK (amount >= 0),
    PRIMARY KEY (org_id, food_id, nutrient),
    FOREIGN KEY (org_id, food_id) REFERENCES org_foods (org_id, id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE org_food_nutrients;
DROP TABLE org_foods;
DROP TABLE usda_weights;
DROP TABLE usda_nutrient_values;
DROP TABLE usda_foods;
DROP TABLE usda_nutrient_defs;
DROP TABLE usda_food_groups;
