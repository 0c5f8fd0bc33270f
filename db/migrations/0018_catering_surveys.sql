-- +goose Up
-- Catering: clients, events, quotes (the contract once accepted), invoices and payments.
-- Money is integer cents; quantities are exact numerics.
CREATE TABLE catering_clients (
    id              uuid PRIMARY KEY,
    org_id          uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    name            text        NOT NULL,
    company         text,
    email           text,
    phone           text,
    billing_address text,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    UNIQUE (org_id, id)
);
CREATE INDEX catering_clients_org_idx ON catering_clients (org_id, name, id);

CREATE TABLE catering_events (
    id          uuid PRIMARY KEY,
    org_id      uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    client_id   uuid        NOT NULL,
    site_id     uuid        NOT NULL,
    name        text        NOT NULL,
    starts_at   timestamptz NOT NULL,
    ends_at     timestamptz NOT NULL,
    guest_count integer     NOT NULL CHECK (guest_count >= 0),
    venue       text,
    status      text        NOT NULL CHECK (status IN ('inquiry', 'quoted', 'contracted', 'completed', 'cancelled')),
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, client_id) REFERENCES catering_clients (org_id, id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE,
    CHECK (ends_at >= starts_at)
);
CREATE INDEX catering_events_org_idx ON catering_events (org_id, starts_at, id);

-- A quote's lines and totals are computed by the server and stored as computed, so what the
-- client accepted is exactly what is kept. version counts edits made after it was sent.
CREATE TABLE catering_quotes (
    id                  uuid PRIMARY KEY,
    org_id              uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    event_id            uuid        NOT NULL,
    version             integer     NOT NULL DEFAULT 1,
    status              text        NOT NULL CHECK (status IN ('draft', 'sent', 'accepted', 'declined')),
    lines               jsonb       NOT NULL,
    service_charge_bps  integer     NOT NULL,
    tax_rate_bps        integer     NOT NULL,
    deposit_percent     integer     NOT NULL,
    subtotal_cents      bigint      NOT NULL,
    service_charge_cents bigint     NOT NULL,
    tax_cents           bigint      NOT NULL,
    total_cents         bigint      NOT NULL,
    deposit_cents       bigint      NOT NULL,
    valid_until         date        NOT NULL,
    terms               text        NOT NULL,
    sent_at             timestamptz,
    accepted_at         timestamptz,
    accepted_by_name    text,
    accepted_by_email   text,
    accepted_via        text CHECK (accepted_via IN ('link', 'staff')),
    declined_at         timestamptz,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, event_id) REFERENCES catering_events (org_id, id) ON DELETE CASCADE
);
CREATE INDEX catering_quotes_org_idx ON catering_quotes (org_id, created_at, id);
-- One contract per event.
CREATE UNIQUE INDEX catering_quotes_contract_idx ON catering_quotes (org_id, event_id) WHERE status = 'accepted';

CREATE TABLE catering_invoices (
    id          uuid PRIMARY KEY,
    org_id      uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    quote_id    uuid        NOT NULL,
    event_id    uuid        NOT NULL,
    kind        text        NOT NULL CHECK (kind IN ('deposit', 'final')),
    status      text        NOT NULL CHECK (status IN ('open', 'paid', 'void')),
    lines       jsonb       NOT NULL,
    total_cents bigint      NOT NULL CHECK (total_cents > 0),
    paid_cents  bigint      NOT NULL DEFAULT 0 CHECK (paid_cents >= 0 AND paid_cents <= total_cents),
    number      text        NOT NULL,
    created_at  timestamptz NOT NULL,
    paid_at     timestamptz,
    voided_at   timestamptz,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, quote_id) REFERENCES catering_quotes (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, event_id) REFERENCES catering_events (org_id, id) ON DELETE CASCADE
);
CREATE INDEX catering_invoices_org_idx ON catering_invoices (org_id, created_at, id);
-- At most one live invoice of each kind per contract.
CREATE UNIQUE INDEX catering_invoices_kind_idx ON catering_invoices (org_id, quote_id, kind) WHERE status <> 'void';

CREATE TABLE catering_payments (
    id           uuid PRIMARY KEY,
    org_id       uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    invoice_id   uuid        NOT NULL,
    amount_cents bigint      NOT NULL CHECK (amount_cents > 0),
    method       text        NOT NULL CHECK (method IN ('card', 'check', 'cash', 'ach', 'other')),
    paid_at      timestamptz NOT NULL,
    reference    text,
    recorded_by  uuid        REFERENCES users (id) ON DELETE SET NULL,
    created_at   timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, invoice_id) REFERENCES catering_invoices (org_id, id) ON DELETE CASCADE
);
CREATE INDEX catering_payments_invoice_idx ON catering_payments (org_id, invoice_id, paid_at, id);

-- Surveys: questions are a jsonb array fixed once a response exists.
CREATE TABLE surveys (
    id                uuid PRIMARY KEY,
    org_id            uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    site_id           uuid,
    name              text        NOT NULL,
    questions         jsonb       NOT NULL,
    status            text        NOT NULL CHECK (status IN ('draft', 'open', 'closed')),
    closes_at         timestamptz,
    thank_you_message text        NOT NULL,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, site_id) REFERENCES sites (org_id, id) ON DELETE CASCADE
);
CREATE INDEX surveys_org_idx ON surveys (org_id, created_at, id);

-- Every survey link is an invitation: the one shared multi-use link (shared) or a minted one,
-- single-use or not. Its token is a capability token (kind survey) whose target is this row.
CREATE TABLE survey_invitations (
    id         uuid PRIMARY KEY,
    org_id     uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    survey_id  uuid        NOT NULL,
    shared     boolean     NOT NULL DEFAULT false,
    single_use boolean     NOT NULL,
    name       text,
    email      text,
    reference  text,
    expires_at timestamptz,
    used_at    timestamptz,
    created_at timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, survey_id) REFERENCES surveys (org_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX survey_invitations_shared_idx ON survey_invitations (org_id, survey_id) WHERE shared;

CREATE TABLE survey_responses (
    id            uuid PRIMARY KEY,
    org_id        uuid        NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    survey_id     uuid        NOT NULL,
    invitation_id uuid        NOT NULL,
    answers       jsonb       NOT NULL,
    submitted_at  timestamptz NOT NULL,
    UNIQUE (org_id, id),
    FOREIGN KEY (org_id, survey_id) REFERENCES surveys (org_id, id) ON DELETE CASCADE,
    FOREIGN KEY (org_id, invitation_id) REFERENCES survey_invitations (org_id, id) ON DELETE CASCADE
);
CREATE INDEX survey_responses_survey_idx ON survey_responses (org_id, survey_id, submitted_at, id);

-- +goose Down
DROP TABLE survey_responses;
DROP TABLE survey_invitations;
DROP TABLE surveys;
DROP TABLE catering_payments;
DROP TABLE catering_invoices;
DROP TABLE catering_quotes;
DROP TABLE catering_events;
DROP TABLE catering_clients;
