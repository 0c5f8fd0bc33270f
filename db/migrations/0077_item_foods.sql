-- +goose Up
-- Items name their food for nutrition analysis (issue 41): which food an item is, how its
-- units weigh beyond the mass units, whether recipe quantities of it are as purchased (only the
-- edible share counts) and whether it is itself an added sugar.
--
-- food_id points at a USDA food (usda_foods.id) or one of the organization's foods
-- (org_foods.id): two tables, so no foreign key. The API checks the id when the item is
-- written; a food deleted later leaves the item reading as linked to no food (no_food).
-- grams_per maps a unit of the item to the grams one of it weighs ({"each": "150"}).
ALTER TABLE inventory_items
    ADD COLUMN food_id     uuid,
    ADD COLUMN grams_per   jsonb   NOT NULL DEFAULT '{}',
    ADD COLUMN edible      text    NOT NULL DEFAULT 'edible_portion' CHECK (edible IN ('edible_portion', 'as_purchased')),
    ADD COLUMN added_sugar boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE inventory_items
    DROP COLUMN food_id,
    DROP COLUMN grams_per,
    DROP COLUMN edible,
    DROP COLUMN added_sugar;
