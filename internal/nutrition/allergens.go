package nutrition

// majorAllergens are the nine major food allergens of US law (FALCPA and the FASTER Act, which
// added sesame), in the order the Contains statement lists them, keyed by the Sous allergen
// vocabulary (the clinical Allergen enum, which inventory items' statements use too).
var majorAllergens = []struct{ key, label string }{
	{"milk", "Milk"},
	{"egg", "Egg"},
	{"fish", "Fish"},
	{"crustacean_shellfish", "Crustacean Shellfish"},
	{"tree_nuts", "Tree Nuts"},
	{"peanuts", "Peanuts"},
	{"wheat", "Wheat"},
	{"soy", "Soy"},
	{"sesame", "Sesame"},
}

// Allergen presences, as the vocabulary's AllergenPresence has them.
const (
	AllergenContains = "contains"
	AllergenFree     = "free"
	AllergenUnknown  = "unknown"
)

// ContainsStatement reads a recipe's allergen statuses (vocabulary key → contains, free or
// unknown; a key left out is unknown) for the label: the major allergens it contains, by their
// label names in the statutory order, and those whose status is not known. The rest of the
// vocabulary (gluten, mustard, celery…) is not part of the US statement.
func ContainsStatement(allergens map[string]string) (contains, unknown []string) {
	for _, a := range majorAllergens {
		switch allergens[a.key] {
		case AllergenContains:
			contains = append(contains, a.label)
		case AllergenFree:
		default:
			unknown = append(unknown, a.label)
		}
	}
	return contains, unknown
}
