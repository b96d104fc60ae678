package chromium

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// rawFind runs the collector's find directly in the session's page.
func rawFind(t *testing.T, s *Session, r collect.FindRequest) *collect.FindResult {
	t.Helper()
	raw, err := s.tab.Evaluate(browsertest.Context(t, time.Minute), collect.Find(r))
	if err != nil {
		t.Fatal(err)
	}
	res, err := collect.DecodeFind(raw)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// findOK is rawFind of a find that must not be refused.
func findOK(t *testing.T, s *Session, r collect.FindRequest) *collect.FindResult {
	t.Helper()
	res := rawFind(t, s, r)
	if res.Error != "" {
		t.Fatalf("find %+v refused: %s", r, res.Error)
	}
	return res
}

func findControlNames(res *collect.FindResult) []string {
	out := make([]string, len(res.Controls))
	for i, c := range res.Controls {
		out[i] = c.Name
	}
	return out
}

func findSnippets(res *collect.FindResult) []string {
	out := make([]string, len(res.Matches))
	for i, m := range res.Matches {
		out[i] = m.Snippet
	}
	return out
}

// findNext is the continuation of res, the find of revision: each stream after
// all its matches, or ended.
func findNext(revision string, res *collect.FindResult) *collect.FindFrom {
	f := &collect.FindFrom{Revision: revision, Controls: collect.FindEnded, Text: collect.FindEnded}
	if res.Coverage.MoreControls {
		f.Controls = len(res.Controls)
	}
	if res.Coverage.MoreText {
		f.Text = len(res.Matches)
	}
	return f
}

func TestFindControlNearTheEndOfALargePage(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 12000 {
		name := fmt.Sprintf("b%d", i)
		if i == 11500 {
			name = "Publish"
		}
		fmt.Fprintf(&b, "<button>%s</button>\n", name)
	}
	s, _ := openPage(t, b.String())
	start := time.Now()
	res := findOK(t, s, collect.FindRequest{Revision: "f1", Query: "publish"})
	t.Logf("find on 12,000 buttons: %v, coverage %+v", time.Since(start), res.Coverage)
	if len(res.Controls) != 1 || res.Controls[0].Name != "Publish" || res.Controls[0].Role != "button" || res.Controls[0].Position != 11500 {
		t.Fatalf("controls %+v", res.Controls)
	}
	if c := res.Coverage; c.MoreControls || c.MoreText || c.NodeLimitReached || c.Candidates != 12000 {
		t.Fatalf("coverage %+v", c)
	}
	// The labels are readable text too: one line of inline buttons, one
	// part, its snippet around the word.
	if len(res.Matches) != 1 || !strings.Contains(res.Matches[0].Snippet, " b11499 Publish b11501 ") {
		t.Fatalf("text matches %q", findSnippets(res))
	}
	// The match is retained as the find revision's control: actions reach it.
	raw, err := s.tab.Evaluate(browsertest.Context(t, time.Minute), collect.Inspect(collect.GuardRequest{
		Target: collect.Target{Revision: "f1", Index: 0, Doc: res.Doc}}))
	if err != nil {
		t.Fatal(err)
	}
	g, err := collect.DecodeInspect(raw)
	if err != nil || g.Error != "" || g.Facts.Name != "Publish" {
		t.Fatalf("inspect the match: %+v %v", g, err)
	}
}

func TestFindFoldsCaseAndDiacritics(t *testing.T) {
	t.Parallel()
	s, _ := openPage(t, "<div><button>Café crème</button></div><div><button>Caffè</button></div><div><button>CAFÉ</button></div>"+
		"<p>CAFÉ NOIR on the menu</p><p>cafe\u0301 latte</p><p>Cafeteria hours</p><p>Coffee</p>")
	for _, q := range []string{"cafe", "CAFÉ", "Cafe\u0301", "  café, "} {
		res := findOK(t, s, collect.FindRequest{Revision: "f", Query: q})
		if got := findControlNames(res); !slices.Equal(got, []string{"Café crème", "CAFÉ"}) {
			t.Errorf("%q: controls %q", q, got)
		}
		want := []string{"Café crème", "CAFÉ", "CAFÉ NOIR on the menu", "cafe\u0301 latte", "Cafeteria hours"}
		if got := findSnippets(res); !slices.Equal(got, want) {
			t.Errorf("%q: text %q, want %q", q, got, want)
		}
	}
	// Every word must appear, in any order.
	res := findOK(t, s, collect.FindRequest{Revision: "f", Query: "menu CAFE"})
	if len(res.Controls) != 0 || !slices.Equal(findSnippets(res), []string{"CAFÉ NOIR on the menu"}) {
		t.Fatalf("menu cafe: %q %q", findControlNames(res), findSnippets(res))
	}
	if res := findOK(t, s, collect.FindRequest{Revision: "f", Query: "cafe tea"}); len(res.Controls)+len(res.Matches) != 0 {
		t.Fatalf("cafe tea: %q %q", findControlNames(res), findSnippets(res))
	}
}

func TestFindPhraseDeepInALongArticle(t *testing.T) {
	t.Parallel()
	filler := strings.Repeat("The valley floor widens below the old mill and the river slows. ", 4)
	var b strings.Builder
	b.WriteString("<!doctype html><title>Article</title><main><h1>River valley</h1>")
	for i := range 3000 {
		fmt.Fprintf(&b, "<p>Paragraph %d. The heron colony at marker %d counts its nests. %s</p>\n", i, i, filler)
	}
	b.WriteString("</main>")
	s, _ := openPage(t, b.String())
	start := time.Now()
	res := findOK(t, s, collect.FindRequest{Revision: "f1", Query: "heron colony marker 2900"})
	t.Logf("find on 3,000 paragraphs: %v, coverage %+v", time.Since(start), res.Coverage)
	if len(res.Matches) != 1 || !strings.Contains(res.Matches[0].Snippet, "heron colony at marker 2900") || !res.Matches[0].CutAfter {
		t.Fatalf("matches %+v", res.Matches)
	}
	// Further than an observation reads, in one call.
	if c := res.Coverage; c.InspectedUnits <= observation.TextUnits || c.MoreText || c.UnitLimitReached || c.NodeLimitReached {
		t.Fatalf("coverage %+v", c)
	}
	// Reading continues at the match's part.
	obs := rawCollect(t, s, collect.Params{Revision: "o1", Reading: true, ControlsEnded: true, RegionsEnded: true,
		Text: &collect.From{Revision: "f1", Index: 0}})
	if obs.Error != "" || len(obs.Text) == 0 || !strings.HasPrefix(obs.Text[0], "Paragraph 2900. The heron colony") {
		t.Fatalf("reading from the match: %q %q", obs.Error, obs.Text[:min(len(obs.Text), 1)])
	}
}

func TestFindNeverReadsValuesHiddenOrEditableText(t *testing.T) {
	t.Parallel()
	s, _ := openPage(t, `
<p>zebra quartz in plain sight</p>
<input value="zebra quartz value"><input type="password" value="zebra quartz password">
<input id="typed"><textarea>zebra quartz textarea</textarea>
<select><option>zebra quartz option</option></select>
<div contenteditable="true">zebra quartz editable</div><div role="textbox">zebra quartz custom textbox</div>
<details><summary>More</summary><p>zebra quartz collapsed</p><button>zebra quartz collapsed button</button></details>
<div aria-hidden="true"><p>zebra quartz aria-hidden</p><button>zebra quartz aria-hidden button</button></div>
<div style="display:none"><p>zebra quartz none</p><button>zebra quartz none button</button></div>
<p hidden>zebra quartz hidden</p><p style="visibility:hidden">zebra quartz invisible</p>
<p data-x="zebra quartz attribute" class="zebra-quartz">plain</p>
<script>document.getElementById('typed').value = 'zebra quartz typed';</script>`)
	res := findOK(t, s, collect.FindRequest{Revision: "f", Query: "zebra quartz"})
	if len(res.Controls) != 0 || !slices.Equal(findSnippets(res), []string{"zebra quartz in plain sight"}) {
		t.Fatalf("controls %q, text %q: only the visible paragraph may match", findControlNames(res), findSnippets(res))
	}
}

func TestFindContinuesWithEveryMatchOnce(t *testing.T) {
	t.Parallel()
	const n = 70
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "<p>alpha note %d</p><button>alpha item %d</button><p>beta %d</p>\n", i, i, i)
	}
	s, _ := openPage(t, b.String())
	seenControls := map[string]int{}
	seenText := map[string]int{}
	var from *collect.FindFrom
	calls := 0
	for ; calls < 10; calls++ {
		rev := fmt.Sprintf("f%d", calls)
		res := findOK(t, s, collect.FindRequest{Revision: rev, Query: "alpha", From: from})
		if len(res.Controls) > observation.FindMatches || len(res.Matches) > observation.FindMatches {
			t.Fatalf("call %d: %d controls, %d text matches", calls, len(res.Controls), len(res.Matches))
		}
		for _, name := range findControlNames(res) {
			seenControls[name]++
		}
		for _, snip := range findSnippets(res) {
			seenText[snip]++
		}
		from = findNext(rev, res)
		if from.Controls == collect.FindEnded && from.Text == collect.FindEnded {
			break
		}
	}
	// 140 text matches (notes and button labels) take five calls.
	if calls != 4 || len(seenControls) != n || len(seenText) != 2*n {
		t.Fatalf("%d calls, %d controls, %d text matches", calls+1, len(seenControls), len(seenText))
	}
	for i := range n {
		item, note := fmt.Sprintf("alpha item %d", i), fmt.Sprintf("alpha note %d", i)
		if seenControls[item] != 1 || seenText[item] != 1 || seenText[note] != 1 {
			t.Fatalf("%s seen %d and %d times, %s %d times", item, seenControls[item], seenText[item], note, seenText[note])
		}
	}

	// from counts the matches given back: the 6th control and the 8th text
	// match come next; a count past the matches, or past the end of an
	// ended stream, is unknown.
	first := findOK(t, s, collect.FindRequest{Revision: "g1", Query: "alpha"})
	res := findOK(t, s, collect.FindRequest{Revision: "g2", Query: "alpha", From: &collect.FindFrom{Revision: "g1", Controls: 5, Text: 7}})
	if res.Controls[0].Name != first.Controls[5].Name || res.Matches[0].Snippet != first.Matches[7].Snippet {
		t.Fatalf("from 5 and 7: %q, %q", res.Controls[0].Name, res.Matches[0].Snippet)
	}
	for _, f := range []collect.FindFrom{
		{Revision: "g1", Controls: observation.FindMatches + 1, Text: 0},
		{Revision: "g1", Controls: 0, Text: -2},
		{Revision: "nope", Controls: 0, Text: 0},
		{Revision: fmt.Sprintf("f%d", calls), Controls: 0, Text: 0}, // the last find of the loop: dropped
	} {
		if res := rawFind(t, s, collect.FindRequest{Revision: "g3", Query: "alpha", From: &f}); res.Error != collect.AnchorUnknown {
			t.Errorf("from %+v: %q, want anchor_unknown", f, res.Error)
		}
	}
	if res := rawFind(t, s, collect.FindRequest{Revision: "g4", Doc: "other", Query: "alpha"}); res.Error != collect.DocumentChanged {
		t.Errorf("another document: %q", res.Error)
	}
}

func TestFindContinuationRefusesMovedPoints(t *testing.T) {
	t.Parallel()
	s, _ := openPage(t, "<div id=a><p>kiwi one</p><button>kiwi a</button></div><div id=b><p>kiwi two</p></div>")
	first := findOK(t, s, collect.FindRequest{Revision: "k1", Query: "kiwi"})
	if len(first.Controls) != 1 || len(first.Matches) != 3 {
		t.Fatalf("controls %q, text %q", findControlNames(first), findSnippets(first))
	}
	if _, err := s.tab.Evaluate(browsertest.Context(t, time.Minute),
		"document.querySelector('#b').prepend(document.querySelector('button')); document.querySelector('p').remove(); true"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		from collect.FindFrom
		want collect.Refusal
	}{
		{collect.FindFrom{Revision: "k1", Controls: 0, Text: collect.FindEnded}, collect.AnchorMoved},    // the button moved
		{collect.FindFrom{Revision: "k1", Controls: collect.FindEnded, Text: 0}, collect.AnchorDetached}, // "kiwi one" is gone
	} {
		if res := rawFind(t, s, collect.FindRequest{Revision: "k2", Query: "kiwi", From: &c.from}); res.Error != c.want {
			t.Errorf("from %+v: %q, want %q", c.from, res.Error, c.want)
		}
	}
	// The second text match's part is still there: the find continues at it.
	res := findOK(t, s, collect.FindRequest{Revision: "k3", Query: "kiwi", From: &collect.FindFrom{Revision: "k1", Controls: collect.FindEnded, Text: 1}})
	if !slices.Equal(findSnippets(res), []string{"kiwi a", "kiwi two"}) || len(res.Controls) != 0 {
		t.Fatalf("from text 1: %q %q", findControlNames(res), findSnippets(res))
	}
}

func TestFindMatchBound(t *testing.T) {
	t.Parallel()
	for _, n := range []int{observation.FindMatches, observation.FindMatches + 1} {
		s, _ := openPage(t, browsertest.Repeat(n, "<div><button>kiwi %d</button></div>\n"))
		res := findOK(t, s, collect.FindRequest{Revision: "m1", Query: "kiwi"})
		if len(res.Controls) != observation.FindMatches || len(res.Matches) != observation.FindMatches {
			t.Fatalf("%d matches: %d controls, %d text matches", n, len(res.Controls), len(res.Matches))
		}
		more := n > observation.FindMatches
		if c := res.Coverage; c.MoreControls != more || c.MoreText != more {
			t.Fatalf("%d matches: coverage %+v", n, c)
		}
		if !more {
			continue
		}
		rest := findOK(t, s, collect.FindRequest{Revision: "m2", Query: "kiwi", From: findNext("m1", res)})
		last := fmt.Sprintf("kiwi %d", n-1)
		if !slices.Equal(findControlNames(rest), []string{last}) || !slices.Equal(findSnippets(rest), []string{last}) ||
			rest.Coverage.MoreControls || rest.Coverage.MoreText {
			t.Fatalf("the rest: %q %q %+v", findControlNames(rest), findSnippets(rest), rest.Coverage)
		}
	}
}

func TestFindSnippetBound(t *testing.T) {
	t.Parallel()
	at := strings.Repeat("x", observation.SnippetUnits-len("lychee")) + "lychee"
	past := "y" + at
	long := strings.Repeat("a", 500) + " lychee " + strings.Repeat("b", 500)
	emoji := strings.Repeat("😀", 200) + " lychee " + strings.Repeat("😀", 201)
	s, _ := openPage(t, "<p>"+at+"</p><p>"+past+"</p><p>"+long+"</p><p>"+emoji+"</p>")
	res := findOK(t, s, collect.FindRequest{Revision: "s", Query: "lychee"})
	if len(res.Matches) != 4 {
		t.Fatalf("%d matches", len(res.Matches))
	}
	if m := res.Matches[0]; m.Snippet != at || m.CutBefore || m.CutAfter {
		t.Errorf("a part of %d units: %+v", observation.SnippetUnits, m)
	}
	if m := res.Matches[1]; m.Snippet != at || !m.CutBefore || m.CutAfter {
		t.Errorf("a part of %d units: %+v", observation.SnippetUnits+1, m)
	}
	if m := res.Matches[2]; observation.UTF16Len(m.Snippet) != observation.SnippetUnits || !m.CutBefore || !m.CutAfter ||
		!strings.Contains(m.Snippet, "a lychee b") {
		t.Errorf("a long part: %+v", m)
	}
	m := res.Matches[3]
	if n := observation.UTF16Len(m.Snippet); n > observation.SnippetUnits || n < observation.SnippetUnits-1 ||
		!strings.Contains(m.Snippet, " lychee ") || !m.CutBefore || !m.CutAfter || strings.ContainsRune(m.Snippet, utf8.RuneError) {
		t.Errorf("a part of surrogate pairs: %d units %+v", n, m)
	}
}

// TestFindUnitBound: a find inspects at most FindUnits units; the part the
// bound ends in is left whole to the next find, unless it alone is larger
// than the bound, which then continues inside its text.
func TestFindUnitBound(t *testing.T) {
	t.Parallel()
	filler := strings.Repeat("plum ", 200) // 1,000 units
	paragraphs := browsertest.Repeat(observation.FindUnits/1000, "<p>"+filler+"%d</p>\n")
	single := strings.Repeat(filler, observation.FindUnits/1000+1)
	for name, page := range map[string]string{
		"paragraphs":   paragraphs + "<p>a fig at the end</p>",
		"one big part": "<p>" + single + " a fig at the end</p>",
	} {
		s, _ := openPage(t, page)
		res := findOK(t, s, collect.FindRequest{Revision: "u1", Query: "fig"})
		if c := res.Coverage; len(res.Matches) != 0 || !c.UnitLimitReached || c.InspectedUnits != observation.FindUnits || !c.MoreText {
			t.Fatalf("%s: %q %+v", name, findSnippets(res), c)
		}
		rest := findOK(t, s, collect.FindRequest{Revision: "u2", Query: "fig", From: findNext("u1", res)})
		if len(rest.Matches) != 1 || !strings.HasSuffix(rest.Matches[0].Snippet, "a fig at the end") || rest.Coverage.MoreText {
			t.Fatalf("%s, continued: %q %+v", name, findSnippets(rest), rest.Coverage)
		}
		if name == "paragraphs" && rest.Matches[0].Snippet != "a fig at the end" {
			t.Fatalf("the last paragraph was split: %q", rest.Matches[0].Snippet)
		}
	}
}
