// Package authz decides who may do what inside an organization: roles and their ranks, the
// permission table, memberships and their site scopes, plan gates.
package authz

// Permission names what an operation needs; every operation of the spec names one in
// x-permission, and this table gives each its minimum role.
type Permission string

// Permission names. Table gives each its minimum role; the permission table of
// docs/reference/permissions.md is generated from it (go run ./internal/authz/gendoc).
const (
	// ViewOrg lets any member read the organization, its sites, its members and its alerts.
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
	// ViewEvents lets admins read the organization's event feed (what webhooks deliver).
	ViewEvents Permission = "viewEvents"
	// IngestADT lets admins post HL7 ADT messages with a session (API keys of the organization may too).
	IngestADT Permission = "ingestAdt"
	// ViewClinical lets managers read the census, patients, allergens and diet orders.
	ViewClinical Permission = "viewClinical"
	// ManageClinical lets managers map unmapped diet and allergen codes and submit diet reviews.
	ManageClinical Permission = "manageClinical"
	// ManageCulinary lets managers create and change recipes, menus, forecasts and production runs.
	ManageCulinary Permission = "manageCulinary"
	// ManageKitchen lets managers create, change and remove the organization's own foods (from
	// suppliers' spec sheets) that nutrition analysis reads beside USDA's.
	ManageKitchen Permission = "manageKitchen"
	// OperateKitchen lets inspectors (staff) record production events, complete tasks, log temperatures,
	// resolve alerts, count stock and log waste.
	OperateKitchen Permission = "operateKitchen"
	// ManageTasks lets managers manage routines, positions, guides, huddles and manual tasks, and
	// reassign tasks.
	ManageTasks Permission = "manageTasks"
	// ManageSupply lets managers manage inventory items, storage locations, stock adjustments,
	// closing counts, vendors, purchasing and order lists.
	ManageSupply Permission = "manageSupply"
	// ManageTags lets managers print (create) and retire the scan tags of sites, equipment and
	// storage locations.
	ManageTags Permission = "manageTags"
	// ManageCatering lets managers manage catering clients, events, quotes, invoices and payments.
	ManageCatering Permission = "manageCatering"
	// ManageSurveys lets managers create and change surveys and invite respondents.
	ManageSurveys Permission = "manageSurveys"
	// ManageCompliance lets managers manage policies, inspection templates, inspections,
	// engagements, walkthroughs, equipment, certifications and reports.
	ManageCompliance Permission = "manageCompliance"
	// PerformInspections lets inspectors (staff) perform inspections and walkthroughs and open and
	// move work orders.
	PerformInspections Permission = "performInspections"
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

// Definition is one row of the permission table.
type Definition struct {
	Permission Permission
	MinRole    Role
	Allows     string
}

// Table is the permission table proper, in the order docs/reference/permissions.md lists it.
var Table = []Definition{
	{ManageOrg, Owner, "change the organization's name and brand; manage API keys and webhooks"},
	{ManageUsers, Admin, "invite people, change members' roles, sites and credentials, remove members (never above the actor's own role)"},
	{ManageSites, Admin, "create sites; change their name, time zone and day parts"},
	{ManageDevices, Admin, "register, pair, configure, cast to and revoke devices"},
	{ViewAudit, Admin, "read the audit log"},
	{ViewEvents, Admin, "read the event feed: the bodies webhooks deliver, to reconcile missed deliveries"},
	{IngestADT, Admin, "post HL7 ADT messages with a session (the organization's API keys may too)"},
	{ViewClinical, Manager, "read the census, patients, allergens and diet orders"},
	{ManageClinical, Manager, "map unmapped diet and allergen codes; submit diet reviews (deciding one also needs the rd credential)"},
	{ManageCulinary, Manager, "create and change recipes, menus, forecasts and production runs"},
	{ManageKitchen, Manager, "create, change and remove the organization's own foods (suppliers' spec sheets: nutrients, portions, allergens)"},
	{ManageTasks, Manager, "create tasks, reassign them and link guides; manage routines, positions, guides and huddles"},
	{ManageSupply, Manager, "manage inventory items, storage locations, stock adjustments, closing counts, supply settings, vendors, purchasing and order lists"},
	{ManageTags, Manager, "create and retire printed scan tags for sites, equipment and storage locations"},
	{ManageCatering, Manager, "manage catering clients, events, quotes (share, record acceptance), invoices and payments"},
	{ManageSurveys, Manager, "create and change surveys, mint their links and invite respondents"},
	{ManageCompliance, Manager, "manage policies and their versions, inspection templates, inspections, audit engagements, walkthroughs, equipment, certifications and reports"},
	{PerformInspections, Inspector, "perform inspections and walkthroughs; open and move equipment work orders"},
	{OperateKitchen, Inspector, "record production events, complete tasks, log temperatures, resolve alerts, count stock and log waste"},
	{ViewOrg, Viewer, "read the organization, its sites and its members; list alerts and tags and resolve scanned tags; read catering records and survey results; acknowledge policies"},
}

var minRole = func() map[Permission]Role {
	m := make(map[Permission]Role, len(Table))
	for _, d := range Table {
		m[d.Permission] = d.MinRole
	}
	return m
}()

// MinRole returns the permission's minimum role; ok is false for names not in the table.
func MinRole(p Permission) (Role, bool) {
	r, ok := minRole[p]
	return r, ok
}
