package kitchen

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/db"
)

// RunNeeds is what a site's production runs of a date need, item by item, in each item's base
// unit: every run's pinned recipe version scaled to the run (as its batch card), sub-recipes
// included, summed. RunIDs are the runs it sums.
func RunNeeds(ctx context.Context, q *db.Queries, orgID, siteID uuid.UUID, date time.Time) (map[uuid.UUID]decimal.Decimal, []uuid.UUID, error) {
	runs, err := q.ListRuns(ctx, db.ListRunsParams{OrgID: orgID, Scope: []uuid.UUID{}, SiteID: &siteID, Date: pgDateT{Time: date, Valid: true}})
	if err != nil {
		return nil, nil, err
	}
	needs := map[uuid.UUID]decimal.Decimal{}
	ids := make([]uuid.UUID, 0, len(runs))
	for _, r := range runs {
		_, s, err := runTree(ctx, q, r)
		if err != nil {
			return nil, nil, err
		}
		s.ItemNeeds(needs)
		ids = append(ids, r.ID)
	}
	return needs, ids, nil
}
