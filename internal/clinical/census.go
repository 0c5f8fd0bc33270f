package clinical

import (
	"context"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/paging"
)

type censusCursor struct {
	Site uuid.UUID `json:"s"`
	Unit string    `json:"u"`
	Room string    `json:"r"`
	Bed  string    `json:"b"`
	ID   uuid.UUID `json:"i"`
}

func (h *Handlers) GetCensus(ctx context.Context, req api.GetCensusRequestObject) (api.GetCensusResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	if p.SiteId != nil {
		if _, err := h.site(ctx, a, req.OrgId, *p.SiteId); err != nil {
			return nil, err
		}
	}
	limit := paging.Limit(p.Limit)
	params := db.ListCensusParams{OrgID: req.OrgId, Scope: a.SiteScope(), SiteID: p.SiteId, Unit: p.Unit, MaxRows: paging.Fetch(limit)}
	if p.Cursor != nil {
		var c censusCursor
		if err := paging.DecodeCursor(*p.Cursor, &c); err != nil {
			return nil, err
		}
		params.CursorID, params.CursorSite, params.CursorUnit, params.CursorRoom, params.CursorBed = &c.ID, c.Site, c.Unit, c.Room, c.Bed
	}
	rows, err := db.New(h.pool).ListCensus(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.GetCensus200JSONResponse{Body: make([]api.PatientSummary, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.Patient) any {
		return censusCursor{Site: last.SiteID, Unit: last.Unit, Room: last.Room, Bed: last.Bed, ID: last.ID}
	})
	for _, r := range rows {
		ps, err := patientSummary(r)
		if err != nil {
			return nil, err
		}
		out.Body = append(out.Body, ps)
	}
	return out, nil
}

func (h *Handlers) GetPatient(ctx context.Context, req api.GetPatientRequestObject) (api.GetPatientResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	p, err := q.GetPatient(ctx, db.GetPatientParams{OrgID: req.OrgId, ID: req.PatientId})
	if err != nil {
		return nil, notFound(err, "Patient")
	}
	if !a.CanSeeSite(p.SiteID) {
		return nil, apierr.NotFound("Patient")
	}
	encs, err := q.ListEncounters(ctx, db.ListEncountersParams{OrgID: req.OrgId, PatientID: p.ID})
	if err != nil {
		return nil, err
	}
	ids := make([]uuid.UUID, 0, len(encs))
	for _, e := range encs {
		ids = append(ids, e.ID)
	}
	moves, err := q.ListMovements(ctx, db.ListMovementsParams{OrgID: req.OrgId, EncounterIds: ids})
	if err != nil {
		return nil, err
	}
	byEnc := map[uuid.UUID][]api.Movement{}
	for _, m := range moves {
		byEnc[m.EncounterID] = append(byEnc[m.EncounterID], api.Movement{
			At: m.At, Action: api.Hl7Action(m.Action), Unit: m.Unit, Room: m.Room, Bed: m.Bed, ControlId: m.ControlID,
		})
	}
	s, err := patientSummary(p)
	if err != nil {
		return nil, err
	}
	out := api.Patient{
		Id: s.Id, SiteId: s.SiteId, Mrn: s.Mrn, MrnSource: api.PatientMrnSource(p.MrnSource), Name: s.Name,
		DateOfBirth: s.DateOfBirth, Sex: s.Sex, InHouse: s.InHouse, Unit: s.Unit, Room: s.Room, Bed: s.Bed,
		AdmittedAt: s.AdmittedAt, EncounterId: s.EncounterId, Allergens: s.Allergens, Allergies: s.Allergies,
		Diets: s.Diets, DietOrders: s.DietOrders, Flags: s.Flags, UpdatedAt: s.UpdatedAt,
		Encounters: make([]api.Encounter, 0, len(encs)),
	}
	for _, e := range encs {
		mv := byEnc[e.ID]
		if mv == nil {
			mv = []api.Movement{}
		}
		out.Encounters = append(out.Encounters, api.Encounter{
			Id: e.ID, VisitNumber: e.VisitNumber, PatientClass: e.PatientClass, AdmittedAt: e.AdmittedAt,
			DischargedAt: e.DischargedAt, Unit: e.Unit, Room: e.Room, Bed: e.Bed, Movements: mv,
		})
	}
	return api.GetPatient200JSONResponse(out), nil
}
