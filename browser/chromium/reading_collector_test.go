package chromium

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/pages"
	"github.com/veetbot/veetbrowser/observation"
)

// These tests call the collector's reading mode directly, below the
// session: revisions are any tokens, continuations are made by hand.

// observeIn runs the collector's observe with p on the session's page and
// decodes the result as the session does.
func observeIn(t *testing.T, s *Session, p collect.Params) *collect.Result {
	t.Helper()
	p.MaxVisible, p.Window, p.MaxOffset = observation.MaxControls, observation.WindowSize, observation.MaxOffset
	return rawCollect(t, s, p)
}

// inPage runs a script on the page's DOM (from the collector's world,
// which shares it).
func inPage(t *testing.T, s *Session, script string) {
	t.Helper()
	if _, err := s.tab.Evaluate(browsertest.Context(t, time.Minute), script); err != nil {
		t.Fatal(err)
	}
}

// readingText asks for the text stream only, from the start or from.
func readingText(rev string, from *collect.From) collect.Params {
	return collect.Params{Revision: rev, Reading: true, ControlsEnded: true, RegionsEnded: true, Text: from}
}

func textStopped(c observation.TextCoverage) bool {
	return c.NodeLimitReached || c.TextLimitReached || c.ByteLimitReached
}

// checkTextWindow asserts ADR-0162's bounds on one observation's text.
func checkTextWindow(t *testing.T, res *collect.Result) {
	t.Helper()
	c := res.TextCoverage
	if c.ScannedNodes > observation.TextNodes || c.InspectedUnits > observation.TextUnits ||
		observation.TextCost(c.OmittedBytes, slices.Values(res.Text)) > observation.TextBytes {
		t.Fatalf("text window over its bounds: %+v, %d bytes", c, observation.TextCost(c.OmittedBytes, slices.Values(res.Text)))
	}
}

// readTextChain follows the text stream from the document's start (or
// from) to its end, each observation continuing at the previous one's
// stop point (index = its number of parts).
func readTextChain(t *testing.T, s *Session, from *collect.From, limit int) []*collect.Result {
	t.Helper()
	var out []*collect.Result
	p := readingText("chain0", from)
	for i := 1; ; i++ {
		res := observeIn(t, s, p)
		if res.Error != "" {
			t.Fatalf("observation %d: %s", i, res.Error)
		}
		checkTextWindow(t, res)
		if (p.Text != nil) != res.TextCoverage.Resumed {
			t.Fatalf("observation %d: resumed %v", i, res.TextCoverage.Resumed)
		}
		out = append(out, res)
		if !textStopped(res.TextCoverage) {
			return out
		}
		if i >= limit {
			t.Fatalf("the text stream did not end in %d observations", limit)
		}
		p = readingText(fmt.Sprintf("chain%d", i), &collect.From{Revision: p.Revision, Index: len(res.Text)})
	}
}

// reassemble joins the parts of a chain, a part that continues a cut one
// onto it (the chain's first part may continue one read before it).
func reassemble(t *testing.T, chain []*collect.Result) []string {
	t.Helper()
	var out []string
	for i, r := range chain {
		for j, part := range r.Text {
			if j == 0 && r.TextCoverage.FirstContinues && i > 0 {
				if len(out) == 0 || !chain[i-1].TextCoverage.LastCut {
					t.Fatalf("observation %d continues a part no observation cut", i)
				}
				out[len(out)-1] += part
				continue
			}
			out = append(out, part)
		}
	}
	return out
}

var readingPhrases = []string{
	"The river valley was settled early",
	"Die Brücke über den Fluss wurde erneuert",
	"川の流れは絶えずして",
	"النهر يمر عبر المدينة القديمة",
	"नदी के किनारे पुराना बाज़ार है",
	"festivals draw visitors 🎉 every spring",
	"a family 👨‍👩‍👧 walks along the quay",
	"Ångström measured 𝄞 the aurora",
}

// readingParagraphs is a page of n paragraphs of several text nodes and
// inline elements each, and the text each paragraph reads as.
func readingParagraphs(n int) (string, []string) {
	var b strings.Builder
	texts := make([]string, n)
	b.WriteString("<!doctype html><html><head><meta charset=utf-8><title>Long</title></head><body>\n")
	for i := range n {
		p1, p2 := readingPhrases[i%len(readingPhrases)], readingPhrases[(i*3+1)%len(readingPhrases)]
		dir := ""
		if strings.HasPrefix(p1, "النهر") {
			dir = ` dir="rtl"`
		}
		fmt.Fprintf(&b, "<p id=p%d%s>§%d. <span>%s</span>, and <b>term %d</b>\n  <i>%s</i>.</p>\n", i, dir, i, p1, i, p2)
		texts[i] = fmt.Sprintf("§%d. %s, and term %d %s.", i, p1, i, p2)
	}
	b.WriteString("</body></html>")
	return b.String(), texts
}

// Not parallel: loading and first observing its 100,000 nodes keeps the
// renderer busy for several seconds alone, and beside the package's
// parallel tests on a small machine that passed the renderer guard's bound
// (page_crashed, in 2 of 4 full runs).
func TestReadingTextFollowsALongPage(t *testing.T) {
	page, texts := readingParagraphs(10000) // ≈ 100,000 nodes: a dozen windows
	s, _ := openPage(t, page)
	chain := readTextChain(t, s, nil, 200)
	got := reassemble(t, chain)
	if !slices.Equal(got, texts) {
		for i := range min(len(got), len(texts)) {
			if got[i] != texts[i] {
				t.Fatalf("%d parts for %d paragraphs; part %d is %q, want %q", len(got), len(texts), i, got[i], texts[i])
			}
		}
		t.Fatalf("%d parts for %d paragraphs", len(got), len(texts))
	}
	for i, r := range chain {
		// Paragraphs are far smaller than a window: no part is ever cut.
		if r.TextCoverage.LastCut || r.TextCoverage.FirstContinues {
			t.Fatalf("observation %d cut a paragraph: %+v", i, r.TextCoverage)
		}
	}
	t.Logf("%d paragraphs read in %d observations", len(texts), len(chain))
}

// utf16Drop drops the first n units of s as the collector does: one less
// rather than split a surrogate pair.
func utf16Drop(s string, n int) string {
	u := utf16.Encode([]rune(s))
	n = min(n, len(u))
	if n > 0 && n < len(u) && utf16.IsSurrogate(rune(u[n-1])) && u[n-1] < 0xdc00 {
		n--
	}
	return string(utf16.Decode(u[n:]))
}

func TestReadingTextContinuesInsideAWindow(t *testing.T) {
	t.Parallel()
	page, texts := readingParagraphs(3000)
	s, _ := openPage(t, page)
	const k = 301 // its first phrase holds 🎉
	part := texts[k]
	emoji := len(utf16.Encode([]rune(part[:strings.Index(part, "🎉")])))
	size := len(utf16.Encode([]rune(part)))
	for i, u := range []int{0, 1, 9, emoji, emoji + 1, emoji + 2, size - 1, size} {
		base := observeIn(t, s, readingText(fmt.Sprintf("base%d", i), nil))
		if len(base.Text) < k+2 || base.Text[k] != part || !textStopped(base.TextCoverage) {
			t.Fatalf("base window: %d parts, part %d %q", len(base.Text), k, base.Text[min(k, len(base.Text)-1)])
		}
		cont := observeIn(t, s, readingText(fmt.Sprintf("cont%d", i), &collect.From{Revision: fmt.Sprintf("base%d", i), Index: k, Units: u}))
		var want []string
		rest := utf16Drop(part, u)
		if rest != "" {
			want = append(want, rest)
		}
		want = append(want, base.Text[k+1:]...)
		if len(cont.Text) < len(want) || !slices.Equal(cont.Text[:len(want)], want) {
			t.Fatalf("continuing at part %d after %d units: first parts %q, want %q", k, u, cont.Text[:min(2, len(cont.Text))], want[:2])
		}
		if c := cont.TextCoverage; !c.Resumed || c.FirstContinues != (u > 0 && rest != "") || c.LastCut {
			t.Fatalf("continuing at part %d after %d units: coverage %+v", k, u, c)
		}
		checkTextWindow(t, cont)
		if u == emoji+1 {
			// The rest of the page follows exactly from there too.
			chain := readTextChain(t, s, &collect.From{Revision: fmt.Sprintf("base%d", i), Index: k, Units: u}, 50)
			if got := reassemble(t, chain); !slices.Equal(got, append([]string{rest}, texts[k+1:]...)) {
				t.Fatalf("reading on from part %d after %d units: %d parts", k, u, len(got))
			}
		}
	}
}

var collapsible = regexp.MustCompile(`[\t\n\r\f ]+`)

func TestReadingTextCutsOnlyAPartLargerThanAWindow(t *testing.T) {
	t.Parallel()
	var b, raw strings.Builder
	// Many inline elements: the node bound cuts the part.
	for i := range 9000 {
		fmt.Fprintf(&b, "<b>w%d</b> ", i)
		fmt.Fprintf(&raw, "w%d ", i)
	}
	// Long whitespace runs: the unit bound cuts inside text nodes.
	ws := strings.Repeat(" \n\t ", 5000)
	for i := range 20 {
		fmt.Fprintf(&b, "<span>x%d%s</span>", i, ws)
		fmt.Fprintf(&raw, "x%d%s", i, ws)
	}
	// Multibyte text with collapsible spaces: the byte bound cuts inside
	// text nodes, never inside a surrogate pair. Accented Latin in the
	// page's own font, and one emoji a chunk: a paragraph of 800 KB of CJK,
	// Arabic and emoji sequences takes Chromium 15-20 s of line layout on
	// a two-core machine, which the renderer guard rightly takes as hung.
	chunk := strings.Repeat("Ångström façade naïve déjà vu Übermaß, ÆØÅ ñandú çà 🎉  ", 220)
	for i := range 40 {
		fmt.Fprintf(&b, "<span>%d %s</span>", i, chunk)
		fmt.Fprintf(&raw, "%d %s", i, chunk)
	}
	giant := strings.TrimSpace(collapsible.ReplaceAllString(raw.String(), " "))
	if len(giant) < 2*observation.TextBytes {
		t.Fatalf("the part has only %d bytes", len(giant))
	}
	s, _ := openPage(t, "<!doctype html><meta charset=utf-8><p>before</p><p>"+b.String()+"</p><p>after</p>")
	chain := readTextChain(t, s, nil, 100)
	got := reassemble(t, chain)
	if len(got) != 3 || got[0] != "before" || got[2] != "after" {
		t.Fatalf("%d parts: %.40q", len(got), got)
	}
	if got[1] != giant {
		i := 0
		for i < min(len(got[1]), len(giant)) && got[1][i] == giant[i] {
			i++
		}
		t.Fatalf("the large part reassembles to %d bytes, want %d; first difference at %d: %.40q, want %.40q",
			len(got[1]), len(giant), i, got[1][i:], giant[i:])
	}
	// Each bound cut the part at least once; the window before it ended
	// with "before" whole, the part left to the next window.
	var node, unit, byteCut bool
	for _, r := range chain {
		c := r.TextCoverage
		if c.LastCut {
			node = node || c.NodeLimitReached
			unit = unit || c.TextLimitReached
			byteCut = byteCut || c.ByteLimitReached
		}
	}
	if !node || !unit || !byteCut {
		t.Fatalf("cuts by the node bound %v, the unit bound %v, the byte bound %v", node, unit, byteCut)
	}
	if first := chain[0]; len(first.Text) != 1 || first.TextCoverage.LastCut {
		t.Fatalf("first window: %d parts, coverage %+v", len(first.Text), first.TextCoverage)
	}
}

func TestReadingTextResumesInsideSlots(t *testing.T) {
	t.Parallel()
	// A host's light children go to two named slots and the default one,
	// or to no slot at all; a slot nothing is assigned to shows its
	// fallback. The node bound stops walks inside the slots' scans.
	const n = 9000
	var light strings.Builder
	var slotA, slotDefault []string
	for i := range n {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&light, `<p slot="a">a %d</p>`, i)
			slotA = append(slotA, fmt.Sprintf("a %d", i))
		case 1:
			fmt.Fprintf(&light, `<p>default %d</p>`, i)
			slotDefault = append(slotDefault, fmt.Sprintf("default %d", i))
		default:
			fmt.Fprintf(&light, `<p slot="nowhere">never %d</p>`, i)
		}
	}
	s, _ := openPage(t, `<!doctype html><body><p>before</p><div id="host">`+light.String()+`</div><p>after</p>
<script>
document.getElementById('host').attachShadow({mode: 'open'}).innerHTML =
  '<p>head</p><slot name="a"></slot><p>middle</p><slot></slot><slot name="empty"><p>fallback</p></slot><p>tail</p>';
</script></body>`)
	want := append(append(append([]string{"before", "head"}, slotA...), "middle"), slotDefault...)
	want = append(want, "fallback", "tail", "after")
	chain := readTextChain(t, s, nil, 100)
	if got := reassemble(t, chain); !slices.Equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("%d parts for %d; part %d is %q, want %q", len(got), len(want), i, got[i], want[i])
			}
		}
		t.Fatalf("%d parts for %d", len(got), len(want))
	}
	if len(chain) < 3 {
		t.Fatalf("read in %d observations", len(chain))
	}
}

func TestReadingResumesDeepInside(t *testing.T) {
	// Not parallel: a nest 5,000 deep keeps the renderer busy for seconds,
	// and beside the package's other pages on a loaded machine it can pass
	// the hang guard's 15 s.
	//
	// Resuming climbs a point's ancestors, each a visit: deep inside a
	// nest of inline elements, one part spans several windows, each
	// resumed thousands of levels down. (Markup nests no deeper than the
	// parser allows: the page nests by script.)
	const depth = 5000
	s, _ := openPage(t, `<p>first</p><p id="deep"></p><p>last</p><script>
let el = document.getElementById('deep');
for (let i = 0; i < `+fmt.Sprint(depth)+`; i++) {
  el.append('t' + i + ' ');
  el = el.appendChild(document.createElement('span'));
}
el.append('deepest');
</script>`)
	var deep strings.Builder
	for i := range depth {
		fmt.Fprintf(&deep, "t%d ", i)
	}
	deep.WriteString("deepest")
	chain := readTextChain(t, s, nil, 20)
	if got := reassemble(t, chain); !slices.Equal(got, []string{"first", deep.String(), "last"}) {
		t.Fatalf("%d parts: %.60q", len(got), got)
	}
	if len(chain) < 3 || chain[1].TextCoverage.ScannedNodes != observation.TextNodes {
		t.Fatalf("read in %d observations, the second %+v", len(chain), chain[1].TextCoverage)
	}
}

func TestReadingContinuationRefusals(t *testing.T) {
	t.Parallel()
	page := "<!doctype html><body>" + browsertest.Repeat(5000, "<p id=p%[1]d>para %[1]d</p>") + "</body>"
	url := browsertest.Serve(t, page)
	s := openSession(t)
	ctx := browsertest.Context(t, time.Minute)
	if _, err := s.Navigate(ctx, url); err != nil {
		t.Fatal(err)
	}
	r1 := observeIn(t, s, readingText("r1", nil))
	n := len(r1.Text)
	if !r1.TextCoverage.NodeLimitReached || n < 100 || r1.Text[20] != "para 20" {
		t.Fatalf("first window: %d parts, coverage %+v", n, r1.TextCoverage)
	}
	refused := func(what string, p collect.Params, want collect.Refusal) {
		t.Helper()
		if res := observeIn(t, s, p); res.Error != want {
			t.Fatalf("%s: refusal %q, want %q", what, res.Error, want)
		}
	}
	from := func(index int) *collect.From { return &collect.From{Revision: "r1", Index: index} }
	refused("an unknown revision", readingText("x", &collect.From{Revision: "gone"}), collect.AnchorUnknown)
	refused("an index past the stop point", readingText("x", from(n+1)), collect.AnchorUnknown)
	refused("a negative index", readingText("x", from(-1)), collect.AnchorUnknown)
	regions := collect.Params{Revision: "x", Reading: true, ControlsEnded: true, TextEnded: true,
		Regions: &collect.From{Revision: "r1", Index: 1}}
	refused("regions of a revision that retained none", regions, collect.AnchorUnknown)

	inPage(t, s, `document.getElementById('p10').remove()`)
	refused("a part whose text left the document", readingText("x", from(10)), collect.AnchorDetached)
	inPage(t, s, `document.getElementById('p21').append(document.getElementById('p20').firstChild)`)
	refused("a part whose text moved to another parent", readingText("x", from(20)), collect.AnchorMoved)
	inPage(t, s, fmt.Sprintf(`document.getElementById('p%d').remove()`, n))
	refused("a stop point that left the document", readingText("x", from(n)), collect.AnchorDetached)
	// The part before them still continues, and so does the part after.
	if res := observeIn(t, s, readingText("r2", from(30))); res.Error != "" || res.Text[0] != "para 30" {
		t.Fatalf("continuing at an untouched part: %q %v", res.Error, res.Text[:1])
	}

	r3 := observeIn(t, s, readingText("r3", nil))
	if _, err := s.Navigate(ctx, url); err != nil {
		t.Fatal(err)
	}
	p := readingText("x", &collect.From{Revision: "r3", Index: 1})
	p.Doc = r3.Doc
	refused("a continuation on a new document", p, collect.DocumentChanged)
	p.Doc = ""
	refused("a revision of the document before", p, collect.AnchorUnknown)
}

func TestReadingRegionKindsNamesAndScope(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("L", observation.MaxNameUnits+10)
	s, _ := openPage(t, `<!doctype html><body>
<header><h1>Site</h1></header>
<nav aria-label="Primary"><a href="#">Home</a></nav>
<main>
  <article><header><p>Byline</p></header><p>Story</p><footer><p>Story foot</p></footer></article>
  <section aria-label="Named section"><p>s</p></section>
  <section><p>An unnamed section</p></section>
  <div role="region" aria-labelledby="rl"><span id="rl">Labelled region</span></div>
  <div role="region"><p>An unnamed region</p></div>
  <form aria-label="Profile"><input aria-label="name"></form>
  <div role="alert">Alert!</div>
  <div role="status">Saved</div>
  <aside aria-labelledby="ah"><h2 id="ah">Related</h2></aside>
  <search><p>Find <input type="search" aria-label="q"></p></search>
  <div role="search" aria-label="Site search">Find more</div>
  <nav hidden aria-label="Hidden nav"><a href="#">x</a></nav>
  <nav style="display:none" aria-label="Undisplayed nav"><a href="#">x</a></nav>
  <section><footer><p>Section foot</p></footer></section>
</main>
<dialog open aria-labelledby="dh"><h2 id="dh">Settings</h2><p>Body</p></dialog>
<div id="open"></div><div id="closed"></div>
<footer><p>Copyright</p></footer>
<nav aria-label="`+long+`"><a href="#">Last</a></nav>
<script>
document.getElementById('open').attachShadow({mode: 'open'}).innerHTML = '<nav aria-label="Shadow nav"><a href="#">s</a></nav>';
document.getElementById('closed').attachShadow({mode: 'closed'}).innerHTML = '<nav aria-label="Closed nav"><a href="#">c</a></nav>';
</script></body>`)
	res := observeIn(t, s, collect.Params{Revision: "g1", Reading: true, ControlsEnded: true, TextEnded: true})
	var got []string
	for _, g := range res.Regions {
		r := g.Kind
		if g.Name != "" {
			r += " " + strings.Replace(g.Name, long[:observation.MaxNameUnits], "long", 1)
		}
		if g.NameTruncated {
			r += " (cut)"
		}
		if g.Level > 0 {
			r += fmt.Sprintf(" h%d %s", g.Level, g.Summary)
		}
		got = append(got, r)
	}
	want := []string{"dialog Settings", "alert", "status", "form Profile",
		"heading h1 Site", "heading h2 Related", "heading h2 Settings",
		"navigation Primary", "navigation Shadow nav", "navigation long (cut)",
		"main", "banner", "contentinfo", "complementary Related", "search", "search Site search",
		"region Named section", "region Labelled region"}
	if !slices.Equal(got, want) {
		t.Fatalf("regions:\n got %q\nwant %q", got, want)
	}
	if c := res.RegionCoverage; c.Scope != observation.ReadingScope || c.Resumed || c.Ended || c.NodeLimitReached || c.Omitted != 0 {
		t.Fatalf("region coverage %+v", c)
	}
	// The versions before reading keep their five kinds, unnamed, in the
	// main document only.
	old := observeIn(t, s, collect.Params{Revision: "g2"})
	for _, g := range old.Regions {
		if g.Name != "" || !slices.Contains([]string{"dialog", "alert", "status", "form", "heading"}, g.Kind) {
			t.Fatalf("a region before reading: %+v", g)
		}
	}
	if len(old.Regions) != 7 || old.RegionCoverage.Scope != observation.RegionScope {
		t.Fatalf("%d regions before reading, coverage %+v", len(old.Regions), old.RegionCoverage)
	}
}

func TestReadingRegionsByContinuation(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	const sections = 400
	for i := range sections {
		fmt.Fprintf(&b, `<h2>Heading %d</h2><nav aria-label="Nav %d"><a href="#">link %d</a></nav>`, i, i, i)
		if i%50 == 7 {
			fmt.Fprintf(&b, `<nav hidden aria-label="Hidden %d"><a href="#">x</a></nav>`, i)
		}
		b.WriteString(strings.Repeat("<span>f</span>", 30))
	}
	s, _ := openPage(t, "<!doctype html><body>"+b.String()+"</body>")
	seen := map[string]int{}
	p := collect.Params{Revision: "g0", Reading: true, ControlsEnded: true, TextEnded: true}
	scans := 0
	for i := 1; ; i++ {
		res := observeIn(t, s, p)
		if res.Error != "" {
			t.Fatalf("observation %d: %s", i, res.Error)
		}
		c := res.RegionCoverage
		if c.Resumed != (i > 1) || c.ScannedNodes > observation.RegionScanNodes || len(res.Regions) > observation.MaxRegions {
			t.Fatalf("observation %d: %d regions, coverage %+v", i, len(res.Regions), c)
		}
		if c.ScannedNodes > 0 {
			scans++
		}
		for _, g := range res.Regions {
			seen[g.Kind+" "+g.Name+" "+g.Summary]++
		}
		if c.Omitted == 0 && !c.NodeLimitReached {
			t.Logf("%d regions in %d observations, %d scans", len(seen), i, scans)
			break
		}
		if i > 200 {
			t.Fatal("the region stream did not end")
		}
		p = collect.Params{Revision: fmt.Sprintf("g%d", i), Reading: true, ControlsEnded: true, TextEnded: true,
			Regions: &collect.From{Revision: p.Revision, Index: len(res.Regions)}}
	}
	for i := range sections {
		for _, key := range []string{fmt.Sprintf("heading  Heading %d", i), fmt.Sprintf("navigation Nav %d link %d", i, i)} {
			if seen[key] != 1 {
				t.Fatalf("%q seen %d times", key, seen[key])
			}
		}
	}
	if len(seen) != 2*sections || scans < 3 {
		t.Fatalf("%d distinct regions (want %d) in %d scans", len(seen), 2*sections, scans)
	}
}

func TestReadingEndedStreamsAreEmpty(t *testing.T) {
	t.Parallel()
	s, _ := openPage(t, `<h1>Title</h1><p>Text</p><button>OK</button>`)
	for _, ended := range []string{"controls", "regions", "text"} {
		p := collect.Params{Revision: "e-" + ended, Reading: true}
		switch ended {
		case "controls":
			p.ControlsEnded = true
		case "regions":
			p.RegionsEnded = true
		case "text":
			p.TextEnded = true
		}
		res := observeIn(t, s, p)
		if (len(res.Controls) == 0) != (ended == "controls") || res.ControlCoverage.Ended != (ended == "controls") ||
			(len(res.Regions) == 0) != (ended == "regions") || res.RegionCoverage.Ended != (ended == "regions") ||
			(len(res.Text) == 0) != (ended == "text") || res.TextCoverage.Ended != (ended == "text") {
			t.Fatalf("%s ended: %d controls %+v, %d regions %+v, %d parts %+v", ended, len(res.Controls), res.ControlCoverage,
				len(res.Regions), res.RegionCoverage, len(res.Text), res.TextCoverage)
		}
		var zero bool
		switch ended {
		case "controls":
			zero = res.ControlCoverage == collect.ControlCoverage{Ended: true}
		case "regions":
			zero = res.RegionCoverage == observation.RegionCoverage{Version: observation.RegionCoverageV1, Scope: observation.ReadingScope, Ended: true}
		case "text":
			zero = res.TextCoverage == observation.TextCoverage{Version: observation.TextCoverageV1, Scope: observation.TextScope, Ended: true}
		}
		if !zero {
			t.Fatalf("%s ended: coverage not empty", ended)
		}
	}
}

func TestDecodeBoundsRegionNames(t *testing.T) {
	t.Parallel()
	for _, extra := range []int{0, 1} {
		raw, err := json.Marshal(collect.Result{Page: collect.Page{Doc: "d"},
			Regions:        []observation.Region{{Kind: "navigation", Name: strings.Repeat("n", observation.MaxNameUnits+extra)}},
			RegionCoverage: observation.RegionCoverage{Version: observation.RegionCoverageV1, Scope: observation.ReadingScope},
			TextCoverage:   observation.TextCoverage{Version: observation.TextCoverageV1, Scope: observation.TextScope}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := collect.Decode(raw); (err != nil) != (extra == 1) {
			t.Fatalf("a region name of %d units: %v", observation.MaxNameUnits+extra, err)
		}
	}
}

// TestReadingObserveTime measures one whole reading observation (controls,
// regions, text) of a long article, and for comparison one of the
// versions before reading. It asserts nothing about time.
func TestReadingObserveTime(t *testing.T) {
	t.Parallel()
	a := pages.NewArticle(pages.ArticleOptions{Paragraphs: 3000, NavLinks: 200})
	s, _ := openPage(t, a.HTML)
	median := func(p collect.Params) time.Duration {
		var took []time.Duration
		for i := range 5 {
			p.Revision = fmt.Sprintf("m%d", i)
			start := time.Now()
			res := observeIn(t, s, p)
			took = append(took, time.Since(start))
			if len(res.Text) == 0 || len(res.Regions) == 0 || len(res.Controls) == 0 {
				t.Fatalf("observation: %d controls, %d regions, %d parts", len(res.Controls), len(res.Regions), len(res.Text))
			}
		}
		slices.Sort(took)
		return took[2]
	}
	t.Logf("one observation of a 3,000-paragraph article, median of 5: reading %v, before reading %v",
		median(collect.Params{Reading: true}), median(collect.Params{}))
}

// TestReadingWindowAtTheBoundAndOnePast: a reading observation's text
// costs at most the window it is asked for; text that costs exactly the
// window is read whole, one byte less leaves the last part to the next
// observation and says so.
func TestReadingWindowAtTheBoundAndOnePast(t *testing.T) {
	t.Parallel()
	const parts, part = 1024, "abcdefghijklm" // each part costs 13 + 3 bytes: 16 KiB in all
	s, _ := openPage(t, strings.Repeat("<p>"+part+"</p>", parts))
	for _, c := range []struct {
		window, parts int
		limit         bool
	}{{parts * 16, parts, false}, {parts*16 - 1, parts - 1, true}} {
		p := readingText("w"+fmt.Sprint(c.window), nil)
		p.TextBytes = c.window
		res := observeIn(t, s, p)
		cov := res.TextCoverage
		if len(res.Text) != c.parts || cov.ByteLimitReached != c.limit || cov.ByteBound != c.window {
			t.Fatalf("window %d: %d parts, byte limit %v, bound %d; want %d parts, limit %v", c.window, len(res.Text), cov.ByteLimitReached, cov.ByteBound, c.parts, c.limit)
		}
		if total := observation.TextCost(0, slices.Values(res.Text)); total > c.window {
			t.Fatalf("window %d: %d bytes of text", c.window, total)
		}
	}
}
