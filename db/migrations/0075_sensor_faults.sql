-- +goose Up
-- A sensor's run of physically impossible readings (refused as implausible): fault_run of them
-- in a row since fault_since, the latest at fault_at. Counted under the sensor_states lock, in
-- time order; a resent or late reading (at or before fault_at, or before the latest stored
-- reading) does not count again, and a plausible reading after them ends the run. Three in a
-- row open sensor_fault.
ALTER TABLE sensor_states
    ADD COLUMN fault_run   integer NOT NULL DEFAULT 0 CHECK (fault_run >= 0),
    ADD COLUMN fault_since timestamptz,
    ADD COLUMN fault_at    timestamptz;

-- +goose Down
ALTER TABLE sensor_states DROP COLUMN fault_run, DROP COLUMN fault_since, DROP COLUMN fault_at;
