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

-- name: GetOrgPlan :one
-- The one query behind every organization-scoped request: the plan, and the versions that say
-- whether what a server keeps in memory is current: the organization's memberships (authz) and
-- its sites (the sites list). A plan-stable lookup: see PlanStable in internal/pg.
SELECT plan_tier, trial_ends_at, sites_version, members_version FROM orgs WHERE id = @id;

-- name: GetMembershipAccess :one
-- A membership as the authorization needs it, read when it is not known at the organization's
-- current members_version.
SELECT role, site_ids, credentials FROM memberships WHERE org_id = @org_id AND user_id = @user_id;
