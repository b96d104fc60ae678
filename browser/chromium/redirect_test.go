package chromium

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// A store's account page that some paths reach only through a client-side
// redirect.
const accountPage = `<!doctype html><title>Your account</title><header><nav><a href="/">Shop</a> <a href="/cart">Cart</a></nav></header>
<main><h1>Your account</h1><section aria-label="Orders"><h2>Orders</h2><p>No orders yet.</p></section>
<form><label>Display name <input name=n value="Sam"></label><button>Save</button></form></main><footer>© Shop</footer>`

// movedPage is a "this page has moved" notice, with head content before it.
func movedPage(head, body string) string {
	return `<!doctype html><html><head><title>Moved</title>` + head + `</head><body><header><a href="/">Shop</a></header>` +
		`<main><h1>This page has moved</h1><p>Taking you to your account…</p></main>` + body + `</body></html>`
}

// The redirect rule (docs/navigation.md): a meta refresh to another page
// within MaxRefreshWait is followed, at the bound too (2.001 is the 2 s
// refresh: the browser counts whole seconds); one past it (3 s) is not
// waited for, the page is returned as it is and the next call meets the
// page it leads to; a refresh of the page itself is not a redirect. A
// script timer after the load event announces nothing: whether it fires
// 250 ms or 2 s after load, the navigation returns the page it loaded, and
// the next call meets the redirect.
func TestNavigateRedirectRule(t *testing.T) {
	t.Parallel()
	gate := make(chan struct{})
	pages := map[string]string{
		"/account":  accountPage,
		"/quarter":  movedPage(`<meta http-equiv="refresh" content="0.25; url=/account">`, ""),
		"/bound":    movedPage(`<meta http-equiv=Refresh content="2;URL='/account'">`, ""),
		"/fraction": movedPage(`<meta http-equiv=refresh content="2.001;url=/account">`, ""),
		"/past":     movedPage(`<meta http-equiv=refresh content="3;url=/account">`, ""),
		"/reload":   movedPage(`<meta http-equiv=refresh content="1.5">`, ""),
		"/timer250": movedPage("", `<script>addEventListener("load", () => setTimeout(() => fetch("/gate").then(() => { location.href = "/account" }), 250))</script>`),
		"/timer2s":  movedPage("", `<script>addEventListener("load", () => setTimeout(() => { location.href = "/account" }, 2000))</script>`),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/gate", func(w http.ResponseWriter, r *http.Request) {
		// The 250 ms timer's redirect waits for the test's word, so that
		// the order of events does not hang on the machine's speed.
		select {
		case <-gate:
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(body))
	})
	base := browsertest.ServeHandler(t, mux)
	// Each subtest's calls take their deadline from the subtest: parallel
	// subtests may wait long for their turn in a full package run.
	navigate := func(t *testing.T, s *Session, path string) *observation.Observation {
		t.Helper()
		obs, err := s.Navigate(browsertest.Context(t, time.Minute), base+path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if obs.Loading {
			t.Fatalf("%s: returned loading", path)
		}
		return obs
	}
	// meets waits for the page's own redirect to be met by a later call.
	meets := func(t *testing.T, s *Session, path string) {
		t.Helper()
		wctx := browsertest.Context(t, 30*time.Second)
		for {
			obs, err := s.Observe(wctx, observation.Request{})
			if err == nil && obs.URL == base+"account" {
				return
			}
			if err != nil && errcode.Of(err) != errcode.DocumentChanged || wctx.Err() != nil {
				t.Fatalf("%s: the redirect was not met: %v", path, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	t.Run("meta refresh within the bound", func(t *testing.T) {
		t.Parallel()
		s := openSession(t)
		for _, path := range []string{"quarter", "bound", "fraction"} {
			if obs := navigate(t, s, path); obs.URL != base+"account" || len(obs.Controls) == 0 {
				t.Fatalf("%s: ended at %s, want the account page", path, obs.URL)
			}
		}
	})
	t.Run("meta refresh past the bound", func(t *testing.T) {
		t.Parallel()
		s := openSession(t)
		if obs := navigate(t, s, "past"); obs.URL != base+"past" {
			t.Fatalf("ended at %s, want the page itself", obs.URL)
		}
		meets(t, s, "past")
	})
	t.Run("refresh of the page itself", func(t *testing.T) {
		t.Parallel()
		s := openSession(t)
		if obs := navigate(t, s, "reload"); obs.URL != base+"reload" {
			t.Fatalf("ended at %s, want the page itself", obs.URL)
		}
	})
	t.Run("script timer", func(t *testing.T) {
		t.Parallel()
		s := openSession(t)
		if obs := navigate(t, s, "timer250"); obs.URL != base+"timer250" {
			t.Fatalf("250 ms: ended at %s, want the page itself", obs.URL)
		}
		close(gate)
		meets(t, s, "timer250")
		if obs := navigate(t, s, "timer2s"); obs.URL != base+"timer2s" {
			t.Fatalf("2 s: ended at %s, want the page itself", obs.URL)
		}
		meets(t, s, "timer2s")
	})
}

// A page that asks for a navigation from its load handler has announced
// it: the navigation follows it, though it starts only after the load
// event, to a page that loads slowly.
func TestNavigateFollowsLoadHandlerRedirect(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(400 * time.Millisecond) // the server is slow: the redirect's document comes late
		w.Write([]byte(accountPage))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(movedPage("", `<script>addEventListener("load", () => { location.href = "/slow" })</script>`)))
	})
	base := browsertest.ServeHandler(t, mux)
	s := openSession(t)
	obs, err := s.Navigate(browsertest.Context(t, time.Minute), base)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(obs.URL, "/slow") || find(t, obs, "Save").Name == "" {
		t.Fatalf("ended at %s with %v", obs.URL, names(obs))
	}
}

// A navigation the page starts after its document loaded but before the
// navigation's first view is taken (here made by script at that very
// moment) is followed as one more redirect: the call returns the page it
// leads to, or its refusal.
func TestNavigateFollowsAMoveDuringItsFirstView(t *testing.T) {
	t.Parallel()
	foreign := serveSite(t, map[string]string{"/": "<h1>foreign</h1>"})
	home := serveSite(t, map[string]string{"/moved": movedPage("", ""), "/account": accountPage})
	s := openGuarded(t, grantOnly(home.origin()))
	ctx := browsertest.Context(t, time.Minute)
	for _, to := range []string{home.url + "account", foreign.url} {
		nav, err := s.tab.Navigate(ctx, home.url+"moved")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.tab.Evaluate(ctx, `location.href = "`+to+`", true`); err != nil {
			t.Fatal(err)
		}
		obs, err := s.observeLoaded(ctx, nav)
		if to == foreign.url {
			wantCode(t, err, errcode.ForeignOrigin)
			continue
		}
		if err != nil || obs.URL != to {
			t.Fatalf("the first view is of %v (%v), want %s", obs, err, to)
		}
	}
	if n := foreign.hits.Load(); n != 0 {
		t.Fatalf("the foreign server got %d requests", n)
	}
}

// An HTTP Refresh header is a refresh like the tag (docs/navigation.md):
// to another page within MaxRefreshWait it is followed, at the bound too
// (2.001 s is the 2 s refresh); one past it (3 s) is not waited for; one to
// an origin outside the grant is the navigation's foreign_origin, with not
// one request sent there; a header that reloads the page is no redirect. A
// refresh tag that the page's load handler adds is followed too.
func TestNavigateRefreshHeader(t *testing.T) {
	t.Parallel()
	foreign := serveSite(t, map[string]string{"/": "<h1>foreign</h1>"})
	type moved struct{ header, page string }
	pages := map[string]moved{
		"/zero":     {"0; url=/account", movedPage("", "")},
		"/bound":    {"2;URL='/account'", movedPage("", "")},
		"/fraction": {"2.001, url=/account", movedPage("", "")},
		"/past":     {"3; url=/account", movedPage("", "")},
		"/foreign":  {"1; url=" + foreign.url, movedPage("", "")},
		"/reload":   {"1", movedPage("", "")},
		"/added": {"", movedPage("", `<script>addEventListener("load", () => {
			const m = document.createElement("meta"); m.httpEquiv = "refresh"; m.content = "1;url=/account"; document.head.append(m) })</script>`)},
	}
	var base string
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/account" {
			w.Write([]byte(accountPage))
			return
		}
		p, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if p.header != "" {
			w.Header().Set("Refresh", p.header)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(p.page))
	})
	base = browsertest.ServeHandler(t, mux)
	navigate := func(t *testing.T, s *Session, path string) (*observation.Observation, error) {
		t.Helper()
		obs, err := s.Navigate(browsertest.Context(t, time.Minute), base+path)
		if err == nil && obs.Loading {
			t.Fatalf("%s: returned loading", path)
		}
		return obs, err
	}
	cases := []struct{ path, want string }{
		{"zero", "account"}, {"bound", "account"}, {"fraction", "account"}, {"past", "past"}, {"reload", "reload"}, {"added", "account"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			t.Parallel()
			s := openSession(t)
			obs, err := navigate(t, s, c.path)
			if err != nil {
				t.Fatal(err)
			}
			if obs.URL != base+c.want {
				t.Fatalf("ended at %s, want %s", obs.URL, base+c.want)
			}
		})
	}
	t.Run("foreign", func(t *testing.T) {
		t.Parallel()
		s := openGuarded(t, grantOnly(strings.TrimSuffix(base, "/")))
		_, err := navigate(t, s, "foreign")
		wantCode(t, err, errcode.ForeignOrigin)
		if n := foreign.hits.Load(); n != 0 {
			t.Fatalf("the foreign server got %d requests", n)
		}
	})
}
