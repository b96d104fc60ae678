package chromium

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"

	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// Content the browser does not render. Each page holds visible prose and a
// visible button ("ok"), and hidden prose, a hidden heading and a hidden
// button that all carry HIDDEN.
var unrenderedCases = []struct {
	name, html string
	// innerText is false where innerText, which ignores inertness, still
	// reads the content; Chromium's accessibility tree is then the reference.
	innerText bool
}{
	{"collapsed details", `<p>shown</p><button>ok</button>
<details><summary>Summary shown</summary>HIDDEN loose<p>HIDDEN para</p><h2>HIDDEN heading</h2><button>HIDDEN button</button></details>`, true},
	{"content-visibility hidden", `<p>shown</p><button>ok</button>
<div style="content-visibility:hidden">HIDDEN loose<p>HIDDEN para</p><h2>HIDDEN heading</h2><button>HIDDEN button</button></div>`, true},
	{"hidden until-found", `<p>shown</p><button>ok</button>
<div hidden="until-found">HIDDEN loose<p>HIDDEN para</p><h2>HIDDEN heading</h2><button>HIDDEN button</button></div>`, true},
	{"closed root, unslotted light children", `<p>shown</p><button>ok</button>
<div id="host">HIDDEN loose<p>HIDDEN para</p><h2>HIDDEN heading</h2><button>HIDDEN button</button></div>
<div id="slotting">slotted shown<p>para shown</p></div>
<script>
document.getElementById('host').attachShadow({mode: 'closed'}).innerHTML = '<b>shadow</b>';
document.getElementById('slotting').attachShadow({mode: 'closed'}).innerHTML = '<slot></slot>';
</script>`, true},
	{"open root, unslotted light children", `<p>shown</p><button>ok</button>
<div id="host">HIDDEN loose<p>HIDDEN para</p><button>HIDDEN button</button></div>
<script>document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<b>shadow shown</b><slot name="none"></slot>';</script>`, true},
	{"template", `<p>shown</p><button>ok</button>
<template>HIDDEN loose<p>HIDDEN para</p><h2>HIDDEN heading</h2><button>HIDDEN button</button></template>`, true},
	{"modal dialog", `<p>HIDDEN outside</p><h2>HIDDEN heading</h2><button>HIDDEN button</button>
<dialog id="d"><p>shown</p><button>ok</button></dialog>
<script>document.getElementById('d').showModal();</script>`, false},
}

// TestUnrenderedContentIsHidden: what Chromium does not render (or makes
// inert) is neither text, region nor control, as innerText and Chromium's
// accessibility tree say.
func TestUnrenderedContentIsHidden(t *testing.T) {
	t.Parallel()
	for _, tc := range unrenderedCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, obs := openPage(t, tc.html)
			text := joined(obs)
			if strings.Contains(text, "HIDDEN") || !strings.Contains(text, "shown") {
				t.Errorf("text %q", text)
			}
			if got := names(obs); !slices.Equal(got, []string{"ok"}) && !(tc.name == "collapsed details" && slices.Equal(got, []string{"ok", "Summary shown"})) {
				t.Errorf("controls %q", got)
			}
			for _, g := range obs.Regions {
				if strings.Contains(g.Summary, "HIDDEN") {
					t.Errorf("region %s %q", g.Kind, g.Summary)
				}
			}
			inner := evalMain(t, s, "document.body.innerText")
			if tc.innerText && (strings.Contains(inner, "HIDDEN") || !strings.Contains(normalize(inner), "shown")) {
				t.Errorf("innerText disagrees with the case: %q", inner)
			}
			exposed := axExposed(t, s)
			if strings.Contains(exposed, "HIDDEN") || !strings.Contains(exposed, "shown") {
				t.Errorf("Chromium's accessibility tree disagrees with the case: %q", exposed)
			}
		})
	}
}

// axExposed joins the names of the nodes Chromium's accessibility tree does
// not ignore.
func axExposed(t *testing.T, s *Session) string {
	t.Helper()
	tree, err := cdp.Call(browsertest.Context(t, time.Minute), s.tab.Target(), accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range tree.Nodes {
		if n.Ignored || n.Name == nil {
			continue
		}
		var name string
		json.Unmarshal(n.Name.Value, &name)
		out = append(out, name)
	}
	return strings.Join(out, "\n")
}

// hidingPage: each element marked data-case holds text and a button named
// by its case; "hidden-…" cases must be hidden, "shown-…" cases (the same
// idiom just short of hiding) must not.
const hidingPage = `<style>
  .box { overflow: hidden; width: 200px; height: 30px; position: relative; }
  .box > div { position: absolute; top: 0; }
  button { font-size: inherit; }
</style>
<div data-case="hidden-font" style="font-size:0">hidden-font <button>hidden-font</button></div>
<div data-case="shown-font" style="font-size:0"><span style="font-size:16px">shown-font <button>shown-font</button></span></div>
<div data-case="hidden-scale" style="transform:scale(0)">hidden-scale <button>hidden-scale</button></div>
<div data-case="hidden-scale-prop" style="scale:0 1">hidden-scale-prop <button>hidden-scale-prop</button></div>
<div data-case="shown-scale" style="transform:scale(0.8)">shown-scale <button>shown-scale</button></div>
<div data-case="hidden-circle" style="clip-path:circle(0)">hidden-circle <button>hidden-circle</button></div>
<div data-case="hidden-ellipse" style="clip-path:ellipse(0 10px)">hidden-ellipse <button>hidden-ellipse</button></div>
<div data-case="hidden-inset" style="clip-path:inset(0 50% 0 50%)">hidden-inset <button>hidden-inset</button></div>
<div data-case="hidden-inset-px" style="clip-path:inset(20px 0 30px 0);height:40px">hidden-inset-px <button>hidden-inset-px</button></div>
<div data-case="hidden-polygon" style="clip-path:polygon(0 0, 100% 100%, 50% 50%)">hidden-polygon <button>hidden-polygon</button></div>
<div data-case="shown-circle" style="clip-path:circle(100%)">shown-circle <button>shown-circle</button></div>
<div class="box"><div data-case="hidden-overflow" style="left:300px;width:150px">hidden-overflow <button>hidden-overflow</button></div></div>
<div class="box"><div data-case="shown-overflow" style="left:10px;width:150px">shown-overflow <button>shown-overflow</button></div></div>
`

// TestMoreHidingIdioms: a zero font size, a flattening transform, a
// degenerate clip-path and a box outside its overflow-hidden ancestor hide
// text, regions and controls, as Chromium's rendering says: the test asks
// Chromium, in the page, whether each case's text has an area on screen
// that hit-testing reaches.
func TestMoreHidingIdioms(t *testing.T) {
	t.Parallel()
	s, obs := openPage(t, hidingPage)
	rendered := evalMain(t, s, `JSON.stringify([...document.querySelectorAll('[data-case]')].map((el) => {
		const text = [...el.childNodes, ...el.querySelectorAll('span')].map((n) => n.nodeType === 3 ? n : n.firstChild).find((n) => n && n.nodeType === 3 && n.data.trim());
		const range = document.createRange();
		range.selectNodeContents(text);
		const r = range.getBoundingClientRect();
		const hit = r.width > 0 && r.height > 0 && document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
		return [el.dataset.case, !!hit && el.contains(hit)];
	}))`)
	var chromium [][2]any
	if err := json.Unmarshal([]byte(rendered), &chromium); err != nil {
		t.Fatal(err)
	}
	text := " " + strings.Join(strings.Fields(spaces.Replace(joined(obs))), " ") + " "
	controls := names(obs)
	for _, c := range chromium {
		name, shown := c[0].(string), c[1].(bool)
		if want := strings.HasPrefix(name, "shown-"); shown != want {
			t.Fatalf("%s: Chromium renders it: %v (the page is wrong)", name, shown)
		}
		if got := strings.Contains(text, " "+name+" "); got != shown {
			t.Errorf("%s: in text %v, Chromium renders it %v", name, got, shown)
		}
		if got := slices.Contains(controls, name); got != shown {
			t.Errorf("%s: a control %v, Chromium renders it %v", name, got, shown)
		}
	}
}

// TestHiddenRegionsAndSummaries: the idioms hide regions and the text of
// summaries too.
func TestHiddenRegionsAndSummaries(t *testing.T) {
	t.Parallel()
	_, obs := openPage(t, `
<h2>Shown heading <span style="font-size:0">HIDDEN</span></h2>
<h2 style="clip-path:circle(0)">HIDDEN circle</h2>
<h2 style="transform:scale(0)">HIDDEN scale</h2>
<div style="overflow:hidden;height:20px;position:relative"><h2 style="position:absolute;top:40px">HIDDEN clipped</h2></div>
<details><summary>More</summary><h2>HIDDEN details</h2></details>
<form aria-label="f"><details><summary>Open me</summary>HIDDEN form text</details></form>`)
	var summaries []string
	for _, g := range obs.Regions {
		summaries = append(summaries, g.Kind+":"+g.Summary)
	}
	if !slices.Equal(summaries, []string{"form:Open me", "heading:Shown heading"}) {
		t.Fatalf("regions %q", summaries)
	}
}

// TestModalDialogInertness: only the topmost modal dialog is live; a
// dialog opened with show() makes nothing inert.
func TestModalDialogInertness(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, obs := openPage(t, `<button>page</button>
<dialog id="a"><button>first</button></dialog>
<dialog id="b"><button>second</button></dialog>
<script>document.getElementById('a').show();</script>`)
	if got := names(obs); !slices.Equal(got, []string{"page", "first"}) {
		t.Fatalf("non-modal dialog: %q", got)
	}
	mainWorld(t, s, `document.getElementById('a').close(); document.getElementById('a').showModal(); document.getElementById('b').showModal();`)
	obs, err := s.Observe(ctx, observation.Request{})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(obs); !slices.Equal(got, []string{"second"}) {
		t.Fatalf("two modal dialogs: %q", got)
	}
	mainWorld(t, s, `document.getElementById('b').close();`)
	if obs, err = s.Observe(ctx, observation.Request{}); err != nil {
		t.Fatal(err)
	}
	if got := names(obs); !slices.Equal(got, []string{"first"}) {
		t.Fatalf("the lower modal dialog after the top one closed: %q", got)
	}
}
