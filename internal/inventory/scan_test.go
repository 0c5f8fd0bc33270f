package inventory_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/apierr"
)

func TestScanOfAStorageLocationAnswersItsStock(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	lemons := k.lemons()
	cooler := k.location(k.site, "Walk-in cooler")
	k.adjust(line(lemons, cooler, "3", "lb", "receipt", map[string]any{"unitCostCents": 100}))
	var tag struct {
		ID       uuid.UUID  `json:"id"`
		Code     string     `json:"code"`
		TargetID *uuid.UUID `json:"targetId"`
		SiteID   *uuid.UUID `json:"siteId"`
	}
	k.call(http.MethodPost, "tags").JSON(map[string]any{"targetType": "storage_location", "targetId": cooler.ID}).Do().Expect(http.StatusCreated).Decode(&tag)
	if tag.TargetID == nil || *tag.TargetID != cooler.ID || tag.SiteID == nil || *tag.SiteID != k.site {
		t.Fatalf("tag %+v", tag)
	}
	type scan struct {
		Target struct {
			Type string     `json:"type"`
			ID   *uuid.UUID `json:"id"`
			Name string     `json:"name"`
		} `json:"target"`
		Context struct {
			StorageLocation *struct {
				ID    uuid.UUID    `json:"id"`
				Stock []stockLevel `json:"stock"`
			} `json:"storageLocation"`
		} `json:"context"`
		Actions []struct {
			Action string `json:"action"`
		} `json:"actions"`
	}
	actionsOf := func(token string) (scan, []string) {
		t.Helper()
		var s scan
		k.env.Call(http.MethodGet, "orgs/"+k.org.String()+"/scan/"+tag.Code).Token(token).Do().Expect(http.StatusOK).Decode(&s)
		var names []string
		for _, a := range s.Actions {
			names = append(names, a.Action)
		}
		return s, names
	}
	s, owner := actionsOf(k.owner.AccessToken)
	if s.Target.Type != "storage_location" || s.Target.Name != "Walk-in cooler" || s.Context.StorageLocation == nil ||
		len(s.Context.StorageLocation.Stock) != 1 || s.Context.StorageLocation.Stock[0].Quantity != "3" {
		t.Fatalf("scan %+v", s)
	}
	for _, want := range []string{"listStock", "createCount", "createWasteLog", "adjustStock", "updateStorageLocation"} {
		if !slices.Contains(owner, want) {
			t.Errorf("owner's actions %v lack %s", owner, want)
		}
	}
	_, inspector := actionsOf(k.env.Member(k.org, "inspector").AccessToken)
	if !slices.Contains(inspector, "createCount") || !slices.Contains(inspector, "createWasteLog") || slices.Contains(inspector, "adjustStock") {
		t.Errorf("inspector's actions %v", inspector)
	}
	_, viewer := actionsOf(k.env.Member(k.org, "viewer").AccessToken)
	if !slices.Contains(viewer, "listStock") || slices.Contains(viewer, "createCount") || slices.Contains(viewer, "adjustStock") {
		t.Errorf("viewer's actions %v", viewer)
	}
	pastry := k.env.Site(k.owner.AccessToken, k.org, "Pastry")
	limited := k.env.Member(k.org, "manager", pastry)
	k.env.Call(http.MethodGet, "orgs/"+k.org.String()+"/scan/"+tag.Code).Token(limited.AccessToken).Do().ExpectCode(http.StatusNotFound, apierr.CodeTagNotFound)

	// Naming a location: it must exist, stand at the siteId given, and at the member's sites.
	k.call(http.MethodPost, "tags").JSON(map[string]any{"targetType": "storage_location", "targetId": uuid.New()}).Do().ExpectError(http.StatusNotFound, "Storage location not found")
	k.call(http.MethodPost, "tags").JSON(map[string]any{"targetType": "storage_location", "targetId": cooler.ID, "siteId": pastry}).
		Do().ExpectCode(http.StatusBadRequest, apierr.CodeValidationFailed)
	k.as(limited, http.MethodPost, "tags").JSON(map[string]any{"targetType": "storage_location", "targetId": cooler.ID}).Do().ExpectError(http.StatusNotFound, "")
	// Tags describing a location by label only still work, without stock.
	var old struct {
		Code string `json:"code"`
	}
	k.call(http.MethodPost, "tags").JSON(map[string]any{"targetType": "storage_location", "label": "Old freezer", "siteId": k.site}).Do().Expect(http.StatusCreated).Decode(&old)
	var os scan
	k.call(http.MethodGet, "scan/"+old.Code).Do().Expect(http.StatusOK).Decode(&os)
	if os.Context.StorageLocation != nil || os.Target.Name != "Old freezer" {
		t.Fatalf("label-only scan %+v", os)
	}
}
