// Package authz decides who may do what inside an organization: roles and their ranks, the
// permission table, memberships and their site scopes, plan gates.
package authz

// Permission names what an operation needs; every operation of the spec names one in
// x-permission, and this table gives each its minimum role.
type Permission string

// The permission table. The README's "Organizations, roles and plans" section is generated from
// it (go run ./internal/authz/gendoc), so keep each doc comment a sentence a partner can read.
const (
	// ViewOrg lets any member read the organization, its sites and its members.
	ViewOrg Permission = "viewOrg"
	// ManageOrg lets owners change the organization's settings and manage its API keys and webhooks.
	ManageOrg Permission = "manageOrg"
	// ManageUsers lets admins invite people and change or remove members (never above their own role).
	ManageUsers Permission = "manageUsers"
	// ManageSites lets admins create sites and change their time zone and day parts.
	ManageSites Permission = "manageSites"
	// ManageDevices lets admins register, pair, configure, cast to and revoke devices.
	ManageDevices Permission = "manageDevices"
	// ViewAudit lets admins read the audit log.
	ViewAudit Permission = "viewAudit"
	// IngestADT lets admins post HL7 ADT messages with a session (API keys of the organization may too).
	IngestADT Permission = "ingestAdt"
	// ViewClinical lets managers read the census, patients, allergens and diet orders.
	ViewClinical Permission = "viewClinical"
	// ManageClinical lets managers map unmapped diet and allergen codes and submit diet reviews.
	ManageClinical Permission = "manageClinical"
	// ManageCulinary lets managers create and change recipes, menus, forecasts and production runs.
	ManageCulinary Permission = "manageCulinary"
	// OperateKitchen lets inspectors (staff) record production events, complete tasks and log temperatures.
	OperateKitchen Permission = "operateKitchen"
	// ManageSupply lets managers manage stock, vendors, purchasing and order lists.
	ManageSupply Permission = "manageSupply"
)

// Role is a membership's role; a higher rank includes every lower one.
type Role string

const (
	Owner     Role = "owner"
	Admin     Role = "admin"
	Manager   Role = "manager"
	Inspector Role = "inspector"
	Viewer    Role = "viewer"
)

// Roles from highest to lowest.
var Roles = []Role{Owner, Admin, Manager, Inspector, Viewer}

var rank = map[Role]int{Owner: 5, Admin: 4, Manager: 3, Inspector: 2, Viewer: 1}

// Rank orders roles; an unknown role ranks below viewer.
func (r Role) Rank() int { return rank[r] }

// AtLeast reports whether r includes min.
func (r Role) AtLeast(min Role) bool { return r.Rank() >= min.Rank() && r.Rank() > 0 }

// ParseRole reads a role as sent by clients; "staff" is the spec's other name for inspector.
func ParseRole(s string) (Role, bool) {
	if s == "staff" {
		return Inspector, true
	}
	r := Role(s)
	_, ok := rank[r]
	return r, ok
}

// Below returns the role ranked just under r, and false for the lowest.
func (r Role) Below() (Role, bool) {
	for i, x := range Roles {
		if x == r && i+1 < len(Roles) {
			return Roles[i+1], true
		}
	}
	return "", false
}

// minRole is the permission table proper.
var minRole = map[Permission]Role{
	ViewOrg:        Viewer,
	ManageOrg:      Owner,
	ManageUsers:    Admin,
	ManageSites:    Admin,
	ManageDevices:  Admin,
	ViewAudit:      Admin,
	IngestADT:      Admin,
	ViewClinical:   Manager,
	ManageClinical: Manager,
	ManageCulinary: Manager,
	OperateKitchen: Inspector,
	ManageSupply:   Manager,
}

// MinRole returns the permission's minimum role; ok is false for names not in the table.
func MinRole(p Permission) (Role, bool) {
	r, ok := minRole[p]
	return r, ok
}

// Permissions lists the table in a stable order (by minimum role, then name).
func Permissions() []Permission {
	out := make([]Permission, 0, len(minRole))
	for _, role := range Roles {
		for _, p := range permissionOrder {
			if minRole[p] == role {
				out = append(out, p)
			}
		}
	}
	return out
}

var permissionOrder = []Permission{
	ManageOrg, ManageUsers, ManageSites, ManageDevices, ViewAudit, IngestADT,
	ViewClinical, ManageClinical, ManageCulinary, ManageSupply, OperateKitchen, ViewOrg,
}
