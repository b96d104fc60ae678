package chromium

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/heapprofiler"
	"github.com/chromedp/cdproto/runtime"

	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// mainWorld runs script in the page's own world, as the site would.
func mainWorld(t testing.TB, s *Session, script string) {
	t.Helper()
	res, err := cdp.Call(browsertest.Context(t, time.Minute), s.tab.Target(), runtime.Evaluate, runtime.EvaluateParams{Expression: script})
	if err != nil || res.ExceptionDetails != nil {
		t.Fatalf("page script: %v %v", err, res.ExceptionDetails)
	}
}

func TestAfterResumesInTheLiveTraversal(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, obs := openPage(t, `<div id="list">`+buttons(10, `class="b"`)+`</div>`)
	anchor := obs.Controls[4] // b4

	// Controls inserted and removed before the anchor: it is found where it
	// now is, and the continuation starts right after it.
	mainWorld(t, s, `const l = document.getElementById('list');
		l.firstElementChild.remove(); l.firstElementChild.remove();
		for (let i = 0; i < 5; i++) { const b = document.createElement('button'); b.textContent = 'new' + i; l.prepend(b); }`)
	next, err := s.Observe(ctx, observation.Request{After: anchor.Ref})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(next); !slices.Equal(got, []string{"b5", "b6", "b7", "b8", "b9"}) {
		t.Fatalf("after b4: %q", got)
	}
	if next.ControlCoverage.Offset != 8 {
		t.Fatalf("offset %d, want 8 (b4 is now the 8th candidate)", next.ControlCoverage.Offset)
	}
	// Every expansion is a new revision: the previous references are stale.
	if next.Revision == obs.Revision {
		t.Fatal("expansion kept the revision")
	}
	_, err = s.Observe(ctx, observation.Request{After: obs.Controls[0].Ref})
	wantCode(t, err, errcode.StaleReference)

	// The anchor itself removed: refused.
	removed := next.Controls[0] // b5
	mainWorld(t, s, `document.querySelectorAll('button')[8].remove()`)
	_, err = s.Observe(ctx, observation.Request{After: removed.Ref})
	wantCode(t, err, errcode.StaleReference)

	// The anchor moved to another parent: refused.
	fresh, err := s.Observe(ctx, observation.Request{})
	if err != nil {
		t.Fatal(err)
	}
	mainWorld(t, s, `document.body.appendChild(document.querySelectorAll('button')[0])`)
	_, err = s.Observe(ctx, observation.Request{After: fresh.Controls[0].Ref})
	wantCode(t, err, errcode.StaleReference)
}

func TestNavigationEndsContinuation(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, obs := openPage(t, buttons(300, ""))
	if _, err := s.tab.Navigate(ctx, browsertest.Serve(t, buttons(300, ""))); err != nil {
		t.Fatal(err)
	}
	_, err := s.Observe(ctx, observation.Request{After: obs.Controls[0].Ref})
	wantCode(t, err, errcode.DocumentChanged)
	_, err = s.Observe(ctx, observation.Request{Cursor: obs.ControlCoverage.Cursor})
	wantCode(t, err, errcode.DocumentChanged)
	// A navigation through the session publishes a new revision.
	again, err := s.Navigate(ctx, browsertest.Serve(t, buttons(3, "")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Observe(ctx, observation.Request{Cursor: obs.ControlCoverage.Cursor})
	wantCode(t, err, errcode.StaleReference)
	if len(again.Controls) != 3 {
		t.Fatalf("%d controls after navigation", len(again.Controls))
	}
}

// offsetPage has n hidden candidates and then visible buttons, so a cursor
// chain reaches any offset quickly.
func TestOffsetBoundEndsInTerminalCoverage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("70,000 candidates")
	}
	ctx := browsertest.Context(t, 3*time.Minute)
	s, obs := openPage(t, `<div hidden>`+buttons(70000, "")+`</div><button>unreachable</button>`)
	windows := 1
	for obs.ControlCoverage.Cursor != "" {
		var err error
		obs, err = s.Observe(ctx, observation.Request{Cursor: obs.ControlCoverage.Cursor})
		if err != nil {
			t.Fatal(err)
		}
		windows++
		if windows > 20 {
			t.Fatal("no terminal coverage after 20 windows")
		}
	}
	c := obs.ControlCoverage
	if c.Limit != observation.LimitOffset || !c.ScanLimitReached || c.Offset+c.Scanned <= observation.MaxOffset || c.Offset > observation.MaxOffset {
		t.Fatalf("last window: %+v", c)
	}
	// The window that starts exactly at the bound is still scanned.
	if c.Offset != observation.MaxOffset || c.Scanned != observation.WindowSize {
		t.Fatalf("last window starts at %d and scans %d, want %d and %d", c.Offset, c.Scanned, observation.MaxOffset, observation.WindowSize)
	}
	if windows != observation.MaxOffset/observation.WindowSize+1 {
		t.Fatalf("%d windows, want %d", windows, observation.MaxOffset/observation.WindowSize+1)
	}
}

func TestHandlesAreReleasedAcrossExpansions(t *testing.T) {
	ctx := browsertest.Context(t, 3*time.Minute)
	s, obs := openPage(t, buttons(2000, ""))
	usedHeap := func() float64 {
		if _, err := cdp.Call(ctx, s.tab.Target(), heapprofiler.CollectGarbage, cdp.Empty{}); err != nil {
			t.Fatal(err)
		}
		h, err := cdp.Call(ctx, s.tab.Target(), runtime.GetHeapUsage, cdp.Empty{})
		if err != nil {
			t.Fatal(err)
		}
		return h.UsedSize
	}
	expand := func(n int) {
		for i := range n {
			req := observation.Request{After: obs.Controls[len(obs.Controls)-1].Ref}
			if i%2 == 1 && obs.ControlCoverage.Cursor != "" {
				req = observation.Request{Cursor: obs.ControlCoverage.Cursor}
			}
			if len(obs.Controls) == 0 || obs.ControlCoverage.Cursor == "" {
				req = observation.Request{}
			}
			var err error
			if obs, err = s.Observe(ctx, req); err != nil {
				t.Fatal(err)
			}
		}
	}
	expand(20)
	before := usedHeap()
	expand(200)
	after := usedHeap()
	// Only the newest revisions' nodes are retained: at most two windows.
	raw, err := s.tab.Evaluate(ctx, collect.RetainedNodes())
	if err != nil {
		t.Fatal(err)
	}
	var retained int
	fmt.Sscan(string(raw), &retained)
	if retained > 2*observation.MaxControls {
		t.Fatalf("%d nodes retained after 200 expansions", retained)
	}
	t.Logf("heap %.0f KiB before, %.0f KiB after 200 expansions", before/1024, after/1024)
	if after-before > 512*1024 {
		t.Fatalf("heap grew by %.0f KiB across 200 expansions", (after-before)/1024)
	}
}

func BenchmarkObserve(b *testing.B) {
	for _, n := range []int{1000, 12000} {
		b.Run(fmt.Sprintf("controls=%d", n), func(b *testing.B) {
			s, _ := openPage(b, buttons(n, ""))
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				if _, err := s.Observe(ctx, observation.Request{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExpansion measures a cursor window starting at a candidate offset.
func BenchmarkExpansion(b *testing.B) {
	s, _ := openPage(b, `<div hidden>`+buttons(observation.MaxOffset, "")+`</div>`+buttons(observation.WindowSize, ""))
	for _, off := range []int{0, 4096, 32768, 65536} {
		b.Run(fmt.Sprintf("offset=%d", off), func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				b.StopTimer()
				obs, err := s.Observe(ctx, observation.Request{})
				if err != nil {
					b.Fatal(err)
				}
				cursor := s.refKeys.Mint(observation.KindCursor, s.revision, cursorIndex(off, collect.ResumeStart))
				_ = obs
				b.StartTimer()
				if _, err := s.Observe(ctx, observation.Request{Cursor: cursor}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFailedObservationPublishesNothing: an observation cut short by its
// context leaves the newest revision, and its references, as they were.
func TestFailedObservationPublishesNothing(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, obs := openPage(t, buttons(300, "")+strings.Repeat("<p>prose</p>", 20000))
	// The collection of this page takes far longer than 15 ms: the context
	// ends while the collector runs.
	short, cancel := context.WithTimeout(ctx, 15*time.Millisecond)
	defer cancel()
	_, err := s.Observe(short, observation.Request{})
	wantCode(t, err, errcode.Timeout)
	// The first observation is still the newest: its refs continue.
	next, err := s.Observe(ctx, observation.Request{After: obs.Controls[9].Ref})
	if err != nil {
		t.Fatalf("the refs of the newest revision were lost: %v", err)
	}
	if next.Controls[0].Name != "b10" {
		t.Fatalf("after b9: %q", next.Controls[0].Name)
	}
}

// scanBoundPage has its last button one node past the control scan's node
// bound: html, head, body, div#box, a text node, n comments and i#stop fill
// the bound exactly (4+1+n+1 = 262,144), so the scan stops with i#stop as
// the last node it visited. Without the text node the button is the
// bound's last node. Comments keep the page cheap to lay out.
func scanBoundPage(past bool) string {
	const n = observation.ScanNodes - 6
	text := ""
	if past {
		text = "z"
	}
	return `<div id="box">` + text + strings.Repeat("<!---->", n) + `<i id="stop"></i></div><button aria-label="last"></button>`
}

// TestScanNodeBound: the node bound ends one observation's scan, not the
// page: a control one node past it is reached by the cursor, which resumes
// right after the last node visited.
func TestScanNodeBound(t *testing.T) {
	if testing.Short() {
		t.Skip("262,144 nodes")
	}
	t.Parallel()
	ctx := browsertest.Context(t, 2*time.Minute)
	_, obs := openPage(t, scanBoundPage(false))
	if c := obs.ControlCoverage; !slices.Equal(names(obs), []string{"last"}) || c.ScanLimitReached || c.Limit != "" || c.Cursor != "" {
		t.Fatalf("button at the bound: %q %+v", names(obs), c)
	}

	s, obs := openPage(t, scanBoundPage(true))
	c := obs.ControlCoverage
	if len(obs.Controls) != 0 || !c.ScanLimitReached || c.Limit != observation.LimitNodes || c.Cursor == "" || c.Offset != 0 || c.Scanned != 0 {
		t.Fatalf("button one past the bound: %q %+v", names(obs), c)
	}
	next, err := s.Observe(ctx, observation.Request{Cursor: c.Cursor})
	if err != nil {
		t.Fatal(err)
	}
	if nc := next.ControlCoverage; !slices.Equal(names(next), []string{"last"}) || nc.Offset != 0 || nc.ScanLimitReached || nc.Cursor != "" {
		t.Fatalf("after the node-bound cursor: %q %+v", names(next), nc)
	}
}

// TestNodeBoundCursorIsValidatedLikeAnAnchor: the node a cursor resumes
// after must still be where the scan left it; otherwise the cursor is
// refused with the anchors' codes, and publishes nothing.
func TestNodeBoundCursorIsValidatedLikeAnAnchor(t *testing.T) {
	if testing.Short() {
		t.Skip("262,144 nodes")
	}
	t.Parallel()
	ctx := browsertest.Context(t, 2*time.Minute)
	s, obs := openPage(t, scanBoundPage(true))
	cursor := obs.ControlCoverage.Cursor
	if cursor == "" {
		t.Fatalf("no cursor at the node bound: %+v", obs.ControlCoverage)
	}
	mainWorld(t, s, `window.box = document.getElementById('box'); window.stop = document.getElementById('stop');`)
	for _, c := range []struct {
		name, change, undo string
	}{
		{"moved to another parent", `document.body.append(stop)`, `box.append(stop)`},
		{"removed", `stop.remove()`, `box.append(stop)`},
		// Same parent, but the parent now lives in a closed shadow root:
		// outside the traversal.
		{"inside a closed root", `window.host = document.createElement('div'); document.body.prepend(host);
			host.attachShadow({mode: 'closed'}).append(box)`, `document.body.prepend(box); host.remove()`},
	} {
		mainWorld(t, s, c.change)
		_, err := s.Observe(ctx, observation.Request{Cursor: cursor})
		if errcode.Of(err) != errcode.StaleReference {
			t.Fatalf("resume point %s: %v, want %s", c.name, err, errcode.StaleReference)
		}
		mainWorld(t, s, c.undo)
	}
	// Back in place, the same cursor (still of the newest revision) resumes.
	next, err := s.Observe(ctx, observation.Request{Cursor: cursor})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names(next), []string{"last"}) {
		t.Fatalf("after the restored resume point: %q %+v", names(next), next.ControlCoverage)
	}
}

// farPage builds, in the page, n comment nodes before two buttons: a page
// far larger than one scan, without sending megabytes of HTML.
func farPage(n int) string {
	return fmt.Sprintf(`<div id="pad"></div><button>far</button><button>farther</button><script>
const f = document.createDocumentFragment();
for (let i = 0; i < %d; i++) f.appendChild(document.createComment(''));
document.getElementById('pad').appendChild(f);
</script>`, n)
}

// TestControlPastManyNodesIsReachedByCursor: a control at node 600,000 is
// three node-bounded windows away; the cursor chain reaches it, and an
// after anchor in that window resumes from where that window's walk began.
func TestControlPastManyNodesIsReachedByCursor(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, 2*time.Minute)
	s, obs := openPage(t, farPage(600000))
	windows := 1
	for len(obs.Controls) == 0 {
		c := obs.ControlCoverage
		if c.Limit != observation.LimitNodes || c.Cursor == "" || c.Offset != 0 {
			t.Fatalf("window %d: %+v", windows, c)
		}
		var err error
		if obs, err = s.Observe(ctx, observation.Request{Cursor: c.Cursor}); err != nil {
			t.Fatal(err)
		}
		windows++
		if windows > 5 {
			t.Fatal("no control after 5 windows")
		}
	}
	// 600,000 comments and the page's own nodes: the third window.
	if want := 600000/observation.ScanNodes + 1; windows != want {
		t.Fatalf("reached in %d windows, want %d", windows, want)
	}
	if c := obs.ControlCoverage; !slices.Equal(names(obs), []string{"far", "farther"}) || c.Offset != 0 || c.Cursor != "" {
		t.Fatalf("far window: %q %+v", names(obs), c)
	}
	next, err := s.Observe(ctx, observation.Request{After: obs.Controls[0].Ref})
	if err != nil {
		t.Fatal(err)
	}
	if c := next.ControlCoverage; !slices.Equal(names(next), []string{"farther"}) || c.Offset != 1 {
		t.Fatalf("after far: %q %+v", names(next), c)
	}
}

// TestCursorSkipPastTheNodeBound: a cursor's skip to its offset that the
// node bound cuts short (the page grew before the cursor) continues too,
// at the same offset.
func TestCursorSkipPastTheNodeBound(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, 2*time.Minute)
	s, obs := openPage(t, `<div id="pad"></div><div id="list">`+buttons(300, "")+`</div>`)
	c := obs.ControlCoverage
	if c.Limit != observation.LimitControls || c.Cursor == "" {
		t.Fatalf("first window: %+v", c)
	}
	// Grow the page between the first 256 candidates and the rest.
	mainWorld(t, s, `const f = document.createDocumentFragment();
		for (let i = 0; i < 300000; i++) f.appendChild(document.createComment(''));
		document.getElementById('list').children[255].after(f);`)
	obs, err := s.Observe(ctx, observation.Request{Cursor: c.Cursor})
	if err != nil {
		t.Fatal(err)
	}
	if c := obs.ControlCoverage; len(obs.Controls) != 0 || c.Limit != observation.LimitNodes || c.Offset != 256 || c.Scanned != 0 || c.Cursor == "" {
		t.Fatalf("skip cut by the node bound: %q %+v", names(obs), c)
	}
	obs, err = s.Observe(ctx, observation.Request{Cursor: obs.ControlCoverage.Cursor})
	if err != nil {
		t.Fatal(err)
	}
	if c := obs.ControlCoverage; len(obs.Controls) != 44 || obs.Controls[0].Name != "b256" || c.Offset != 256 || c.Cursor != "" {
		t.Fatalf("resumed skip: %q %+v", names(obs), c)
	}
}
