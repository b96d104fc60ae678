package chromium

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/tools"
)

// roleNames are the controls as "role name".
func roleNames(obs *observation.Observation) []string {
	out := make([]string, len(obs.Controls))
	for i, c := range obs.Controls {
		out[i] = c.Role + " " + c.Name
	}
	return out
}

func textHas(obs *observation.Observation, s string) bool {
	return slices.ContainsFunc(obs.Text, func(t observation.TextPart) bool { return strings.Contains(t.Text, s) })
}

// intranetPage is a help-desk page whose clickable parts carry no ARIA
// role: each kind of pointer target once, and the containers and controls
// that must not turn into one.
const intranetPage = `<title>Acme help desk</title>
<style>
  body { font: 14px sans-serif; }
  .btn-submit { display: inline-block; padding: 6px 14px; background: #2a6; color: #fff; cursor: pointer; }
  .inbox li { cursor: pointer; padding: 4px; border-bottom: 1px solid #ddd; }
  .tree span { padding: 2px; }
  .ui-state-default { border: 1px solid #ccc; margin: 2px; padding: 4px; list-style: none; }
  .contact { display: flex; gap: 8px; padding: 6px; }
  .card { border: 1px solid #eee; padding: 8px; cursor: pointer; }
</style>
<header><h1>Acme help desk</h1></header>
<main>
  <p>Before you open a ticket, read our <span id="terms" class="js-terms">terms of service</span> and the
  <span class="js-faq" onclick="shown('FAQ')">FAQ</span>.</p>
  <ul class="tree" id="tree">
    <li><span class="node" data-path="src">src</span>
      <ul><li><span class="node leaf" data-path="src/main.go">main.go</span></li></ul></li>
  </ul>
  <div class="btn-submit" id="send">Send ticket</div>
  <ul class="inbox" id="inbox">
    <li>Printer on floor 3 is jammed</li>
    <li>VPN drops every hour</li>
  </ul>
  <ul id="sortable" class="ui-sortable">
    <li class="ui-state-default ui-sortable-handle">Urgent</li>
    <li class="ui-state-default ui-sortable-handle">Normal</li>
  </ul>
  <div class="contact" onclick="shown('card Ada')"><span class="name">Ada Lovelace</span></div>
  <div class="tile" tabindex="0">Queue statistics</div>
  <div draggable="true" class="chip">Tag: hardware</div>
  <div class="card" onclick="shown('card')"><a href="#kb">Knowledge base</a> articles for new staff</div>
  <button id="save"><span class="icon js-icon">Save draft</span></button>
  <div id="status" role="status"></div>
</main>
<script>
  function shown(what) { document.getElementById('status').textContent = 'Opened ' + what; }
  document.getElementById('terms').addEventListener('click', () => shown('terms'));
  document.querySelectorAll('.tree .node').forEach((n) => n.addEventListener('mousedown', () => shown(n.dataset.path)));
  document.getElementById('send').addEventListener('pointerup', () => shown('send'));
  // Delegated, as jQuery's $('#inbox').on('click', 'li', …) does.
  document.getElementById('inbox').addEventListener('click', (e) => shown(e.target.closest('li').textContent));
  document.querySelector('.js-icon').addEventListener('click', () => {});
  document.addEventListener('click', () => {});
  document.body.addEventListener('mouseup', () => {});
</script>`

// TestPointerTargetsAreControls fails on the base: handler-only spans,
// tree nodes, a styled div, delegated inbox rows, sortable items, a contact
// and a focusable tile were no controls. Each kind is listed once, in
// traversal order, with its name from content; the containers (the inbox
// list, the card holding a link) and the span inside the button are not.
func TestPointerTargetsAreControls(t *testing.T) {
	t.Parallel()
	_, obs := openRealPages(t, intranetPage, true)
	want := []string{
		"generic terms of service", "generic FAQ", "generic src", "generic main.go", "generic Send ticket",
		"generic Printer on floor 3 is jammed", "generic VPN drops every hour", "generic Urgent", "generic Normal",
		"generic Ada Lovelace", "generic Queue statistics", "generic Tag: hardware", "link Knowledge base", "button Save draft",
	}
	if got := roleNames(obs); !slices.Equal(got, want) {
		t.Fatalf("controls:\n got %q\nwant %q", got, want)
	}
}

// TestPointerTargetsOnlyInRealPages: an older version's session sees the
// same page as before, with the ARIA controls only.
func TestPointerTargetsOnlyInRealPages(t *testing.T) {
	t.Parallel()
	_, obs := openRealPages(t, intranetPage, false)
	if got, want := roleNames(obs), []string{"link Knowledge base", "button Save draft"}; !slices.Equal(got, want) {
		t.Fatalf("1.8.0 controls:\n got %q\nwant %q", got, want)
	}
}

// TestClickPointerTarget fails on the base (no ref to click): a click on a
// listener-only span in a paragraph, on a tree node with a mousedown
// listener and on a delegated inbox row reaches the page's handlers, with
// the same guards and approval facts as any control.
func TestClickPointerTarget(t *testing.T) {
	t.Parallel()
	s, obs := openRealPages(t, intranetPage, true)
	ctx := browsertest.Context(t, time.Minute)
	for _, c := range []struct{ name, status string }{
		{"terms of service", "Opened terms"},
		{"main.go", "Opened src/main.go"},
		{"VPN drops every hour", "Opened VPN drops every hour"},
		{"Send ticket", "Opened send"},
	} {
		var j judged
		res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, c.name).Ref}, j.authorize)
		if err != nil {
			t.Fatalf("click %q: %v", c.name, err)
		}
		// The approval facts are the target's, as the view shows it.
		if f := j.last(t); f.Role != "generic" || f.Name != c.name {
			t.Fatalf("click %q authorized with %+v", c.name, f)
		}
		if !res.Dispatched || !textHas(res.Observation, c.status) {
			t.Fatalf("click %q: dispatched %v, text %+v", c.name, res.Dispatched, res.Observation.Text)
		}
		obs = res.Observation
	}
}

// TestFindFindsPointerTargets fails on the base, where a handler-only span
// is found only as text: browser_find lists it as a control, with a ref.
func TestFindFindsPointerTargets(t *testing.T) {
	t.Parallel()
	s, _ := openRealPages(t, intranetPage, true)
	obs, err := s.Find(browsertest.Context(t, time.Minute), browser.FindRequest{Query: "terms of service"})
	if err != nil {
		t.Fatal(err)
	}
	if got := roleNames(obs); !slices.Equal(got, []string{"generic terms of service"}) {
		t.Fatalf("find controls: %q", got)
	}
}

// TestPointerTargetsNeverHidden: a pointer target that is hidden, inert,
// out of the accessibility tree or of no size is never listed, whatever
// signal it bears.
func TestPointerTargetsNeverHidden(t *testing.T) {
	t.Parallel()
	_, obs := openRealPages(t, `<title>Feed</title>
<style>.more { cursor: pointer; }</style>
<article>
  <p>Weekly update <span class="more" id="ok">read more</span></p>
  <span id="h1" style="display:none">CANARY-DISPLAY</span>
  <div inert><span onclick="x()">CANARY-INERT</span></div>
  <div aria-hidden="true"><span class="more">CANARY-ARIA</span></div>
  <div style="visibility:hidden" draggable="true">CANARY-VISIBILITY</div>
  <div hidden><span tabindex="0">CANARY-HIDDEN-ATTR</span></div>
  <span tabindex="0" style="display:inline-block;width:0;height:0;overflow:hidden">CANARY-ZERO</span>
  <div style="opacity:0"><span class="more">CANARY-OPACITY</span></div>
  <details><summary>More</summary><span onclick="x()">CANARY-CLOSED-DETAILS</span></details>
  <span tabindex="-1">CANARY-SCRIPT-FOCUS</span>
</article>
<script>document.getElementById('h1').addEventListener('click', () => {});</script>`, true)
	for _, c := range obs.Controls {
		if strings.Contains(c.Name, "CANARY") {
			t.Errorf("hidden pointer target listed: %s %q", c.Role, c.Name)
		}
	}
	if got := roleNames(obs); !slices.Equal(got, []string{"generic read more", "button More"}) {
		t.Fatalf("controls: %q", got)
	}
}

// TestPointerTargetsShareTheBounds: pointer targets are candidates of the
// same window. A page of WindowSize+1 listener spans shows MaxControls of
// them and says more remain; a cursor goes on to the next ones.
func TestPointerTargetsShareTheBounds(t *testing.T) {
	t.Parallel()
	for _, n := range []int{observation.MaxControls, observation.MaxControls + 1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			s, obs := openRealPages(t, spansPage(n), true)
			if len(obs.Controls) != min(n, observation.MaxControls) || obs.Controls[0].Name != "post 0" {
				t.Fatalf("%d spans: %d controls, first %q", n, len(obs.Controls), obs.Controls[0].Name)
			}
			more := obs.ControlCoverage.Cursor != ""
			if more != (n > observation.MaxControls) || obs.ControlCoverage.ScanLimitReached != more {
				t.Fatalf("%d spans: more %v", n, more)
			}
			if !more {
				return
			}
			next, err := s.Observe(browsertest.Context(t, time.Minute), observation.Request{Cursor: obs.ControlCoverage.Cursor})
			if err != nil {
				t.Fatal(err)
			}
			if len(next.Controls) != 1 || next.Controls[0].Name != fmt.Sprintf("post %d", n-1) {
				t.Fatalf("next window: %q", roleNames(next))
			}
		})
	}
}

// spansPage is a feed of n posts whose titles are spans with a click
// listener and nothing else.
func spansPage(n int) string {
	return `<title>Feed</title><main id="feed">` + browsertest.Repeat(n, `<p>Posted today: <span class="title">post %d</span></p>`) +
		`</main><script>document.querySelectorAll('.title').forEach((s) => s.addEventListener('click', () => {}));</script>`
}

// BenchmarkObservePointerSpans: a page of 4,000 spans with handlers, with
// pointer targets (1.9.0) and without (1.8.0); view bytes are reported.
func BenchmarkObservePointerSpans(b *testing.B) {
	for _, real := range []bool{false, true} {
		b.Run(fmt.Sprintf("realpages=%v", real), func(b *testing.B) {
			s, _ := openRealPages(b, spansPage(4000), real)
			benchObserve(b, s)
		})
	}
}

// BenchmarkObservePointerButtons is BenchmarkObserve's 12,000-control page
// with and without pointer targets.
func BenchmarkObservePointerButtons(b *testing.B) {
	for _, real := range []bool{false, true} {
		b.Run(fmt.Sprintf("realpages=%v", real), func(b *testing.B) {
			s, _ := openRealPages(b, buttons(12000, ""), real)
			benchObserve(b, s)
		})
	}
}

func benchObserve(b *testing.B, s *Session) {
	ctx := context.Background()
	var last *observation.Observation
	b.ResetTimer()
	for b.Loop() {
		obs, err := s.Observe(ctx, observation.Request{})
		if err != nil {
			b.Fatal(err)
		}
		last = obs
	}
	b.StopTimer()
	b.ReportMetric(float64(len(last.Controls)), "controls")
	// The model's view of the last observation at 1 KiB and 8 KiB, as the
	// session's tool version projects it.
	name := map[bool]string{false: "1.8.0", true: "1.9.0"}[s.realPages]
	v, err := tools.Lookup(name)
	if err != nil {
		b.Fatal(err)
	}
	for _, budget := range []int{1024, 8192} {
		view, err := projection.Project(last, tools.ViewOptions(v, budget, 0, 0))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(view)), fmt.Sprintf("view_bytes_%dk", budget/1024))
	}
}

// TestListenerMarksAreBounded: at most the bound's number of listener
// elements is marked, in document order: at the bound all are, one past
// it the last is not.
func TestListenerMarksAreBounded(t *testing.T) {
	t.Parallel()
	s, _ := openRealPages(t, spansPage(3), true)
	ctx := browsertest.Context(t, time.Minute)
	for _, bound := range []int{3, 2} {
		// From 3 to 2, the element marked last is no longer: all are
		// marked again.
		m, err := s.tab.MarkListeners(ctx, bound, false)
		if err != nil || m.Found != 3 {
			t.Fatalf("bound %d: found %d, %v", bound, m.Found, err)
		}
		m.Released()
		raw, err := s.tab.Evaluate(ctx, collect.Expression(collect.Params{Revision: "b", MaxVisible: observation.MaxControls,
			Window: observation.WindowSize, MaxOffset: observation.MaxOffset, RealPages: true}))
		if err != nil {
			t.Fatal(err)
		}
		res, err := collect.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Controls) != bound || res.Controls[bound-1].Name != fmt.Sprintf("post %d", bound-1) {
			t.Fatalf("bound %d: %+v", bound, res.Controls)
		}
	}
}

// TestListenerMarksFollowThePage: a listener the page adds later makes a
// target, one it removes unmakes it, across observations of one document.
func TestListenerMarksFollowThePage(t *testing.T) {
	t.Parallel()
	s, obs := openRealPages(t, `<title>Board</title>
<p>Cards: <span id="a">Card A</span>, <span id="b">Card B</span></p>
<button id="swap">Swap handlers</button>
<script>
const f = () => {};
document.getElementById('a').addEventListener('click', f);
document.getElementById('swap').addEventListener('click', () => {
  document.getElementById('a').removeEventListener('click', f);
  document.getElementById('b').addEventListener('mousedown', f);
});
</script>`, true)
	if got := roleNames(obs); !slices.Equal(got, []string{"generic Card A", "button Swap handlers"}) {
		t.Fatalf("before: %q", got)
	}
	ctx := browsertest.Context(t, time.Minute)
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Swap handlers").Ref}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if got := roleNames(res.Observation); !slices.Equal(got, []string{"generic Card B", "button Swap handlers"}) {
		t.Fatalf("after: %q", got)
	}
}
