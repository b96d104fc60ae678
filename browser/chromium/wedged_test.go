package chromium

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdptarget "github.com/chromedp/cdproto/target"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// A wedged renderer, with the runtime's own timings: whatever the page does
// to its main thread, the call that meets it reports page_crashed within
// the guard's bound (WedgeBound, stretched by the machine's load up to
// MaxHangBound), and the session's next calls work: a same-site navigation
// (which the old renderer process would serve), a cross-site one, an
// observation and an action. The time each case took is logged, and the
// product's promise is asserted: page_crashed within the loaded bound and
// the crash (MaxHangBound + CrashWait, docs/navigation.md), with a margin
// for the machine's scheduling; a call that waited past it (a navigation
// away from an idle wedged page took about 42 s once) fails.

// wedgedSite serves the hostile page at /, a fine page at /fine, and a
// same-site page at /next that a navigation away from the spinning page
// loads.
func wedgedSite(t *testing.T, hostile string) string {
	return browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, hostile)
		case "/next":
			fmt.Fprint(w, `<header><nav><a href="/">Home</a></nav></header><main><h1>Next</h1><button>next page</button></main>`)
		default:
			fmt.Fprint(w, `<main><h1>Fine</h1><button>fine again</button><input aria-label="Note"></main>`)
		}
	}))
}

// wedgeMargin is the scheduling a loaded machine may add to the guard's
// bound: the guard's timers and the crash's events run late there.
const wedgeMargin = 2 * time.Second

// meetWedge runs call, which meets the wedged renderer, and checks that it
// reports page_crashed within the guard's loaded bound, the crash and
// wedgeMargin; it returns how long it took.
func meetWedge(t *testing.T, what string, call func(ctx context.Context) error) time.Duration {
	t.Helper()
	tm := DefaultTimings()
	bound := tm.MaxHangBound() + tm.CrashWait + wedgeMargin
	ctx := browsertest.Context(t, 2*bound) // a liveness bound: the assertion below is the promise
	start := time.Now()
	err := call(ctx)
	took := time.Since(start)
	t.Logf("%s: %v after %v (bound %v, %v loaded; machine load %.2f per core)", what, errcode.Of(err), took.Round(100*time.Millisecond),
		tm.HangBound(), tm.MaxHangBound(), tab.MachineLoad())
	wantCode(t, err, errcode.PageCrashed)
	if took > bound {
		t.Errorf("%s: page_crashed after %v, past the loaded bound and the crash %v", what, took, bound)
	}
	return took
}

// wantWorksNext: after the wedge, the session's next calls work at once.
func wantWorksNext(t *testing.T, s *Session, base string) {
	t.Helper()
	ctx := browsertest.Context(t, time.Minute)
	steps := []struct {
		what string
		call func() (*observation.Observation, error)
		want string
	}{
		{"same-site navigate", func() (*observation.Observation, error) { return s.Navigate(ctx, base+"next") }, "next page"},
		{"cross-site navigate", func() (*observation.Observation, error) {
			return s.Navigate(ctx, browsertest.OtherOrigin(base)+"fine")
		}, "fine again"},
		{"observe", func() (*observation.Observation, error) { return s.Observe(ctx, observation.Request{}) }, "fine again"},
	}
	for _, st := range steps {
		start := time.Now()
		obs, err := st.call()
		if err != nil {
			t.Fatalf("%s after the wedge: %v", st.what, err)
		}
		t.Logf("%s after the wedge: %v", st.what, time.Since(start).Round(100*time.Millisecond))
		if !slices.Contains(names(obs), st.want) {
			t.Fatalf("%s after the wedge: %q", st.what, names(obs))
		}
	}
	obs, _ := s.Observe(ctx, observation.Request{})
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Note").Ref, Text: "ok"}, allowAll)
	if err != nil || !res.Dispatched {
		t.Fatalf("type after the wedge: %v %+v", err, res)
	}
}

// TestWedgeTimerLoopOnNavigate: a loop a timer starts 500 ms after load
// wedges the renderer under a loaded page; the agent's same-site navigation
// away meets it.
func TestWedgeTimerLoopOnNavigate(t *testing.T) {
	t.Parallel()
	base := wedgedSite(t, `<header><nav><a href="/next">Next</a></nav></header>
<main><article><h1>Deals of the day</h1><p>Limited offers, refreshed every minute.</p><button>Add to cart</button></article></main>
<script>setTimeout(() => { while (true) {} }, 500)</script>`)
	s := openSession(t)
	ctx := browsertest.Context(t, time.Minute)
	if _, err := s.Navigate(ctx, base); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // the timer has fired: the page spins
	meetWedge(t, "same-site navigate away", func(ctx context.Context) error {
		_, err := s.Navigate(ctx, base+"next")
		return err
	})
	wantWorksNext(t, s, base)
}

// TestWedgeWhileIdle: a loop a timer starts 500 ms after load wedges the
// renderer while no call is on the page; the session's next call, 2 s
// later, meets it: whichever it is, it reports page_crashed within the
// guard's bound, and the session works on the call after it.
func TestWedgeWhileIdle(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		call func(ctx context.Context, s *Session, base string, obs *observation.Observation) error
	}{
		{"observe", func(ctx context.Context, s *Session, _ string, _ *observation.Observation) error {
			_, err := s.Observe(ctx, observation.Request{})
			return err
		}},
		{"click", func(ctx context.Context, s *Session, _ string, obs *observation.Observation) error {
			_, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Add to cart").Ref}, allowAll)
			return err
		}},
		{"same-site navigate", func(ctx context.Context, s *Session, base string, _ *observation.Observation) error {
			_, err := s.Navigate(ctx, base+"next")
			return err
		}},
		{"cross-site navigate", func(ctx context.Context, s *Session, base string, _ *observation.Observation) error {
			_, err := s.Navigate(ctx, browsertest.OtherOrigin(base)+"fine")
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			base := wedgedSite(t, `<main><article><h1>Deals of the day</h1><button>Add to cart</button></article></main>
<script>addEventListener('load', () => setTimeout(() => { while (true) {} }, 500))</script>`)
			s := openSession(t)
			obs, err := s.Navigate(browsertest.Context(t, time.Minute), base)
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Second) // nobody calls while the page starts spinning
			meetWedge(t, c.name+" on the idle wedged page", func(ctx context.Context) error { return c.call(ctx, s, base, obs) })
			wantWorksNext(t, s, base)
		})
	}
}

// TestWedgeLoopAtLoad: a page that spins as it loads.
func TestWedgeLoopAtLoad(t *testing.T) {
	t.Parallel()
	base := wedgedSite(t, `<main><h1>Loading your dashboard</h1><button>Refresh</button></main><script>while (true) {}</script>`)
	s := openSession(t)
	meetWedge(t, "navigate to it", func(ctx context.Context) error {
		_, err := s.Navigate(ctx, base)
		return err
	})
	wantWorksNext(t, s, base)
}

// TestWedgeFocusHandlerOnType: a search field whose focus handler spins
// when type focuses it.
func TestWedgeFocusHandlerOnType(t *testing.T) {
	t.Parallel()
	base := wedgedSite(t, `<header><form role="search" onsubmit="return false">
<input id="q" type="search" aria-label="Search products" placeholder="Search">
<button>Go</button></form></header><main><h1>Catalog</h1></main>
<script>document.getElementById('q').addEventListener('focus', () => { for (;;) {} })</script>`)
	s := openSession(t)
	ctx := browsertest.Context(t, time.Minute)
	obs, err := s.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	ref := find(t, obs, "Search products").Ref
	meetWedge(t, "type into the field", func(ctx context.Context) error {
		_, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: ref, Text: "lamp"}, allowAll)
		return err
	})
	wantWorksNext(t, s, base)
}

// TestWedgeClickHandler: a handler-only div styled as a button spins when
// clicked.
func TestWedgeClickHandler(t *testing.T) {
	t.Parallel()
	base := wedgedSite(t, `<main><h1>Checkout</h1>
<div class="btn" role="button" tabindex="0" style="padding:8px;background:#07c;color:#fff;cursor:pointer">Place order</div></main>
<script>document.querySelector('.btn').addEventListener('click', () => { while (true) {} })</script>`)
	s := openSession(t)
	ctx := browsertest.Context(t, time.Minute)
	obs, err := s.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	ref := find(t, obs, "Place order").Ref
	meetWedge(t, "click", func(ctx context.Context) error {
		_, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: ref}, allowAll)
		return err
	})
	wantWorksNext(t, s, base)
}

// TestWedgeUnloadHandlers: a page that spins only once it is asked to
// leave, in its beforeunload or its pagehide handler: the renderer answers
// until the navigation is on its way, and then DevTools holds every command
// of the page behind it, a crash included. The page is replaced: the
// wedged target is closed, and the session goes on in a new one, in a
// session with tabs too (tool version 1.8.0 and later), where it keeps its
// place.
func TestWedgeUnloadHandlers(t *testing.T) {
	for _, c := range []struct {
		event string
		opts  browser.SessionOptions
	}{
		{"beforeunload", browser.SessionOptions{}},
		{"pagehide", browser.SessionOptions{}},
		{"pagehide with tabs", browser.SessionOptions{Interactions: true, RealPages: true}},
	} {
		t.Run(c.event, func(t *testing.T) {
			t.Parallel()
			event, _, _ := strings.Cut(c.event, " ")
			base := wedgedSite(t, `<main><h1>Draft</h1><textarea aria-label="Body">unsaved</textarea><a href="/next">Next</a></main>
<script>addEventListener('`+event+`', () => { for (;;) {} })</script>`)
			ctx := browsertest.Context(t, time.Minute)
			s, _ := openOn(t, ctx, c.opts, base)
			wedged := s.tab.TargetID()
			meetWedge(t, "same-site navigate away", func(ctx context.Context) error {
				_, err := s.Navigate(ctx, base+"next")
				return err
			})
			wantWorksNext(t, s, base)
			// The wedged page is closed behind the new one (a tab's close
			// runs on its own goroutine, and a renderer spinning in its
			// unload handlers closes slowly): it must be gone soon after.
			for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				res, err := cdp.Call(ctx, s.tab.Browser(), cdptarget.GetTargets, cdptarget.GetTargetsParams{})
				if err != nil {
					t.Fatal(err)
				}
				open := slices.IndexFunc(res.TargetInfos, func(info *cdptarget.Info) bool { return info.TargetID == wedged })
				if open < 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the wedged page is still open after 15 s: %+v", res.TargetInfos[open])
				}
			}
			if s.tabs != nil && len(s.tabs.entries) != 1 || s.tabs != nil && s.tabs.entries[0].tab != s.tab {
				t.Fatalf("the new page is not the session's one tab: %+v", s.tabs.entries)
			}
		})
	}
}

// TestSlowIsNotHung: a page that is merely slow is never taken as hung
// while its renderer answers: a feed that keeps its main thread busy in
// tasks of up to half a second for longer than the hang bound, waited on
// until its last item shows, and a server that takes longer than
// the hang bound to answer a navigation while the page being left spins in
// short tasks (the navigation is the network's turn).
func TestSlowIsNotHung(t *testing.T) {
	tm := DefaultTimings()
	slow := tm.HangBound() + 3*time.Second // past the guard's probe on an idle machine, within NavigateBound
	base := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/slow" {
			select {
			case <-time.After(slow):
			case <-r.Context().Done():
				return
			}
			fmt.Fprint(w, `<main><h1>Report</h1><button>Download report</button></main>`)
			return
		}
		fmt.Fprintf(w, `<header><nav><a href="/slow">Report</a></nav></header><main><h1>Live feed</h1><ol id="feed"></ol></main>
<script>
const end = Date.now() + %d;
function chunk() {
  const stop = Date.now() + 300 + Math.random() * 200;
  while (Date.now() < stop) {}
  const li = document.createElement('li');
  li.textContent = Date.now() < end ? 'update ' + document.querySelectorAll('li').length : 'feed complete';
  document.getElementById('feed').append(li);
  if (Date.now() < end) setTimeout(chunk, 0);
}
chunk();
</script>`, (tm.HangBound() + 5*time.Second).Milliseconds())
	}))
	ctx := browsertest.Context(t, 2*time.Minute)
	bs, err := shared.Get(t).NewSession(ctx, browser.SessionOptions{Interactions: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bs.Close(context.Background()) })
	s := bs.(*Session)
	if _, err := s.Navigate(ctx, base); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := s.Wait(ctx, browser.WaitRequest{Text: "feed complete", Timeout: browser.MaxWait}); err != nil {
		t.Fatalf("waiting on the busy feed for %v: %v", time.Since(start), err)
	}
	t.Logf("the busy feed completed after %v", time.Since(start).Round(100*time.Millisecond))
	if _, err := s.Navigate(ctx, base); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	obs, err := s.Navigate(ctx, base+"slow")
	if err != nil {
		t.Fatalf("navigating to a server that answers after %v, from a busy page: %v", slow, err)
	}
	t.Logf("the slow server's page loaded after %v", time.Since(start).Round(100*time.Millisecond))
	if !slices.Contains(names(obs), "Download report") {
		t.Fatalf("slow page: %q", names(obs))
	}
}

// BenchmarkNavigateSameSite: the cost of a navigation between two pages of
// one site, the renderer's answer before it (ping) included.
func BenchmarkNavigateSameSite(b *testing.B) {
	base := browsertest.ServePages(b, map[string]string{
		"/a": `<main><h1>A</h1><button>to b</button></main>`,
		"/b": `<main><h1>B</h1><button>to a</button></main>`,
	})
	s := openSession(b)
	ctx := browsertest.Context(b, 10*time.Minute)
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.Navigate(ctx, base+"ab"[i%2:i%2+1]); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWedgedPageKeepsItsBrowserContext: in an isolated session the page
// that replaces a wedged one opens in the session's own browser context,
// with its cookies, never in the browser's shared one.
func TestWedgedPageKeepsItsBrowserContext(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, 2*time.Minute)
	p, err := Launch(ctx, Options{Isolated: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	base := browsertest.ServePages(t, map[string]string{
		"/": `<main><h1>Signed in</h1><a href="/next">Next</a></main>
<script>document.cookie = 'sid=abc123; path=/'; addEventListener('pagehide', () => { for (;;) {} })</script>`,
		"/next": `<main><p id="c"></p><button>next page</button></main><script>c.textContent = 'cookie ' + document.cookie</script>`,
	})
	bs, err := p.NewSession(ctx, browser.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer bs.Close(context.Background())
	s := bs.(*Session)
	if _, err := s.Navigate(ctx, base); err != nil {
		t.Fatal(err)
	}
	info := func() *cdptarget.Info {
		res, err := cdp.Call(ctx, s.tab.Browser(), cdptarget.GetTargetInfo, cdptarget.GetTargetInfoParams{TargetID: s.tab.TargetID()})
		if err != nil {
			t.Fatal(err)
		}
		return res.TargetInfo
	}
	before := info()
	if before.BrowserContextID == "" {
		t.Fatal("an isolated session's page is in the default browser context")
	}
	meetWedge(t, "same-site navigate away", func(ctx context.Context) error {
		_, err := s.Navigate(ctx, base+"next")
		return err
	})
	obs, err := s.Navigate(ctx, base+"next")
	if err != nil {
		t.Fatal(err)
	}
	if after := info(); after.TargetID == before.TargetID || after.BrowserContextID != before.BrowserContextID {
		t.Fatalf("the new page: target %s in context %s, the wedged one: %s in %s", after.TargetID, after.BrowserContextID, before.TargetID, before.BrowserContextID)
	}
	if !strings.Contains(joined(obs), "cookie sid=abc123") {
		t.Fatalf("the session's cookie is gone: %q", joined(obs))
	}
}
