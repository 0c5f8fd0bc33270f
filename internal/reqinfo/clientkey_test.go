package reqinfo

import "testing"

func TestNetworkKey(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"203.0.113.7":                   "203.0.113.7",
		"::ffff:203.0.113.7":            "203.0.113.7",
		"2001:db8:1:2:3:4:5:6":          "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff:ffff:ffff:1": "2001:db8:1:2::/64",
		"2001:db8:1:3::1":               "2001:db8:1:3::/64",
		"fe80::1%eth0":                  "fe80::/64",
		"::1":                           "::/64",
		"":                              "",
		"not an address":                "not an address",
	} {
		if got := NetworkKey(in); got != want {
			t.Errorf("NetworkKey(%q) = %q, want %q", in, got, want)
		}
	}
}
