package chromium

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

func texts(obs *observation.Observation) []string {
	var out []string
	for _, p := range obs.Text {
		if p.Source == observation.TextSourcePage {
			out = append(out, p.Text)
		}
	}
	return out
}

func joined(obs *observation.Observation) string { return strings.Join(texts(obs), "\n") }

func TestTextExcludesEditableAndHiddenAndIncludesShadow(t *testing.T) {
	_, obs := openPage(t, `
<p>Visible prose</p>
<input value="CANARY-INPUT"><textarea>CANARY-TEXTAREA</textarea>
<select><option>CANARY-OPTION</option></select>
<div contenteditable="true">CANARY-EDITABLE</div>
<div role="textbox">CANARY-ROLE-TEXTBOX</div>
<p style="display:none">CANARY-NONE</p><p style="visibility:hidden">CANARY-VISIBILITY</p>
<p hidden>CANARY-HIDDEN</p><div aria-hidden="true">CANARY-ARIA</div><p style="opacity:0">CANARY-OPACITY</p>
<script>var x = "CANARY-SCRIPT";</script><style>.CANARY-STYLE{}</style><template>CANARY-TEMPLATE</template>
<noscript>CANARY-NOSCRIPT</noscript><iframe srcdoc="CANARY-FRAME"></iframe>
<p title="CANARY-ATTRIBUTE" data-x="CANARY-DATA">Label <input value="CANARY-LABELLED"> stays</p>
<span style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)">CANARY-SR-ONLY</span>
<p style="position:absolute;left:-9999px">CANARY-OFFSCREEN</p>
<div style="width:0;height:0;overflow:hidden">CANARY-ZERO-BOX</div>
<div id="host">light fallback not rendered</div>
<script>document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<p>Shadow prose</p>';</script>`)
	all := joined(obs)
	if strings.Contains(all, "CANARY") {
		t.Fatalf("a canary leaked into the text: %q", all)
	}
	for _, want := range []string{"Visible prose", "Label  stays", "Shadow prose"} {
		if !strings.Contains(strings.ReplaceAll(all, "Label stays", "Label  stays"), want) {
			t.Errorf("text lacks %q: %q", want, all)
		}
	}
	if strings.Contains(all, "light fallback") {
		t.Errorf("an unslotted light child of a shadow host was read: %q", all)
	}
}

func TestTextBoundaries(t *testing.T) {
	_, obs := openPage(t, `
<div>Block one</div><div>Block two</div>
<p>Line<br>break</p>
<p><b>foo</b><i>bar</i> <b>spaced</b>   <i>out</i></p>
<table><tr><td>a1</td><td>a2</td></tr><tr><td>b1</td><td>b2</td></tr></table>
<pre>  keep   this
  layout</pre>
<div id="h"><span slot="s">slotted</span><span>unslotted</span></div>
<script>document.getElementById('h').attachShadow({mode: 'open'}).innerHTML = '[<slot name="s">fallback</slot>][<slot name="none">fallback text</slot>]';</script>`)
	want := []string{"Block one", "Block two", "Line\nbreak", "foobar spaced out", "a1\ta2", "b1\tb2", "keep   this\n  layout", "[slotted][fallback text]"}
	if got := texts(obs); !slices.Equal(got, want) {
		t.Fatalf("text parts:\n got %q\nwant %q", got, want)
	}
}

func TestTextNeverCallsInnerText(t *testing.T) {
	_, obs := openPage(t, `<p>Readable</p>
<script>
for (const proto of [HTMLElement.prototype, Element.prototype, Node.prototype]) {
  for (const name of ['innerText', 'outerText', 'textContent', 'innerHTML']) {
    try { Object.defineProperty(proto, name, {get() { document.title = 'TRAPPED ' + name; throw new Error('trap'); }}); } catch (e) {}
  }
}
</script>`)
	if strings.HasPrefix(obs.Title, "TRAPPED") {
		t.Fatalf("the collector read %s", obs.Title)
	}
	if joined(obs) != "Readable" {
		t.Fatalf("text %q", joined(obs))
	}
}

func TestTextUnicodeAtTheBounds(t *testing.T) {
	// Arabic, CJK and Hindi round-trip.
	_, obs := openPage(t, `<p>مرحبا بالعالم</p><p>你好，世界</p><p>नमस्ते दुनिया</p><p>👩‍👩‍👧 family</p>`)
	if got := texts(obs); !slices.Equal(got, []string{"مرحبا بالعالم", "你好，世界", "नमस्ते दुनिया", "👩‍👩‍👧 family"}) {
		t.Fatalf("unicode text: %q", got)
	}
	// The UTF-16 bound falls inside an emoji: whitespace is inspected but
	// collapses, so the unit bound is reached with little output.
	_, obs = openPage(t, `<p>a`+strings.Repeat(" ", observation.TextUnits-2)+`😀tail</p>`)
	if c := obs.TextCoverage; !c.TextLimitReached || c.InspectedUnits != observation.TextUnits-1 {
		t.Fatalf("unit bound inside an emoji: coverage %+v", c)
	}
	if got := joined(obs); got != "a" {
		t.Fatalf("unit bound inside an emoji kept %q", got)
	}
	// The byte bound falls inside an emoji and inside a ZWJ sequence: the
	// cut is between code points, never inside a UTF-8 sequence.
	for _, tail := range []string{"😀", "👩‍👩‍👧"} {
		pad := strings.Repeat("a", observation.TextBytes-3-2)
		_, obs = openPage(t, `<p>`+pad+tail+`</p>`)
		got := joined(obs)
		if !utf8.ValidString(got) || strings.ContainsRune(got, utf8.RuneError) || !strings.HasPrefix(got, pad) || len(got) > len(pad)+3 {
			t.Fatalf("byte bound before %q kept %d bytes ending %q", tail, len(got), got[len(got)-4:])
		}
		if c := obs.TextCoverage; !c.ByteLimitReached || c.OmittedBytes == 0 {
			t.Fatalf("byte bound before %q: coverage %+v", tail, c)
		}
	}
}

// boundPage has exactly 3 + 2n + 1 nodes: html, head, body, n paragraphs
// with their text, and one trailing text node.
func boundPage(n int) string { return browsertest.Repeat(n, "<p>%d</p>") + "z" }

func TestTextBoundsAtTheBoundAndOnePast(t *testing.T) {
	// Nodes: 4,094 paragraphs make exactly 8,192 visits; 4,095 one more.
	for _, n := range []int{4094, 4095} {
		_, obs := openPage(t, boundPage(n))
		past := n == 4095
		if c := obs.TextCoverage; c.NodeLimitReached != past || c.ScannedNodes != observation.TextNodes {
			t.Fatalf("%d paragraphs: text coverage %+v", n, c)
		}
		if c := obs.RegionCoverage; c.NodeLimitReached != past || c.ScannedNodes != observation.RegionScanNodes {
			t.Fatalf("%d paragraphs: region coverage %+v", n, c)
		}
		if got := strings.HasSuffix(joined(obs), "z"); got == past {
			t.Fatalf("%d paragraphs: the last node read: %v", n, got)
		}
	}
	// Units: exactly the bound is complete, one past is flagged. Collapsing
	// whitespace keeps the output far below the byte bound.
	for _, extra := range []int{0, 1} {
		_, obs := openPage(t, `<p>x`+strings.Repeat(" ", observation.TextUnits-1)+`</p><p>`+strings.Repeat("y", extra)+`</p>`)
		c := obs.TextCoverage
		if c.TextLimitReached != (extra == 1) || c.InspectedUnits != observation.TextUnits {
			t.Fatalf("bound + %d units: coverage %+v", extra, c)
		}
	}
	// Bytes: one part costs its escaped bytes plus quotes and a separator.
	// Exactly 256 KiB is complete; one byte more is cut and counted.
	for _, extra := range []int{0, 1} {
		n := observation.TextBytes - 3 + extra
		_, obs := openPage(t, `<p>`+strings.Repeat("b", n)+`</p>`)
		c := obs.TextCoverage
		// The known omission is counted up to the bound, which the
		// returned text already fills here.
		if c.ByteLimitReached != (extra == 1) || c.OmittedBytes != 0 || len(joined(obs)) != observation.TextBytes-3 {
			t.Fatalf("bound + %d bytes: %d returned, coverage %+v", extra, len(joined(obs)), c)
		}
	}
}

func TestHostileDepthFinishesFast(t *testing.T) {
	// The test's context bounds the time: a hang fails it.
	_, obs := openPage(t, strings.Repeat("<div>", 2500)+"deep text"+strings.Repeat("</div>", 2500)+
		strings.Repeat("<span>", 20000)+"deeper"+strings.Repeat("</span>", 20000))
	if !obs.TextCoverage.NodeLimitReached || !obs.RegionCoverage.NodeLimitReached {
		t.Fatalf("deep page: text %+v regions %+v", obs.TextCoverage, obs.RegionCoverage)
	}
	if !strings.Contains(joined(obs), "deep text") {
		t.Fatalf("text %q", joined(obs))
	}
}

func TestCrashIsReportedAndTheSessionRecovers(t *testing.T) {
	ctx := browsertest.Context(t, time.Minute)
	s, _ := openPage(t, "<button>before</button>")
	go s.tab.navigate(ctx, "chrome://crash")
	// Observations succeed until the crash and then report it; the test's
	// context bounds the wait, so a hang fails the test.
	_, err := s.Observe(ctx, observation.Request{})
	for errcode.Of(err) != errcode.PageCrashed && ctx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
		_, err = s.Observe(ctx, observation.Request{})
	}
	wantCode(t, err, errcode.PageCrashed)
	obs, err := s.Navigate(ctx, browsertest.Serve(t, "<button>after</button>"))
	if err != nil {
		t.Fatal(err)
	}
	if names(obs)[0] != "after" {
		t.Fatalf("after recovery: %q", names(obs))
	}
}

func TestRegionsPriorityOrderAndBounds(t *testing.T) {
	_, obs := openPage(t, `
<h1>Title</h1>
<form aria-label="Search"><input name="q" value="CANARY-Q"><button>Go</button></form>
<div role="status">Saved 2 minutes ago</div>
<div role="alert">Connection lost</div>
<dialog open><p>Discard draft?</p><button>Discard</button></dialog>
<h2 hidden>Hidden heading</h2>
<div role="alert" style="display:none">Hidden alert</div>
<h2>Second <span contenteditable>CANARY-EDIT</span></h2>`)
	var kinds []string
	for _, g := range obs.Regions {
		kinds = append(kinds, g.Kind+":"+g.Summary)
	}
	want := []string{"dialog:Discard draft? Discard", "alert:Connection lost", "status:Saved 2 minutes ago", "form:Go", "heading:Title", "heading:Second"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("regions:\n got %q\nwant %q", kinds, want)
	}
	if obs.Regions[4].Level != 1 || obs.Regions[5].Level != 2 {
		t.Fatal("heading levels lost")
	}
	b, _ := json.Marshal(obs.Regions)
	if strings.Contains(string(b), "CANARY") {
		t.Fatalf("a canary leaked into a summary: %s", b)
	}

	// 32 regions at the bound, 33 one past; summaries at 512 characters.
	for _, n := range []int{observation.MaxRegions, observation.MaxRegions + 1} {
		_, obs := openPage(t, browsertest.Repeat(n, "<h3>heading %d</h3>"))
		if len(obs.Regions) != observation.MaxRegions || obs.RegionCoverage.Omitted != n-observation.MaxRegions {
			t.Fatalf("%d headings: %d regions, coverage %+v", n, len(obs.Regions), obs.RegionCoverage)
		}
	}
	for _, n := range []int{observation.SummaryUnits, observation.SummaryUnits + 1} {
		_, obs := openPage(t, "<h1>"+strings.Repeat("w", n)+"</h1>")
		g := obs.Regions[0]
		if len(g.Summary) != observation.SummaryUnits || g.SummaryTruncated != (n > observation.SummaryUnits) {
			t.Fatalf("%d-char heading: summary %d chars, truncated %v", n, len(g.Summary), g.SummaryTruncated)
		}
	}
	for _, n := range []int{100, 300} { // descendant nodes: each span holds an element and a text node
		_, obs := openPage(t, `<div role="status">`+strings.Repeat("<span>.</span>", n)+`</div>`)
		if g := obs.Regions[0]; g.SummaryTruncated != (2*n > observation.SummaryNodes) {
			t.Fatalf("%d spans: truncated %v", n, g.SummaryTruncated)
		}
	}
	// The region scan stops at 8,192 nodes and says so.
	for _, n := range []int{1000, 5000} {
		_, obs := openPage(t, browsertest.Repeat(n, "<p>%d</p>")+"<h1>late</h1>")
		c := obs.RegionCoverage
		if c.NodeLimitReached != (n == 5000) || c.ScannedNodes > observation.RegionScanNodes || (n == 5000) == (len(obs.Regions) == 1) {
			t.Fatalf("%d paragraphs: %d regions, coverage %+v", n, len(obs.Regions), c)
		}
	}
}

func TestRegionRefsAreEvidenceOnly(t *testing.T) {
	ctx := browsertest.Context(t, time.Minute)
	s, obs := openPage(t, `<h1>Heading</h1><button>Go</button>`)
	region := obs.Regions[0].Ref
	if region == obs.Controls[0].Ref || region == obs.Revision {
		t.Fatal("a region ref aliases another ref")
	}
	_, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: region}, allowAll)
	wantCode(t, err, errcode.InvalidArgument)
	_, err = s.Observe(ctx, observation.Request{After: region})
	wantCode(t, err, errcode.InvalidArgument)
}

func TestDraftReceipt(t *testing.T) {
	ctx := browsertest.Context(t, time.Minute)
	s, obs := openPage(t, `<div contenteditable="true" aria-label="Composer" id="ed"></div><p>Other text</p>`)
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Composer").Ref, Text: "Hello world"}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	draftOf := func(o *observation.Observation) (string, string) {
		text := ""
		for _, p := range o.Text {
			if p.Source == observation.TextSourceDraft {
				text = p.Text
			}
		}
		if o.Draft == nil {
			return "", text
		}
		return o.Draft.State, text
	}
	if state, text := draftOf(res.Observation); state != "match" || text != "Hello world" {
		t.Fatalf("after typing: %q %q", state, text)
	}
	if strings.Contains(joined(res.Observation), "Hello") {
		t.Fatal("editable text entered the page text")
	}
	for _, tc := range []struct{ name, script, state string }{
		{"changed", `document.getElementById('ed').append(' and more')`, "changed"},
		{"hidden", `document.getElementById('ed').style.display = 'none'`, "hidden"},
		{"credential", `document.getElementById('ed').setAttribute('autocomplete', 'current-password')`, "credential"},
		{"oversized", `document.getElementById('ed').append(...Array.from({length: 300}, () => document.createElement('span')))`, "oversized"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, obs := openPage(t, `<div contenteditable="true" aria-label="Composer" id="ed"></div>`)
			if _, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Composer").Ref, Text: "Hi"}, allowAll); err != nil {
				t.Fatal(err)
			}
			mainWorld(t, s, tc.script)
			o, err := s.Observe(ctx, observation.Request{})
			if err != nil {
				t.Fatal(err)
			}
			if state, text := draftOf(o); state != tc.state || text != "" {
				t.Fatalf("state %q text %q, want %q and no echo", state, text, tc.state)
			}
			// An invalidated receipt is gone for good.
			if o, _ = s.Observe(ctx, observation.Request{}); o.Draft != nil {
				t.Fatalf("receipt survived invalidation: %+v", o.Draft)
			}
		})
	}
}
