package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHL7GuideShowsTheACKsItGets runs the README's first session and the HL7 guide's marked
// blocks in a session of their own, and holds every ER7 acknowledgement the guide shows (its
// `# MSH|…`, `# MSA|…`, `# ERR|…` lines) to the one the server answered at that point of the
// walk-through, segment by segment, with the ACK's time (MSH-7) masked.
func TestHL7GuideShowsTheACKsItGets(t *testing.T) {
	var blocks []Block
	for _, doc := range []string{"README.md", GuidesDir + "/clinical-hl7.md"} {
		md, err := os.ReadFile(filepath.Join(repo, doc))
		if err != nil {
			t.Fatal(err)
		}
		bs, err := Extract(string(md))
		if err != nil {
			t.Fatal(err)
		}
		for i := range bs {
			bs[i].File = doc
		}
		blocks = append(blocks, bs...)
	}
	cmd := exec.CommandContext(t.Context(), "bash", "-euo", "pipefail", "-c", Script(blocks))
	cmd.Env = append(os.Environ(), "API="+srv.API)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	outputs := blockOutputs(string(out), blocks)
	checked := 0
	for i, b := range blocks {
		shown := er7Segments(b.Text, "# ")
		if len(shown) == 0 {
			continue
		}
		checked++
		got := er7Segments(outputs[i], "")
		if strings.Join(maskACKs(got), "\n") != strings.Join(maskACKs(shown), "\n") {
			t.Errorf("%s line %d shows\n  %s\nthe server answered\n  %s", b.File, b.Line,
				strings.Join(shown, "\n  "), strings.Join(got, "\n  "))
		}
	}
	if checked == 0 {
		t.Fatal("the HL7 guide shows no ER7 acknowledgement in its marked blocks")
	}
}

// blockOutputs splits the output of Script(blocks) into each block's, by the "== file line n"
// line Script writes before each block.
func blockOutputs(out string, blocks []Block) []string {
	outputs := make([]string, len(blocks))
	for i, b := range blocks {
		start := strings.Index(out, fmt.Sprintf("== %s line %d\n", b.File, b.Line))
		if start < 0 {
			continue
		}
		rest := out[start:]
		rest = rest[strings.Index(rest, "\n")+1:]
		if i+1 < len(blocks) {
			if end := strings.Index(rest, fmt.Sprintf("== %s line %d\n", blocks[i+1].File, blocks[i+1].Line)); end >= 0 {
				rest = rest[:end]
			}
		}
		outputs[i] = rest
	}
	return outputs
}

// er7Segments returns the lines of text that are ACK segments (MSH, MSA, ERR), after prefix.
func er7Segments(text, prefix string) []string {
	var segs []string
	for _, l := range strings.Split(text, "\n") {
		l, ok := strings.CutPrefix(strings.TrimRight(l, "\r"), prefix)
		if !ok {
			continue
		}
		for _, seg := range []string{"MSH|", "MSA|", "ERR|"} {
			if strings.HasPrefix(l, seg) {
				segs = append(segs, l)
			}
		}
	}
	return segs
}

// maskACKs replaces each MSH's time (MSH-7), which differs on every run.
func maskACKs(segs []string) []string {
	out := make([]string, len(segs))
	for i, s := range segs {
		if f := strings.Split(s, "|"); f[0] == "MSH" && len(f) > 6 {
			f[6] = "<time>"
			s = strings.Join(f, "|")
		}
		out[i] = s
	}
	return out
}
