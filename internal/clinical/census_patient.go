package clinical

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/hl7"
)

// patient returns the state of mrn, creating a new patient (not in house) when unknown.
func (c *census) patient(p *prepared, mrn string) *patientState {
	if ps := c.patients[mrn]; ps != nil {
		return ps
	}
	ps := &patientState{
		row:    patientRow{ID: uuid.Must(uuid.NewV7()), MRN: mrn},
		orders: []dietOrderDoc{}, ordersSet: true, allergies: []allergyDoc{}, allergiesSet: true,
	}
	c.patients[mrn] = ps
	return ps
}

// ordersOf returns the patient's current diet orders, decoding the stored ones on first use:
// only order messages look at them.
// A stored list that cannot be read is an error, and the message that needed it is rejected:
// applying it to an empty list would overwrite the orders on record.
func (c *census) ordersOf(ps *patientState) ([]dietOrderDoc, error) {
	if ps.orders == nil {
		orders, err := decodeDietOrders(ps.storedOrders)
		if err != nil {
			return nil, fmt.Errorf("patient %s: %w", ps.row.ID, err)
		}
		ps.orders = orders
		ps.storedOrders = nil
	}
	return ps.orders, nil
}

// hadOrder reports whether the patient had the diet order when the census was loaded, or has it
// now.
func (ps *patientState) hadOrder(id uuid.UUID) bool {
	if ps.orders != nil {
		for _, o := range ps.orders {
			if o.ID == id {
				return true
			}
		}
	}
	return ps.orderIDs != "" && strings.Contains(ps.orderIDs, id.String())
}

func (c *census) touch(ps *patientState) {
	if ps != nil && !ps.touched {
		ps.touched = true
		c.touched = append(c.touched, ps)
	}
}

func (c *census) touchEncounter(e *encounterState) {
	if !e.touched {
		e.touched = true
		c.encounters = append(c.encounters, e)
	}
}

func (c *census) demographics(ps *patientState, a *hl7.ADT) {
	pt := &a.Patient
	ps.row.MRNSource, ps.row.MRNAuthority = string(pt.MRNSource), pt.MRNAuthority
	if n := pt.Name; n.Family != "" || n.Given != "" {
		ps.row.FamilyName, ps.row.GivenName, ps.row.MiddleName = n.Family, n.Given, n.Middle
	}
	if dob := dateString(pt.BirthDate); dob != "" {
		ps.row.BirthDate = dob
	}
	if pt.Sex != "" {
		ps.row.Sex = pt.Sex
	}
}

func (c *census) openEncounter(ps *patientState, at time.Time) {
	e := &encounterState{row: encounterRow{ID: uuid.Must(uuid.NewV7()), PatientID: ps.row.ID, AdmittedAt: at}}
	ps.enc = e
	ps.row.EncounterID = ptr(e.row.ID)
	c.touchEncounter(e)
}

func (c *census) closeEncounter(ps *patientState, at time.Time) {
	e := ps.enc
	e.row.DischargedAt = ptr(at)
	c.touchEncounter(e)
	ps.enc = nil
	ps.row.EncounterID, ps.row.AdmittedAt = nil, nil
	ps.row.Unit, ps.row.Room, ps.row.Bed = "", "", ""
}

// lastEncounterOf finds the encounter a discharge just closed.
func (c *census) lastEncounterOf(ps *patientState) *encounterState {
	for i := len(c.encounters) - 1; i >= 0; i-- {
		if e := c.encounters[i]; e.row.PatientID == ps.row.ID {
			return e
		}
	}
	return nil
}

// visit and move write the encounter only when something changes: updates that restate the
// visit as it is are most of a feed.
func (c *census) visit(ps *patientState, a *hl7.ADT) {
	e := ps.enc
	if v := a.Visit.VisitNumber; v != "" && v != e.row.VisitNumber {
		e.row.VisitNumber = v
		c.touchEncounter(e)
	}
	if v := a.Visit.Class; v != "" && v != e.row.PatientClass {
		e.row.PatientClass = v
		c.touchEncounter(e)
	}
}

func (c *census) move(ps *patientState, l hl7.Location) {
	e := ps.enc
	ps.row.Unit, ps.row.Room, ps.row.Bed = l.PointOfCare, l.Room, l.Bed
	if e.row.Unit != l.PointOfCare || e.row.Room != l.Room || e.row.Bed != l.Bed {
		e.row.Unit, e.row.Room, e.row.Bed = l.PointOfCare, l.Room, l.Bed
		c.touchEncounter(e)
	}
}

func isZeroLocation(l hl7.Location) bool { return l.PointOfCare == "" && l.Room == "" && l.Bed == "" }
