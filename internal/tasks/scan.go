package tasks

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
)

// ScanTaskLimit bounds the tasks a scan answers.
const ScanTaskLimit = 50

// ScanTasks are the open and missed tasks a scan of a tag satisfies, due by dueTo, by due time
// (at most ScanTaskLimit): the tag's target by id (or the tag itself for a target described by
// its label), or, for a label, a tag of the same site with the same label, as completion judges
// a scan. The caller has already checked the member may see the tag's site, which is every
// listed task's site.
func (h *Handlers) ScanTasks(ctx context.Context, orgID, tagID uuid.UUID, targetType string, targetID *uuid.UUID, siteID uuid.UUID, label *string, dueTo time.Time) ([]api.Task, error) {
	target := tagID
	if targetID != nil {
		target = *targetID
	}
	p := db.ScanTargetTasksParams{OrgID: orgID, DueTo: dueTo, TargetType: targetType, TargetID: target, TagID: tagID, MaxRows: ScanTaskLimit}
	if targetID == nil && label != nil {
		p.Label, p.SiteID = label, &siteID
	}
	rows, err := db.New(h.pool).ScanTargetTasks(ctx, p)
	if err != nil {
		return nil, err
	}
	out := make([]api.Task, 0, len(rows))
	for _, r := range rows {
		if r.SiteID != siteID {
			continue // a tag is posted at one site; its target's tasks are that site's
		}
		out = append(out, toAPI(r))
	}
	return out, nil
}
