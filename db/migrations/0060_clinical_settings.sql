-- +goose Up
-- How an organization's clinical feeds are read. fhir_mrn_system: the FHIR identifier system
-- whose value is a Patient's MRN ('' when the identifier typed MR is used).
CREATE TABLE clinical_settings (
    org_id          uuid        PRIMARY KEY REFERENCES orgs (id) ON DELETE CASCADE,
    fhir_mrn_system text        NOT NULL DEFAULT '' CHECK (length(fhir_mrn_system) <= 500),
    updated_at      timestamptz NOT NULL
);

-- +goose Down
DROP TABLE clinical_settings;
