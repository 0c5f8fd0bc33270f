package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/plans"
)

const adminUsage = `usage:
  sous admin plan --org <id> --tier <free|pro|enterprise> [--trial-ends <RFC3339>]
      Change an organization's plan. Without --trial-ends the tier is permanent (billing
      outside this API has been settled); with it, the tier lasts until then and falls to free.

Reads DATABASE_URL (required).`

func admin(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Println(adminUsage)
		return nil
	}
	switch args[0] {
	case "plan":
		cfg, err := config.Env()
		if err != nil {
			return err
		}
		return adminPlan(ctx, cfg.DatabaseURL, args[1:], os.Stdout, clock.Real{})
	default:
		return fmt.Errorf("unknown admin command %q\n\n%s", args[0], adminUsage)
	}
}

func adminPlan(ctx context.Context, databaseURL string, args []string, out io.Writer, c clock.Clock) error {
	fs := flag.NewFlagSet("admin plan", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	orgFlag := fs.String("org", "", "organization id")
	tierFlag := fs.String("tier", "", "free, pro or enterprise")
	trialFlag := fs.String("trial-ends", "", "RFC 3339 time the tier lasts until (optional)")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(out, adminUsage)
		return nil
	} else if err != nil {
		return fmt.Errorf("%w\n\n%s", err, adminUsage)
	}
	if databaseURL == "" {
		return errors.New("DATABASE_URL must name the database to change")
	}
	orgID, err := uuid.Parse(*orgFlag)
	if err != nil {
		return fmt.Errorf("--org: %q is not an organization id", *orgFlag)
	}
	tier := plans.Tier(*tierFlag)
	if !tier.Valid() {
		return fmt.Errorf("--tier: %q is not free, pro or enterprise", *tierFlag)
	}
	var trialEnds *time.Time
	if *trialFlag != "" {
		t, err := time.Parse(time.RFC3339, *trialFlag)
		if err != nil {
			return fmt.Errorf("--trial-ends: %w", err)
		}
		if tier == plans.Free {
			return errors.New("--trial-ends makes no sense with --tier free")
		}
		t = t.UTC()
		trialEnds = &t
	}
	pool, err := pg.Connect(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	org, err := db.New(pool).SetOrgPlan(ctx, db.SetOrgPlanParams{ID: orgID, PlanTier: string(tier), TrialEndsAt: trialEnds, Now: c.Now()})
	if pg.IsNoRows(err) {
		return fmt.Errorf("no organization %s", orgID)
	}
	if err != nil {
		return err
	}
	p := plans.Effective(org.PlanTier, org.TrialEndsAt, c.Now())
	fmt.Fprintf(out, "%s (%s): plan %s", org.Name, org.ID, p.Tier)
	if p.Trialing {
		fmt.Fprintf(out, " until %s", p.TrialEndsAt.Format(time.RFC3339))
	}
	fmt.Fprintln(out)
	return nil
}
