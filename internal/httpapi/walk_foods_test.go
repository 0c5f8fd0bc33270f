package httpapi_test

// foodFixture is an organization food (organization-wide: no site).
func foodFixture(w *walker) walkCall {
	id := w.create("foods", map[string]any{"name": "Walk cheddar", "per100g": map[string]any{"energyKcal": "403", "fatG": "33"}})
	return walkCall{path: map[string]string{"id": id}}
}
