package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// GuideOrder is the order the walk-throughs run in, after the README's first session: each guide
// continues the first session, and a guide that builds on another (purchasing receives into the
// stock guide's cooler) comes after it. It is the one list of guides: a guide file that is not
// in it fails TestEveryGuideRuns, so none is forgotten. Names whose file does not exist yet are
// skipped, so a guide can be listed before it is written.
var GuideOrder = []string{
	"stock.md",
	"purchasing.md",
	"kitchen.md",
	"tasks.md",
	"records.md",
	"catering.md",
	"surveys.md",
	"devices.md",
	"sensors.md",
	"clinical-hl7.md",
	"clinical-fhir.md",
	"tray-line.md",
	"nutrition.md",
	"webhooks.md",
	"hosted-pages.md",
}

// GuidesDir holds the guides; its README.md is their index, not a guide.
const GuidesDir = "docs/guides"

// Documents returns the documents whose marked blocks run, relative to the repository root:
// the README, then every guide present in GuideOrder's order. A guide missing from GuideOrder
// is an error.
func Documents(repo string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(repo, GuidesDir))
	if err != nil {
		return nil, err
	}
	present := map[string]bool{}
	var unlisted []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".md") || name == "README.md" {
			continue
		}
		present[name] = true
		if !slices.Contains(GuideOrder, name) {
			unlisted = append(unlisted, name)
		}
	}
	if len(unlisted) > 0 {
		return nil, fmt.Errorf("%s: %s not in GuideOrder (tools/readmecheck/guides.go): add each where it belongs in the walk-through", GuidesDir, strings.Join(unlisted, ", "))
	}
	docs := []string{"README.md"}
	for _, name := range GuideOrder {
		if present[name] {
			docs = append(docs, GuidesDir+"/"+name)
		}
	}
	return docs, nil
}

// Blocks returns the marked blocks of every document, in order, each checked to fail on a
// failed request.
func Blocks(repo string) ([]Block, error) {
	docs, err := Documents(repo)
	if err != nil {
		return nil, err
	}
	var all []Block
	for _, doc := range docs {
		md, err := os.ReadFile(filepath.Join(repo, doc))
		if err != nil {
			return nil, err
		}
		blocks, err := Extract(string(md))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", doc, err)
		}
		for i := range blocks {
			blocks[i].File = doc
			if err := CheckFailFast(blocks[i]); err != nil {
				return nil, err
			}
		}
		all = append(all, blocks...)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no block is marked %s", Marker)
	}
	return all, nil
}
