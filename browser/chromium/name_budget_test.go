package chromium

import (
	"fmt"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/observation"
)

// nameSources is the markup of one name's sources, tag elements (span for
// aria-labelledby targets, label for labels) whose ids start with prefix,
// the k-th holding counts[k] text nodes of its own letter ('a' for the
// first) or, with no letter, counts[k] empty comments. for names the
// labelled control of labels. It returns the markup and the ids.
func nameSources(tag, prefix, forID string, letters bool, counts ...int) (string, string) {
	var b strings.Builder
	ids := make([]string, len(counts))
	for k, n := range counts {
		ids[k] = fmt.Sprintf("%s%d", prefix, k)
		ch := ""
		if letters {
			ch = string(rune('a' + k))
		}
		fmt.Fprintf(&b, `<%s id="%s" data-n="%d" data-ch="%s"`, tag, ids[k], n, ch)
		if forID != "" {
			fmt.Fprintf(&b, ` for="%s"`, forID)
		}
		fmt.Fprintf(&b, "></%s>", tag)
	}
	return b.String(), strings.Join(ids, " ")
}

// repeatCounts is k sources of n nodes each.
func repeatCounts(k, n int) []int {
	out := make([]int, k)
	for i := range out {
		out[i] = n
	}
	return out
}

// lettersName is the name read from sources of n letters each.
func lettersName(counts ...int) string {
	parts := make([]string, len(counts))
	for k, n := range counts {
		parts[k] = strings.Repeat(string(rune('a'+k)), n)
	}
	return strings.Join(parts, " ")
}

// TestNameNodesAreSharedPerName: one name reads at most NameNodes nodes in
// all, across its aria-labelledby targets, its labels and its content. A
// source costs its element, the ::before and ::after read (2) and its
// children; every source here is a rendered inline element, so 16 sources
// of NameNodes/16-3 children are read whole (at the bound) and one child
// more is left out (one past). Sixteen sources of 300 nodes give the name
// of the first one's first NameNodes-3 nodes. An aria-labelledby target
// that spends the budget on nodes with no text leaves nothing for the
// content, and the name falls back to the title.
func TestNameNodesSharedPerName(t *testing.T) {
	t.Parallel()
	const sources = observation.MaxLabelIDs
	each := observation.NameNodes/sources - 3
	if each <= 0 || observation.NameNodes%sources != 0 {
		t.Fatalf("the test needs NameNodes (%d) a multiple of %d sources of at least 4 nodes", observation.NameNodes, sources)
	}
	atBound := repeatCounts(sources, each)
	onePast := append(repeatCounts(sources-1, each), each+1)
	large := repeatCounts(sources, 300)
	// Content of a button reads the button, its ::before and ::after, and
	// one text node.
	emptyAtBound := observation.NameNodes - 3 - 4

	var page strings.Builder
	var controls []string
	for i, counts := range [][]int{atBound, onePast, large} {
		markup, ids := nameSources("span", fmt.Sprintf("t%d-", i), "", true, counts...)
		page.WriteString(markup)
		controls = append(controls, fmt.Sprintf(`<button aria-labelledby="%s">content</button>`, ids))
		markup, _ = nameSources("label", fmt.Sprintf("l%d-", i), fmt.Sprintf("f%d", i), true, counts...)
		page.WriteString(markup)
		controls = append(controls, fmt.Sprintf(`<input id="f%d">`, i))
	}
	for i, n := range []int{emptyAtBound, emptyAtBound + 1} {
		markup, ids := nameSources("span", fmt.Sprintf("e%d-", i), "", false, n)
		page.WriteString(markup)
		controls = append(controls, fmt.Sprintf(`<button aria-labelledby="%s" title="Title">Go</button>`, ids))
	}
	page.WriteString(strings.Join(controls, "\n"))
	page.WriteString(`
<script>
for (const e of document.querySelectorAll('[data-n]')) {
  for (let i = 0; i < +e.dataset.n; i++) {
    e.appendChild(e.dataset.ch ? document.createTextNode(e.dataset.ch) : document.createComment(''));
  }
}
</script>`)

	_, obs := openPage(t, page.String())
	whole := lettersName(atBound...)
	first := strings.Repeat("a", observation.NameNodes-3)
	want := []string{whole, whole, whole, whole, first, first, "Go", "Title"}
	what := []string{"labelledby at the bound", "labels at the bound", "labelledby one past", "labels one past",
		"labelledby of 300 nodes each", "labels of 300 nodes each", "empty target at the bound", "empty target one past"}
	got := names(obs)
	if len(got) != len(want) {
		t.Fatalf("%d controls, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s: name of %d units %.40q…, want %d units %.40q…", what[i], len(got[i]), got[i], len(want[i]), want[i])
		}
		if obs.Controls[i].NameTruncated {
			t.Errorf("%s: the node budget flagged as a unit cut", what[i])
		}
	}
}
