package public

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/pg"
)

// ResolveScan resolves a printed tag for a member. Unauthenticated calls never get here: the
// validator answers 401, and the error renderer adds the scan reference because the operation
// carries x-unauthenticated-scan. A tag that does not exist, was retired, or sits at a site
// outside the member's scope is the same 404.
func (h *Handlers) ResolveScan(ctx context.Context, req api.ResolveScanRequestObject) (api.ResolveScanResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	code := normalizeCode(string(req.TagCode))
	t, err := db.New(h.pool).ResolveTag(ctx, db.ResolveTagParams{OrgID: req.OrgId, Code: code})
	if pg.IsNoRows(err) || (err == nil && t.SiteID != nil && !a.CanSeeSite(*t.SiteID)) {
		return nil, apierr.NotFound("Tag").WithCode(apierr.CodeTagNotFound)
	}
	if err != nil {
		return nil, err
	}
	out := api.ResolveScan200JSONResponse{
		TagCode: api.TagCode(t.Code), OrgId: req.OrgId, WebUrl: h.ScanURL(t.Code), Label: t.Label,
		Actions: actions(a, req.OrgId, t),
	}
	if t.TargetType == TargetStorageLocation && t.TargetID != nil && h.locations != nil {
		loc, more, err := h.locations.ScanContext(ctx, a, req.OrgId, *t.TargetID)
		if err != nil {
			return nil, err
		}
		out.Context.StorageLocation = loc
		// The location's own actions come first: they are why the tag is on its door.
		out.Actions = append(more, out.Actions...)
	}
	out.Target.Type = api.TagTargetType(t.TargetType)
	out.Target.Id = t.TargetID
	out.Target.SiteId = t.SiteID
	switch {
	case t.TargetType == TargetSite && t.SiteName != nil:
		out.Target.Name = *t.SiteName
	case t.Label != nil:
		out.Target.Name = *t.Label
	case out.Context.StorageLocation != nil:
		out.Target.Name = out.Context.StorageLocation.Name
	}
	if t.SiteID != nil && t.SiteName != nil && t.SiteTimezone != nil {
		site := api.ScanSiteContext{Id: *t.SiteID, Name: *t.SiteName, Timezone: *t.SiteTimezone}
		loc, err := time.LoadLocation(*t.SiteTimezone)
		if err != nil {
			loc = time.UTC
		}
		local := h.clock.Now().In(loc)
		site.LocalDate = openapi_types.Date{Time: time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)}
		site.LocalTime = local.Format("15:04")
		out.Context.Site = &site
		// Due by the end of today at the site: tomorrow's local midnight, exclusive.
		tomorrow := time.Date(local.Year(), local.Month(), local.Day()+1, 0, 0, 0, 0, loc)
		if err := h.floorContext(ctx, a, req.OrgId, t, tomorrow.Add(-time.Microsecond), &out); err != nil {
			return nil, err
		}
	}
	if out.Target.Name == "" && out.Context.Equipment != nil {
		out.Target.Name = out.Context.Equipment.Name // an equipment tag without a label of its own
	}
	return out, nil
}

// floorContext adds the work at a placed tag's target: the tasks due there, a location's live
// temperature and open count sheet, a piece of equipment's open work orders, and the actions
// the member's role allows on them, ahead of the others.
func (h *Handlers) floorContext(ctx context.Context, a authz.Access, orgID uuid.UUID, t db.ResolveTagRow, dueTo time.Time, out *api.ResolveScan200JSONResponse) error {
	may := func(p authz.Permission) bool {
		min, ok := authz.MinRole(p)
		return ok && a.Role.AtLeast(min)
	}
	org := "/orgs/" + orgID.String()
	var first []api.ScanAction
	f := h.floor
	if f.Tasks != nil {
		tasks, err := f.Tasks.ScanTasks(ctx, orgID, t.ID, t.TargetType, t.TargetID, *t.SiteID, t.Label, dueTo)
		if err != nil {
			return err
		}
		out.Context.Tasks = &tasks
		if may(authz.OperateKitchen) {
			for _, task := range tasks {
				path := fmt.Sprintf("%s/tasks/%s", org, task.Id)
				first = append(first,
					api.ScanAction{Action: "completeTask", Label: "Complete: " + task.Title, Method: http.MethodPost, Path: path + "/complete"},
					api.ScanAction{Action: "addTaskPhoto", Label: "Add a photo: " + task.Title, Method: http.MethodPost, Path: path + "/photos"})
			}
		}
	}
	var locationID, equipmentID *uuid.UUID
	switch {
	case t.TargetType == TargetStorageLocation && out.Context.StorageLocation != nil:
		locationID = &out.Context.StorageLocation.Id
	case t.TargetType == TargetEquipment && t.TargetID != nil && f.Equipment != nil:
		eq, ok, err := f.Equipment.ScanEquipment(ctx, a, orgID, *t.TargetID)
		if err != nil {
			return err
		}
		if ok {
			out.Context.Equipment, equipmentID = eq, &eq.Id
			if may(authz.PerformInspections) {
				first = append(first, api.ScanAction{Action: "createWorkOrder", Label: "Report a problem", Method: http.MethodPost, Path: org + "/work-orders"})
			}
		}
	}
	if f.Temperatures != nil {
		temp, err := f.Temperatures.ScanTemperature(ctx, orgID, locationID, equipmentID)
		if err != nil {
			return err
		}
		out.Context.Temperature = temp
	}
	var after []api.ScanAction
	if locationID != nil && f.Counts != nil {
		c, err := f.Counts.ScanCount(ctx, orgID, *t.SiteID, *locationID)
		if err != nil {
			return err
		}
		out.Context.Count = c
		if c != nil {
			path := fmt.Sprintf("%s/counts/%s", org, c.Id)
			if may(authz.OperateKitchen) {
				after = append(after, api.ScanAction{Action: "setCountLines", Label: "Count this location", Method: http.MethodPut, Path: path + "/lines"})
			}
			if may(authz.ManageSupply) {
				after = append(after, api.ScanAction{Action: "closeCount", Label: "Close the count", Method: http.MethodPost, Path: path + "/close"})
			}
		}
	}
	// The location's own actions (stock, count, waste) follow the tasks; the count sheet's
	// follow starting one.
	n := 0
	for n < len(out.Actions) && out.Actions[n].Action != "getSite" && out.Actions[n].Action != "updateSite" && out.Actions[n].Action != "deleteTag" {
		n++
	}
	actions := append(first, out.Actions[:n]...)
	actions = append(actions, after...)
	out.Actions = append(actions, out.Actions[n:]...)
	return nil
}

// actions lists what the caller's role allows on the target, each an operation of the spec
// ready to call. It names only operations that exist; tasks, temperature logs and counts join
// as those capabilities land.
func actions(a authz.Access, orgID uuid.UUID, t db.ResolveTagRow) []api.ScanAction {
	may := func(p authz.Permission) bool {
		min, ok := authz.MinRole(p)
		return ok && a.Role.AtLeast(min)
	}
	org := "/orgs/" + orgID.String()
	out := []api.ScanAction{}
	if t.SiteID != nil && may(authz.ViewOrg) {
		out = append(out, api.ScanAction{Action: "getSite", Label: "Open the site", Method: http.MethodGet,
			Path: fmt.Sprintf("%s/sites/%s", org, t.SiteID)})
	}
	if t.TargetType == TargetSite && may(authz.ManageSites) {
		out = append(out, api.ScanAction{Action: "updateSite", Label: "Edit the site", Method: http.MethodPut,
			Path: fmt.Sprintf("%s/sites/%s", org, t.SiteID)})
	}
	if may(authz.ManageTags) && (t.SiteID != nil || !a.Scoped()) {
		out = append(out, api.ScanAction{Action: "deleteTag", Label: "Retire this tag", Method: http.MethodDelete,
			Path: fmt.Sprintf("%s/tags/%s", org, t.ID)})
	}
	return out
}
