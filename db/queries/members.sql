-- name: ListMembers :many
SELECT m.user_id, u.name, u.email, m.role, m.site_ids, m.credentials, m.created_at
FROM memberships m
JOIN users u ON u.id = m.user_id
WHERE m.org_id = @org_id
ORDER BY u.name, u.id;

-- name: GetMember :one
SELECT m.user_id, u.name, u.email, m.role, m.site_ids, m.credentials, m.created_at
FROM memberships m
JOIN users u ON u.id = m.user_id
WHERE m.org_id = @org_id AND m.user_id = @user_id;

-- name: GetMemberForUpdate :one
SELECT role FROM memberships WHERE org_id = @org_id AND user_id = @user_id FOR UPDATE;

-- name: UpdateMember :exec
UPDATE memberships
SET role = @role, site_ids = @site_ids, credentials = @credentials, updated_at = @now
WHERE org_id = @org_id AND user_id = @user_id;

-- name: DeleteMember :exec
DELETE FROM memberships WHERE org_id = @org_id AND user_id = @user_id;

-- name: LockOrgOwners :many
-- Locks the owners' rows, so two concurrent demotions cannot both leave "another owner".
SELECT user_id, site_ids FROM memberships WHERE org_id = @org_id AND role = 'owner' FOR UPDATE;

-- name: IsMemberByEmail :one
SELECT EXISTS (
    SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id
    WHERE m.org_id = @org_id AND lower(u.email) = lower(@email)
);

-- name: RevokePendingInvitationsFor :exec
UPDATE invitations SET revoked_at = @now::timestamptz
WHERE org_id = @org_id AND lower(email) = lower(@email) AND accepted_at IS NULL AND revoked_at IS NULL;

-- name: CreateInvitation :one
INSERT INTO invitations (id, org_id, email, role, site_ids, credentials, token_hash, invited_by, created_at, expires_at)
VALUES (@id, @org_id, @email, @role, @site_ids, @credentials, @token_hash, @invited_by, @now, @expires_at)
RETURNING *;

-- name: ListPendingInvitations :many
SELECT * FROM invitations
WHERE org_id = @org_id AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > @now
ORDER BY created_at DESC, id DESC;

-- name: RevokeInvitation :execrows
UPDATE invitations SET revoked_at = @now::timestamptz
WHERE org_id = @org_id AND id = @id AND accepted_at IS NULL AND revoked_at IS NULL;

-- name: GetInvitationForUpdate :one
SELECT * FROM invitations WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: GetInvitationByTokenForUpdate :one
SELECT * FROM invitations WHERE token_hash = @token_hash FOR UPDATE;

-- name: MarkInvitationAccepted :exec
UPDATE invitations SET accepted_at = @now::timestamptz, accepted_by = @user_id WHERE id = @id;

-- name: MembershipExists :one
SELECT EXISTS (SELECT 1 FROM memberships WHERE org_id = @org_id AND user_id = @user_id);
