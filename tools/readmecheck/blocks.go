package main

import (
	"bufio"
	"fmt"
	"regexp"
	"strings"
)

// Marker is the comment, on the line before a ```sh fence, that marks a README block as part of
// the runnable walk-through. Unmarked blocks (the quick start's `go run`) are left alone.
const Marker = "<!-- readme-run -->"

// Block is one marked shell block of a document.
type Block struct {
	File string // the document, relative to the repository root
	Line int    // the fence's line, 1-based
	Text string
}

// Extract returns the marked ```sh blocks of a Markdown document, in order.
func Extract(markdown string) ([]Block, error) {
	var blocks []Block
	sc := bufio.NewScanner(strings.NewReader(markdown))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line, marked := 0, false
	var cur *Block
	var body strings.Builder
	for sc.Scan() {
		line++
		l := sc.Text()
		switch {
		case cur != nil && strings.TrimSpace(l) == "```":
			cur.Text = body.String()
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(l + "\n")
		case strings.TrimSpace(l) == Marker:
			marked = true
		case marked && strings.HasPrefix(l, "```"):
			if strings.TrimSpace(strings.TrimPrefix(l, "```")) != "sh" {
				return nil, fmt.Errorf("line %d: %s must precede a ```sh block", line, Marker)
			}
			cur, marked = &Block{Line: line}, false
			body.Reset()
		case marked && strings.TrimSpace(l) != "":
			return nil, fmt.Errorf("line %d: %s is not followed by a ```sh block", line, Marker)
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: unterminated block", cur.Line)
	}
	return blocks, sc.Err()
}

var curlCall = regexp.MustCompile(`(^|[\s$(|;&])curl\s`)

// CheckFailFast reports curl calls that would let a failed request pass: every call of a
// marked block must use -f / --fail (or --fail-with-body), so a non-2xx answer stops the script
// for a reader as it does in CI.
func CheckFailFast(b Block) error {
	for i, l := range joinContinuations(b.Text) {
		if strings.HasPrefix(strings.TrimSpace(l), "#") || !curlCall.MatchString(l) {
			continue
		}
		if !failFlag(l) {
			return fmt.Errorf("%s line %d: curl without -f (a failed request would pass): %s", b.File, b.Line+1+i, strings.TrimSpace(l))
		}
	}
	return nil
}

func failFlag(cmd string) bool {
	for _, f := range strings.Fields(cmd) {
		if f == "--fail" || f == "--fail-with-body" {
			return true
		}
		if strings.HasPrefix(f, "-") && !strings.HasPrefix(f, "--") && strings.Contains(f, "f") {
			return true
		}
	}
	return false
}

// joinContinuations returns the block's commands with backslash-continued lines joined; the
// index of each is that of its first line.
func joinContinuations(text string) []string {
	lines := strings.Split(text, "\n")
	out := make([]string, len(lines))
	for i := 0; i < len(lines); i++ {
		start := i
		cmd := lines[i]
		for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
			i++
			cmd = strings.TrimSuffix(cmd, "\\") + " " + lines[i]
		}
		out[start] = cmd
	}
	return out
}

// Script joins the blocks into one bash script that stops at the first failure, saying where.
func Script(blocks []Block) string {
	var b strings.Builder
	b.WriteString("set -euo pipefail\n")
	for _, bl := range blocks {
		fmt.Fprintf(&b, "echo '== %s line %d' >&2\n", bl.File, bl.Line)
		b.WriteString(bl.Text)
		b.WriteString("\necho >&2\n")
	}
	return b.String()
}
