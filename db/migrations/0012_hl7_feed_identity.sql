-- +goose Up
-- A message control id (MSH-10) is unique only per sending application (MSH-3) and facility
-- (MSH-4): two hospitals of one organization whose interface engines both count from 1 send the
-- same control ids. The duplicate check is therefore keyed on (organization, MSH-3, MSH-4,
-- MSH-10), and the trail keeps the two header fields (their namespace id, else universal id, as
-- the ingest reads them; '' when not sent).
ALTER TABLE hl7_messages
    ADD COLUMN sending_application text NOT NULL DEFAULT '',
    ADD COLUMN sending_facility    text NOT NULL DEFAULT '';

-- Rows that consume a control id get the sender from their raw text while it is kept (90 days):
-- the first component of MSH-3 and MSH-4 (else the second), with the message's own delimiters.
-- Rows whose raw text has expired keep '' and stop matching resends of those old messages, which
-- then apply again; an engine does not resend a message months later.
UPDATE hl7_messages m
SET sending_application = s.app, sending_facility = s.facility
FROM (
    SELECT h.id,
           coalesce(nullif(btrim(split_part(split_part(f.f3, f.rep, 1), f.comp, 1)), ''),
                    btrim(split_part(split_part(f.f3, f.rep, 1), f.comp, 2))) AS app,
           coalesce(nullif(btrim(split_part(split_part(f.f4, f.rep, 1), f.comp, 1)), ''),
                    btrim(split_part(split_part(f.f4, f.rep, 1), f.comp, 2))) AS facility
    FROM hl7_messages h
    CROSS JOIN LATERAL (SELECT split_part(translate(h.raw, E'\n', E'\r'), E'\r', 1) AS line) l
    CROSS JOIN LATERAL (
        SELECT split_part(l.line, substr(l.line, 4, 1), 3) AS f3, split_part(l.line, substr(l.line, 4, 1), 4) AS f4,
               substr(l.line, 5, 1) AS comp, coalesce(nullif(substr(l.line, 6, 1), ''), E'\x01') AS rep
    ) f
    WHERE h.outcome IN ('applied', 'skipped') AND h.control_id <> '' AND h.raw LIKE 'MSH%' AND length(l.line) >= 8
) s
WHERE m.id = s.id AND (s.app <> '' OR s.facility <> '');

-- The old index's rows are unique on (org_id, control_id), hence on the wider key too.
DROP INDEX hl7_messages_control_id_key;
CREATE UNIQUE INDEX hl7_messages_control_id_key ON hl7_messages (org_id, sending_application, sending_facility, control_id)
    WHERE outcome IN ('applied', 'skipped') AND control_id <> '';

-- The ingest reads an organization's mapped codes for every body: through this index it reads
-- those alone, however many codes still await review.
CREATE INDEX clinical_codes_mapped_idx ON clinical_codes (org_id) WHERE targets IS NOT NULL;

-- +goose Down
DROP INDEX clinical_codes_mapped_idx;
DROP INDEX hl7_messages_control_id_key;
CREATE UNIQUE INDEX hl7_messages_control_id_key ON hl7_messages (org_id, control_id)
    WHERE outcome IN ('applied', 'skipped') AND control_id <> '';
ALTER TABLE hl7_messages DROP COLUMN sending_application, DROP COLUMN sending_facility;
