package chromium

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// Control cursors through frames (docs/frames.md, "Continuation inside
// frames"): a window that stops inside a frame resumes inside it.

// followCursors follows the control cursor from obs until there is none
// and returns every view, obs first.
func followCursors(t testing.TB, s *Session, obs *observation.Observation) []*observation.Observation {
	t.Helper()
	ctx := browsertest.Context(t, 3*time.Minute)
	views := []*observation.Observation{obs}
	for obs.ControlCoverage.Cursor != "" {
		if len(views) > 40 {
			t.Fatal("the cursor does not end")
		}
		var err error
		if obs, err = s.Observe(ctx, observation.Request{Cursor: obs.ControlCoverage.Cursor}); err != nil {
			t.Fatalf("view %d: %v (%v)", len(views), err, errors.Unwrap(err))
		}
		views = append(views, obs)
	}
	return views
}

func allNames(views []*observation.Observation) []string {
	var out []string
	for _, v := range views {
		out = append(out, names(v)...)
	}
	return out
}

// storePart is one document of a shop: a header with a menu button whose
// hidden mega-menu holds hidden links (candidates no window shows), the
// product buttons, the frame it holds, if any, then its footer buttons.
// It adds its visible buttons to want in page order, the frame's going
// where child says.
func storePart(want *[]string, name string, hidden int, child string, childWant func()) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<header><button aria-expanded="false">%s menu</button><nav><ul hidden>`, name)
	for i := range hidden {
		fmt.Fprintf(&b, `<li><a href="/c/%d">%s category %d</a></li>`, i, name, i)
	}
	b.WriteString(`</ul></nav></header><main>`)
	*want = append(*want, name+" menu")
	for i := range 3 {
		fmt.Fprintf(&b, `<article><h2>%s lamp %d</h2><button>%s add %d</button></article>`, name, i, name, i)
		*want = append(*want, fmt.Sprintf("%s add %d", name, i))
	}
	if child != "" {
		fmt.Fprintf(&b, `<iframe id="child" title="offers" style="width:520px;height:260px" src="%s"></iframe>`, child)
		childWant()
	}
	for i := range 2 {
		fmt.Fprintf(&b, `<footer><button>%s help %d</button></footer>`, name, i)
		*want = append(*want, fmt.Sprintf("%s help %d", name, i))
	}
	b.WriteString(`</main>`)
	return b.String()
}

// nestedStore is a store of depth levels (top plus depth frames, nested,
// their origins alternating between localhost and 127.0.0.1, so that every
// one is out of its parent's process), each with hidden hidden links. It
// returns the top URL and the visible buttons in page order.
func nestedStore(t testing.TB, depth, hidden int) (string, []string) {
	pages := map[string]string{}
	url := browsertest.ServePages(t, pages)
	other := browsertest.OtherOrigin(url)
	var want []string
	var part func(level int) string
	part = func(level int) string {
		name := fmt.Sprintf("L%d", level)
		if level == depth {
			return storePart(&want, name, hidden, "", nil) + `<script>addEventListener('load', () => top.postMessage('deep-loaded', '*'))</script>`
		}
		base := other
		if level%2 == 1 {
			base = url
		}
		path := fmt.Sprintf("f%d", level+1)
		return storePart(&want, name, hidden, base+path, func() { pages["/"+path] = part(level + 1) })
	}
	pages["/"] = part(0) + `<script>addEventListener('message', (e) => { if (e.data === 'deep-loaded') document.body.dataset.deep = 'loaded' })</script>`
	return url, want
}

// waitDeep waits until the deepest frame of a nestedStore loaded.
func waitDeep(t testing.TB, s *Session) {
	t.Helper()
	ctx := browsertest.Context(t, time.Minute)
	for range 200 {
		raw, err := s.tab.Evaluate(ctx, `document.body.dataset.deep === 'loaded'`)
		if err != nil {
			t.Fatal(err)
		}
		if string(raw) == "true" {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the deepest frame did not load")
}

// TestCursorResumesInsideFrames: a store whose documents nest four deep,
// out of process at every level, each with 4,000 hidden links before its
// products: every window stops inside a frame, one level deeper each time.
// Following the cursor shows every visible button once, in page order,
// and the windows stopped inside frames at each depth up to the bound.
func TestCursorResumesInsideFrames(t *testing.T) {
	t.Parallel()
	url, want := nestedStore(t, observation.MaxFrameDepth, 4000)
	s, _ := openFrames(t, url, nil)
	waitDeep(t, s)
	obs, err := s.Observe(browsertest.Context(t, time.Minute), observation.Request{})
	if err != nil {
		t.Fatal(err)
	}
	views := followCursors(t, s, obs)
	if got := allNames(views); !slices.Equal(got, want) {
		t.Fatalf("%d views showed %q\nwant %q", len(views), got, want)
	}
	stopped := map[int]bool{}
	for _, v := range views {
		for _, f := range v.Frames {
			if f.Limit == observation.LimitWindow {
				stopped[f.Depth] = true
			}
		}
	}
	for d := 1; d <= observation.MaxFrameDepth; d++ {
		if !stopped[d] {
			t.Errorf("no window stopped inside a frame at depth %d (%v)", d, stopped)
		}
	}
}

// TestCursorThroughFrameNodeBound: a frame whose article holds more nodes
// than one scan visits (comments, cheap to lay out) stops its window at
// the node bound; the cursor resumes inside the frame after the last node
// visited, then after the frame in the top document.
func TestCursorThroughFrameNodeBound(t *testing.T) {
	if testing.Short() {
		t.Skip("262,144 nodes")
	}
	t.Parallel()
	url := browsertest.ServePages(t, map[string]string{
		"/": `<h1>Forum</h1><button>Top reply</button><iframe src="/thread" style="width:500px;height:300px"></iframe><button>Top next page</button>`,
		"/thread": `<button>Thread like</button><article>` + strings.Repeat("<!---->", observation.ScanNodes) +
			`</article><button>Thread report</button>`,
	})
	s, obs := openFrames(t, url, nil, "Thread like")
	views := followCursors(t, s, obs)
	want := []string{"Top reply", "Thread like", "Thread report", "Top next page"}
	if got := allNames(views); !slices.Equal(got, want) {
		t.Fatalf("%d views showed %q, want %q", len(views), got, want)
	}
	if f := views[0].Frames; len(f) != 1 || f[0].Limit != observation.LimitNodes {
		t.Fatalf("the first window's frame %+v, want it stopped at the node bound", f)
	}
}

// TestFrameInvisibleCandidatesAdvance: a frame whose menu holds 4,096 and
// 4,097 hidden links in a row, a window's worth and one more: the cursor
// moves forward inside the frame, a window that shows nothing included,
// and reaches the frame's and the page's last buttons once each.
func TestFrameInvisibleCandidatesAdvance(t *testing.T) {
	t.Parallel()
	for _, n := range []int{observation.WindowSize, observation.WindowSize + 1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			var links strings.Builder
			for i := range n {
				fmt.Fprintf(&links, `<li><a href="/c/%d">Category %d</a></li>`, i, i)
			}
			url := browsertest.ServePages(t, map[string]string{
				"/":     `<iframe src="/menu" style="width:500px;height:300px"></iframe><button>Checkout</button>`,
				"/menu": `<nav><ul style="display:none">` + links.String() + `</ul></nav><button>Show all categories</button>`,
			})
			s, obs := openFrames(t, url, nil)
			views := followCursors(t, s, obs)
			want := []string{"Show all categories", "Checkout"}
			if got := allNames(views); !slices.Equal(got, want) {
				t.Fatalf("%d views showed %q, want %q", len(views), got, want)
			}
			// The first window holds the top document's two candidates and
			// the frame's first 4,093: nothing visible, yet it moves on.
			if v := views[0]; len(v.Controls) != 0 || len(v.Frames) != 1 || v.Frames[0].Limit != observation.LimitWindow ||
				v.Frames[0].Scanned != observation.WindowSize-3 || v.ControlCoverage.Cursor == "" {
				t.Fatalf("first window: controls %q, frames %+v, coverage %+v", names(v), v.Frames, v.ControlCoverage)
			}
			if len(views) > 3 {
				t.Fatalf("%d windows for %d candidates", len(views), n+3)
			}
		})
	}
}

// TestFrameCursorIdentity: the cursor names the frame it stopped in by the
// frame's identity. The parent re-rendering around the frame's element
// (new content before it, its siblings replaced) leaves the cursor good:
// it resumes inside the frame at the next control. Removing the frame, or
// replacing its element with a new one of the same address (a new frame),
// makes the cursor stale_reference; the frame navigating, document_changed.
func TestFrameCursorIdentity(t *testing.T) {
	t.Parallel()
	var links strings.Builder
	for i := range observation.WindowSize {
		fmt.Fprintf(&links, `<li><a href="/c/%d">Category %d</a></li>`, i, i)
	}
	url := browsertest.ServePages(t, map[string]string{
		"/": `<div id="promo"><button>Top deal</button></div><iframe id="menu" src="/menu" style="width:500px;height:300px"></iframe>
<div id="after"><button>Checkout</button></div>`,
		"/menu": `<button>Menu first</button><nav><ul hidden>` + links.String() + `</ul></nav><button>Menu last</button>`,
	})
	s, obs := openFrames(t, url, nil, "Menu first")
	ctx := browsertest.Context(t, time.Minute)
	if got := names(obs); !slices.Equal(got, []string{"Top deal", "Menu first"}) || obs.ControlCoverage.Cursor == "" {
		t.Fatalf("first window %q %+v", got, obs.ControlCoverage)
	}
	cursor := obs.ControlCoverage.Cursor
	mainWorld(t, s, `document.getElementById('promo').innerHTML = '<button>New deal 1</button><button>New deal 2</button>';
		document.getElementById('after').replaceWith(Object.assign(document.createElement('div'), {id: 'after', innerHTML: '<button>Checkout</button><button>Gift card</button>'}))`)
	next, err := s.Observe(ctx, observation.Request{Cursor: cursor})
	if err != nil {
		t.Fatal(err)
	}
	got := allNames(followCursors(t, s, next))
	if want := []string{"Menu last", "Checkout", "Gift card"}; !slices.Equal(got, want) {
		t.Fatalf("after the parent re-rendered: %q, want %q", got, want)
	}

	for _, c := range []struct {
		name, change string
		code         errcode.Code
	}{
		{"replaced", `const f = document.getElementById('menu'); const g = document.createElement('iframe');
			g.id = 'menu'; g.src = '/menu'; g.style.cssText = f.style.cssText; f.replaceWith(g)`, errcode.StaleReference},
		{"removed", `document.getElementById('menu').remove()`, errcode.StaleReference},
		{"navigated", `document.getElementById('menu').src = '/menu?again'`, errcode.DocumentChanged},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, obs := openFrames(t, url, nil, "Menu first")
			if obs.ControlCoverage.Cursor == "" || obs.Frames[0].Limit != observation.LimitWindow {
				t.Fatalf("no window stopped in the frame: %+v %+v", obs.ControlCoverage, obs.Frames)
			}
			mainWorld(t, s, c.change)
			time.Sleep(200 * time.Millisecond) // the new frame's document loads
			if _, err := s.Observe(ctx, observation.Request{Cursor: obs.ControlCoverage.Cursor}); errcode.Of(err) != c.code {
				t.Fatalf("cursor into a frame %s: %v, want %s", c.name, err, c.code)
			}
		})
	}
}

// BenchmarkCursorThroughFrames times following the control cursor through
// the four-deep store of TestCursorResumesInsideFrames (five documents of
// 4,000 hidden links and 6 buttons each, every window stopping inside a
// frame), against the same documents' content in one page.
func BenchmarkCursorThroughFrames(b *testing.B) {
	for _, framed := range []bool{false, true} {
		b.Run(map[bool]string{false: "one-page", true: "frames"}[framed], func(b *testing.B) {
			url, want := nestedStore(b, observation.MaxFrameDepth, 4000)
			if !framed {
				var page strings.Builder
				want = nil
				for i := range observation.MaxFrameDepth + 1 {
					page.WriteString(storePart(&want, fmt.Sprintf("L%d", i), 4000, "", nil))
				}
				url = browsertest.Serve(b, page.String())
			}
			ctx := browsertest.Context(b, 5*time.Minute)
			s, _ := openOn(b, ctx, browser.SessionOptions{Reading: true, Frames: true}, url)
			if framed {
				waitDeep(b, s)
			}
			windows := 0
			for b.Loop() {
				obs, err := s.Observe(ctx, observation.Request{})
				if err != nil {
					b.Fatal(err)
				}
				views := followCursors(b, s, obs)
				if got := allNames(views); len(got) != len(want) {
					b.Fatalf("%d controls shown of %d", len(got), len(want))
				}
				windows = len(views)
			}
			b.ReportMetric(float64(windows), "windows")
		})
	}
}

// TestCursorAtTheControlBoundThroughFrames: the control bound (256 for the
// page and its frames together) stops a window inside a frame, or cuts the
// top document's controls after one; either way the cursor resumes right
// after the last control shown, and every button is shown once, in order.
func TestCursorAtTheControlBoundThroughFrames(t *testing.T) {
	t.Parallel()
	list := func(want *[]string, prefix string, n int) string {
		var b strings.Builder
		for i := range n {
			name := fmt.Sprintf("%s %d", prefix, i)
			fmt.Fprintf(&b, `<li><button>%s</button></li>`, name)
			*want = append(*want, name)
		}
		return "<ul>" + b.String() + "</ul>"
	}
	for _, c := range []struct {
		name                 string
		before, frame, after int
	}{
		{"inside the frame", 200, 100, 10},
		{"after the frame", 10, 30, 240},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var want []string
			top := `<h1>Inbox</h1>` + list(&want, "Message", c.before)
			frame := list(&want, "Attachment", c.frame)
			top += `<iframe src="/files" style="width:500px;height:300px"></iframe>` + list(&want, "Archive", c.after)
			url := browsertest.ServePages(t, map[string]string{"/": top, "/files": frame})
			s, obs := openFrames(t, url, nil, "Attachment 0")
			if obs.ControlCoverage.Limit != observation.LimitControls || len(obs.Controls) != observation.MaxControls {
				t.Fatalf("first window: %d controls, coverage %+v", len(obs.Controls), obs.ControlCoverage)
			}
			if got := allNames(followCursors(t, s, obs)); !slices.Equal(got, want) {
				t.Fatalf("%d shown of %d; first difference at %d", len(got), len(want), firstDiff(got, want))
			}
		})
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
