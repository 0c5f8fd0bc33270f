-- +goose Up
-- A patient's planned local day that is over a per-day nutrient maximum, from when the tray line
-- first found it over until it finds it within again (selections changed, trays cancelled, the
-- limit or the diet order changed). `since` is the occurrence of the nutrition_risk alert
-- (cause nutrient_limit) the breach opens: the alert closes by itself when the row goes, a member
-- who resolves it while the breach goes on does not see it again, and a day that breaks again
-- after it was within is a new breach with its own alert.
CREATE TABLE nutrient_day_breaches (
    org_id     uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    patient_id uuid        NOT NULL,
    date       date        NOT NULL,
    site_id    uuid        NOT NULL,
    since      timestamptz NOT NULL,
    PRIMARY KEY (org_id, patient_id, date),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, patient_id) REFERENCES patients (org_id, id) ON DELETE CASCADE
);
-- A diet's rules changing re-judges every patient with a breach in the organization.
CREATE INDEX nutrient_day_breaches_date_idx ON nutrient_day_breaches (org_id, date);

-- +goose Down
DROP TABLE nutrient_day_breaches;
