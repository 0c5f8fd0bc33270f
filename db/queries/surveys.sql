-- name: CreateSurvey :one
INSERT INTO surveys (id, org_id, site_id, name, questions, status, closes_at, thank_you_message, created_at, updated_at)
VALUES (@id, @org_id, sqlc.narg(site_id), @name, @questions, @status, sqlc.narg(closes_at), @thank_you_message, @now, @now)
RETURNING *;

-- name: UpdateSurvey :one
UPDATE surveys
SET name = @name, questions = @questions, status = @status, closes_at = sqlc.narg(closes_at),
    thank_you_message = @thank_you_message, updated_at = @now
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: GetSurvey :one
SELECT * FROM surveys WHERE org_id = @org_id AND id = @id;

-- name: GetSurveyForUpdate :one
SELECT * FROM surveys WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: ListSurveys :many
-- scope empty means every site; organization-wide surveys (no site) are visible to every member.
SELECT sqlc.embed(s), (SELECT count(*) FROM survey_responses r WHERE r.org_id = s.org_id AND r.survey_id = s.id)::int AS response_count
FROM surveys s
WHERE s.org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR s.site_id IS NULL OR s.site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(cursor_id)::uuid IS NULL OR s.id < sqlc.narg(cursor_id)::uuid)
ORDER BY s.id DESC
LIMIT @max_rows;

-- name: CreateSurveyInvitation :one
INSERT INTO survey_invitations (id, org_id, survey_id, shared, single_use, name, email, reference, expires_at, created_at)
VALUES (@id, @org_id, @survey_id, @shared, @single_use, sqlc.narg(name), sqlc.narg(email), sqlc.narg(reference), sqlc.narg(expires_at), @now)
RETURNING *;

-- name: GetSharedSurveyInvitation :one
SELECT * FROM survey_invitations WHERE org_id = @org_id AND survey_id = @survey_id AND shared;

-- name: GetPublicSurvey :one
-- The survey behind an invitation a capability token opened, with what its page shows.
SELECT sqlc.embed(s), i.single_use, i.used_at, st.name AS site_name,
       o.name AS org_name, o.brand_primary, o.brand_accent
FROM survey_invitations i
JOIN surveys s ON s.org_id = i.org_id AND s.id = i.survey_id
LEFT JOIN sites st ON st.org_id = s.org_id AND st.id = s.site_id
JOIN orgs o ON o.id = i.org_id
WHERE i.org_id = @org_id AND i.id = @id;

-- name: GetPublicSurveyForSubmit :one
-- As GetPublicSurvey, holding the survey against a concurrent change of its questions.
SELECT sqlc.embed(s), i.single_use, i.used_at
FROM survey_invitations i
JOIN surveys s ON s.org_id = i.org_id AND s.id = i.survey_id
WHERE i.org_id = @org_id AND i.id = @id
FOR SHARE OF s;

-- name: LockSurveyInvitation :one
SELECT * FROM survey_invitations WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: UseSurveyInvitation :exec
UPDATE survey_invitations SET used_at = coalesce(used_at, @now::timestamptz) WHERE org_id = @org_id AND id = @id;

-- name: InsertSurveyResponse :exec
INSERT INTO survey_responses (id, org_id, survey_id, invitation_id, answers, submitted_at)
VALUES (@id, @org_id, @survey_id, @invitation_id, @answers, @now);

-- name: CountSurveyResponses :one
SELECT count(*)::int FROM survey_responses WHERE org_id = @org_id AND survey_id = @survey_id;

-- name: ListSurveyResponses :many
SELECT id, answers, submitted_at FROM survey_responses
WHERE org_id = @org_id AND survey_id = @survey_id
  AND (sqlc.narg(from_at)::timestamptz IS NULL OR submitted_at >= sqlc.narg(from_at)::timestamptz)
  AND (sqlc.narg(to_at)::timestamptz IS NULL OR submitted_at < sqlc.narg(to_at)::timestamptz)
ORDER BY submitted_at DESC, id DESC;
