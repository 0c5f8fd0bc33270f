package inventory

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/authz"
)

// scanStockRows is how many stock rows a scan of a storage location shows.
const scanStockRows = 100

// TagTarget returns a storage location's site and name, for a tag that names it.
func (h *Handlers) TagTarget(ctx context.Context, orgID, id uuid.UUID) (uuid.UUID, string, error) {
	loc, err := db.New(h.pool).GetStorageLocation(ctx, db.GetStorageLocationParams{OrgID: orgID, ID: id})
	if err != nil {
		return uuid.Nil, "", notFound(err, "Storage location")
	}
	return loc.SiteID, loc.Name, nil
}

// ScanContext answers a scan of a storage location's tag: the location with its stock, and what
// the member's role allows there (count it, log waste, adjust its stock, edit it).
func (h *Handlers) ScanContext(ctx context.Context, a authz.Access, orgID, id uuid.UUID) (*api.ScanLocationContext, []api.ScanAction, error) {
	loc, err := getLocation(ctx, db.New(h.pool), a, orgID, id)
	if err != nil {
		return nil, nil, err
	}
	limit := scanStockRows
	res, err := h.ListStock(ctx, api.ListStockRequestObject{OrgId: orgID, Params: api.ListStockParams{LocationId: &id, Limit: &limit}})
	if err != nil {
		return nil, nil, err
	}
	out := &api.ScanLocationContext{Id: loc.ID, Name: loc.Name, Kind: api.StorageLocationKind(loc.Kind), Active: loc.Active, Stock: res.(api.ListStock200JSONResponse).Body}
	may := func(p authz.Permission) bool {
		min, ok := authz.MinRole(p)
		return ok && a.Role.AtLeast(min)
	}
	org := "/orgs/" + orgID.String()
	var actions []api.ScanAction
	if may(authz.ViewOrg) {
		actions = append(actions, api.ScanAction{Action: "listStock", Label: "See the stock here", Method: http.MethodGet,
			Path: fmt.Sprintf("%s/stock?locationId=%s", org, id)})
	}
	if may(authz.OperateKitchen) {
		actions = append(actions,
			api.ScanAction{Action: "createCount", Label: "Count this location", Method: http.MethodPost, Path: org + "/counts"},
			api.ScanAction{Action: "createWasteLog", Label: "Log waste here", Method: http.MethodPost, Path: org + "/waste-logs"})
	}
	if may(authz.ManageSupply) {
		actions = append(actions,
			api.ScanAction{Action: "adjustStock", Label: "Adjust the stock here", Method: http.MethodPost, Path: org + "/stock/adjust"},
			api.ScanAction{Action: "updateStorageLocation", Label: "Edit the location", Method: http.MethodPut, Path: fmt.Sprintf("%s/storage-locations/%s", org, id)})
	}
	return out, actions, nil
}
