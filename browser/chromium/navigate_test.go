package chromium

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// site is a loopback server with a few pages, counting the requests it gets.
type site struct {
	url  string // base URL, ending in /
	hits atomic.Int64
}

func serveSite(t *testing.T, pages map[string]string) *site {
	t.Helper()
	s := &site{}
	s.url = browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if strings.HasPrefix(body, "redirect:") {
			http.Redirect(w, r, strings.TrimPrefix(body, "redirect:"), http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}))
	return s
}

func (s *site) origin() string { return strings.TrimSuffix(s.url, "/") }

// grantOnly is a navigation check that allows one origin.
func grantOnly(origin string) func(context.Context, *url.URL) error {
	return func(_ context.Context, u *url.URL) error {
		if u.Scheme+"://"+u.Host != origin {
			return errcode.New(errcode.ForeignOrigin, "outside the grant")
		}
		return nil
	}
}

func openGuarded(t *testing.T, check func(context.Context, *url.URL) error) *Session {
	t.Helper()
	bs, err := shared.Get(t).NewSession(browsertest.Context(t, time.Minute), browser.SessionOptions{CheckNavigation: check})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bs.Close(context.Background()) })
	return bs.(*Session)
}

// Every way a page can take the session to an origin outside the grant is
// stopped before the foreign server sees a request, and the page stays.
func TestNavigationOutsideGrantIsStopped(t *testing.T) {
	t.Parallel()
	foreign := serveSite(t, map[string]string{"/": "<h1>foreign</h1>", "/post": "<h1>posted</h1>"})
	home := serveSite(t, map[string]string{
		"/":         `<a href="` + foreign.url + `">away</a><form method=post action="` + foreign.url + `post"><button>Go</button></form><h1>home</h1>`,
		"/redirect": "redirect:" + foreign.url,
		"/meta":     `<meta http-equiv=refresh content="0;url=` + foreign.url + `"><h1>meta</h1>`,
		"/refresh":  `<meta http-equiv=refresh content="1;url=` + foreign.url + `"><h1>refresh</h1>`,
		"/onload":   `<h1>onload</h1><script>addEventListener("load", () => { location.href = "` + foreign.url + `" })</script>`,
		"/script":   `<h1>script</h1><script>setTimeout(() => { location.href = "` + foreign.url + `" }, 50)</script>`,
		"/later":    `<h1>later</h1><script>setTimeout(() => { location.href = "` + foreign.url + `" }, 1000)</script>`,
		"/scheme":   `<a href="data:text/html,<h1>data</h1>">data</a><h1>scheme</h1>`,
	})
	s := openGuarded(t, grantOnly(home.origin()))
	ctx := browsertest.Context(t, 2*time.Minute)

	stays := func(path string) {
		t.Helper()
		obs, err := s.Observe(ctx, observation.Request{})
		if err != nil {
			t.Fatal(err)
		}
		if obs.URL != home.url+strings.TrimPrefix(path, "/") {
			t.Fatalf("the page is %s, want it kept at %s", obs.URL, path)
		}
	}

	t.Run("typed", func(t *testing.T) {
		_, err := s.Navigate(ctx, foreign.url)
		wantCode(t, err, errcode.ForeignOrigin)
	})
	obs, err := s.Navigate(ctx, home.url)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("link", func(t *testing.T) {
		_, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "away").Ref}, allowAll)
		wantCode(t, err, errcode.ForeignOrigin)
		stays("/")
	})
	t.Run("form post", func(t *testing.T) {
		obs, err := s.Observe(ctx, observation.Request{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Go").Ref}, allowAll)
		wantCode(t, err, errcode.ForeignOrigin)
		stays("/")
	})
	t.Run("server redirect", func(t *testing.T) {
		_, err := s.Navigate(ctx, home.url+"redirect")
		wantCode(t, err, errcode.ForeignOrigin)
		stays("/")
	})
	// Redirects the page announced (a meta refresh, at once or within its
	// bound, a navigation asked for in the load handler) are the
	// navigation's: it returns their refusal.
	for _, path := range []string{"/meta", "/refresh", "/onload"} {
		t.Run("client redirect "+path, func(t *testing.T) {
			_, err := s.Navigate(ctx, home.url+strings.TrimPrefix(path, "/"))
			wantCode(t, err, errcode.ForeignOrigin)
			stays(path)
		})
	}
	// A script timer announces nothing: its navigation is the page's own,
	// refused as it starts and met by the next call. (The 50 ms one may
	// fire before the load event: then the navigation refuses it.)
	for _, path := range []string{"/script", "/later"} {
		t.Run("page script timer "+path, func(t *testing.T) {
			before := s.tab.Refusals()
			if _, err := s.Navigate(ctx, home.url+strings.TrimPrefix(path, "/")); err != nil {
				wantCode(t, err, errcode.ForeignOrigin)
			}
			wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			for s.tab.Refusals() <= before && wctx.Err() == nil {
				time.Sleep(20 * time.Millisecond)
			}
			cancel()
			if s.tab.Refusals() <= before {
				t.Fatal("the page's own navigation was not refused")
			}
			stays(path)
		})
	}
	t.Run("non-http scheme", func(t *testing.T) {
		obs, err := s.Navigate(ctx, home.url+"scheme")
		if err != nil {
			t.Fatal(err)
		}
		// Chromium itself refuses a page's top-level data: navigation; the
		// page stays whatever the grant.
		s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "data").Ref}, allowAll)
		stays("/scheme")
	})
	if n := foreign.hits.Load(); n != 0 {
		t.Fatalf("the foreign server got %d requests", n)
	}
}

// Client-side redirects, by page script while parsing, a meta refresh or
// an onload handler, are followed to the final page, at most five hops.
func TestNavigateFollowsClientRedirects(t *testing.T) {
	t.Parallel()
	pages := map[string]string{
		"/parse":  `<script>location.href = "/final"</script><p>parsing</p>`,
		"/meta":   `<meta http-equiv=refresh content=0;url=/final><p>meta</p>`,
		"/onload": `<body onload="location.replace('/meta')"><p>onload</p>`,
		"/final":  `<h1>Final page</h1><button>Done</button>`,
		"/hop0":   `<script>location.href = "/hop1"</script>`,
	}
	for i := 1; i <= 7; i++ {
		pages[fmt.Sprintf("/hop%d", i)] = fmt.Sprintf(`<script>location.href = "/hop%d"</script>`, i+1)
	}
	pages["/chain5"] = `<script>location.href = "/c1"</script>`
	for i := 1; i <= 4; i++ {
		pages[fmt.Sprintf("/c%d", i)] = fmt.Sprintf(`<meta http-equiv=refresh content="0;url=/c%d">`, i+1)
	}
	pages["/c5"] = `<h1>Final page</h1><button>Done</button>`
	site := serveSite(t, pages)
	s := openSession(t)
	ctx := browsertest.Context(t, 3*time.Minute)
	for _, path := range []string{"parse", "meta", "onload", "chain5"} {
		obs, err := s.Navigate(ctx, site.url+path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(obs.Controls) != 1 || obs.Controls[0].Name != "Done" || obs.Loading {
			t.Fatalf("%s: ended at %s with %v (loading %v)", path, obs.URL, names(obs), obs.Loading)
		}
	}
	// Six hops are one too many: the navigation fails, and says why.
	_, err := s.Navigate(ctx, site.url+"hop0")
	wantCode(t, err, errcode.NavigationFailed)
	if _, err := s.Navigate(ctx, site.url+"final"); err != nil {
		t.Fatal(err)
	}
}

// A navigation whose page never finishes loading returns at its bound with
// the page as it is, marked loading; a server that never answers is a
// timeout and the page stays.
func TestNavigateIsBounded(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	stall := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/stall", stall)
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<h1>Images</h1><button>Ready</button><img src="/stall">`)
	})
	mux.HandleFunc("/script", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<h1>Script</h1><button>Before</button><script src="/stall"></script><button>After</button>`)
	})
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `<button>Home</button>`) })
	base := browsertest.ServeHandler(t, mux)
	t.Cleanup(func() { close(release) }) // runs before the server closes
	ctx := browsertest.Context(t, 3*time.Minute)

	bs, err := bounded.Get(t).NewSession(ctx, browser.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bs.Close(context.Background()) })
	s := bs.(*Session)
	obs, err := s.Navigate(ctx, base+"image")
	if err != nil {
		t.Fatal(err, errors.Unwrap(err))
	}
	if !obs.Loading || len(obs.Controls) != 1 {
		t.Fatalf("stalled image: loading %v, controls %v", obs.Loading, names(obs))
	}
	obs, err = s.Navigate(ctx, base+"script")
	if err != nil {
		t.Fatal(err)
	}
	if !obs.Loading || len(obs.Controls) != 1 || obs.Controls[0].Name != "Before" {
		t.Fatalf("stalled script: loading %v, controls %v", obs.Loading, names(obs))
	}
	if _, err := s.Navigate(ctx, base+"ok"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Navigate(ctx, base+"stall")
	wantCode(t, err, errcode.Timeout)
	obs, err = s.Observe(ctx, observation.Request{})
	if err != nil || obs.URL != base+"ok" {
		t.Fatalf("after a timeout the page is %v (%v), want it kept", obs, err)
	}
}
