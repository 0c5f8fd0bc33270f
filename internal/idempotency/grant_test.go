package idempotency_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/idempotency"
)

func TestGrantIncludes(t *testing.T) {
	t.Parallel()
	a, b := uuid.New(), uuid.New()
	g := func(role authz.Role, creds []string, sites ...uuid.UUID) idempotency.Grant {
		return idempotency.Grant{Role: role, SiteIDs: sites, Credentials: creds}
	}
	for _, tc := range []struct {
		name       string
		now, first idempotency.Grant
		want       bool
	}{
		{"no membership", idempotency.Grant{}, idempotency.Grant{}, true},
		{"the same", g(authz.Manager, nil, a), g(authz.Manager, nil, a), true},
		{"a higher role", g(authz.Admin, nil, a), g(authz.Manager, nil, a), true},
		{"a lower role", g(authz.Manager, nil), g(authz.Admin, nil), false},
		{"the role gone", idempotency.Grant{}, g(authz.Manager, nil), false},
		{"every site after one", g(authz.Manager, nil), g(authz.Manager, nil, a), true},
		{"a site added", g(authz.Manager, nil, a, b), g(authz.Manager, nil, a), true},
		{"another site", g(authz.Manager, nil, b), g(authz.Manager, nil, a), false},
		{"one site after every site", g(authz.Manager, nil, a), g(authz.Manager, nil), false},
		{"a site removed", g(authz.Manager, nil, a), g(authz.Manager, nil, a, b), false},
		{"a credential added", g(authz.Manager, []string{"rd"}), g(authz.Manager, nil), true},
		{"a credential removed", g(authz.Manager, nil), g(authz.Manager, []string{"rd"}), false},
	} {
		if got := tc.now.Includes(tc.first); got != tc.want {
			t.Errorf("%s: Includes = %v, want %v", tc.name, got, tc.want)
		}
	}
}
