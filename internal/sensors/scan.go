package sensors

import (
	"context"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/quantity"
)

// ScanTemperature is the live temperature where a scanned tag is: the latest reading of the
// active temperature sensor in the storage location or the equipment that reported last, judged
// by its effective range. nil when none has reported.
func (h *Handlers) ScanTemperature(ctx context.Context, orgID uuid.UUID, storageLocationID, equipmentID *uuid.UUID) (*api.ScanTemperature, error) {
	if storageLocationID == nil && equipmentID == nil {
		return nil, nil
	}
	rows, err := db.New(h.pool).ScanTemperatureSensors(ctx, db.ScanTemperatureSensorsParams{OrgID: orgID, StorageLocationID: storageLocationID, EquipmentID: equipmentID})
	if err != nil {
		return nil, err
	}
	for _, v := range rows {
		if v.LastAt == nil || v.LastValue == nil {
			continue
		}
		r := ruleOf(v)
		in := (r.min == nil || !v.LastValue.LessThan(*r.min)) && (r.max == nil || !v.LastValue.GreaterThan(*r.max))
		ex := v.ExcursionKind != nil && *v.ExcursionKind == "temperature_excursion"
		return &api.ScanTemperature{
			SensorName: v.Name, ValueF: quantity.Format(*v.LastValue), At: *v.LastAt,
			MinF: formatDecimal(r.min), MaxF: formatDecimal(r.max), InRange: in, Excursion: &ex,
		}, nil
	}
	return nil, nil
}
