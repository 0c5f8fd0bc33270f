package tasks

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
)

// SensorAlertOutcomes answers, for the alerts that have one, the corrective task each opened
// and how it ended (who completed it, when, their note and the temperature they took), read
// with q, for the sensors' temperature log.
func SensorAlertOutcomes(ctx context.Context, q *db.Queries, orgID uuid.UUID, alertIDs []uuid.UUID) (map[uuid.UUID]api.TemperatureLogTask, error) {
	out := make(map[uuid.UUID]api.TemperatureLogTask, len(alertIDs))
	if len(alertIDs) == 0 {
		return out, nil
	}
	rows, err := q.SensorAlertTaskOutcomes(ctx, db.SensorAlertTaskOutcomesParams{OrgID: orgID, AlertIds: alertIDs})
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if r.AlertID == nil {
			continue
		}
		t := api.TemperatureLogTask{TaskId: r.ID, Status: api.TemperatureLogTaskStatus(r.Status), DueAt: r.DueAt, CompletedAt: r.CompletedAt}
		if r.CompletedBy != nil && r.CompletedByName != nil {
			t.CompletedBy = &struct {
				Name   string    `json:"name"`
				UserId uuid.UUID `json:"userId"`
			}{Name: *r.CompletedByName, UserId: *r.CompletedBy}
		}
		if len(r.Evidence) > 0 {
			var ev api.Evidence
			if err := json.Unmarshal(r.Evidence, &ev); err != nil {
				return nil, err
			}
			t.Note = ev.Note
			if ev.Temperature != nil {
				t.Temperature = &struct {
					Fahrenheit string                                `json:"fahrenheit"`
					Unit       api.TemperatureLogTaskTemperatureUnit `json:"unit"`
					Value      string                                `json:"value"`
				}{Fahrenheit: ev.Temperature.Fahrenheit, Unit: api.TemperatureLogTaskTemperatureUnit(ev.Temperature.Unit), Value: ev.Temperature.Value}
			}
		}
		out[*r.AlertID] = t
	}
	return out, nil
}
