-- +goose Up
-- A production run's output thrown away is a waste log too (the spec's run event `waste`), so the
-- site's waste list and reports see it beside stock waste. It names the run, not an item and a
-- location: the run's output was never stock, so it moves no ledger row; its value is the run's
-- cost at its pinned recipe version, in proportion to the quantity wasted.
ALTER TABLE waste_logs
    ALTER COLUMN location_id DROP NOT NULL,
    ALTER COLUMN item_id DROP NOT NULL,
    ADD COLUMN run_id uuid,
    ADD COLUMN recipe_name text,
    ADD CONSTRAINT waste_logs_subject_check CHECK (
        (run_id IS NULL AND item_id IS NOT NULL AND location_id IS NOT NULL AND recipe_name IS NULL)
        OR (run_id IS NOT NULL AND item_id IS NULL AND location_id IS NULL AND lot_id IS NULL AND recipe_name IS NOT NULL)),
    ADD CONSTRAINT waste_logs_run_fkey FOREIGN KEY (org_id, run_id) REFERENCES production_runs (org_id, id) ON DELETE CASCADE;
CREATE INDEX waste_logs_run_idx ON waste_logs (org_id, run_id) WHERE run_id IS NOT NULL;

-- +goose Down
DELETE FROM waste_logs WHERE run_id IS NOT NULL;
ALTER TABLE waste_logs
    DROP CONSTRAINT waste_logs_run_fkey,
    DROP CONSTRAINT waste_logs_subject_check,
    DROP COLUMN recipe_name,
    DROP COLUMN run_id,
    ALTER COLUMN item_id SET NOT NULL,
    ALTER COLUMN location_id SET NOT NULL;
