package web

import (
	"strings"
	"testing"
	"testing/fstest"
)

// What a guide cannot put on the page: raw HTML, a script link, another host's image, a link to
// a file the server does not publish. Table alignment is an attribute, not a style the policy
// would refuse.
func TestGuideRenderingIsSafe(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"guides/a.md": {Data: []byte("# A guide\n\n<script>alert(1)</script>\n\n<b onclick=\"x()\">bold</b> and " +
			"[js](javascript:alert(1)) and ![pixel](https://tracker.example/p.png) and [repo](../../go.mod) and " +
			"[b](b.md#part-two) and [ref](../reference/x.md) and [gone](missing.md) and [web](https://example.com/)\n\n" +
			"| left | right |\n|:---|---:|\n| 1 | 2 |\n\n```sh\ncurl -fsS \"$API/orgs\" | jq '.[] | {id}' <<< x\n```\n")},
		"guides/b.md": {Data: []byte("# B\n\n## Part two\n\n## Part two\n")},
		"reference/x.md": {Data: []byte("# X\n\nSee [a](../guides/a.md#a-guide), [the index](../guides/README.md), [y](y.md), " +
			"[the dashboards](../operations/monitoring/board.json) and [the top](../top.md).\n")},
		"reference/y.md":                   {Data: []byte("# Y\n")},
		"guides/README.md":                 {Data: []byte("# Guides\n")},
		"top.md":                           {Data: []byte("# Top\n\n[x](reference/x.md)\n")},
		"operations/monitoring/board.json": {Data: []byte("{}")},
		"guides/notes.txt":                 {Data: []byte("not a guide")},
	}
	all, err := renderGuides(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 6 || all["guides/a.md"].Title != "A guide" || all["guides/b.md"].Title != "B" || all["reference/x.md"].Title != "X" {
		t.Fatalf("guides: %v", all)
	}
	a := string(all["guides/a.md"].Body)
	for _, bad := range []string{"<script", "alert(1)", "onclick", "<b", "<!--", "javascript:", "<img", "tracker.example", "go.mod\"", "missing.md", "style="} {
		if strings.Contains(a, bad) {
			t.Errorf("the page has %q:\n%s", bad, a)
		}
	}
	for _, want := range []string{
		`<h1 id="a-guide">A guide</h1>`, "<p>bold and js and pixel and repo and ", " and gone and ", `<a href="/docs/guides/b.md#part-two">b</a>`,
		`<a href="/docs/reference/x.md">ref</a>`, `<a href="https://example.com/">web</a>`, `<th align="right">right</th>`,
		`<pre><code class="language-sh">curl -fsS &quot;$API/orgs&quot; | jq '.[] | {id}' &lt;&lt;&lt; x`,
	} {
		if !strings.Contains(a, want) {
			t.Errorf("the page lacks %q:\n%s", want, a)
		}
	}
	if b := string(all["guides/b.md"].Body); !strings.Contains(b, `id="part-two"`) || !strings.Contains(b, `id="part-two-1"`) {
		t.Errorf("heading ids: %s", b)
	}
	// A page outside the guides resolves its links from its own folder.
	x := string(all["reference/x.md"].Body)
	for _, want := range []string{`<a href="/docs/guides/a.md#a-guide">a</a>`, `<a href="/docs/guides/">the index</a>`,
		`<a href="/docs/reference/y.md">y</a>`, ` the dashboards and `, `<a href="/docs/top.md">the top</a>`} {
		if !strings.Contains(x, want) {
			t.Errorf("the reference page lacks %q:\n%s", want, x)
		}
	}
	if top := string(all["top.md"].Body); !strings.Contains(top, `<a href="/docs/reference/x.md">x</a>`) {
		t.Errorf("a top-level page: %s", top)
	}
}
