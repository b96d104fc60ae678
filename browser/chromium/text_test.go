package chromium

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
