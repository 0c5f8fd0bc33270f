-- name: GetOrg :one
SELECT * FROM orgs WHERE id = @id;

-- name: UpdateOrg :one
UPDATE orgs
SET name = @name, brand_primary = @brand_primary, brand_accent = @brand_accent, updated_at = @now
WHERE id = @id
RETURNING *;

-- name: SetOrgPlan :one
UPDATE orgs
SET plan_tier = @plan_tier, trial_ends_at = sqlc.narg(trial_ends_at), updated_at = @now
WHERE id = @id
RETURNING *;

-- name: GetMembershipWithOrg :one
-- The one query behind every organization-scoped request: membership and plan together, and
-- the version of the organization's sites (which says whether a list kept in memory is current).
SELECT m.role, m.site_ids, m.credentials, o.plan_tier, o.trial_ends_at, o.sites_version
FROM memberships m
JOIN orgs o ON o.id = m.org_id
WHERE m.org_id = @org_id AND m.user_id = @user_id;

-- name: GetOrgPlan :one
SELECT plan_tier, trial_ends_at, sites_version FROM orgs WHERE id = @id;
