-- +goose Up
-- Sign-in attempts are reserved before the password is verified: a reservation is a rate event
-- carrying the id of the attempt that holds it, counted as a failure until it is settled (kept as
-- a failure, with reservation cleared) or released (deleted on success). Counting reservations
-- is what keeps N parallel guesses to at most the limit of verifications, on every replica.
ALTER TABLE rate_events ADD COLUMN reservation uuid;

-- Per-user security log: sign-ins, failures, locks, password changes, refresh-token reuse,
-- sign-outs and registration, written in the transaction of the event itself and kept 90 days.
CREATE TABLE security_events (
    id         uuid PRIMARY KEY,
    user_id    uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    at         timestamptz NOT NULL,
    kind       text        NOT NULL CHECK (kind IN ('sign_in', 'sign_in_failed', 'locked', 'password_changed',
                                                   'refresh_reuse_detected', 'signed_out', 'registered')),
    ip         text,
    user_agent text
);
-- The user's log, newest first (keyset on (at, id)).
CREATE INDEX security_events_user_at_idx ON security_events (user_id, at DESC, id DESC);
-- Retention prunes by age across users.
CREATE INDEX security_events_at_idx ON security_events (at);

-- +goose Down
DROP TABLE security_events;
ALTER TABLE rate_events DROP COLUMN reservation;
