package chromium

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdptarget "github.com/chromedp/cdproto/target"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// hostileTimings shorten the renderer guard's bounds, so that a hung page is
// stopped in seconds rather than in the runtime's tens of seconds, and fix
// the load factor, so that the bounds do not follow the machine's load.
var hostileTimings = func() Timings {
	tm := DefaultTimings()
	tm.HangAfter, tm.HangProbe = 3*time.Second, 3*time.Second
	tm.FrameStep = tm.HangBound()
	tm.NavigationExcuse = 5 * time.Second
	tm.LoadFactor = func() float64 { return 1 }
	return tm
}()

// hostileCall bounds one call on a hostile page. A hung renderer is stopped
// within HangBound, or MaxHangBound on a loaded machine; without the guard
// these calls wait for minutes.
// A page that hangs while it loads is excused for the navigation's
// time first.
var hostileCall = hostileTimings.NavigationExcuse + time.Duration(hostileTimings.MaxLoadFactor)*hostileTimings.HangProbe +
	hostileTimings.CrashWait + 10*time.Second

// A hung renderer is stopped before a hostile call's bound, the runtime's
// timings as the tests'.
func TestHostileCallOutlastsTheGuard(t *testing.T) {
	for _, tm := range []Timings{hostileTimings, DefaultTimings()} {
		call := tm.NavigationExcuse + time.Duration(tm.MaxLoadFactor)*tm.HangProbe + tm.CrashWait + 10*time.Second
		if tm.MaxHangBound()+tm.NavigationExcuse >= call {
			t.Errorf("a hung renderer is stopped within %v, after the %v a hostile call may take", tm.MaxHangBound()+tm.NavigationExcuse, call)
		}
	}
	if f := hostileTimings.LoadFactor(); f != 1 {
		t.Errorf("the hostile tests' load factor is %v", f)
	}
}

// hostile is one hostile page and what a session must do with it.
type hostile struct {
	name string
	page string
	// check drives the session on the page and checks its calls; every
	// call is bounded by hostileCall.
	check func(t *testing.T, s *Session, url string)
}

var hostilePages = []hostile{
	{"while(true) at load", `<button>never</button><script>while (true) {}</script>`, wantHung},
	{"while(true) started by a timer", `<button>soon stuck</button><script>setTimeout(() => { while (true) {} }, 1500)</script>`, wantHung},
	{"100,000 nested open shadow roots", `<div id="r"></div><script>
let host = document.getElementById('r');
for (let i = 0; i < 100000; i++) { const d = document.createElement('div'); host.attachShadow({mode: 'open'}).append(d); host = d; }
host.textContent = 'deep';
</script>`, wantHung},
	{"alert() loop on load", `<button>nagged</button><script>for (;;) alert('again')</script>`, wantAlertLoop},
	{"100 window.open calls", `<button>opener</button><script>for (let i = 0; i < 100; i++) window.open('/spin?' + i)</script>`, wantPopupsClosed},
	{"100 window.open calls on a click", `<button onclick="for (let i = 0; i < 100; i++) window.open('/spin?' + i)">open popups</button>`, wantPopupsClosed},
	{"main-world prototype poisoning", `<button aria-label="Real name">x</button><p>real text</p><script>
const boom = () => { throw new Error('poisoned'); };
for (const k of ['push', 'pop', 'map', 'filter', 'forEach', 'slice', 'join', 'indexOf', 'includes']) Array.prototype[k] = boom;
Array.prototype[Symbol.iterator] = boom;
Array.isArray = boom;
JSON.stringify = () => '"poisoned"';
JSON.parse = boom;
Element.prototype.getAttribute = () => 'poisoned';
Element.prototype.hasAttribute = boom;
for (const k of ['firstChild', 'nextSibling', 'parentNode', 'childNodes', 'nodeType', 'textContent', 'isConnected', 'nodeName']) {
  Object.defineProperty(Node.prototype, k, {get: boom, configurable: true});
}
Object.defineProperty(Text.prototype, 'data', {get: boom, configurable: true});
</script>`, wantPoisonIgnored},
	{"a 50 MB text node", `<p id="t"></p><button>after the text</button><script>
document.getElementById('t').append('w '.repeat(25 << 20));
</script>`, wantBigText},
	{"a 10 MB attribute", `<button id="b"></button><script>
const b = document.getElementById('b');
b.setAttribute('title', 'x'.repeat(10 << 20));
document.body.setAttribute('data-blob', 'y'.repeat(10 << 20));
</script>`, wantCutName},
	{"a 1 MB aria-label", `<button id="b">text</button><script>
document.getElementById('b').setAttribute('aria-label', 'z'.repeat(1 << 20));
</script>`, wantCutName},
}

// TestHostilePages: each hostile page gets a stable answer within a bounded
// time, the session works again afterwards, and closing the browser leaves
// no process and no file behind.
func TestHostilePages(t *testing.T) {
	if testing.Short() {
		t.Skip("hung renderers take seconds each")
	}
	before := tempDirs(t)
	p, err := Launch(context.Background(), Options{Timings: &hostileTimings})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) }) // when the test fails before its own Close
	pages := map[string]string{
		"/fine": `<button>fine again</button>`,
		// A popup that keeps fetching for as long as it lives.
		"/spin": `<script>setInterval(() => fetch('/spin'), 20)</script>`,
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, pages[r.URL.Path])
	})
	for i, h := range hostilePages {
		pages["/"+strconv.Itoa(i)] = h.page
	}
	base := browsertest.ServeHandler(t, mux)
	for i, h := range hostilePages {
		t.Run(h.name, func(t *testing.T) {
			ctx := browsertest.Context(t, time.Minute)
			bs, err := p.NewSession(ctx, browser.SessionOptions{})
			if err != nil {
				t.Fatal(err)
			}
			s := bs.(*Session)
			defer s.Close(context.Background())
			h.check(t, s, base+strconv.Itoa(i))
			// The session works again: a fresh navigation and observation.
			if _, err := s.Navigate(ctx, base+"fine"); err != nil {
				t.Fatalf("navigating after the hostile page: %v", err)
			}
			if obs, err := s.Observe(ctx, observation.Request{}); err != nil || len(obs.Controls) != 1 || obs.Controls[0].Name != "fine again" {
				t.Fatalf("observing after the hostile page: %v %q %+v", err, names(obs), obs)
			}
		})
	}
	pid := p.Process()
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantBrowserGone(t, before, pid)
}

// wantHung: the page's renderer never answers; a call on it is page_crashed
// within the hang bound, never a wait for the caller's deadline.
func wantHung(t *testing.T, s *Session, url string) {
	ctx := browsertest.Context(t, 2*hostileCall)
	call, cancel := context.WithTimeout(ctx, hostileCall)
	defer cancel()
	_, err := s.Navigate(call, url)
	for err == nil {
		// The page starts spinning later: observe until it does.
		time.Sleep(200 * time.Millisecond)
		_, err = s.Observe(call, observation.Request{})
	}
	wantCode(t, err, errcode.PageCrashed)
	// Until the next navigation, every call says so at once.
	_, err = s.Observe(ctx, observation.Request{})
	wantCode(t, err, errcode.PageCrashed)
}

// wantAlertLoop: a page that raises alerts forever is observed as its
// dialog; each answer brings the next, never a hang and never a crash.
func wantAlertLoop(t *testing.T, s *Session, url string) {
	ctx := browsertest.Context(t, hostileCall)
	obs, err := s.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if obs.Dialog == nil || obs.Dialog.Type != "alert" || obs.Dialog.Message != "again" {
			t.Fatalf("observation of an alert loop: %+v", obs.Dialog)
		}
		res, err := s.Act(ctx, browser.Action{Kind: browser.ActDialog}, allowAll)
		if err != nil {
			t.Fatal(err)
		}
		obs = res.Observation
	}
	// Waiting on an open alert is not a hung renderer.
	time.Sleep(hostileTimings.HangBound() + time.Second)
	if obs, err = s.Observe(ctx, observation.Request{}); err != nil || obs.Dialog == nil {
		t.Fatalf("after a wait on the alert: %v %+v", err, obs)
	}
}

// wantPopupsClosed: the page works, and every page it opened is closed.
func wantPopupsClosed(t *testing.T, s *Session, url string) {
	ctx := browsertest.Context(t, hostileCall)
	obs, err := s.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if names(obs)[0] == "open popups" {
		// The agent's click is the user gesture a popup needs.
		if _, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: obs.Controls[0].Ref}, allowAll); err != nil {
			t.Fatal(err)
		}
	}
	b := s.tab.Browser()
	for {
		res, err := cdp.Call(ctx, b, cdptarget.GetTargets, cdptarget.GetTargetsParams{})
		if err != nil {
			t.Fatalf("popups still open when the test's time ran out (%v)", err)
		}
		open := 0
		for _, info := range res.TargetInfos {
			if info.Type == "page" && info.OpenerID == s.tab.TargetID() {
				open++
			}
		}
		if open == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// wantPoisonIgnored: main-world poisoning does not reach the collector,
// which runs in its own world.
func wantPoisonIgnored(t *testing.T, s *Session, url string) {
	ctx := browsertest.Context(t, hostileCall)
	obs, err := s.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if len(obs.Controls) != 1 || obs.Controls[0].Name != "Real name" || !strings.Contains(joined(obs), "real text") {
		t.Fatalf("poisoned page: %q, text %q", names(obs), joined(obs))
	}
}

// wantBigText: the text walk stops at its unit bound and the control after
// the text is still found; or, where laying out 50 MB of text keeps the
// renderer busy past the hang bound (Chromium 156 on two cores takes over
// 45 s), the page is stopped as hung.
func wantBigText(t *testing.T, s *Session, url string) {
	ctx := browsertest.Context(t, hostileCall)
	obs, err := s.Navigate(ctx, url)
	if errcode.Of(err) == errcode.PageCrashed {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if names(obs)[0] != "after the text" || !obs.TextCoverage.TextLimitReached || obs.TextCoverage.InspectedUnits > observation.TextUnits {
		t.Fatalf("50 MB text: %q, coverage %+v", names(obs), obs.TextCoverage)
	}
}

// wantCutName: a huge naming attribute gives a name cut at its bound.
func wantCutName(t *testing.T, s *Session, url string) {
	ctx := browsertest.Context(t, hostileCall)
	obs, err := s.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	c := obs.Controls[0]
	if len(c.Name) != observation.MaxNameUnits || !c.NameTruncated {
		t.Fatalf("huge name: %d units, truncated %v", len(c.Name), c.NameTruncated)
	}
}

// TestNavigationAwayFromAReloadLoopWins: a page that reloads itself all the
// time starts navigations while the agent's is on its way; the agent's
// navigation wins every time, and the page it leads to stays.
func TestNavigationAwayFromAReloadLoopWins(t *testing.T) {
	ctx := browsertest.Context(t, 3*time.Minute)
	base := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/" {
			fmt.Fprint(w, `<button>loop</button><script>setInterval(() => location.reload(), 5)</script>`)
			return
		}
		fmt.Fprint(w, `<button>away</button>`)
	}))
	s := openSession(t)
	for i := range 20 {
		// Whatever the navigation to the loop reports, the tab is on it.
		s.Navigate(ctx, base)
		obs, err := s.Navigate(ctx, base+"away")
		if err != nil {
			t.Fatalf("navigation %d away from the loop: %v", i, err)
		}
		if names(obs)[0] != "away" {
			t.Fatalf("navigation %d away from the loop ended on %q", i, names(obs))
		}
		if obs, err = s.Observe(ctx, observation.Request{}); err != nil || names(obs)[0] != "away" {
			t.Fatalf("navigation %d: the page did not stay: %v", i, err)
		}
	}
}

func TestHostileDepthFinishesFast(t *testing.T) {
	t.Parallel()
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
