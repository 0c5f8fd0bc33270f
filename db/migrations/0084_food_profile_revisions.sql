-- +goose Up
-- A recipe's analysis reads the profile (nutrients, household measures) of every food its
-- items name. Profiles change rarely (an SR28 import, an edit of a spec-sheet food) and are
-- read on every analysis, label, menu summary and tray check, so each replica keeps them in
-- memory (internal/foods/profile_cache.go) under the revision they were read at, and asks the
-- database only for the revisions: a profile whose revision moved is read again.
--
-- An organization's food counts its own edits; USDA's foods share the revision of the last
-- import that changed anything (a random id, so no two databases ever share one by chance).
ALTER TABLE org_foods ADD COLUMN revision bigint NOT NULL DEFAULT 1;

CREATE TABLE usda_release (
    one      boolean PRIMARY KEY DEFAULT true CHECK (one),
    revision uuid    NOT NULL
);
INSERT INTO usda_release (revision) VALUES (gen_random_uuid());

-- +goose Down
DROP TABLE usda_release;
ALTER TABLE org_foods DROP COLUMN revision;
