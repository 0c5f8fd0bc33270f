-- name: CreateUser :one
INSERT INTO users (id, email, name, password_hash, created_at, updated_at)
VALUES (@id, @email, @name, @password_hash, @now, @now)
RETURNING *;

-- name: GetUserByEmail :one
SELECT * FROM users WHERE lower(email) = lower(@email);

-- name: GetUser :one
SELECT * FROM users WHERE id = @id;

-- name: UpdateUserPassword :exec
UPDATE users SET password_hash = @password_hash, updated_at = @now WHERE id = @id;

-- name: ListMembershipsForUser :many
SELECT m.org_id, o.name AS org_name, m.role, m.site_ids, m.credentials
FROM memberships m
JOIN orgs o ON o.id = m.org_id
WHERE m.user_id = @user_id
ORDER BY o.name, m.org_id;

-- name: CreateOrg :one
INSERT INTO orgs (id, name, plan_tier, trial_ends_at, created_at, updated_at)
VALUES (@id, @name, @plan_tier, @trial_ends_at, @now, @now)
RETURNING *;

-- name: CreateMembership :exec
INSERT INTO memberships (org_id, user_id, role, site_ids, credentials, created_at, updated_at)
VALUES (@org_id, @user_id, @role, @site_ids, @credentials, @now, @now);

-- name: CreateRefreshToken :exec
INSERT INTO refresh_tokens (id, user_id, family_id, parent_id, token_hash, issued_at, expires_at)
VALUES (@id, @user_id, @family_id, @parent_id, @token_hash, @issued_at, @expires_at);

-- ConsumeRefreshToken marks a live token consumed in one statement, so two concurrent refreshes
-- of the same token cannot both succeed.
-- name: ConsumeRefreshToken :one
UPDATE refresh_tokens
SET consumed_at = @now::timestamptz
WHERE token_hash = @token_hash
  AND consumed_at IS NULL
  AND revoked_at IS NULL
  AND expires_at > @now
RETURNING id, user_id, family_id;

-- name: GetRefreshTokenByHash :one
SELECT id, user_id, family_id, consumed_at, revoked_at, expires_at
FROM refresh_tokens
WHERE token_hash = @token_hash;

-- name: RevokeRefreshTokenFamily :execrows
UPDATE refresh_tokens
SET revoked_at = @now::timestamptz
WHERE family_id = @family_id AND revoked_at IS NULL;

-- name: RevokeUserRefreshTokens :exec
UPDATE refresh_tokens
SET revoked_at = @now::timestamptz
WHERE user_id = @user_id AND consumed_at IS NULL AND revoked_at IS NULL;

-- name: GetUserMembershipVersion :one
-- GET /auth/me on every call: the user by primary key and the version of their memberships,
-- which says whether memberships read before are still current (a plan-stable lookup: see
-- PlanStable in internal/pg).
SELECT id, email, name, memberships_version FROM users WHERE id = @id;

-- name: GetUserWithMemberships :one
-- GET /auth/me when the memberships are not known at their current version: the user and their
-- memberships as a JSON array, with the version they are at (one statement, one snapshot).
SELECT u.id, u.email, u.name, u.memberships_version,
       coalesce(jsonb_agg(jsonb_build_object(
           'orgId', m.org_id, 'orgName', o.name, 'role', m.role,
           'siteIds', m.site_ids, 'credentials', m.credentials
       ) ORDER BY o.name, m.org_id) FILTER (WHERE m.org_id IS NOT NULL), '[]')::jsonb AS memberships
FROM users u
LEFT JOIN memberships m ON m.user_id = u.id
LEFT JOIN orgs o ON o.id = m.org_id
WHERE u.id = @id
GROUP BY u.id;

-- name: InsertSecurityEvent :exec
INSERT INTO security_events (id, user_id, at, kind, ip, user_agent)
VALUES (@id, @user_id, @at, @kind, sqlc.narg(ip), sqlc.narg(user_agent));

-- name: ListSecurityEvents :many
-- Newest first, keyset-paged on (at, id).
SELECT e.id, e.at, e.kind, e.ip, e.user_agent
FROM security_events e
WHERE e.user_id = @user_id
  AND (sqlc.narg(cursor_at)::timestamptz IS NULL OR (e.at, e.id) < (sqlc.narg(cursor_at), sqlc.narg(cursor_id)::uuid))
ORDER BY e.at DESC, e.id DESC
LIMIT @max_rows;

-- name: PruneSecurityEvents :execrows
-- A slice at a time, so one run never holds a long lock on a large backlog.
DELETE FROM security_events
WHERE id IN (SELECT old.id FROM security_events old WHERE old.at < @before::timestamptz ORDER BY old.at LIMIT @max_rows);
