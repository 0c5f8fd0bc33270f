package inventory

import (
	"context"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/pg"
)

// ScanCount is the open count sheet counting a scanned storage location (the newest, when
// several do), with its lines for that location only; nil when none is open. The caller has
// checked the member may see the site.
func (h *Handlers) ScanCount(ctx context.Context, orgID, siteID, locationID uuid.UUID) (*api.ScanCount, error) {
	q := db.New(h.pool)
	c, err := q.ScanOpenCount(ctx, db.ScanOpenCountParams{OrgID: orgID, SiteID: siteID, LocationID: locationID})
	if pg.IsNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sheet, err := sheetOf(ctx, q, c)
	if err != nil {
		return nil, err
	}
	out := &api.ScanCount{Id: sheet.Id, Name: sheet.Name, CountedAt: sheet.CountedAt, Lines: []api.CountLine{}}
	for _, l := range sheet.Lines {
		if l.LocationId == locationID {
			out.Lines = append(out.Lines, l)
		}
	}
	return out, nil
}
