-- +goose Up
-- A stored response is its caller's. Keys of an organization's operations were kept under the
-- organization alone, so another member sending the same key and request was answered from the
-- first caller's response, past the checks a handler makes on the resource's site (a member
-- limited to one site received another site's share token). Keys are now kept per caller (the
-- scope names the organization and the user, API key or device), with the rights the first
-- request ran under: a retry is replayed only while the caller still holds all of them, and
-- runs again (under its present rights) once they were narrowed.
--
-- The rows kept under an organization alone (scope 'org:<id>') record no caller, so no one can
-- be told they are theirs: they are deleted. They are a 24-hour cache; the only effect is that a
-- retry of a request made before this migration runs again instead of being replayed. Rows of
-- users outside an organization, devices and client addresses were already per caller and stay.
DELETE FROM idempotency_keys WHERE scope LIKE 'org:%';

ALTER TABLE idempotency_keys
    ADD COLUMN role        text,                        -- the member's role; NULL without a membership
    ADD COLUMN site_ids    uuid[] NOT NULL DEFAULT '{}', -- the member's sites; empty: every site
    ADD COLUMN credentials text[] NOT NULL DEFAULT '{}'; -- the member's credentials (rd)

-- +goose Down
ALTER TABLE idempotency_keys DROP COLUMN role, DROP COLUMN site_ids, DROP COLUMN credentials;
