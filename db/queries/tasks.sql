-- name: InsertTask :one
INSERT INTO tasks (id, org_id, site_id, title, description, kind, priority, required, requires_scan, requires_photo, requires_temp,
                   temp_min_f, temp_max_f, target_type, target_id, target_name, linked_doc_ids, assignee_user_id, assignee_position_id,
                   due_at, grace_minutes, missed_after, source, source_id, occurrence, created_at)
VALUES (@id, @org_id, @site_id, @title, @description, @kind, @priority, @required, @requires_scan, @requires_photo, @requires_temp,
        @temp_min_f, @temp_max_f, @target_type, @target_id, @target_name, @linked_doc_ids, @assignee_user_id, @assignee_position_id,
        @due_at, @grace_minutes, @missed_after, @source, @source_id, @occurrence, @created_at)
RETURNING id;

-- name: InsertSensorAlertTask :execrows
-- The task of an alert: once per alert, whichever transaction opens it.
INSERT INTO tasks (id, org_id, site_id, title, description, kind, priority, required, due_at, grace_minutes, missed_after, source, source_id, created_at)
VALUES (@id, @org_id, @site_id, @title, @description, 'maintenance', 'high', false, @due_at, 30,
        @missed_after, 'sensor_alert', @alert_id, @now)
ON CONFLICT (org_id, source_id) WHERE source = 'sensor_alert' DO NOTHING;

-- name: GetTaskView :one
-- A task as the API shows it: names resolved, photos listed, the site's zone.
SELECT * FROM task_views t
WHERE t.org_id = @org_id AND t.id = @id;

-- name: GetTaskViews :many
SELECT * FROM task_views t
WHERE t.org_id = @org_id AND t.id = ANY (@ids::uuid[])
ORDER BY t.due_at, t.id;

-- name: ListTasks :many
-- By due time, keyset-paged on (due_at, id). scope empty means every site.
SELECT * FROM task_views t
WHERE t.org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR t.site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR t.site_id = sqlc.narg(site_id))
  AND (sqlc.narg(status)::text IS NULL OR t.status = sqlc.narg(status))
  AND (sqlc.narg(kind)::text IS NULL OR t.kind = sqlc.narg(kind))
  AND (sqlc.narg(source)::text IS NULL OR t.source = sqlc.narg(source))
  AND (sqlc.narg(position_id)::uuid IS NULL OR t.assignee_position_id = sqlc.narg(position_id))
  AND (sqlc.narg(assignee_id)::uuid IS NULL OR t.assignee_user_id = sqlc.narg(assignee_id)
       OR t.assignee_position_id IN (SELECT pm.position_id FROM position_members pm WHERE pm.org_id = t.org_id AND pm.user_id = sqlc.narg(assignee_id)))
  AND (sqlc.narg(due_from)::timestamptz IS NULL OR t.due_at >= sqlc.narg(due_from))
  AND (sqlc.narg(due_to)::timestamptz IS NULL OR t.due_at <= sqlc.narg(due_to))
  AND (sqlc.narg(cursor_at)::timestamptz IS NULL OR (t.due_at, t.id) > (sqlc.narg(cursor_at)::timestamptz, sqlc.narg(cursor_id)::uuid))
ORDER BY t.due_at, t.id
LIMIT @max_rows;

-- name: GetTaskForUpdate :one
SELECT * FROM tasks WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: CompleteTask :exec
UPDATE tasks SET status = 'done', completed_at = @now::timestamptz, completed_by = @completed_by, evidence = @evidence, late = @late
WHERE org_id = @org_id AND id = @id;

-- name: AssignTask :exec
UPDATE tasks SET assignee_user_id = @assignee_user_id, assignee_position_id = @assignee_position_id
WHERE org_id = @org_id AND id = @id;

-- name: SetTaskDocs :exec
UPDATE tasks SET linked_doc_ids = @linked_doc_ids WHERE org_id = @org_id AND id = @id;

-- name: MarkMissedTasks :many
-- Open tasks past their due time and grace become missed. The update re-reads each row it
-- locked, so of two replicas sweeping at once each task is moved (and returned) by one.
UPDATE tasks t SET status = 'missed', missed_at = @now::timestamptz
FROM (SELECT id FROM tasks WHERE status = 'open' AND missed_after < @now::timestamptz
      ORDER BY missed_after LIMIT @max_rows FOR UPDATE SKIP LOCKED) due
WHERE t.id = due.id AND t.status = 'open'
RETURNING t.id, t.org_id, t.site_id, t.title, t.priority, t.required, t.due_at;

-- name: CountTaskPhotos :one
SELECT count(*) FROM task_photos WHERE org_id = @org_id AND task_id = @task_id;

-- name: InsertTaskPhoto :one
INSERT INTO task_photos (id, org_id, task_id, content_type, size, sha256, filename, data, created_by, created_at)
VALUES (@id, @org_id, @task_id, @content_type, @size, @sha256, @filename, @data, @created_by, @now)
RETURNING id, content_type, size, filename, created_at;

-- name: ListTaskPhotos :many
SELECT id, content_type, size, filename, created_at FROM task_photos
WHERE org_id = @org_id AND task_id = @task_id ORDER BY created_at, id;

-- name: GetTaskPhotoContent :one
SELECT ph.content_type, ph.data, t.site_id FROM task_photos ph
JOIN tasks t ON t.org_id = ph.org_id AND t.id = ph.task_id
WHERE ph.org_id = @org_id AND ph.task_id = @task_id AND ph.id = @id;

-- name: DeleteTaskPhoto :execrows
DELETE FROM task_photos WHERE org_id = @org_id AND task_id = @task_id AND id = @id;

-- name: FindTagByCode :one
-- A current tag of the organization, for a scan's evidence.
SELECT id, target_type, target_id, site_id, label FROM tags
WHERE org_id = @org_id AND upper(code) = upper(@code) AND retired_at IS NULL;

-- name: GetTagTarget :one
-- The target a tag names and what to call it: the tag's label, else the site's, storage
-- location's or equipment's own name (a tag naming its target by id needs no label).
SELECT t.id, t.target_type, t.target_id, t.site_id, coalesce(t.label, s.name, l.name, e.name, '')::text AS name
FROM tags t
LEFT JOIN sites s ON t.target_type = 'site' AND s.org_id = t.org_id AND s.id = t.target_id
LEFT JOIN storage_locations l ON t.target_type = 'storage_location' AND l.org_id = t.org_id AND l.id = t.target_id
LEFT JOIN equipment e ON t.target_type = 'equipment' AND e.org_id = t.org_id AND e.id = t.target_id
WHERE t.org_id = @org_id AND t.id = @id AND t.retired_at IS NULL;

-- name: MemberSites :one
-- A member's site scope (empty: every site); no row: not a member.
SELECT site_ids FROM memberships WHERE org_id = @org_id AND user_id = @user_id;

-- name: MembersSites :many
SELECT user_id, site_ids FROM memberships WHERE org_id = @org_id AND user_id = ANY (@user_ids::uuid[]);

-- name: GuidesSites :many
SELECT id, title, site_ids FROM guides WHERE org_id = @org_id AND id = ANY (@ids::uuid[]);

-- name: CountMedia :one
-- Images of the organization a member may attach: a non-empty scope (a site-limited member's
-- sites) counts those sites' images only, as GET /media lists them.
SELECT count(*) FROM media
WHERE org_id = @org_id AND id = ANY (@ids::uuid[])
  AND (cardinality(@scope::uuid[]) = 0 OR site_id = ANY (@scope::uuid[]));

-- Positions.

-- name: InsertPosition :one
INSERT INTO positions (id, org_id, site_id, name, created_at, updated_at)
VALUES (@id, @org_id, @site_id, @name, @now, @now)
RETURNING *;

-- name: GetPosition :one
SELECT * FROM positions WHERE org_id = @org_id AND id = @id;

-- name: GetPositionForUpdate :one
SELECT * FROM positions WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: RenamePosition :one
UPDATE positions SET name = @name, updated_at = @now WHERE org_id = @org_id AND id = @id RETURNING *;

-- name: ListPositions :many
SELECT * FROM positions
WHERE org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR site_id = sqlc.narg(site_id))
ORDER BY name, id;

-- name: PositionMembers :many
SELECT position_id, user_id FROM position_members
WHERE org_id = @org_id AND position_id = ANY (@position_ids::uuid[])
ORDER BY user_id;

-- name: ClearPositionMembers :exec
DELETE FROM position_members WHERE org_id = @org_id AND position_id = @position_id;

-- name: AddPositionMembers :exec
INSERT INTO position_members (org_id, position_id, user_id)
SELECT @org_id, @position_id, unnest(@user_ids::uuid[])
ON CONFLICT DO NOTHING;

-- Guides.

-- name: InsertGuide :one
INSERT INTO guides (id, org_id, title, body, media_ids, site_ids, created_at, updated_at)
VALUES (@id, @org_id, @title, @body, @media_ids, @site_ids, @now, @now)
RETURNING *;

-- name: GetGuide :one
SELECT * FROM guides WHERE org_id = @org_id AND id = @id;

-- name: GetGuideForUpdate :one
SELECT * FROM guides WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: UpdateGuide :one
UPDATE guides SET title = @title, body = @body, media_ids = @media_ids, site_ids = @site_ids, updated_at = @now
WHERE org_id = @org_id AND id = @id RETURNING *;

-- name: ListGuides :many
-- A site-limited member sees guides for every site and guides for one of theirs.
SELECT * FROM guides
WHERE org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR cardinality(site_ids) = 0 OR site_ids && @scope::uuid[])
ORDER BY title, id;

-- Routines.

-- name: InsertRoutine :one
INSERT INTO routines (id, org_id, site_id, name, rrule, starts_on, active, items, created_at, updated_at)
VALUES (@id, @org_id, @site_id, @name, @rrule, @starts_on, @active, @items, @now, @now)
RETURNING *;

-- name: GetRoutine :one
SELECT * FROM routines WHERE org_id = @org_id AND id = @id;

-- name: LockRoutine :one
SELECT * FROM routines WHERE org_id = @org_id AND id = @id FOR UPDATE;

-- name: UpdateRoutine :one
UPDATE routines SET name = @name, rrule = @rrule, starts_on = @starts_on, active = @active, items = @items, updated_at = @now
WHERE org_id = @org_id AND id = @id RETURNING *;

-- name: ListRoutines :many
SELECT r.* FROM routines r
WHERE r.org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR r.site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR r.site_id = sqlc.narg(site_id))
  AND (sqlc.narg(cursor_name)::text IS NULL OR (r.name, r.id) > (sqlc.narg(cursor_name)::text, sqlc.narg(cursor_id)::uuid))
ORDER BY r.name, r.id
LIMIT @max_rows;

-- name: ActiveRoutines :many
-- The runner's walk over active routines, by id, a batch at a time.
SELECT r.*, s.timezone FROM routines r JOIN sites s ON s.org_id = r.org_id AND s.id = r.site_id
WHERE r.active AND r.id > @after
ORDER BY r.id
LIMIT @max_rows;

-- name: LockRoutineVersions :many
-- The planner's batch, locked against changes (shared, in id order) while the occurrences
-- found beforehand from these versions are planned: a routine changed since is left to the
-- next pass.
SELECT r.id, r.updated_at FROM routines r
WHERE (r.org_id, r.id) IN (SELECT unnest(@org_ids::uuid[]), unnest(@ids::uuid[]))
ORDER BY r.id
FOR SHARE;

-- name: SetRoutinePlannedZone :exec
UPDATE routines SET planned_zone = @zone WHERE org_id = @org_id AND id = @id;

-- name: ClaimOccurrences :many
-- Claims the occurrences not claimed yet: the key that makes each routine × occurrence's tasks
-- once across replicas. Returns the ones this call claimed.
INSERT INTO routine_occurrences (org_id, routine_id, occurrence, manual, created_at)
SELECT @org_id, @routine_id, unnest(@occurrences::timestamptz[]), @manual, @now
ON CONFLICT DO NOTHING
RETURNING occurrence;

-- name: DeleteUnstartedRoutineTasks :many
-- A routine's tasks not yet started (of a scheduled occurrence still to come, open, no photo):
-- re-planned. Tasks of run-now occurrences stay.
DELETE FROM tasks t
WHERE t.org_id = @org_id AND t.source = 'routine' AND t.source_id = @routine_id::uuid AND t.status = 'open' AND t.occurrence > @now::timestamptz
  AND NOT EXISTS (SELECT 1 FROM routine_occurrences o WHERE o.routine_id = t.source_id AND o.occurrence = t.occurrence AND o.manual)
  AND NOT EXISTS (SELECT 1 FROM task_photos ph WHERE ph.org_id = t.org_id AND ph.task_id = t.id)
RETURNING t.id;

-- name: ReleaseFutureOccurrences :exec
-- Scheduled occurrences after now with no task left: free to be planned again.
DELETE FROM routine_occurrences o
WHERE o.org_id = @org_id AND o.routine_id = @routine_id AND NOT o.manual AND o.occurrence > @now
  AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.org_id = o.org_id AND t.source = 'routine' AND t.source_id = o.routine_id AND t.occurrence = o.occurrence);

-- Huddles.

-- name: InsertHuddle :one
INSERT INTO huddles (id, org_id, site_id, date, day_part, notes, created_by, created_at)
VALUES (@id, @org_id, @site_id, @date, @day_part, @notes, @created_by, @now)
RETURNING *;

-- name: ListHuddles :many
SELECT h.*, coalesce((SELECT array_agg(t.id ORDER BY t.due_at, t.id) FROM tasks t
                      WHERE t.org_id = h.org_id AND t.source = 'huddle' AND t.source_id = h.id), '{}')::uuid[] AS task_ids
FROM huddles h
WHERE h.org_id = @org_id
  AND (cardinality(@scope::uuid[]) = 0 OR h.site_id = ANY (@scope::uuid[]))
  AND (sqlc.narg(site_id)::uuid IS NULL OR h.site_id = sqlc.narg(site_id))
ORDER BY h.date DESC, h.created_at DESC, h.id
LIMIT 500;

-- name: SiteZone :one
SELECT timezone FROM sites WHERE org_id = @org_id AND id = @id;

-- name: ClaimOccurrencesOf :many
-- ClaimOccurrences for many routines at once (the planner's batch): the pairs this call claimed.
INSERT INTO routine_occurrences (org_id, routine_id, occurrence, manual, created_at)
SELECT unnest(@org_ids::uuid[]), unnest(@routine_ids::uuid[]), unnest(@occurrences::timestamptz[]), false, @now
ON CONFLICT DO NOTHING
RETURNING routine_id, occurrence;


-- name: InsertFindingTask :one
-- The corrective task of an inspection finding (internal/records through tasks.FindingTasks).
INSERT INTO tasks (id, org_id, site_id, title, description, kind, priority, required, due_at, grace_minutes, missed_after, source, source_id, created_at)
VALUES (@id, @org_id, @site_id, @title, @description, 'inspection', @priority, true, @due_at, 30, @missed_after, 'audit_finding', @finding_id, @now)
RETURNING id;

-- name: TaskStatusesOf :many
SELECT id, status FROM tasks WHERE org_id = @org_id AND id = ANY (@ids::uuid[]);

-- name: TaskOutcomes :one
-- A site's tasks due in [from, to), by outcome (internal/records reports, through tasks.FindingTasks).
SELECT count(*) AS due,
       count(*) FILTER (WHERE status = 'done' AND NOT late) AS done,
       count(*) FILTER (WHERE status = 'done' AND late) AS late,
       count(*) FILTER (WHERE status = 'missed') AS missed,
       count(*) FILTER (WHERE status = 'open') AS open
FROM tasks
WHERE org_id = @org_id AND site_id = @site_id AND due_at >= @from_at AND due_at < @to_at AND status <> 'cancelled';

-- name: SensorAlertTaskOutcomes :many
-- The corrective tasks that sensor alerts opened, with who completed each (reports).
SELECT t.id, t.source_id AS alert_id, t.status, t.due_at, t.completed_at, t.completed_by, u.name AS completed_by_name, t.evidence
FROM tasks t
LEFT JOIN users u ON u.id = t.completed_by
WHERE t.org_id = @org_id AND t.source = 'sensor_alert' AND t.source_id = ANY (@alert_ids::uuid[]);

-- name: ScanTargetTasks :many
-- The open and missed tasks a scanned tag is for, due by @due_to, by due time: tasks whose
-- target is the tag's target (its target by id, or the tag itself), or, for equipment and
-- locations described by a label, a tag of the same site with the same label (as completion
-- judges a scan).
SELECT * FROM task_views t
WHERE t.org_id = @org_id
  AND t.status IN ('open', 'missed')
  AND t.due_at <= @due_to::timestamptz
  AND t.target_type = @target_type::text
  AND (t.target_id = @target_id::uuid
       OR (@target_type::text <> 'site' AND t.target_id = @tag_id::uuid)
       OR (@target_type::text <> 'site' AND sqlc.narg(label)::text IS NOT NULL AND lower(t.target_name) = lower(sqlc.narg(label)::text)
           AND t.site_id = sqlc.narg(site_id)::uuid))
ORDER BY t.due_at, t.id
LIMIT @max_rows;
