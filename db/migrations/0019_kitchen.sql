-- +goose Up
-- Kitchen: recipes and their versions, cycle menus with date overrides, forecasts, production
-- runs with their event streams, and the theoretical usage of finished runs.
--
-- Quantities are numeric; money is bigint cents. A recipe's definition is kept whole per version
-- (body jsonb): runs, cards and costs pin the version they used, so an edit never rewrites
-- yesterday.

CREATE TABLE recipes (
    id              uuid PRIMARY KEY,
    org_id          uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    name            text        NOT NULL,
    category        text        NOT NULL,
    current_version integer     NOT NULL CHECK (current_version > 0),
    archived_at     timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    UNIQUE (org_id, id)
);
CREATE INDEX recipes_name_idx ON recipes (org_id, lower(name), id);

-- One row per PUT (version 1 is the POST). sub_recipe_ids are the recipes the version uses
-- directly, for cycle detection.
CREATE TABLE recipe_versions (
    org_id         uuid        NOT NULL,
    recipe_id      uuid        NOT NULL,
    version        integer     NOT NULL CHECK (version > 0),
    body           jsonb       NOT NULL,
    sub_recipe_ids uuid[]      NOT NULL DEFAULT '{}',
    created_by     uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at     timestamptz NOT NULL,
    PRIMARY KEY (org_id, recipe_id, version),
    FOREIGN KEY (org_id, recipe_id) REFERENCES recipes (org_id, id) ON DELETE CASCADE
);

-- A cycle menu of one site: items [{week, weekday, dayPart, recipeId, portionsPerCover, priceCents}].
CREATE TABLE menus (
    id          uuid PRIMARY KEY,
    org_id      uuid        NOT NULL,
    site_id     uuid        NOT NULL,
    name        text        NOT NULL,
    starts_on   date        NOT NULL,
    cycle_weeks integer     NOT NULL CHECK (cycle_weeks BETWEEN 1 AND 12),
    items       jsonb       NOT NULL DEFAULT '[]',
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE
);
CREATE INDEX menus_site_idx ON menus (org_id, site_id, starts_on DESC);

-- One date's items of a menu, replacing the cycle's for that date ([{dayPart, recipeId, …}]).
CREATE TABLE menu_date_overrides (
    org_id     uuid        NOT NULL,
    menu_id    uuid        NOT NULL,
    date       date        NOT NULL,
    items      jsonb       NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (org_id, menu_id, date),
    FOREIGN KEY (org_id, menu_id) REFERENCES menus (org_id, id) ON DELETE CASCADE
);

CREATE TABLE forecasts (
    id         uuid PRIMARY KEY,
    org_id     uuid        NOT NULL,
    site_id    uuid        NOT NULL,
    date       date        NOT NULL,
    day_part   text        NOT NULL,
    covers     integer     NOT NULL CHECK (covers >= 0),
    items      jsonb       NOT NULL DEFAULT '[]',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    UNIQUE (org_id, id),
    UNIQUE (org_id, site_id, date, day_part),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE
);

-- A production run: portions (or a quantity in a unit) of one recipe version for a site's date.
-- versions pins the version of every recipe of the tree (sub-recipes too); plan holds the
-- scaled result and explain how it was reached.
CREATE TABLE production_runs (
    id             uuid PRIMARY KEY,
    org_id         uuid        NOT NULL,
    site_id        uuid        NOT NULL,
    date           date        NOT NULL,
    day_part       text,
    recipe_id      uuid        NOT NULL,
    recipe_version integer     NOT NULL,
    -- The pinned version's name and shelf life, kept on the run for its screens and lists.
    recipe_name    text        NOT NULL,
    shelf_life_hours integer,
    versions       jsonb       NOT NULL,
    station        text,
    status         text        NOT NULL CHECK (status IN ('planned', 'prepped', 'in_progress', 'holding', 'done')),
    source         text        NOT NULL CHECK (source IN ('generated', 'ad_hoc')),
    portions       numeric,
    quantity       numeric     NOT NULL CHECK (quantity > 0),
    unit           text        NOT NULL,
    batches        integer     NOT NULL CHECK (batches > 0),
    explain        jsonb       NOT NULL,
    status_since   timestamptz NOT NULL,
    holding_since  timestamptz,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, recipe_id) REFERENCES recipes (org_id, id),
    FOREIGN KEY (org_id, recipe_id, recipe_version) REFERENCES recipe_versions (org_id, recipe_id, version)
);
CREATE INDEX production_runs_site_date_idx ON production_runs (org_id, site_id, date, status);
-- One generated run per recipe and day part of a site's date.
CREATE UNIQUE INDEX production_runs_generated_idx ON production_runs (org_id, site_id, date, day_part, recipe_id)
    WHERE source = 'generated';

-- The run's event stream: status moves, temperature checks, notes, portions, photos, waste and
-- handoffs. Append-only.
CREATE TABLE production_run_events (
    id         uuid PRIMARY KEY,
    org_id     uuid        NOT NULL,
    site_id    uuid        NOT NULL,
    run_id     uuid        NOT NULL,
    type       text        NOT NULL CHECK (type IN ('status', 'temp_check', 'note', 'portioned', 'photo', 'waste', 'handoff')),
    data       jsonb       NOT NULL DEFAULT '{}',
    actor_kind text        NOT NULL,
    actor_id   uuid,
    at         timestamptz NOT NULL,
    FOREIGN KEY (org_id, run_id) REFERENCES production_runs (org_id, id) ON DELETE CASCADE
);
CREATE INDEX production_run_events_run_idx ON production_run_events (org_id, run_id, at, id);
CREATE INDEX production_run_events_handoffs_idx ON production_run_events (org_id, site_id, at) WHERE type = 'handoff';

-- What a finished run used in theory: the pinned version's items × scale, in base units, for
-- the cost-variance report. It does not move stock.
CREATE TABLE production_usage (
    org_id        uuid        NOT NULL,
    run_id        uuid        NOT NULL,
    site_id       uuid        NOT NULL,
    date          date        NOT NULL,
    item_id       uuid        NOT NULL,
    quantity_base numeric     NOT NULL,
    cost_cents    bigint,
    recorded_at   timestamptz NOT NULL,
    PRIMARY KEY (org_id, run_id, item_id),
    FOREIGN KEY (org_id, run_id) REFERENCES production_runs (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, item_id) REFERENCES inventory_items (org_id, id)
);
CREATE INDEX production_usage_site_idx ON production_usage (org_id, site_id, date);

-- +goose Down
DROP TABLE production_usage;
DROP TABLE production_run_events;
DROP TABLE production_runs;
DROP TABLE forecasts;
DROP TABLE menu_date_overrides;
DROP TABLE menus;
DROP TABLE recipe_versions;
DROP TABLE recipes;
