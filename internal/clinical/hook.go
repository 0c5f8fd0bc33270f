package clinical

import (
	"context"
	"sync/atomic"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/api"
)

// CensusHook is told, in the ingest's transaction and after its write, which patients a body
// changed (admitted, transferred, updated, discharged or given a diet order): the tray line
// moves and re-checks their queued tickets. It must stay cheap when none of them has any.
type CensusHook interface {
	PatientsChanged(ctx context.Context, tx pgx.Tx, orgID uuid.UUID, patientIDs []uuid.UUID) error
}

var censusHook atomic.Pointer[CensusHook]

// SetCensusHook installs the hook (once, when the server is assembled).
func SetCensusHook(h CensusHook) { censusHook.Store(&h) }

// changedPatients lists, once each, the patients the applied messages of results touched.
func changedPatients(results []api.Hl7MessageResult) []uuid.UUID {
	var out []uuid.UUID
	seen := map[uuid.UUID]bool{}
	for _, r := range results {
		if r.Outcome != api.Hl7OutcomeApplied || r.Detail.PatientId == nil || seen[*r.Detail.PatientId] {
			continue
		}
		seen[*r.Detail.PatientId] = true
		out = append(out, *r.Detail.PatientId)
	}
	return out
}

func runCensusHook(ctx context.Context, tx pgx.Tx, orgID uuid.UUID, results []api.Hl7MessageResult) error {
	h := censusHook.Load()
	if h == nil {
		return nil
	}
	ids := changedPatients(results)
	if len(ids) == 0 {
		return nil
	}
	return (*h).PatientsChanged(ctx, tx, orgID, ids)
}
