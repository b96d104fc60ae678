package chromium

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// The hosted sidecar's destination rules (private and loopback addresses
// denied, no --allow-private) hold for a page's subresources too: its
// image, fetch and frame towards a private address are refused before they
// leave the browser, and counted. The page itself stands for a public one:
// the test's checks let its own origin in.
func TestSubresourceToPrivateDestinationRefused(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	l, lerr := net.Listen("tcp", "127.0.0.2:0")
	if lerr != nil {
		t.Skipf("no second loopback address: %v", lerr)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	private := srv.URL
	base := browsertest.Serve(t, fmt.Sprintf(`<title>Status</title><main><h1>Service status</h1>
<img src="%[1]s/internal/graph.png" alt="graph"><iframe src="%[1]s/admin" title="admin"></iframe>
<p id="s">checking</p></main>
<script>fetch("%[1]s/metrics").then(() => s.textContent = "reached", () => s.textContent = "refused");</script>`, private))
	dest := policy.Destinations{DenyPrivate: true}
	check := func(ctx context.Context, u *url.URL) error {
		if u.Scheme+"://"+u.Host+"/" == base {
			return nil
		}
		return dest.Check(ctx, u)
	}
	s := openTabsAt(t, browser.SessionOptions{Reading: true, Frames: true, Interactions: true, RealPages: true,
		CheckRequest: check, NoServiceWorkers: true}, base)
	ctx := browsertest.Context(t, time.Minute)
	// openTabsAt's navigation reported the first load: load it again.
	obs, err := s.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	var blocked int // towards the private destination
	count := func(b *observation.Blocked) {
		if b == nil {
			return
		}
		for _, o := range b.Origins {
			if o.Origin == private {
				blocked += o.Count
			}
		}
	}
	count(obs.Blocked)
	for range 50 {
		if blocked >= 3 {
			break
		}
		if obs, err = s.Observe(ctx, observation.Request{}); err != nil {
			t.Fatal(err)
		}
		count(obs.Blocked)
		time.Sleep(100 * time.Millisecond)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the private destination got %d requests", n)
	}
	if blocked != 3 {
		t.Errorf("blocked %d requests, want 3 (image, frame, fetch)", blocked)
	}
}

// Without containment, on a remote attached browser (no egress proxy), the
// hosted destination rules hold a WebSocket whose host is a private
// address literal, from the page and from a dedicated worker (held until
// its guard is in): the constructor throws SecurityError, and the private
// address (127.0.0.2) accepts not one connection. The worker's fetch there
// is refused by the request guard and counted; the page and the worker
// keep working. Shared workers, whose requests nothing here could check,
// are absent.
func TestAttachedWorkerWebSocketToPrivateAddressRefused(t *testing.T) {
	t.Parallel()
	target := browsertest.ServeCounted(t, "127.0.0.2:0", nil)
	private := target.URL
	ws := "ws://" + strings.TrimPrefix(private, "http://")
	probe := fmt.Sprintf(`let socket; try { new WebSocket(%q); socket = "opened"; } catch (e) { socket = "refused " + e.name; }
fetch(%q).then(() => "reached", () => "blocked").then((f) => postMessage("socket " + socket + ", fetch " + f));`, ws+"/worker", private+"/worker")
	base := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/worker.js" {
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, probe)
			return
		}
		fmt.Fprintf(w, `<title>Status</title><main><h1>Service status</h1><p>Page socket: <span id="sock">?</span></p>
<p>Worker: <span id="worker">waiting</span></p><p>Shared worker: <span id="shared">?</span></p></main>
<script>try { new WebSocket(%q); sock.textContent = "opened"; } catch (e) { sock.textContent = "refused " + e.name; }
new Worker("/worker.js").onmessage = (e) => { worker.textContent = e.data; };
shared.textContent = typeof SharedWorker === "undefined" ? "absent" : "present";</script>`, ws+"/page")
	}))
	page, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	dest := policy.Destinations{DenyPrivate: true}
	// The page stands for a public one: the check lets its own origin in.
	check := func(ctx context.Context, u *url.URL) error {
		if u.Host == page.Host {
			return nil
		}
		return dest.Check(ctx, u)
	}
	p, _ := attachOwn(t, Options{Remote: true})
	ctx := browsertest.Context(t, time.Minute)
	s, err := p.NewSession(ctx, browser.SessionOptions{Reading: true, Frames: true, Interactions: true, RealPages: true,
		CheckRequest: check, NoServiceWorkers: true, RefusedHosts: dest.HostRules()})
	if err != nil {
		t.Fatal(err)
	}
	obs, err := s.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	blocked := 0
	for i := 0; ; i++ {
		if obs.Blocked != nil {
			for _, o := range obs.Blocked.Origins {
				if o.Origin == private {
					blocked += o.Count
				}
			}
		}
		if !strings.Contains(textOf(obs), "waiting") || i == 50 {
			break
		}
		time.Sleep(200 * time.Millisecond)
		if obs, err = s.Observe(ctx, observation.Request{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{"Page socket: refused SecurityError", "Worker: socket refused SecurityError, fetch blocked", "Shared worker: absent"} {
		if !strings.Contains(textOf(obs), want) {
			t.Errorf("the page does not say %q:\n%s", want, textOf(obs))
		}
	}
	if n := target.Conns.Load(); n != 0 {
		t.Fatalf("the private address accepted %d connections", n)
	}
	if blocked != 1 {
		t.Errorf("blocked %d requests towards %s, want 1 (the worker's fetch)", blocked, private)
	}
}

// A worker the tab cannot guard is never resumed: on a remote attached
// browser (no egress proxy), with no time to attach to it (FrameAttach of
// 1 ns), the held worker's script never runs, so its WebSocket to the
// private address is never made, while the page goes on.
func TestUnguardedWorkerNeverRuns(t *testing.T) {
	t.Parallel()
	target := browsertest.ServeCounted(t, "127.0.0.2:0", nil)
	// Local destination rules allow 127.0.0.2: nothing but the hold keeps
	// this WebSocket from being made.
	ws := "ws://" + strings.TrimPrefix(target.URL, "http://")
	base := browsertest.ServePages(t, map[string]string{
		"/": `<title>Status</title><main><h1>Service status</h1><p>Page: <span id="page">?</span></p>
<p>Worker: <span id="worker">waiting</span></p></main>
<script>new Worker("/worker.js").onmessage = (e) => { worker.textContent = e.data; }; page.textContent = "working";</script>`,
		"/worker.js": fmt.Sprintf(`postMessage("running"); new WebSocket(%q);`, ws),
	})
	tm := DefaultTimings()
	tm.FrameAttach = time.Nanosecond
	wsURL, _ := browsertest.DevTools(t)
	p, err := Attach(context.Background(), wsURL, Options{Timings: &tm, Remote: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	ctx := browsertest.Context(t, time.Minute)
	s, err := p.NewSession(ctx, browser.SessionOptions{Reading: true, Interactions: true, RealPages: true,
		CheckRequest: func(context.Context, *url.URL) error { return nil }, RefusedHosts: policy.Destinations{}.HostRules()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Navigate(ctx, base); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // what a resumed worker would have done by now
	obs, err := s.Observe(ctx, observation.Request{})
	if err != nil {
		t.Fatal(err)
	}
	if text := textOf(obs); !strings.Contains(text, "Page: working") || !strings.Contains(text, "Worker: waiting") {
		t.Errorf("want the page working and the worker never run:\n%s", text)
	}
	if n := target.Conns.Load(); n != 0 {
		t.Fatalf("the unguarded worker's WebSocket made %d connections", n)
	}
}

// The browser's fetch of a page's icon (a <link rel=icon>'s, here on
// another origin, as sites put them on a CDN, or the default
// /favicon.ico of a page without one) never leaves it, with or without a
// request check: the tab fails it (and counts it, which shows that the
// browser did ask), and no observation counts it as blocked, even where
// the session's check refuses the icon's origin; the 1.10.0 network log
// lists it failed, not blocked (that flag says the grant refused it). The
// page's own image, and its fetch() that accepts images, go through.
func TestPageIconIsNotFetched(t *testing.T) {
	t.Parallel()
	for _, checked := range []bool{false, true} {
		t.Run(fmt.Sprintf("request check %v", checked), func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			hits := map[string]int{}
			count := func(r *http.Request) {
				mu.Lock()
				hits[r.Host+r.URL.Path]++
				mu.Unlock()
			}
			cdn := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				count(r)
				w.Header().Set("Content-Type", "image/svg+xml")
				fmt.Fprint(w, `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect width="16" height="16"/></svg>`)
			}))
			base := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				count(r)
				switch r.URL.Path {
				case "/":
					w.Header().Set("Content-Type", "text/html")
					fmt.Fprintf(w, `<!doctype html><title>Icons</title><link rel=icon href=%sicon.svg><h1>Lamps</h1>
<img src=/pic.svg alt="A lamp"><p id=s>loading</p>
<script>fetch("/fetched", {headers: {Accept: "image/png"}}).then(() => s.textContent = "fetched")</script>`, cdn)
				case "/plain":
					w.Header().Set("Content-Type", "text/html")
					fmt.Fprint(w, `<!doctype html><title>Plain</title><p>No icon named.`)
				case "/pic.svg":
					w.Header().Set("Content-Type", "image/svg+xml")
					fmt.Fprint(w, `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect width="16" height="16"/></svg>`)
				default:
					fmt.Fprint(w, "ok")
				}
			}))
			host := func(u string) string { return strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/") }
			opts := browser.SessionOptions{Reading: true, Frames: true, Interactions: true, RealPages: true, Debugging: true}
			if checked {
				// As containment does: the page's origin alone.
				opts.CheckRequest = func(_ context.Context, u *url.URL) error {
					if u.Host != host(base) {
						return errors.New("outside the grant")
					}
					return nil
				}
			}
			ctx := browsertest.Context(t, time.Minute)
			s, _ := openOn(t, ctx, opts, base)
			// The browser asks for the icon after the load: wait (10 s at
			// most) for the guard to have failed it.
			icons := func(want int64) {
				t.Helper()
				for i := 0; s.tab.Favicons() < want; i++ {
					if i == 200 {
						t.Fatalf("the browser asked for %d page icons, want %d", s.tab.Favicons(), want)
					}
					time.Sleep(50 * time.Millisecond)
				}
			}
			icons(1) // the link's
			if obs, err := s.Observe(ctx, observation.Request{}); err != nil {
				t.Fatal(err)
			} else if obs.Blocked != nil {
				t.Errorf("the icon was counted as blocked: %+v", obs.Blocked)
			}
			log, err := s.Log(ctx, browser.LogRequest{Log: observation.LogNetwork})
			if err != nil {
				t.Fatal(err)
			}
			failed := map[string]bool{}
			for _, e := range log.Entries {
				if e.Blocked {
					t.Errorf("the network log marks %s blocked", e.URL)
				}
				failed[host(e.URL)] = e.Failure != ""
			}
			if want := map[string]bool{host(base): false, host(base) + "/pic.svg": false, host(base) + "/fetched": false,
				host(cdn) + "/icon.svg": true}; !maps.Equal(failed, want) {
				t.Errorf("the network log's entries, failed or not: %v, want %v", failed, want)
			}
			// A page without a link has the default icon asked for.
			if _, err := s.Navigate(ctx, base+"plain"); err != nil {
				t.Fatal(err)
			}
			icons(2)
			mu.Lock()
			defer mu.Unlock()
			if hits[host(base)+"/favicon.ico"] != 0 || hits[host(cdn)+"/icon.svg"] != 0 {
				t.Errorf("the page's icons reached a server: %v", hits)
			}
			if hits[host(base)+"/pic.svg"] != 1 || hits[host(base)+"/fetched"] != 1 {
				t.Errorf("the page's image and fetch did not reach the server once each: %v", hits)
			}
		})
	}
}
