package tasks

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/records"
)

// FindingTasks is the tasks side of records.FindingTasks: an inspection finding's corrective
// task (source audit_finding, sourceId the finding, kind inspection, required), the status of
// such tasks, task counts for reports and the guides walkthrough steps link. It holds no state.
type FindingTasks struct{}

var _ records.FindingTasks = FindingTasks{}

func (FindingTasks) OpenFindingTask(ctx context.Context, tx pgx.Tx, now time.Time, t records.FindingTask) (uuid.UUID, error) {
	desc := t.Description
	return db.New(tx).InsertFindingTask(ctx, db.InsertFindingTaskParams{
		ID: uuid.Must(uuid.NewV7()), OrgID: t.OrgID, SiteID: t.SiteID, Title: t.Title, Description: &desc, Priority: t.Priority,
		DueAt: t.Due, MissedAfter: t.Due.Add(DefaultGrace), FindingID: &t.FindingID, Now: now,
	})
}

func (FindingTasks) TaskStatuses(ctx context.Context, q *db.Queries, orgID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]string, error) {
	rows, err := q.TaskStatusesOf(ctx, db.TaskStatusesOfParams{OrgID: orgID, Ids: ids})
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]string, len(rows))
	for _, r := range rows {
		out[r.ID] = r.Status
	}
	return out, nil
}

func (FindingTasks) TaskOutcomes(ctx context.Context, q *db.Queries, orgID, siteID uuid.UUID, from, to time.Time) (records.TaskOutcomes, error) {
	r, err := q.TaskOutcomes(ctx, db.TaskOutcomesParams{OrgID: orgID, SiteID: siteID, FromAt: from, ToAt: to})
	if err != nil {
		return records.TaskOutcomes{}, err
	}
	return records.TaskOutcomes{Due: int(r.Due), Done: int(r.Done), Late: int(r.Late), Missed: int(r.Missed), Open: int(r.Open)}, nil
}

func (FindingTasks) GuideSites(ctx context.Context, q *db.Queries, orgID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID][]uuid.UUID, error) {
	rows, err := q.GuidesSites(ctx, db.GuidesSitesParams{OrgID: orgID, Ids: ids})
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID][]uuid.UUID, len(rows))
	for _, r := range rows {
		out[r.ID] = r.SiteIds
	}
	return out, nil
}
