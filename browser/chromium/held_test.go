package chromium

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// An action whose navigation meets a server that holds its answer
// (docs/actions.md "A server that holds its answer"): the action returns
// within SettleLoad and a few seconds, reports the navigation started and
// not done, the navigation is stopped, and the session's next calls work
// at once. Before, such a click took about 47 s, reported action_uncertain
// and lost the page to the renderer guard.

// bankPage is an online bank's statements page: a header menu, a table of
// statements whose links the server holds, an export of notes it holds
// after a few bytes, a transfer form that posts to a held endpoint, and
// settings whose change handlers (a list, a checkbox, a drop) navigate to
// a held page.
const bankPage = `<title>Statements · Northbank</title>
<style>body{font:14px sans-serif;margin:0} header,footer{background:#eef;padding:8px} main{padding:1em}</style>
<header><nav aria-label="Main"><a href="/fine">Accounts</a> · <a href="/fine">Cards</a> · <a href="/fine">Help</a></nav></header>
<main><h1>Statements</h1>
<table><tr><th>Month</th><th>Statement</th></tr>
<tr><td>March</td><td><a href="/held">Open March statement</a></td></tr>
<tr><td>April</td><td><a href="/headers">Open April statement</a></td></tr>
<tr><td>Notes</td><td><a href="/notes">Export notes</a></td></tr></table>
<form method=post action="/transfer"><h2>Transfer</h2><label>Amount <input name=amount value=10></label>
<button>Send transfer</button></form>
<h2>Settings</h2>
<label>Statement month <select onchange="location.href = '/held'"><option>March</option><option>April</option></select></label>
<label>Statement formats <select multiple onchange="location.href = '/held'"><option>PDF</option><option>CSV</option></select></label>
<label><input type=checkbox onchange="location.href = '/held'"> Paperless statements</label>
<div draggable=true role=button tabindex=0>Card to freeze</div>
<div role=button tabindex=0 ondragover="event.preventDefault()" ondrop="event.preventDefault(); location.href = '/held'">Freeze zone</div>
<p id=limit>Card limit hidden</p><button onclick="document.getElementById('limit').textContent = 'Card limit €2,000'">Show card limit</button></main>
<footer>© Northbank · <a href="/fine">Privacy</a></footer>`

// heldSite serves bankPage at /, a fine page at /fine, and holds /held
// (never answers), /headers (an HTML page's headers, then nothing),
// /notes (300 bytes of a text/plain attachment, under the 1 KiB the
// browser sniffs, then nothing) and a POST to /transfer (never answers)
// until the test ends. arrived receives each held path as it arrives.
func heldSite(t *testing.T) (base string, arrived chan string) {
	release := make(chan struct{})
	arrived = make(chan string, 16)
	hold := func(r *http.Request) {
		arrived <- r.URL.Path
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}
	base = browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, bankPage)
		case "/held", "/transfer":
			hold(r)
		case "/headers":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			hold(r)
		case "/notes":
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Disposition", `attachment; filename="notes.txt"`)
			w.Write([]byte(strings.Repeat("n", 300)))
			w.(http.Flusher).Flush()
			hold(r)
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<title>Accounts</title><main><h1>Accounts</h1><button>Show balance</button></main>`)
		}
	}))
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) }) // runs before the server's Close
	return base, arrived
}

// TestActionOnAHeldServerReturns: every action that can start a
// navigation, whose server holds its answer: a click on a link and on a
// form's submit button in every way above, and, in a 1.9.0 session, the
// page-changing input of the other actions (a choice, a checkbox and a
// drop whose handlers navigate; typing with submit and Enter in a form).
func TestActionOnAHeldServerReturns(t *testing.T) {
	t.Parallel()
	click := browser.Action{Kind: browser.ActClick}
	for _, c := range []struct {
		name, control, to, path string
		act                     browser.Action // its Ref (and To) are control's (and to's)
		realPages               bool           // a 1.9.0 session, with interactions
		stays                   bool           // the page stays: no document committed
	}{
		{name: "never answers", control: "Open March statement", path: "/held", act: click, stays: true},
		// The browser commits the document at its headers: the page is
		// that document, still loading.
		{name: "headers then nothing", control: "Open April statement", path: "/headers", act: click},
		{name: "text/plain download under 1 KiB held", control: "Export notes", path: "/notes", act: click, stays: true},
		{name: "form post never answered", control: "Send transfer", path: "/transfer", act: click, stays: true},
		{name: "select whose change navigates", control: "Statement month", path: "/held", act: browser.Action{Kind: browser.ActSelect, Option: "April"}, realPages: true, stays: true},
		{name: "choose in a list whose change navigates", control: "Statement formats", path: "/held", act: browser.Action{Kind: browser.ActSelect, Options: []string{"CSV"}}, realPages: true, stays: true},
		{name: "check whose change navigates", control: "Paperless statements", path: "/held", act: browser.Action{Kind: browser.ActCheck}, realPages: true, stays: true},
		{name: "type with submit", control: "Amount", path: "/transfer", act: browser.Action{Kind: browser.ActType, Text: "20", Submit: true}, realPages: true, stays: true},
		{name: "press Enter in a form", control: "Amount", path: "/transfer", act: browser.Action{Kind: browser.ActPress, Key: "Enter"}, realPages: true, stays: true},
		{name: "drop whose handler navigates", control: "Card to freeze", to: "Freeze zone", path: "/held", act: browser.Action{Kind: browser.ActDrag}, realPages: true, stays: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			base, arrived := heldSite(t)
			ctx := browsertest.Context(t, time.Minute)
			opts := browser.SessionOptions{Downloads: &browser.DownloadOptions{Dir: t.TempDir()}}
			if c.realPages {
				opts.Reading, opts.Frames, opts.Interactions, opts.RealPages = true, true, true, true
			}
			s, obs := openOn(t, ctx, opts, base)
			// The action waits SettleLoad for the document, then stops the
			// navigation, and no check of its waits behind it: it returns
			// before NavigateBound, where a call held behind the navigation
			// would stop it instead (before, the guard lost the page after
			// about 47 s, and a choice's check waited out NavigateBound).
			tm := DefaultTimings()
			bound := tm.NavigateBound
			actx := browsertest.Context(t, bound+10*time.Second) // a liveness bound
			start := time.Now()
			a := c.act
			a.Ref = find(t, obs, c.control).Ref
			if c.to != "" {
				a.To = find(t, obs, c.to).Ref
			}
			res, err := s.Act(actx, a, allowAll)
			took := time.Since(start)
			t.Logf("%s: %v after %v", c.name, err, took.Round(100*time.Millisecond))
			if err != nil {
				t.Fatalf("the action on a held server: %v", err)
			}
			if took >= bound {
				t.Fatalf("the action on a held server returned after %v, not before NavigateBound %v", took, bound)
			}
			select {
			case got := <-arrived:
				if got != c.path {
					t.Fatalf("the server held %s, want %s", got, c.path)
				}
			default:
				t.Fatal("the held request never reached the server")
			}
			if !res.NavigationStarted || res.NavigationDone || res.Download != nil {
				t.Fatalf("a navigation the server holds: %+v", res)
			}
			if stayed := res.Observation.Title == obs.Title && strings.HasSuffix(res.URL, "/"); stayed != c.stays {
				t.Fatalf("the page after the action: %q at %s, want it to stay %v", res.Observation.Title, res.URL, c.stays)
			}
			// The session's next calls work at once.
			nctx := browsertest.Context(t, 10*time.Second)
			now, err := s.Observe(nctx, observation.Request{})
			if err != nil || slices.Contains(names(now), "Show card limit") != c.stays {
				t.Fatalf("observe after the held action: %v", err)
			}
			if c.stays {
				// The page that stayed takes the next action.
				if res, err := s.Act(nctx, browser.Action{Kind: browser.ActClick, Ref: find(t, now, "Show card limit").Ref}, allowAll); err != nil ||
					res.NavigationStarted || evalMain(t, s, "document.getElementById('limit').textContent") != "Card limit €2,000" {
					t.Fatalf("click on the page that stayed: %v %+v", err, res)
				}
			}
			fine, err := s.Navigate(nctx, base+"fine")
			if err != nil || !slices.Contains(names(fine), "Show balance") {
				t.Fatalf("navigate after the held action: %v", err)
			}
			if res, err := s.Act(nctx, browser.Action{Kind: browser.ActClick, Ref: find(t, fine, "Show balance").Ref}, allowAll); err != nil || !res.Dispatched {
				t.Fatalf("click after the held action: %v", err)
			}
		})
	}
}

// TestObserveBehindTheHeldNavigationOfThePage: the page's own navigation
// (a timer's) meets a server that holds its answer; the agent's
// observation, which DevTools holds behind it, returns within
// NavigateBound with the page as it was, and the session's next
// navigation works. Before, it reported page_crashed after about 46 s.
func TestObserveBehindTheHeldNavigationOfThePage(t *testing.T) {
	t.Parallel()
	base, arrived := heldSite(t)
	s := openSession(t)
	ctx := browsertest.Context(t, time.Minute)
	if _, err := s.Navigate(ctx, base); err != nil {
		t.Fatal(err)
	}
	evalMain(t, s, "setTimeout(() => { location.href = '/held' }, 100), ''")
	select {
	case <-arrived:
	case <-ctx.Done():
		t.Fatal("the held request never reached the server")
	}
	octx := browsertest.Context(t, DefaultTimings().NavigateBound+10*time.Second) // a liveness bound
	start := time.Now()
	obs, err := s.Observe(octx, observation.Request{})
	t.Logf("observe behind the held navigation: %v after %v", err, time.Since(start).Round(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(names(obs), "Show card limit") {
		t.Fatalf("the page did not stay: %q", names(obs))
	}
	fine, err := s.Navigate(browsertest.Context(t, 10*time.Second), base+"fine")
	if err != nil || !slices.Contains(names(fine), "Show balance") {
		t.Fatalf("navigate after: %v", err)
	}
}
