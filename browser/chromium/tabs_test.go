package chromium

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// openTabs opens a tool version 1.8.0 session on start whose navigation
// check allows only the origins of allowed (nil: all).
func openTabs(t *testing.T, start string, allowed ...string) *Session {
	t.Helper()
	return openTabsAt(t, browser.SessionOptions{Reading: true, Frames: true, Interactions: true}, start, allowed...)
}

// openTabsAt is openTabs with the session options of a tool version.
func openTabsAt(t *testing.T, opts browser.SessionOptions, start string, allowed ...string) *Session {
	t.Helper()
	ctx := browsertest.Context(t, time.Minute)
	check := func(_ context.Context, u *url.URL) error {
		if allowed == nil {
			return nil
		}
		for _, o := range allowed {
			if strings.HasPrefix(u.String(), o) {
				return nil
			}
		}
		return errcode.New(errcode.ForeignOrigin, "outside the grant")
	}
	opts.CheckNavigation = check
	s, _ := openOn(t, ctx, opts, start)
	return s
}

func allow(context.Context, string, policy.Facts) (policy.Permit, error) { return policy.Permit{}, nil }

// clickNamed clicks the control named name in obs.
func clickNamed(t *testing.T, s *Session, obs *observation.Observation, name string) *browser.ActResult {
	t.Helper()
	for _, c := range obs.Controls {
		if c.Name == name {
			res, err := s.Act(browsertest.Context(t, time.Minute), browser.Action{Kind: browser.ActClick, Ref: c.Ref}, allow)
			if err != nil {
				t.Fatalf("click %q: %v", name, err)
			}
			return res
		}
	}
	t.Fatalf("no control %q in %+v", name, obs.Controls)
	return nil
}

// waitTabs observes until the session has n tabs.
func waitTabs(t *testing.T, s *Session, n int) *observation.Observation {
	t.Helper()
	ctx := browsertest.Context(t, time.Minute)
	var obs *observation.Observation
	for range 50 {
		var err error
		if obs, err = s.Tabs(ctx, browser.TabsRequest{Action: browser.TabsList}); err != nil {
			t.Fatal(err)
		}
		if obs.Tabs.Count == n {
			return obs
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("want %d tabs, have %+v", n, obs.Tabs)
	return nil
}

// TestInputThatClosesItsTab: a popup's control that closes the popup as
// the mouse goes down (before the browser answers the button's release)
// or up was clicked: the click succeeds, and the opener is active again.
func TestInputThatClosesItsTab(t *testing.T) {
	t.Parallel()
	base := browsertest.ServePages(t, map[string]string{
		"/": `<button onclick="window.open('/popup?down', 'p1', 'width=400,height=400')">Open down</button>
<button onclick="window.open('/popup?up', 'p2', 'width=400,height=400')">Open up</button>`,
		"/popup": `<title>Popup page</title>
<button onmousedown="location.search == '?down' && window.close()" onmouseup="window.close()">Done</button>`,
	})
	s := openTabs(t, base)
	ctx := browsertest.Context(t, time.Minute)
	obs, err := s.Observe(ctx, observation.Request{})
	if err != nil {
		t.Fatal(err)
	}
	first := obs.Tabs.Active
	for _, opener := range []string{"Open down", "Open up"} {
		res := clickNamed(t, s, obs, opener)
		if len(res.Observation.Tabs.Opened) != 1 {
			t.Fatalf("%s: the popup is not reported as opened: %+v", opener, res.Observation.Tabs)
		}
		popup, err := s.Tabs(ctx, browser.TabsRequest{Action: browser.TabsSelect, Tab: res.Observation.Tabs.Opened[0]})
		if err != nil || popup.Title != "Popup page" {
			t.Fatalf("%s: select the popup: %v %+v", opener, err, popup)
		}
		obs = clickNamed(t, s, popup, "Done").Observation
		if obs.Tabs.Active != first || obs.Tabs.Count != 1 {
			t.Fatalf("%s: after the popup closed itself: %+v", opener, obs.Tabs)
		}
	}
}

// TestActiveTabIsInFront: the tab the session works on is the one in
// front, as in a person's browser. A help page that a store's page opens
// in a new tab comes to the front, and hid the store's page (its document
// hidden) while the agent went on working there: a list
// that draws its new row on the next animation frame never showed it (a
// hidden page runs none), and every mouse move sent to it waited out
// Chromium's 5 s timeout. Selecting the help tab brings it to the front,
// and closing it brings the store's page back.
func TestActiveTabIsInFront(t *testing.T) {
	t.Parallel()
	base := browsertest.ServePages(t, map[string]string{
		"/": `<title>Cart</title><a href="/help" target="_blank">Shipping help</a>
<button id="add">Add a mug</button><ul id="cart"></ul>
<script>
document.getElementById('add').addEventListener('click', () => requestAnimationFrame(() => {
  const li = document.createElement('li');
  li.textContent = 'Mug ' + (document.getElementById('cart').children.length + 1) + ' in the cart';
  document.getElementById('cart').append(li);
}));
</script>`,
		"/help": `<title>Shipping help</title><p>Orders ship in two days.</p>`,
	})
	s := openTabs(t, base)
	ctx := browsertest.Context(t, time.Minute)
	obs, err := s.Observe(ctx, observation.Request{})
	if err != nil {
		t.Fatal(err)
	}
	store := s.tab
	shown := func(tb *tab.Tab) string {
		t.Helper()
		res, err := cdp.Call(ctx, tb.Target(), runtime.Evaluate, runtime.EvaluateParams{
			Expression: "document.visibilityState + ' ' + document.hasFocus()", ReturnByValue: ptr(true)})
		if err != nil || res.ExceptionDetails != nil {
			t.Fatalf("reading the page's visibility: %v %v", err, res.ExceptionDetails)
		}
		var v string
		json.Unmarshal(res.Result.Value, &v)
		return v
	}
	res := clickNamed(t, s, obs, "Shipping help")
	if len(res.Observation.Tabs.Opened) != 1 {
		t.Fatalf("the help tab is not reported as opened: %+v", res.Observation.Tabs)
	}
	help := res.Observation.Tabs.Opened[0]
	obs = waitTabs(t, s, 2)
	res = clickNamed(t, s, obs, "Add a mug")
	if got := shown(store); got != "visible true" {
		t.Errorf("the store's page, active, after the help tab opened: %s, want visible true", got)
	}
	if _, err := s.Wait(ctx, browser.WaitRequest{Text: "Mug 1 in the cart", Timeout: 10 * time.Second}); err != nil {
		t.Fatalf("the row the click drew on the next animation frame: %v", err)
	}
	obs, err = s.Tabs(ctx, browser.TabsRequest{Action: browser.TabsSelect, Tab: help})
	if err != nil {
		t.Fatal(err)
	}
	if got := shown(s.tab); obs.Title != "Shipping help" || got != "visible true" {
		t.Errorf("the help tab selected: %q %s, want Shipping help, visible true", obs.Title, got)
	}
	if got := shown(store); got != "hidden false" {
		t.Errorf("the store's page behind the help tab: %s, want hidden false", got)
	}
	if _, err := s.Tabs(ctx, browser.TabsRequest{Action: browser.TabsClose, Tab: help}); err != nil {
		t.Fatal(err)
	}
	obs, err = s.Observe(ctx, observation.Request{})
	if err != nil {
		t.Fatal(err)
	}
	if got := shown(store); obs.Title != "Cart" || got != "visible true" {
		t.Errorf("the help tab closed: %q %s, want Cart, visible true", obs.Title, got)
	}
}

func TestPopupsBecomeTabs(t *testing.T) {
	t.Parallel()
	base := browsertest.ServePages(t, map[string]string{
		"/": `<a href="/blank" target="_blank">Blank link</a>
<button onclick="window.open('/popup', 'signin', 'width=400,height=400')">Open popup</button>`,
		"/blank": `<title>Blank page</title><button>In blank</button>`,
		"/popup": `<title>Popup page</title><button onclick="window.close()">Done</button>`,
	})
	s := openTabs(t, base)
	ctx := browsertest.Context(t, time.Minute)
	obs, err := s.Observe(ctx, observation.Request{})
	if err != nil {
		t.Fatal(err)
	}
	first := obs.Tabs.Active
	if obs.Tabs.Count != 1 || len(obs.Tabs.Opened) != 0 {
		t.Fatalf("tabs at start: %+v", obs.Tabs)
	}
	res := clickNamed(t, s, obs, "Blank link")
	if res.Observation.Tabs.Active != first || len(res.Observation.Tabs.Opened) != 1 {
		t.Fatalf("the link's tab is not reported as opened: %+v", res.Observation.Tabs)
	}
	blank := res.Observation.Tabs.Opened[0]
	res = clickNamed(t, s, res.Observation, "Open popup")
	if len(res.Observation.Tabs.Opened) != 1 || res.Observation.Tabs.Opened[0] == blank {
		t.Fatalf("the popup is not reported as opened: %+v", res.Observation.Tabs)
	}
	popup := res.Observation.Tabs.Opened[0]
	list := waitTabs(t, s, 3)
	titles := map[string]string{}
	for _, tab := range list.Tabs.List {
		titles[tab.ID] = tab.Title
	}
	if len(list.Tabs.Opened) != 0 {
		t.Errorf("opened tabs reported twice: %+v", list.Tabs)
	}

	// Select the popup, act in it; it closes itself and the opener is
	// active again.
	obs, err = s.Tabs(ctx, browser.TabsRequest{Action: browser.TabsSelect, Tab: popup})
	if err != nil {
		t.Fatal(err)
	}
	if obs.Tabs.Active != popup || obs.Title != "Popup page" {
		t.Fatalf("selected popup: title %q, tabs %+v (titles %v)", obs.Title, obs.Tabs, titles)
	}
	res = clickNamed(t, s, obs, "Done")
	obs = res.Observation
	if obs.Tabs.Active != first || obs.Tabs.Count != 2 {
		t.Fatalf("after the popup closed itself: %+v", obs.Tabs)
	}
	// Select and close the link's tab.
	if obs, err = s.Tabs(ctx, browser.TabsRequest{Action: browser.TabsSelect, Tab: blank}); err != nil || obs.Title != "Blank page" {
		t.Fatalf("select blank: %v %+v", err, obs)
	}
	stale := obs.Controls[0].Ref
	if obs, err = s.Tabs(ctx, browser.TabsRequest{Action: browser.TabsClose, Tab: blank}); err != nil {
		t.Fatal(err)
	}
	if obs.Tabs.Count != 1 || obs.Tabs.Active != first {
		t.Fatalf("after close: %+v", obs.Tabs)
	}
	if _, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: stale}, allow); errcode.Of(err) != errcode.StaleReference {
		t.Errorf("a ref of a closed tab: %v, want stale_reference", err)
	}
	if _, err := s.Tabs(ctx, browser.TabsRequest{Action: browser.TabsSelect, Tab: blank}); errcode.Of(err) != errcode.StaleReference {
		t.Errorf("selecting a closed tab: %v", err)
	}
	if _, err := s.Tabs(ctx, browser.TabsRequest{Action: browser.TabsClose, Tab: first}); errcode.Of(err) != errcode.InvalidArgument {
		t.Errorf("closing the last tab: %v", err)
	}
	if _, err := s.Tabs(ctx, browser.TabsRequest{Action: browser.TabsSelect, Tab: "tnotatab"}); errcode.Of(err) != errcode.UnknownReference {
		t.Errorf("a forged tab id: %v", err)
	}
}

func TestTabBound(t *testing.T) {
	t.Parallel()
	var served atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<button onclick="window.open('/p?'+Math.random(), '_blank')">Open one</button>`)
	})
	mux.HandleFunc("/p", func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<title>p</title>popup`)
	})
	base := browsertest.ServeHandler(t, mux)
	s := openTabs(t, base)
	ctx := browsertest.Context(t, time.Minute)
	obs, err := s.Observe(ctx, observation.Request{})
	if err != nil {
		t.Fatal(err)
	}
	// A popup needs a click of its own (the popup blocker): nine clicks
	// make the first tab and seven popups, and the eighth and ninth popups
	// are past the bound and closed.
	closed, want := 0, 1
	for range 9 {
		obs = waitTabs(t, s, want) // each popup adopted before the next
		closed += obs.Tabs.Closed
		obs = clickNamed(t, s, obs, "Open one").Observation
		closed += obs.Tabs.Closed
		want = min(want+1, browser.MaxTabs)
	}
	waitTabs(t, s, browser.MaxTabs)
	for range 50 {
		if closed >= 2 {
			break
		}
		time.Sleep(100 * time.Millisecond)
		o, err := s.Observe(ctx, observation.Request{})
		if err != nil {
			t.Fatal(err)
		}
		closed += o.Tabs.Closed
		if o.Tabs.Count != browser.MaxTabs {
			t.Fatalf("tabs: %+v", o.Tabs)
		}
	}
	if n := served.Load(); n < 7 {
		t.Errorf("popups served: %d", n)
	}
	if closed != 2 {
		t.Fatalf("closed past the bound: %d, want 2", closed)
	}
}

// A popup outside the grant (tool version 1.9.0) is held before it runs
// and closed: not one request reaches the other origin, and the click that
// opened it reports foreign_origin.
func TestPopupOutsideGrantRefused(t *testing.T) {
	t.Parallel()
	var foreign atomic.Int32
	other := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		foreign.Add(1)
		fmt.Fprint(w, "foreign")
	}))
	other = browsertest.OtherOrigin(other)
	base := browsertest.ServePages(t, map[string]string{
		"/": fmt.Sprintf(`<header><a href="/">Travel deals</a></header><main><h1>Sign in</h1>
<button onclick="window.open('%sx', 'f')">Sign in with Partner</button>
<button onclick="window.open('/help', 'h')">Help</button></main>`, other),
		"/help": `<title>Help</title><h1>Help</h1>`,
	})
	s := openTabsAt(t, browser.SessionOptions{Reading: true, Frames: true, Interactions: true, RealPages: true}, base, base)
	ctx := browsertest.Context(t, time.Minute)
	obs, err := s.Observe(ctx, observation.Request{})
	if err != nil {
		t.Fatal(err)
	}
	var ref string
	for _, c := range obs.Controls {
		if c.Name == "Sign in with Partner" {
			ref = c.Ref
		}
	}
	_, err = s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: ref}, allow)
	if errcode.Of(err) != errcode.ForeignOrigin {
		t.Errorf("the click that opened a foreign popup: %v, want foreign_origin", err)
	}
	refused := 0
	for range 50 {
		if obs, err = s.Observe(ctx, observation.Request{}); err != nil {
			t.Fatal(err)
		}
		refused += obs.Tabs.Refused
		if refused > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if refused != 1 {
		t.Fatalf("the foreign popup was not refused: %+v", obs.Tabs)
	}
	if obs = waitTabs(t, s, 1); obs.Tabs.List[0].ID != obs.Tabs.Active {
		t.Fatalf("tabs: %+v", obs.Tabs)
	}
	// A popup inside the grant still opens, held only until it is guarded.
	res := clickNamed(t, s, obs, "Help")
	if len(res.Observation.Tabs.Opened) != 1 {
		t.Errorf("the granted popup: %+v", res.Observation.Tabs)
	}
	waitTabs(t, s, 2)
	if n := foreign.Load(); n != 0 {
		t.Fatalf("requests that reached the foreign origin: %d", n)
	}
}
