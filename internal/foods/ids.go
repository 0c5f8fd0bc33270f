package foods

import "github.com/google/uuid"

// usdaNamespace is the UUID v5 namespace of USDA foods' ids. A USDA food's id is
// uuid.NewSHA1(usdaNamespace, "usda-sr:" + NDB number): the same food has the same id after a
// re-import or a later release, so recipes that point at it keep pointing at it. (The
// namespace itself is a random UUID fixed here once; docs/reference/foods.md gives it.)
var usdaNamespace = uuid.MustParse("6f3b8a52-1c4e-4d0b-9a7e-2f5c8d1e0b47")

// USDAFoodID is the stable id of the USDA food with NDB number ndbNo (e.g. "01001").
func USDAFoodID(ndbNo string) uuid.UUID {
	return uuid.NewSHA1(usdaNamespace, []byte("usda-sr:"+ndbNo))
}
