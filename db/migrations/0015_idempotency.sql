-- +goose Up
-- Idempotency keys (the Idempotency-Key header): the first response to a key is kept for 24 hours
-- and replayed to retries of the same request, on every replica. A row is reserved (token set,
-- status NULL) before the operation runs and completed after it; a reservation whose request
-- died is taken over once stale. The key and the response are not stored in the clear: the row is
-- found by a hash of the key, and the response is encrypted with a key derived from it, since a
-- response may carry a secret shown once (a session's tokens, an API key, a device token).
CREATE TABLE idempotency_keys (
    scope        text        NOT NULL, -- org:<id>, user:<id>, device:<id> or ip:<address>
    key_hash     bytea       NOT NULL, -- SHA-256 of scope and key
    token        uuid        NOT NULL, -- the reservation's owner
    request_hash bytea       NOT NULL, -- SHA-256 of method, path, query and body
    reserved_at  timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    status       integer,              -- NULL while the first request runs
    response     bytea,                -- nonce and AES-GCM sealed status, headers and body
    PRIMARY KEY (scope, key_hash)
);
CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at);

-- +goose Down
DROP TABLE idempotency_keys;
