package httpapi

import (
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

var uuidForm = regexp.MustCompile(openapi3.FormatOfStringForUUIDOfRFC9562)

// validUUID must accept exactly what kin-openapi's regular expression for the format accepts,
// and refuse with the same message.
func checkUUIDAgreesWithRegexp(t *testing.T, s string) {
	t.Helper()
	err := validUUID(s)
	if (err == nil) != uuidForm.MatchString(s) {
		t.Fatalf("validUUID(%q) = %v, the regular expression matches: %v", s, err, uuidForm.MatchString(s))
	}
	if err != nil {
		if want := openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562).Validate(s); want.Error() != err.Error() {
			t.Fatalf("message %q, kin-openapi's %q", err, want)
		}
	}
}

var uuidSeeds = []string{
	"01a21b91-ba41-7242-bb2e-2f8507642c53", "01A21B91-BA41-7242-BB2E-2F8507642C53",
	"00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff", "FFFFFFFF-ffff-FFFF-ffff-FFFFFFFFFFFF",
	"01a21b91-ba41-0242-bb2e-2f8507642c53", "01a21b91-ba41-9242-bb2e-2f8507642c53", "01a21b91-ba41-7242-cb2e-2f8507642c53",
	"01a21b91-ba41-7242-7b2e-2f8507642c53", "01a21b91ba41-7242-bb2e-2f8507642c53-", "01a21b91-ba41-7242-bb2e-2f8507642c5",
	"01a21b91-ba41-7242-bb2e-2f8507642c53a", "01a21b91-ba41-7242-bb2e-2f8507642c5g", "", "0000000-00000-0000-0000-000000000000",
	"00000000-0000-0000-0000-00000000000f", "f0000000-0000-0000-0000-000000000000", "{01a21b91-ba41-7242-bb2e-2f8507642c53}",
	"01a21b91-ba41-7242-bb2e-2f8507642c5\x00", "01a21b91-ba41-7242-bb2e-2f8507642c5é",
}

func TestValidUUIDAgreesWithTheRegexp(t *testing.T) {
	t.Parallel()
	for _, s := range uuidSeeds {
		checkUUIDAgreesWithRegexp(t, s)
	}
	// Every one-byte change of valid, nil and max UUIDs, to each byte that matters.
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := "0123456789abcdefABCDEFgG-{} \x00"
	for _, base := range uuidSeeds[:5] {
		for i := range len(base) {
			for _, c := range []byte(alphabet) {
				b := []byte(base)
				b[i] = c
				checkUUIDAgreesWithRegexp(t, string(b))
			}
		}
		for range 2000 {
			b := []byte(base)
			b[r.IntN(len(b))] = alphabet[r.IntN(len(alphabet))]
			b[r.IntN(len(b))] = alphabet[r.IntN(len(alphabet))]
			checkUUIDAgreesWithRegexp(t, string(b))
		}
	}
}

func FuzzValidUUID(f *testing.F) {
	for _, s := range uuidSeeds {
		f.Add(s)
	}
	f.Fuzz(checkUUIDAgreesWithRegexp)
}
