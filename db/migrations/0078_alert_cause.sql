-- +goose Up
-- Why an alert of a kind opened, where one kind has more than one cause: nutrition_risk opens for
-- a patient kept on NPO or clear liquids ('' here, the first cause) and for a planned day that
-- breaks a per-day nutrient limit ('nutrient_limit'). Each cause's detector closes only its own
-- alerts: the NPO check must not close a nutrient alert because the patient eats.
ALTER TABLE alerts ADD COLUMN cause text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE alerts DROP COLUMN cause;
