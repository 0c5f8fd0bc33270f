-- Operations records (internal/records): policies, inspections and engagements, walkthroughs,
-- equipment and work orders, certifications, reports.

-- name: InsertPolicy :one
INSERT INTO policies (id, org_id, title, site_ids, created_at, updated_at)
VALUES (@id, @org_id, @title, @site_ids, @now, @now)
RETURNING *;

-- name: GetPolicy :one
SELECT * FROM policies WHERE org_id = @org_id AND id = @id;

-- name: GetPolicyForUpdate :one
SELECT * FROM policies WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: ListPolicies :many
-- A site-limited member sees policies for every site and those naming one of theirs.
SELECT * FROM policies
WHERE org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR cardinality(site_ids) = 0 OR site_ids && @scope::uuid[])
ORDER BY title, id;

-- name: ListPolicyVersions :many
SELECT * FROM policy_versions WHERE org_id = @org_id AND policy_id = @policy_id ORDER BY version;

-- name: InsertPolicyVersion :one
INSERT INTO policy_versions (org_id, policy_id, version, body, summary, created_by, created_at)
VALUES (@org_id, @policy_id,
        (SELECT coalesce(max(version), 0) + 1 FROM policy_versions v WHERE v.policy_id = @policy_id),
        @body, @summary, @created_by, @now)
RETURNING *;

-- name: GetPolicyVersionForUpdate :one
SELECT * FROM policy_versions WHERE org_id = @org_id AND policy_id = @policy_id AND version = @version FOR UPDATE;

-- name: PublishPolicyVersion :one
UPDATE policy_versions SET published_at = @now::timestamptz, published_by = sqlc.narg(published_by)::uuid
WHERE org_id = @org_id AND policy_id = @policy_id AND version = @version AND published_at IS NULL
RETURNING *;

-- name: SetPolicyCurrent :exec
UPDATE policies SET current_version = @version, updated_at = @now WHERE org_id = @org_id AND id = @id;

-- name: AcknowledgePolicy :one
INSERT INTO policy_acknowledgements (org_id, policy_id, version, user_id, acknowledged_at)
VALUES (@org_id, @policy_id, @version, @user_id, @now)
ON CONFLICT (policy_id, version, user_id) DO UPDATE SET acknowledged_at = policy_acknowledgements.acknowledged_at
RETURNING *, (xmax = 0)::boolean AS created;

-- name: PolicyAcknowledgementRoster :many
-- Every member with access to each of the sites, with their acknowledgement of the version (if any).
SELECT s.id AS site_id, s.name AS site_name, u.id AS user_id, u.name AS user_name, m.role,
       a.acknowledged_at
FROM sites s
JOIN memberships m ON m.org_id = s.org_id AND (cardinality(m.site_ids) = 0 OR s.id = ANY (m.site_ids))
JOIN users u ON u.id = m.user_id
LEFT JOIN policy_acknowledgements a ON a.policy_id = @policy_id AND a.version = @version AND a.user_id = m.user_id
WHERE s.org_id = @org_id AND s.id = ANY (@site_ids::uuid[])
ORDER BY s.name, s.id, u.name, u.id;

-- name: RecordsSites :many
SELECT id, name, timezone FROM sites
WHERE org_id = @org_id AND (cardinality(@scope::uuid[]) = 0 OR id = ANY (@scope::uuid[]))
ORDER BY name, id;

-- name: RecordsSite :one
SELECT id, name, timezone FROM sites WHERE org_id = @org_id AND id = @id;

-- name: CountRecordsSites :one
SELECT count(*) FROM sites WHERE org_id = @org_id AND id = ANY (@ids::uuid[]);

-- name: InsertInspectionTemplate :one
INSERT INTO inspection_templates (id, org_id, name, pass_percent, sections, created_at, updated_at)
VALUES (@id, @org_id, @name, @pass_percent, @sections, @now, @now)
RETURNING *;

-- name: UpdateInspectionTemplate :one
UPDATE inspection_templates SET name = @name, pass_percent = @pass_percent, sections = @sections, updated_at = @now
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: GetInspectionTemplate :one
SELECT * FROM inspection_templates WHERE org_id = @org_id AND id = @id;

-- name: ListInspectionTemplates :many
SELECT * FROM inspection_templates WHERE org_id = @org_id ORDER BY name, id LIMIT 500;

-- name: InsertInspection :one
INSERT INTO inspections (id, org_id, site_id, template_id, template_name, pass_percent, sections, engagement_id, inspector_user_id,
                         scheduled_for, created_at, updated_at)
VALUES (@id, @org_id, @site_id, @template_id, @template_name, @pass_percent, @sections, @engagement_id, @inspector_user_id,
        @scheduled_for, @now, @now)
RETURNING *;

-- name: GetInspection :one
SELECT * FROM inspections WHERE org_id = @org_id AND id = @id;

-- name: GetInspectionForUpdate :one
SELECT * FROM inspections WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: ListInspections :many
SELECT * FROM inspections
WHERE org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR site_id = sqlc.narg(site_id))
  AND (sqlc.narg(status)::text IS NULL OR status = sqlc.narg(status))
  AND (sqlc.narg(engagement_id)::uuid IS NULL OR engagement_id = sqlc.narg(engagement_id))
  AND (sqlc.narg(cursor_at)::timestamptz IS NULL OR (scheduled_for, id) < (sqlc.narg(cursor_at), sqlc.narg(cursor_id)::uuid))
ORDER BY scheduled_for DESC, id DESC
LIMIT @max_rows;

-- name: SetInspectionResponses :one
UPDATE inspections SET responses = @responses, notes = @notes, status = 'in_progress', updated_at = @now
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: CompleteInspection :one
UPDATE inspections SET status = 'completed', score = @score, max_score = @max_score, percent = sqlc.narg(percent),
       result = @result, completed_at = @now::timestamptz, completed_by = sqlc.narg(completed_by), updated_at = @now
WHERE org_id = @org_id AND id = @id AND status <> 'completed'
RETURNING *;

-- name: InsertFinding :one
INSERT INTO inspection_findings (id, org_id, inspection_id, site_id, section, item_key, prompt, critical, note, created_at)
VALUES (@id, @org_id, @inspection_id, @site_id, @section, @item_key, @prompt, @critical, @note, @now)
RETURNING *;

-- name: SetFindingTask :exec
UPDATE inspection_findings SET task_id = @task_id WHERE org_id = @org_id AND id = @id;

-- name: ListFindings :many
SELECT * FROM inspection_findings WHERE org_id = @org_id AND inspection_id = ANY (@inspection_ids::uuid[])
ORDER BY created_at, id;

-- name: InsertEngagement :one
INSERT INTO engagements (id, org_id, name, site_ids, auditor, period_from, period_to, created_at, updated_at)
VALUES (@id, @org_id, @name, @site_ids, @auditor, @period_from, @period_to, @now, @now)
RETURNING *;

-- name: GetEngagement :one
SELECT * FROM engagements WHERE org_id = @org_id AND id = @id;

-- name: GetEngagementForUpdate :one
SELECT * FROM engagements WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: ListEngagements :many
-- A site-limited member sees the engagements wholly within their sites.
SELECT * FROM engagements
WHERE org_id = @org_id AND (cardinality(@scope::uuid[]) = 0 OR site_ids <@ @scope::uuid[])
ORDER BY created_at DESC, id DESC
LIMIT 500;

-- name: EngagementInspectionsForUpdate :many
SELECT * FROM inspections WHERE org_id = @org_id AND engagement_id = @engagement_id ORDER BY scheduled_for, id FOR UPDATE;

-- name: EngagementInspectionIDs :many
SELECT id FROM inspections WHERE org_id = @org_id AND engagement_id = @engagement_id ORDER BY scheduled_for, id;

-- name: FreezeEngagementInspections :exec
UPDATE inspections SET frozen = true, updated_at = @now WHERE org_id = @org_id AND engagement_id = @engagement_id;

-- name: FinalizeEngagement :one
UPDATE engagements SET status = 'finalized', report = @report, finalized_at = @now::timestamptz, finalized_by = sqlc.narg(finalized_by), updated_at = @now
WHERE org_id = @org_id AND id = @id AND status = 'open'
RETURNING *;

-- name: InsertEquipment :one
INSERT INTO equipment (id, org_id, site_id, name, kind, make, model, serial, location_id, created_at, updated_at)
VALUES (@id, @org_id, @site_id, @name, @kind, @make, @model, @serial, @location_id, @now, @now)
RETURNING *;

-- name: UpdateEquipment :one
UPDATE equipment SET site_id = @site_id, name = @name, kind = @kind, make = @make, model = @model, serial = @serial,
       location_id = @location_id, updated_at = @now
WHERE org_id = @org_id AND id = @id
RETURNING *;

-- name: GetEquipment :one
SELECT * FROM equipment WHERE org_id = @org_id AND id = @id;

-- name: GetEquipmentForUpdate :one
SELECT * FROM equipment WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: ListEquipment :many
SELECT * FROM equipment
WHERE org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR site_id = sqlc.narg(site_id))
ORDER BY site_id, name, id
LIMIT 500;

-- name: InsertWorkOrder :one
INSERT INTO work_orders (id, org_id, site_id, equipment_id, title, description, priority, alert_id, created_by, created_at, updated_at)
VALUES (@id, @org_id, @site_id, @equipment_id, @title, @description, @priority, sqlc.narg(alert_id), sqlc.narg(created_by), @now, @now)
ON CONFLICT (org_id, alert_id) WHERE alert_id IS NOT NULL DO NOTHING
RETURNING *;

-- name: GetWorkOrder :one
SELECT * FROM work_orders WHERE org_id = @org_id AND id = @id;

-- name: GetWorkOrderByAlert :one
SELECT * FROM work_orders WHERE org_id = @org_id AND alert_id = @alert_id;

-- name: ListWorkOrders :many
SELECT * FROM work_orders
WHERE org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR site_id = sqlc.narg(site_id))
  AND (sqlc.narg(equipment_id)::uuid IS NULL OR equipment_id = sqlc.narg(equipment_id))
  AND (sqlc.narg(status)::text IS NULL OR status = sqlc.narg(status))
  AND (sqlc.narg(cursor_at)::timestamptz IS NULL OR (created_at, id) < (sqlc.narg(cursor_at), sqlc.narg(cursor_id)::uuid))
ORDER BY created_at DESC, id DESC
LIMIT @max_rows;

-- name: TransitionWorkOrder :one
-- Moves the work order only from the state given: of parallel moves from one state, one wins.
UPDATE work_orders SET status = @to_status, updated_at = @now,
       started_at = CASE WHEN @to_status = 'in_progress' THEN @now ELSE started_at END,
       closed_at = CASE WHEN @to_status IN ('resolved', 'cancelled') THEN @now ELSE closed_at END,
       closed_by = CASE WHEN @to_status IN ('resolved', 'cancelled') THEN sqlc.narg(actor)::uuid ELSE closed_by END,
       resolution_note = CASE WHEN @to_status = 'resolved' THEN sqlc.narg(resolution_note)::text ELSE resolution_note END
WHERE org_id = @org_id AND id = @id AND status = @from_status
RETURNING *;

-- name: LockWorkOrder :one
-- The work order, locked while a photo is attached or removed, so the count and the state hold.
SELECT * FROM work_orders WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: CountWorkOrderPhotos :one
SELECT count(*) FROM work_order_photos WHERE org_id = @org_id AND work_order_id = @work_order_id;

-- name: InsertWorkOrderPhoto :one
INSERT INTO work_order_photos (id, org_id, work_order_id, content_type, size, sha256, filename, data, created_by, created_at)
VALUES (@id, @org_id, @work_order_id, @content_type, @size, @sha256, @filename, @data, sqlc.narg(created_by), @now)
RETURNING id, content_type, size, filename, created_at;

-- name: ListWorkOrderPhotos :many
SELECT id, content_type, size, filename, created_at FROM work_order_photos
WHERE org_id = @org_id AND work_order_id = @work_order_id ORDER BY created_at, id;

-- name: GetWorkOrderPhotoContent :one
SELECT ph.content_type, ph.data, w.site_id FROM work_order_photos ph
JOIN work_orders w ON w.org_id = ph.org_id AND w.id = ph.work_order_id
WHERE ph.org_id = @org_id AND ph.work_order_id = @work_order_id AND ph.id = @id;

-- name: DeleteWorkOrderPhoto :execrows
DELETE FROM work_order_photos WHERE org_id = @org_id AND work_order_id = @work_order_id AND id = @id;

-- name: HasAcknowledged :one
SELECT EXISTS (SELECT 1 FROM policy_acknowledgements WHERE policy_id = @policy_id AND version = @version AND user_id = @user_id);

-- name: RecordsMember :one
SELECT role, site_ids FROM memberships WHERE org_id = @org_id AND user_id = @user_id;

-- name: CountRecordsMedia :one
-- Images of the organization a member may attach: a non-empty scope (a site-limited member's
-- sites) counts those sites' images only, as GET /media lists them.
SELECT count(*) FROM media
WHERE org_id = @org_id AND id = ANY (@ids::uuid[])
  AND (cardinality(@scope::uuid[]) = 0 OR site_id = ANY (@scope::uuid[]));

-- name: InsertWalkthrough :one
INSERT INTO walkthroughs (id, org_id, name, kind, steps, site_ids, created_at, updated_at)
VALUES (@id, @org_id, @name, @kind, @steps, @site_ids, @now, @now)
RETURNING *;

-- name: GetWalkthrough :one
SELECT * FROM walkthroughs WHERE org_id = @org_id AND id = @id;

-- name: ListWalkthroughs :many
SELECT * FROM walkthroughs
WHERE org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR cardinality(site_ids) = 0 OR site_ids && @scope::uuid[])
ORDER BY name, id
LIMIT 500;

-- name: InsertWalkthroughRun :one
INSERT INTO walkthrough_runs (id, org_id, walkthrough_id, site_id, steps, started_by, started_at)
VALUES (@id, @org_id, @walkthrough_id, @site_id, @steps, sqlc.narg(started_by), @now)
RETURNING *;

-- name: GetWalkthroughRun :one
SELECT r.*, w.name AS walkthrough_name FROM walkthrough_runs r JOIN walkthroughs w ON w.id = r.walkthrough_id
WHERE r.org_id = @org_id AND r.id = @id;

-- name: LockWalkthroughRun :one
SELECT * FROM walkthrough_runs WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: SetWalkthroughResponses :exec
UPDATE walkthrough_runs SET responses = @responses WHERE org_id = @org_id AND id = @id;

-- name: SubmitWalkthroughRun :execrows
UPDATE walkthrough_runs SET status = 'submitted', submitted_at = @now::timestamptz, submitted_by = sqlc.narg(submitted_by)
WHERE org_id = @org_id AND id = @id AND status = 'in_progress';

-- name: InsertCertification :one
INSERT INTO certifications (id, org_id, site_id, user_id, kind, number, issued_on, expires_on, created_at, updated_at)
VALUES (@id, @org_id, @site_id, @user_id, @kind, @number, @issued_on, @expires_on, @now, @now)
RETURNING id;

-- name: UpdateCertification :exec
UPDATE certifications SET site_id = @site_id, user_id = @user_id, kind = @kind, number = @number, issued_on = @issued_on,
       expires_on = @expires_on, updated_at = @now
WHERE org_id = @org_id AND id = @id;

-- name: GetCertificationForUpdate :one
SELECT * FROM certifications WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: GetCertificationView :one
SELECT c.*, u.name AS user_name, s.timezone FROM certifications c
JOIN users u ON u.id = c.user_id JOIN sites s ON s.org_id = c.org_id AND s.id = c.site_id
WHERE c.org_id = @org_id AND c.id = @id;

-- name: ListCertifications :many
SELECT c.*, u.name AS user_name, s.timezone FROM certifications c
JOIN users u ON u.id = c.user_id JOIN sites s ON s.org_id = c.org_id AND s.id = c.site_id
WHERE c.org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR c.site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR c.site_id = sqlc.narg(site_id))
  AND (sqlc.narg(user_id)::uuid IS NULL OR c.user_id = sqlc.narg(user_id))
  AND (sqlc.narg(kind)::text IS NULL OR c.kind = sqlc.narg(kind))
ORDER BY c.expires_on, c.id
LIMIT 500;

-- name: DueCertifications :many
-- Certifications whose lapse alert is not yet opened for their expiry date and that expire by
-- the horizon, locked so that one replica handles each.
SELECT c.id, c.org_id, c.site_id, c.user_id, c.kind, c.expires_on, c.warned_for, s.timezone, u.name AS user_name
FROM certifications c
JOIN sites s ON s.org_id = c.org_id AND s.id = c.site_id
JOIN users u ON u.id = c.user_id
WHERE c.expires_on <= @horizon::date AND c.lapsed_for IS DISTINCT FROM c.expires_on
  AND (c.expires_on, c.id) > (@after_date::date, @after_id::uuid)
ORDER BY c.expires_on, c.id
LIMIT @max_rows
FOR UPDATE OF c SKIP LOCKED;

-- name: MarkCertificationWarned :execrows
UPDATE certifications SET warned_for = expires_on WHERE id = @id AND warned_for IS DISTINCT FROM expires_on;

-- name: MarkCertificationLapsed :execrows
UPDATE certifications SET lapsed_for = expires_on, warned_for = expires_on WHERE id = @id AND lapsed_for IS DISTINCT FROM expires_on;

-- name: OtherValidFoodManagers :one
SELECT count(*) FROM certifications
WHERE org_id = @org_id AND site_id = @site_id AND kind = 'food_manager' AND id <> @id AND expires_on > @today::date;

-- name: ReportInspections :many
SELECT * FROM inspections
WHERE org_id = @org_id AND site_id = @site_id AND status = 'completed' AND completed_at >= @from_at AND completed_at < @to_at
ORDER BY completed_at, id;

-- name: SiteFindings :many
SELECT * FROM inspection_findings WHERE org_id = @org_id AND site_id = ANY (@site_ids::uuid[]) ORDER BY created_at, id;

-- name: ReportCertifications :many
SELECT c.id, c.user_id, c.site_id, c.kind, c.expires_on, u.name AS user_name FROM certifications c JOIN users u ON u.id = c.user_id
WHERE c.org_id = @org_id AND c.site_id = ANY (@site_ids::uuid[]) AND c.expires_on <= @until::date
ORDER BY c.expires_on, c.id;

-- name: InsertReport :one
INSERT INTO reports (id, org_id, scope, site_id, kind, period_from, period_to, content, created_by, created_at)
VALUES (@id, @org_id, @scope, sqlc.narg(site_id), @kind, @period_from, @period_to, @content, sqlc.narg(created_by), @now)
RETURNING *;

-- name: GetReport :one
SELECT * FROM reports WHERE org_id = @org_id AND id = @id;

-- name: ListReports :many
-- A site-limited member sees the site reports of their sites.
SELECT * FROM reports
WHERE org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR site_id = sqlc.narg(site_id))
  AND (sqlc.narg(cursor_at)::timestamptz IS NULL OR (created_at, id) < (sqlc.narg(cursor_at), sqlc.narg(cursor_id)::uuid))
ORDER BY created_at DESC, id DESC
LIMIT @max_rows;

-- name: ScanOpenWorkOrders :many
-- A scanned piece of equipment's work orders not yet resolved or cancelled, newest first.
SELECT * FROM work_orders
WHERE org_id = @org_id AND equipment_id = @equipment_id AND status IN ('open', 'in_progress')
ORDER BY created_at DESC, id DESC
LIMIT @max_rows;

-- name: RecordsSharedBrand :one
-- The organization's name and display colours, for a shared report.
SELECT name, brand_primary, brand_accent FROM orgs WHERE id = @org_id;
