package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/pg/pgtest"
)

func TestMain(m *testing.M) {
	code := pgtest.Main(m)
	removeBinary()
	os.Exit(code)
}

func TestAdminPlan(t *testing.T) {
	url := pgtest.NewURL(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	c := clock.NewFake(now)

	conn, err := pgConnect(t, url)
	if err != nil {
		t.Fatal(err)
	}
	orgID := uuid.Must(uuid.NewV7())
	trial := now.Add(24 * time.Hour)
	if _, err := db.New(conn).CreateOrg(ctx, db.CreateOrgParams{ID: orgID, Name: "Harborview", PlanTier: "pro", TrialEndsAt: &trial, Now: now}); err != nil {
		t.Fatal(err)
	}

	var out bytes.Buffer
	if err := adminPlan(ctx, url, []string{"--org", orgID.String(), "--tier", "enterprise"}, &out, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "plan enterprise") {
		t.Fatalf("output %q", out.String())
	}
	org, _ := db.New(conn).GetOrg(ctx, orgID)
	if org.PlanTier != "enterprise" || org.TrialEndsAt != nil {
		t.Fatalf("org %+v", org)
	}

	out.Reset()
	if err := adminPlan(ctx, url, []string{"--org", orgID.String(), "--tier", "pro", "--trial-ends", "2026-04-01T00:00:00Z"}, &out, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "plan pro until 2026-04-01T00:00:00Z") {
		t.Fatalf("output %q", out.String())
	}

	for _, args := range [][]string{
		{"--org", "nope", "--tier", "pro"},
		{"--org", orgID.String(), "--tier", "gold"},
		{"--org", uuid.NewString(), "--tier", "pro"},
		{"--org", orgID.String(), "--tier", "free", "--trial-ends", "2026-04-01T00:00:00Z"},
	} {
		if err := adminPlan(ctx, url, args, &out, c); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
