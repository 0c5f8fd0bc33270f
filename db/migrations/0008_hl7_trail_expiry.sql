-- +goose Up
-- The raw text of the HL7 message trail expires (it is protected health information, and what an
-- interface analyst traces is recent); the rest of each trail row stays, since it is the record of
-- what the hospital sent and backs the control-id check and the patients' movements. A periodic task
-- clears expired raw text a slice at a time, in (received_at, id) order, and keeps here how far it
-- got, so that each slice starts where the last ended instead of walking the rows already cleared.
CREATE TABLE hl7_trail_expiry (
    org_id        uuid        PRIMARY KEY REFERENCES orgs (id) ON DELETE CASCADE,
    through_at    timestamptz NOT NULL,
    through_id    uuid        NOT NULL
);

-- +goose Down
DROP TABLE hl7_trail_expiry;
