package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sous-app/sous/db/migrations"
	"github.com/sous-app/sous/internal/foods"
	"github.com/sous-app/sous/internal/pg"
)

const foodsUsage = `usage:
  sous foods import --sr28 <dir> [--timeout <duration>]
      Import USDA's Standard Reference Release 28 (SR28, USDA's ASCII files FOOD_DES, NUT_DATA,
      NUTR_DEF, WEIGHT and FD_GROUP, each .txt or .txt.gz) from <dir> into the reference foods
      every organization searches. One transaction: a failed or interrupted import leaves the
      previous data whole, and importing the same release again changes nothing. Progress goes
      to stderr. Applies the embedded migrations first.

Reads DATABASE_URL (or, unset, uses the private cluster under SOUS_DATA_DIR, as serve does).
See docs/operations/reference-data.md for where to download SR28.`

func foodsCommand(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fmt.Println(foodsUsage)
		return nil
	}
	switch args[0] {
	case "import":
		return foodsImport(ctx, args[1:], os.Stdout, os.Stderr)
	default:
		return fmt.Errorf("unknown foods command %q\n\n%s", args[0], foodsUsage)
	}
}

func foodsImport(ctx context.Context, args []string, out, progress io.Writer) error {
	fs := flag.NewFlagSet("foods import", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("sr28", "", "directory holding USDA's SR28 ASCII files")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up (and change nothing) after this long")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(out, foodsUsage)
		return nil
	} else if err != nil {
		return fmt.Errorf("%w\n\n%s", err, foodsUsage)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q\n\n%s", fs.Arg(0), foodsUsage)
	}
	if *dir == "" {
		return fmt.Errorf("--sr28 must name the directory of USDA's SR28 files\n\n%s", foodsUsage)
	}
	if st, err := os.Stat(*dir); err != nil || !st.IsDir() {
		return fmt.Errorf("--sr28: %s is not a directory", *dir)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	cfg, logger, err := setup()
	if err != nil {
		return err
	}
	url, stopDB, err := database(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer stopDB()
	url = cmp.Or(cfg.DatabaseDirectURL, url)
	if err := pg.Migrate(ctx, url, migrations.FS); err != nil {
		return err
	}
	pool, err := pg.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer pool.Close()
	res, err := foods.ImportSR28(ctx, pool, *dir, progress)
	if err != nil {
		return fmt.Errorf("import failed, nothing changed: %w", err)
	}
	fmt.Fprintf(out, "SR28: %d foods, %d nutrient values, %d household measures", res.Foods, res.Values, res.Weights)
	if !res.Changed() {
		fmt.Fprint(out, " (already up to date: nothing changed)")
	}
	fmt.Fprintln(out)
	return nil
}
