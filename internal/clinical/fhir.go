package clinical

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/fhir"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/reqinfo"
)

// IngestFhir applies a FHIR R4 transaction or batch Bundle to a site's census, through the
// census of the HL7 ingest (fhirprep.go, fhirapply.go): the same locks, rules, trail, code review
// and tray-line hook.
func (h *Handlers) IngestFhir(ctx context.Context, req api.IngestFhirRequestObject) (api.IngestFhirResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	site, err := h.site(ctx, a, req.OrgId, req.Params.SiteId)
	if err != nil {
		return nil, err
	}
	raw := reqinfo.Body(ctx) // as sent, for application/fhir+json
	if raw == nil {
		body := req.ApplicationFhirPlusJSONBody
		if body == nil {
			body = req.JSONBody
		}
		if body == nil {
			return api.IngestFhir422ApplicationFhirPlusJSONResponse(*toAPIOutcome(fhir.Outcome("error", "required", "The body must be a FHIR Bundle"))), nil
		}
		if raw, err = json.Marshal(body); err != nil {
			return nil, err
		}
	}
	bundle, err := fhir.Parse(raw)
	var fe *fhir.Error
	if errors.As(err, &fe) {
		return api.IngestFhir422ApplicationFhirPlusJSONResponse(*toAPIOutcome(fhir.Outcome("error", fe.Issue, fe.Message))), nil
	} else if err != nil {
		return nil, err
	}
	mrnSystem, err := h.fhirMRNSystem(ctx, req.OrgId)
	if err != nil {
		return nil, err
	}
	msgs := prepareBundle(bundle, mrnSystem)
	atomic := bundle.Type == fhir.Transaction

	lk, unlock, err := h.lockBody(ctx, req.OrgId, site.ID, msgs)
	if err != nil {
		return nil, err
	}
	defer unlock()
	t := targetOf(ctx, req.OrgId, site.ID, h.clock.Now())
	loc := h.location(site.Timezone)
	var results []api.Hl7MessageResult
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		results, err = h.ingestBody(ctx, tx, t, lk, loc, msgs, atomic, func(r []api.Hl7MessageResult) error {
			return runCensusHook(ctx, tx, req.OrgId, r)
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	if atomic {
		if i := firstFailed(msgs, results); i >= 0 {
			return api.IngestFhir400ApplicationFhirPlusJSONResponse(*toAPIOutcome(failedOutcome(&msgs[i], results[i]))), nil
		}
	}
	return api.IngestFhir200ApplicationFhirPlusJSONResponse(fhirResponse(req.OrgId, bundle.Type, msgs, results)), nil
}

// firstFailed is the entry that failed a transaction, -1 when none did.
func firstFailed(msgs []prepared, results []api.Hl7MessageResult) int {
	for i := range results {
		if results[i].Outcome == api.Hl7OutcomeRejected && msgs[i].fhir != nil && !msgs[i].fhir.bystander {
			return i
		}
	}
	return -1
}

func reasonOf(r api.Hl7MessageResult) string {
	if r.Detail.Reason != nil {
		return *r.Detail.Reason
	}
	return "the entry cannot be applied"
}

func failedOutcome(p *prepared, r api.Hl7MessageResult) *fhir.OperationOutcome {
	f := p.fhir
	code := f.issueCode
	if code == "" {
		code = "processing"
	}
	msg := fmt.Sprintf("entry %d (%s): %s; nothing was applied", f.index, f.resourceType, reasonOf(r))
	if f.expression != "" {
		return fhir.Outcome("error", code, msg, f.expression)
	}
	return fhir.Outcome("error", code, msg)
}

// fhirResponse answers each entry: its status, the census patient it changed, and an outcome
// for anything refused, ignored or worth a warning.
func fhirResponse(orgID uuid.UUID, typ string, msgs []prepared, results []api.Hl7MessageResult) api.FhirResponseBundle {
	out := api.FhirResponseBundle{ResourceType: "Bundle", Type: api.BatchResponse, Id: ptr(uuid.Must(uuid.NewV7())),
		Entry: make([]api.FhirResponseEntry, len(msgs))}
	if typ == fhir.Transaction {
		out.Type = api.TransactionResponse
	}
	for i := range msgs {
		f, r := msgs[i].fhir, results[i]
		e := &out.Entry[i]
		if f.fullURL != "" {
			e.FullUrl = ptr(f.fullURL)
		}
		var issues []fhir.Issue
		switch r.Outcome {
		case api.Hl7OutcomeApplied:
			e.Response.Status = "200 OK"
			if f.created {
				e.Response.Status = "201 Created"
			}
			if r.Detail.PatientId != nil {
				e.Response.Location = ptr(fmt.Sprintf("/v1/orgs/%s/patients/%s", orgID, *r.Detail.PatientId))
			}
		case api.Hl7OutcomeRejected:
			status := f.status
			if status < 400 {
				status = http.StatusUnprocessableEntity
			}
			code := f.issueCode
			if code == "" {
				code = "processing"
			}
			e.Response.Status = strconv.Itoa(status) + " " + http.StatusText(status)
			is := fhir.Issue{Severity: "error", Type: code, Diagnostics: reasonOf(r)}
			if f.expression != "" {
				is.Expression = []string{f.expression}
			}
			issues = append(issues, is)
		default: // skipped: nothing to change, or a resource the census does not take
			e.Response.Status = "200 OK"
			issues = append(issues, fhir.Issue{Severity: "information", Type: "informational", Diagnostics: reasonOf(r)})
		}
		if r.Detail.UnmappedCodes != nil {
			for _, u := range *r.Detail.UnmappedCodes {
				issues = append(issues, fhir.Issue{Severity: "warning", Type: "code-invalid",
					Diagnostics: fmt.Sprintf("%s code %s is not in the vocabulary; kept for review", u.Kind, u.Code)})
			}
		}
		if r.Detail.Warnings != nil {
			for _, w := range *r.Detail.Warnings {
				issues = append(issues, fhir.Issue{Severity: "warning", Type: "informational", Diagnostics: fhirWords.Replace(w)})
			}
		}
		if len(issues) > 0 {
			e.Response.Outcome = toAPIOutcome(&fhir.OperationOutcome{ResourceType: "OperationOutcome", Issue: issues})
		}
	}
	return out
}

func toAPIOutcome(o *fhir.OperationOutcome) *api.OperationOutcome {
	out := &api.OperationOutcome{ResourceType: api.OperationOutcomeResourceTypeOperationOutcome, Issue: make([]api.OperationOutcomeIssue, 0, len(o.Issue))}
	for _, is := range o.Issue {
		x := api.OperationOutcomeIssue{Severity: api.OperationOutcomeIssueSeverity(is.Severity), Code: is.Type}
		if is.Diagnostics != "" {
			x.Diagnostics = ptr(is.Diagnostics)
		}
		if len(is.Expression) > 0 {
			x.Expression = ptr(append([]string(nil), is.Expression...))
		}
		out.Issue = append(out.Issue, x)
	}
	return out
}

// fhirMRNSystem is the organization's configured MRN identifier system, "" when none.
func (h *Handlers) fhirMRNSystem(ctx context.Context, orgID uuid.UUID) (string, error) {
	return db.New(h.pool).GetClinicalSettings(ctx, orgID)
}

// capabilities is what the FHIR base accepts: the resources prepareBundle reads.
var capabilities = func() []byte {
	type code struct {
		Code string `json:"code"`
	}
	type resource struct {
		Type              string `json:"type"`
		Documentation     string `json:"documentation"`
		Interaction       []code `json:"interaction"`
		ConditionalCreate bool   `json:"conditionalCreate"`
		ConditionalUpdate bool   `json:"conditionalUpdate"`
	}
	rw := []code{{"create"}, {"update"}}
	doc := map[string]any{
		"resourceType": "CapabilityStatement", "status": "active", "date": "2026-03-02", "kind": "instance",
		"software": map[string]string{"name": "Sous"}, "fhirVersion": "4.0.1",
		"format": []string{"application/fhir+json", "application/json"},
		"rest": []map[string]any{{
			"mode":          "server",
			"documentation": "Bundles of type transaction or batch are applied to the census of the site named by siteId. Resources of other types in a bundle are answered 200 with an informational outcome and ignored.",
			"interaction":   []code{{"transaction"}, {"batch"}},
			"resource": []resource{
				{fhirPatient, "MRN from the identifier typed MR (or of the organization's MRN system); official name, birthDate, gender.", rw, true, true},
				{fhirEncounter, "in-progress and arrived admit or transfer, finished and cancelled discharge; location[0] gives unit, room and bed.", rw, false, false},
				{fhirAllergy, "SNOMED CT, RxNorm or text into the allergen vocabulary; inactive and resolved remove, refuted and entered-in-error are ignored.", rw, false, false},
				{fhirNutrition, "oralDiet, texture, fluidConsistencyType, nutrient, supplement and enteralFormula onto the patient's diet orders; completed, revoked and entered-in-error end the order.", rw, false, false},
			},
		}},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return b
}()

func (h *Handlers) GetFhirMetadata(ctx context.Context, req api.GetFhirMetadataRequestObject) (api.GetFhirMetadataResponseObject, error) {
	var out api.CapabilityStatement
	if err := json.Unmarshal(capabilities, &out); err != nil {
		return nil, err
	}
	return api.GetFhirMetadata200ApplicationFhirPlusJSONResponse(out), nil
}

func (h *Handlers) GetClinicalSettings(ctx context.Context, req api.GetClinicalSettingsRequestObject) (api.GetClinicalSettingsResponseObject, error) {
	sys, err := h.fhirMRNSystem(ctx, req.OrgId)
	if err != nil {
		return nil, err
	}
	return api.GetClinicalSettings200JSONResponse(clinicalSettings(sys)), nil
}

func (h *Handlers) UpdateClinicalSettings(ctx context.Context, req api.UpdateClinicalSettingsRequestObject) (api.UpdateClinicalSettingsResponseObject, error) {
	sys := ""
	if req.Body.FhirMrnSystem != nil {
		sys = *req.Body.FhirMrnSystem
	}
	now := h.clock.Now()
	err := pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if err := q.UpsertClinicalSettings(ctx, db.UpsertClinicalSettingsParams{OrgID: req.OrgId, FhirMrnSystem: sys, Now: now}); err != nil {
			return err
		}
		return audit.Record(ctx, q, req.OrgId, uuid.Nil, now)
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateClinicalSettings200JSONResponse(clinicalSettings(sys)), nil
}

func clinicalSettings(sys string) api.ClinicalSettings {
	var out api.ClinicalSettings
	if sys != "" {
		out.FhirMrnSystem = ptr(sys)
	}
	return out
}

// fhirWords says in FHIR's terms what the census's warnings say in HL7's.
var fhirWords = strings.NewReplacer("PV1-3", "Encounter.location")
