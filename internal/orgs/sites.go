package orgs

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/realtime"
)

// DayPart is a site's service period in local wall-clock time. End before Start runs past
// midnight.
type DayPart struct {
	Name  string `json:"name"`
	Start string `json:"start"`
	End   string `json:"end"`
}

// DefaultDayParts are given to a site created without any.
var DefaultDayParts = []DayPart{
	{Name: "breakfast", Start: "06:00", End: "10:30"},
	{Name: "lunch", Start: "11:00", End: "14:30"},
	{Name: "dinner", Start: "16:30", End: "20:00"},
}

func (h *Handlers) ListSites(ctx context.Context, req api.ListSitesRequestObject) (api.ListSitesResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	e, ok := h.sites.get(req.OrgId, a.SitesVersion)
	if !ok {
		rows, err := h.lookups.Queries().ListSites(ctx, req.OrgId)
		if err != nil {
			return nil, err
		}
		if e, err = h.sites.load(req.OrgId, a.SitesVersion, rows); err != nil {
			return nil, err
		}
	}
	if !a.Scoped() {
		return encodedSites(e.body), nil
	}
	out := make(api.ListSites200JSONResponse, 0, len(a.SiteIDs))
	for _, s := range e.sites {
		if a.CanSeeSite(s.Id) {
			out = append(out, s)
		}
	}
	return out, nil
}

func (h *Handlers) CreateSite(ctx context.Context, req api.CreateSiteRequestObject) (api.CreateSiteResponseObject, error) {
	// Creating a site is organization-wide (x-site-scope org): the policy has refused members
	// limited to some sites.
	name := strings.TrimSpace(req.Body.Name)
	if name == "" {
		return nil, apierr.InvalidField("name", "must not be blank")
	}
	if err := checkTimezone(req.Body.Timezone); err != nil {
		return nil, err
	}
	var err error
	parts := DefaultDayParts
	if req.Body.DayParts != nil {
		if parts, err = dayParts(*req.Body.DayParts); err != nil {
			return nil, err
		}
	}
	raw, _ := json.Marshal(parts)
	now := h.clock.Now()
	var site db.Site
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		site, err = q.CreateSite(ctx, db.CreateSiteParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: req.OrgId, Name: name, Timezone: req.Body.Timezone, DayParts: raw, Now: now,
		})
		if err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, site.ID, site.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateSite201JSONResponse{Body: toAPISite(site)}, nil
}

func (h *Handlers) GetSite(ctx context.Context, req api.GetSiteRequestObject) (api.GetSiteResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	if err := a.CheckSite(req.SiteId); err != nil {
		return nil, err
	}
	site, err := db.New(h.pool).GetSite(ctx, db.GetSiteParams{OrgID: req.OrgId, ID: req.SiteId})
	if err != nil {
		return nil, notFound(err, "Site")
	}
	return api.GetSite200JSONResponse(toAPISite(site)), nil
}

func (h *Handlers) UpdateSite(ctx context.Context, req api.UpdateSiteRequestObject) (api.UpdateSiteResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	if err := a.CheckSite(req.SiteId); err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var site db.Site
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		cur, err := q.GetSite(ctx, db.GetSiteParams{OrgID: req.OrgId, ID: req.SiteId})
		if err != nil {
			return notFound(err, "Site")
		}
		params := db.UpdateSiteParams{OrgID: cur.OrgID, ID: cur.ID, Name: cur.Name, Timezone: cur.Timezone, DayParts: cur.DayParts, Now: now}
		if req.Body.Name != nil {
			if params.Name = strings.TrimSpace(*req.Body.Name); params.Name == "" {
				return apierr.InvalidField("name", "must not be blank")
			}
		}
		if req.Body.Timezone != nil {
			if err := checkTimezone(*req.Body.Timezone); err != nil {
				return err
			}
			params.Timezone = *req.Body.Timezone
		}
		if req.Body.DayParts != nil {
			parts, err := dayParts(*req.Body.DayParts)
			if err != nil {
				return err
			}
			params.DayParts, _ = json.Marshal(parts)
		}
		if site, err = q.UpdateSite(ctx, params); err != nil {
			return err
		}
		// Devices show their site's name, local date and day parts. Hinting every device of the
		// organization keeps this package out of the devices table; the others answer 304.
		if err := realtime.NotifyOrg(ctx, tx, req.OrgId); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, site.ID, site.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateSite200JSONResponse(toAPISite(site)), nil
}

// zoneName is the shape of an IANA zone name: parts of letters, digits, _, + and - separated by
// single slashes. time.LoadLocation alone also takes file paths such as "./UTC" or
// "America//Chicago", which PostgreSQL and most clients refuse.
var zoneName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z][A-Za-z0-9_+-]*)*$`)

// checkTimezone accepts IANA zone names the server's time zone database knows. "Local",
// "localtime" and the empty name are refused: they mean the server's zone, not the site's.
func checkTimezone(tz string) error {
	if tz == "Local" || tz == "localtime" || !zoneName.MatchString(tz) {
		return apierr.InvalidField("timezone", "must be an IANA time zone name such as America/Chicago")
	}
	if _, err := time.LoadLocation(tz); err != nil {
		return apierr.InvalidField("timezone", fmt.Sprintf("%q is not a known IANA time zone", tz))
	}
	return nil
}

// dayParts validates and orders a site's day parts: names unique (case-insensitively), start and
// end different.
func dayParts(in []api.DayPart) ([]DayPart, error) {
	seen := map[string]bool{}
	out := make([]DayPart, 0, len(in))
	for i, p := range in {
		name := strings.TrimSpace(p.Name)
		field := fmt.Sprintf("dayParts.%d", i)
		switch {
		case name == "":
			return nil, apierr.InvalidField(field+".name", "must not be blank")
		case seen[strings.ToLower(name)]:
			return nil, apierr.InvalidField(field+".name", fmt.Sprintf("%q appears twice", name))
		case p.Start == p.End:
			return nil, apierr.InvalidField(field+".end", "must differ from start")
		}
		seen[strings.ToLower(name)] = true
		out = append(out, DayPart{Name: name, Start: p.Start, End: p.End})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out, nil
}

func toAPISite(s db.Site) api.Site {
	return api.Site{Id: s.ID, Name: s.Name, Timezone: s.Timezone, CreatedAt: s.CreatedAt, DayParts: siteDayParts.get(s.DayParts)}
}
