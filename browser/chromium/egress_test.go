package chromium

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdptarget "github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// What CDP Fetch does not pause passes the destination rules too, without
// containment: every session of a browser on this machine that checks its
// requests is behind the egress proxy (on a fresh profile, and on a browser
// attached on a loopback endpoint, in a browser context of its own; on a
// persistent profile through the proxy the browser was launched with).
// Each test runs on all three.

// reachingPage is a live-scores page that reaches other (a base URL) in
// every way Fetch does not pause: its own WebSocket, a dedicated worker's
// and a shared worker's WebSocket and fetch, a preconnect hint in the
// markup and a DNS-prefetch hint. Each of the three shows what its socket
// and its fetch came to.
func reachingPage(other string) map[string]string {
	ws := strings.Replace(other, "http://", "ws://", 1)
	reach := fmt.Sprintf(`const out = {};
const done = (k, v) => { out[k] = v; if (out.socket && out.fetch) report(out); };
try { const s = new WebSocket(%q + "/" + who); s.onopen = () => done("socket", "open"); s.onerror = () => done("socket", "failed"); } catch (e) { done("socket", "refused"); }
fetch(%q + "/" + who).then(r => r.text()).then(t => done("fetch", t), () => done("fetch", "failed"));`, ws, other)
	return map[string]string{
		"/": fmt.Sprintf(`<!doctype html><title>Live scores</title><link rel="preconnect" href="%[1]s"><link rel="dns-prefetch" href="%[1]s">
<header><nav><a href="/">Scores</a></nav></header>
<main><h1>Live scores</h1><p id="page">page: waiting</p><p id="worker">worker: waiting</p><p id="shared">shared: waiting</p></main>
<script>
const show = (id, o) => { document.getElementById(id).textContent = id + ": socket " + o.socket + ", fetch " + o.fetch; };
new Worker("/worker.js").onmessage = e => show("worker", e.data);
new SharedWorker("/shared.js").port.onmessage = e => show("shared", e.data);
{ const who = "page", report = o => show("page", o);
%[2]s }
</script>`, other, reach),
		"/worker.js": `const who = "worker", report = o => postMessage(o);
` + reach,
		"/shared.js": `onconnect = e => { const port = e.ports[0], who = "shared", report = o => port.postMessage(o);
` + reach + ` };`,
	}
}

// launchProfile launches a browser on a persistent profile of its own.
func launchProfile(t *testing.T) *Provider {
	t.Helper()
	p, err := Launch(context.Background(), Options{UserDataDir: filepath.Join(t.TempDir(), "profile")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

// egressBrowsers are the browsers a session can be behind the egress proxy
// in: the shared one (a fresh profile), one of its own on a persistent
// profile, one the test started and attached to on loopback, and one
// attached to as to a browser on another machine (remoteEgress).
var egressBrowsers = []string{"fresh", "profile", "attached", "remote"}

// egressSession opens a 1.9.0 session that checks its requests with check,
// in the browser egressBrowsers names kind.
func egressSession(t *testing.T, kind string, check func(context.Context, *url.URL) error) *Session {
	t.Helper()
	var p *Provider
	switch kind {
	case "fresh":
		p = shared.Get(t)
	case "profile":
		p = launchProfile(t)
	case "attached":
		p, _ = attachOwn(t, Options{})
	case "remote":
		p, _ = attachOwn(t, Options{Remote: true, Egress: remoteEgress(t)})
	}
	return egressSessionOf(t, p, check)
}

// remoteEgress is the egress proxy of a browser on another machine,
// listening on 127.0.0.2 (another loopback address, which stands for an
// address of this machine that such a browser reaches).
func remoteEgress(t *testing.T) *Egress {
	t.Helper()
	e, err := ListenEgress("127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// egressSessionOf opens a 1.9.0 session of p that checks its requests with
// check.
func egressSessionOf(t *testing.T, p *Provider, check func(context.Context, *url.URL) error) *Session {
	t.Helper()
	bs, err := p.NewSession(browsertest.Context(t, time.Minute), browser.SessionOptions{Reading: true, Frames: true, Interactions: true, RealPages: true,
		CheckRequest: check, NoServiceWorkers: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bs.Close(context.Background()) })
	return bs.(*Session)
}

// settled observes s (observeUntil) until the page's text holds every one
// of want, and returns the text and the blocked counts by origin of every
// observation.
func settled(t *testing.T, s *Session, first *observation.Observation, want ...string) (string, map[string]int) {
	t.Helper()
	counts := map[string]int{}
	obs := observeUntil(t, s, first, func(o *observation.Observation) bool {
		if o.Blocked != nil {
			for _, b := range o.Blocked.Origins {
				counts[b.Origin] += b.Count
			}
		}
		return allIn(textOf(o), want)
	})
	return textOf(obs), counts
}

func allIn(text string, want []string) bool {
	for _, w := range want {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// privateReach serves a private server (127.0.0.2) and a site whose page
// reaches for it in every way (reachingPage), with the sidecar's
// destination rules (private destinations denied) as the request check;
// the site itself stands for a public one, so its own origin is let in.
func privateReach(t *testing.T) (private, site *browsertest.Counted, check func(context.Context, *url.URL) error) {
	t.Helper()
	private = browsertest.ServeCounted(t, "127.0.0.2:0", nil)
	site = browsertest.ServeCounted(t, "127.0.0.1:0", reachingPage(private.URL))
	dest := policy.Destinations{DenyPrivate: true}
	return private, site, func(ctx context.Context, u *url.URL) error {
		if u.Scheme+"://"+u.Host == site.URL {
			return nil
		}
		return dest.Check(ctx, u)
	}
}

// TestEgressDestinationsWithoutContainment: with private destinations
// denied (the sidecar without --allow-private) and no containment, a
// page's, a dedicated worker's and a shared worker's WebSocket and fetch
// and a preconnect and DNS-prefetch hint towards a private address
// (127.0.0.2) are refused before anything leaves: the private server
// accepts 0 connections, the three WebSockets are counted under its ws
// origin and the fetches under its http one, and the page learns of each
// refusal as of a failed connection. The page itself stands for a public
// one: the test's request check lets its own origin in.
func TestEgressDestinationsWithoutContainment(t *testing.T) {
	for _, kind := range egressBrowsers {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			private, site, check := privateReach(t)
			s := egressSession(t, kind, check)
			obs, err := s.Navigate(browsertest.Context(t, time.Minute), site.URL+"/")
			if err != nil {
				t.Fatal(err)
			}
			text, counts := settled(t, s, obs, "page: socket failed, fetch failed", "worker: socket failed, fetch failed", "shared: socket failed, fetch failed")
			time.Sleep(time.Second) // what the hints would open
			if n, c := private.Requests.Load(), private.Conns.Load(); n != 0 || c != 0 {
				t.Fatalf("the private server got %d requests over %d connections: %v", n, c, private.Seen())
			}
			ws := strings.Replace(private.URL, "http://", "ws://", 1)
			if counts[ws] != 3 || counts[private.URL] != 3 {
				t.Errorf("blocked %v, want 3 WebSockets under %s and 3 fetches under %s", counts, ws, private.URL)
			}
			if !allIn(text, []string{"page: socket failed, fetch failed", "worker: socket failed, fetch failed", "shared: socket failed, fetch failed"}) {
				t.Errorf("the page saw: %q", text)
			}
		})
	}
}

// TestEgressAllowsAllowedDestinations: the same page towards a destination
// the rules allow (another loopback host, in the local default) works
// through the proxy: every WebSocket opens, every fetch is answered, and
// nothing is blocked.
func TestEgressAllowsAllowedDestinations(t *testing.T) {
	for _, kind := range egressBrowsers {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			other := browsertest.ServeCounted(t, "127.0.0.2:0", nil)
			site := browsertest.ServeCounted(t, "127.0.0.1:0", reachingPage(other.URL))
			s := egressSession(t, kind, policy.Destinations{}.Check)
			obs, err := s.Navigate(browsertest.Context(t, time.Minute), site.URL+"/")
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"page: socket open, fetch tracked", "worker: socket open, fetch tracked", "shared: socket open, fetch tracked"}
			text, counts := settled(t, s, obs, want...)
			if !allIn(text, want) || len(counts) != 0 {
				t.Errorf("the page saw %q; blocked %v", text, counts)
			}
			if n := other.Requests.Load(); n < 6 {
				t.Errorf("the allowed server got %d requests (%v), want the 3 WebSocket handshakes and 3 fetches", n, other.Seen())
			}
		})
	}
}

// TestEgressLeavesAttachedDefaultContext: a session of a browser attached
// on loopback is behind its proxy in a browser context of its own, and the
// browser's default context, which its user's own tabs use, is left as it
// was: the tab it had is still there, in another context than the
// session's, and a tab the user opens there reaches the private server
// the session's page could not.
func TestEgressLeavesAttachedDefaultContext(t *testing.T) {
	t.Parallel()
	private, site, check := privateReach(t)
	p, _ := attachOwn(t, Options{})
	ctx := browsertest.Context(t, time.Minute)
	p.mu.Lock()
	b := chromedp.FromContext(p.current.ctx).Browser
	p.mu.Unlock()
	pages := func() []*cdptarget.Info {
		res, err := cdp.Call(ctx, b, cdptarget.GetTargets, cdptarget.GetTargetsParams{})
		if err != nil {
			t.Fatal(err)
		}
		return slices.DeleteFunc(res.TargetInfos, func(i *cdptarget.Info) bool { return i.Type != "page" })
	}
	users := pages()
	if len(users) == 0 {
		t.Fatal("the attached browser has no tab of its user's")
	}
	s := egressSessionOf(t, p, check)
	if !s.requests.Proxied {
		t.Fatal("the session of a browser attached on loopback is not behind the egress proxy")
	}
	obs, err := s.Navigate(ctx, site.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, s, obs, "page: socket failed, fetch failed", "worker: socket failed, fetch failed", "shared: socket failed, fetch failed")
	if c := private.Conns.Load(); c != 0 {
		t.Fatalf("the private server accepted %d connections from the session's page", c)
	}
	var session *cdptarget.Info
	now := pages()
	for _, i := range now {
		if i.TargetID == s.tab.TargetID() {
			session = i
		}
	}
	for _, u := range users {
		i := slices.IndexFunc(now, func(n *cdptarget.Info) bool { return n.TargetID == u.TargetID })
		if i < 0 || now[i].URL != u.URL || now[i].BrowserContextID != u.BrowserContextID {
			t.Fatalf("the user's tab %s (%s) is gone or changed: %+v", u.TargetID, u.URL, now)
		}
		if session == nil || u.BrowserContextID == session.BrowserContextID {
			t.Fatalf("the session's page %+v shares the user's context %s", session, u.BrowserContextID)
		}
	}
	// A tab the user opens, in the default context, is behind no proxy of
	// the session's.
	opened, err := cdp.Call(ctx, b, cdptarget.CreateTarget, cdptarget.CreateTargetParams{URL: private.URL + "/user"})
	if err != nil {
		t.Fatal(err)
	}
	for private.Requests.Load() == 0 && ctx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
	}
	if n := private.Requests.Load(); n == 0 {
		t.Fatalf("the user's own tab did not reach the private server: %v", private.Seen())
	}
	for _, i := range pages() {
		if i.TargetID == opened.TargetID && i.BrowserContextID != users[0].BrowserContextID {
			t.Errorf("the user's new tab is in context %s, not the default %s", i.BrowserContextID, users[0].BrowserContextID)
		}
	}
}

// TestRemoteEgressNeedsTheSessionsCredentials: a browser attached as one on
// another machine, behind a keyed egress proxy on 127.0.0.2 (standing for
// an address of this machine that it reaches). The session works through
// it (navigate, observe, a click that navigates, a popup that becomes a
// tab), and the proxy serves no one else: a client without the session's
// credentials, or with a wrong password, gets 407 for a request and for a
// tunnel, and the site sees no connection from it; the session's own
// credentials stop working when the session closes.
func TestRemoteEgressNeedsTheSessionsCredentials(t *testing.T) {
	t.Parallel()
	e := remoteEgress(t)
	p, _ := attachOwn(t, Options{Remote: true, Egress: e})
	site := browsertest.ServeCounted(t, "127.0.0.1:0", map[string]string{
		"/": `<!doctype html><title>Live scores</title><main><h1>Live scores</h1>
<a href="/standings">Standings</a> <button onclick="window.open('/popup')">Open the scorer</button></main>`,
		"/standings": `<!doctype html><title>Standings</title><main><h1>Standings table</h1></main>`,
		"/popup":     `<!doctype html><title>Scorer</title><main><h1>Top scorer</h1></main>`,
	})
	ctx := browsertest.Context(t, time.Minute)
	s := egressSessionOf(t, p, policy.Destinations{}.Check)
	if !s.requests.Proxied || s.requests.ProxyAuth == nil {
		t.Fatal("the session of a remote browser with an egress proxy is not behind it")
	}
	creds := *s.requests.ProxyAuth
	obs, err := s.Navigate(ctx, site.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(textOf(obs), "Live scores") {
		t.Fatalf("navigate: %q", textOf(obs))
	}
	if res := clickNamed(t, s, obs, "Standings"); !strings.Contains(textOf(res.Observation), "Standings table") {
		t.Fatalf("the click did not navigate: %q", textOf(res.Observation))
	}
	if _, err := s.Navigate(ctx, site.URL+"/"); err != nil {
		t.Fatal(err)
	}
	obs, err = s.Observe(ctx, observation.Request{})
	if err != nil {
		t.Fatal(err)
	}
	clickNamed(t, s, obs, "Open the scorer")
	waitTabs(t, s, 2)
	for i := 0; !slices.Contains(site.Seen(), "/popup") && i < 50; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if !slices.Contains(site.Seen(), "/popup") {
		t.Fatalf("the popup's document never reached the site: %v", site.Seen())
	}

	conns, requests := site.Conns.Load(), site.Requests.Load()
	wrong := creds
	wrong.Password = strings.Repeat("x", len(creds.Password))
	for name, c := range map[string]*url.Userinfo{"none": nil, "wrong password": url.UserPassword(wrong.User, wrong.Password)} {
		if code := getThrough(t, e.Addr(), c, site.URL+"/"); code != 407 {
			t.Errorf("%s: the proxy answered %d, want 407", name, code)
		}
	}
	if status := connectThrough(t, e.Addr(), strings.TrimPrefix(site.URL, "http://")); !strings.Contains(status, " 407 ") {
		t.Errorf("a tunnel without credentials: %q", status)
	}
	if c, n := site.Conns.Load()-conns, site.Requests.Load()-requests; c != 0 || n != 0 {
		t.Fatalf("the site got %d connections and %d requests from clients without the session's credentials", c, n)
	}
	if code := getThrough(t, e.Addr(), url.UserPassword(creds.User, creds.Password), site.URL+"/"); code != 200 {
		t.Errorf("with the session's credentials: %d", code)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if code := getThrough(t, e.Addr(), url.UserPassword(creds.User, creds.Password), site.URL+"/"); code != 407 {
		t.Errorf("a closed session's credentials: %d, want 407", code)
	}
}

// getThrough gets target through the proxy at addr, with user as its
// credentials (nil: none), and returns the status code.
func getThrough(t *testing.T, addr string, user *url.Userinfo, target string) int {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: addr, User: user})}}
	res, err := c.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// connectThrough asks the proxy at addr for a tunnel to host without
// credentials and returns its status line.
func connectThrough(t *testing.T, addr, host string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", host, host)
	status, _ := bufio.NewReader(c).ReadString('\n')
	return status
}
