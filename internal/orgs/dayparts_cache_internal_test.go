package orgs

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/sous-app/sous/gen/api"
)

func TestDayPartsCacheDecodesByContent(t *testing.T) {
	t.Parallel()
	c := dayPartsCache{parts: map[string][]api.DayPart{}}
	a := []byte(`[{"name":"breakfast","start":"06:00","end":"10:30"},{"name":"lunch","start":"11:00","end":"14:00"}]`)
	want := []api.DayPart{{Name: "breakfast", Start: "06:00", End: "10:30"}, {Name: "lunch", Start: "11:00", End: "14:00"}}
	if got := c.get(a); !reflect.DeepEqual(got, want) {
		t.Fatalf("first decode %+v", got)
	}
	if got := c.get([]byte(string(a))); !reflect.DeepEqual(got, want) || len(c.parts) != 1 {
		t.Fatalf("same bytes again: %+v, %d entries", got, len(c.parts))
	}
	other := []byte(`[{"name":"supper","start":"17:00","end":"19:00"}]`)
	if got := c.get(other); len(got) != 1 || got[0].Name != "supper" {
		t.Fatalf("other set %+v", got)
	}
	if got := c.get([]byte(`not json`)); len(got) != 0 {
		t.Fatalf("broken JSON %+v", got)
	}
	for i := range dayPartsCacheSize + 10 {
		c.get(fmt.Appendf(nil, `[{"name":"p%d","start":"01:00","end":"02:00"}]`, i))
	}
	if len(c.parts) > dayPartsCacheSize {
		t.Fatalf("%d entries, bound %d", len(c.parts), dayPartsCacheSize)
	}
}
