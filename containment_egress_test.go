package veetbrowser

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// What the request guard cannot see, the session's egress proxy stops:
// each test has a granted page reach for a third server (a tracker on
// localhost, another origin than the page's 127.0.0.1) in a way CDP Fetch
// does not pause, and asserts that the tracker accepted not one TCP
// connection, on a launched browser and on one attached as a browser on
// another machine behind its keyed egress proxy (onEachEgress).

// serveCounting serves pages on addr (host:0), counting requests and TCP
// connections (browsertest.ServeCounted).
func serveCounting(t *testing.T, addr string, pages map[string]string) *otherHost {
	return browsertest.ServeCounted(t, addr, pages)
}

// tracker is the third server, named localhost so that its origin is
// granted nowhere.
func tracker(t *testing.T) *otherHost {
	h := serveCounting(t, "127.0.0.1:0", nil)
	h.URL = browsertest.OtherOrigin(h.URL)
	return h
}

// blockedAfter observes once more after the page had its time and returns
// the blocked counts of res and of that observation, by origin.
func blockedAfter(t *testing.T, s *Session, res *Result) map[string]int {
	t.Helper()
	time.Sleep(1500 * time.Millisecond)
	obs, err := s.Observe(browsertest.Context(t, time.Minute), ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, b := range []*observation.Blocked{res.Observation.Blocked, obs.Observation.Blocked} {
		if b == nil {
			continue
		}
		for _, o := range b.Origins {
			counts[o.Origin] += o.Count
		}
	}
	return counts
}

func wantUntracked(t *testing.T, h *otherHost) {
	t.Helper()
	if n, c := h.Requests.Load(), h.Conns.Load(); n != 0 || c != 0 {
		t.Fatalf("the tracker got %d requests over %d connections: %v", n, c, h.Seen())
	}
}

// opener opens a session on the browser a test runs on.
type opener func(*testing.T, SessionOptions) *Session

// onEachEgress runs test on a launched browser, behind its loopback egress
// proxy, and on one attached to as to a browser on another machine,
// behind its keyed egress proxy (remoteEgressSession).
func onEachEgress(t *testing.T, test func(t *testing.T, open opener)) {
	for _, b := range []struct {
		name string
		open opener
	}{{"launched", func(t *testing.T, o SessionOptions) *Session { return session(t, o) }}, {"remote", remoteEgressSession}} {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			test(t, b.open)
		})
	}
}

func containedAt(t *testing.T, open opener, base string, resources ...string) *Session {
	return open(t, SessionOptions{Grant: policy.Grant{Origins: []string{strings.TrimSuffix(base, "/")}, Resources: resources, Contain: true}})
}

// (d) A preconnect hint in the markup and in a Link header, and a DNS
// prefetch: with a proxy the browser connects to the proxy alone and
// resolves no name, so the tracker accepts no connection.
func TestContainPreconnectOpensNoConnection(t *testing.T) {
	onEachEgress(t, func(t *testing.T, open opener) {
		tr := tracker(t)
		base := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", fmt.Sprintf("<%s>; rel=preconnect", tr.URL))
			fmt.Fprintf(w, `<!doctype html><title>Recipes</title><link rel="preconnect" href="%[1]s"><link rel="preconnect" href="%[1]s" crossorigin><link rel="dns-prefetch" href="%[1]s">
	<header><nav><a href="/">Recipes</a> <a href="/saved">Saved</a></nav></header><main><article><h1>Lentil soup</h1><p>Simmer for 30 minutes.</p></article></main><footer>Recipes Ltd.</footer>`, tr.URL)
		}))
		s := containedAt(t, open, base)
		res, err := s.Navigate(browsertest.Context(t, time.Minute), base)
		if err != nil {
			t.Fatal(err)
		}
		blockedAfter(t, s, res)
		wantUntracked(t, tr)
	})
}

// (c) and (e) A dedicated worker's and a shared worker's WebSocket and
// fetch, and the page's own WebSocket: none reaches the tracker, each
// refused WebSocket is counted under its ws origin, and the page learns of
// the refusal as of a failed connection.
func TestContainWorkersAndWebSockets(t *testing.T) {
	onEachEgress(t, func(t *testing.T, open opener) {
		tr := tracker(t)
		ws := strings.Replace(tr.URL, "http://", "ws://", 1)
		base := serveScripts(t, map[string]string{
			"/": fmt.Sprintf(`<!doctype html><title>Live scores</title><header><nav><a href="/">Scores</a></nav></header>
	<main><h1>Live scores</h1><p>Socket: <span id="sock">connecting</span></p></main>
	<script>
	try { const s = new WebSocket(%q); s.onerror = () => { document.getElementById("sock").textContent = "failed"; }; } catch (e) { document.getElementById("sock").textContent = "refused"; }
	new Worker("/worker.js");
	new SharedWorker("/shared.js");
	</script>`, ws+"/page"),
			"/worker.js": fmt.Sprintf(`new WebSocket(%q); fetch(%q).catch(() => {});`, ws+"/worker", tr.URL+"/worker"),
			"/shared.js": fmt.Sprintf(`new WebSocket(%q); fetch(%q).catch(() => {});`, ws+"/shared", tr.URL+"/shared"),
		})
		s := containedAt(t, open, base)
		res, err := s.Navigate(browsertest.Context(t, time.Minute), base)
		if err != nil {
			t.Fatal(err)
		}
		counts := blockedAfter(t, s, res)
		wantUntracked(t, tr)
		if counts[ws] != 3 || counts[tr.URL] < 2 {
			t.Errorf("blocked %v, want 3 WebSockets under %s and 2 fetches under %s", counts, ws, tr.URL)
		}
		obs, err := s.Observe(browsertest.Context(t, time.Minute), ObserveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(pageText(obs.Observation), "Socket: failed") {
			t.Errorf("the page's socket did not fail: %q", pageText(obs.Observation))
		}
	})
}

// (a) A granted popup whose deal page loads the tracker's pixel and calls
// it at once, in the moments before the session adopts the popup.
func TestContainGrantedPopupFirstMoments(t *testing.T) {
	onEachEgress(t, func(t *testing.T, open opener) {
		tr := tracker(t)
		base := serveScripts(t, map[string]string{
			"/": `<!doctype html><title>Travel deals</title><header><a href="/">Travel deals</a></header>
	<main><h1>Deals</h1><article><h2>Lisbon, 3 nights</h2><button onclick="window.open('/deal', 'deal')">See deal</button></article></main>`,
			"/deal": fmt.Sprintf(`<!doctype html><title>Lisbon deal</title><img src="%[1]s/pixel.gif" alt=""><script>fetch(%[2]q).catch(() => {}); navigator.sendBeacon(%[3]q, "open");</script>
	<main><h1>Lisbon, 3 nights</h1><p>From 240 EUR.</p></main>`, tr.URL, tr.URL+"/fetch", tr.URL+"/beacon"),
		})
		s := containedAt(t, open, base)
		ctx := browsertest.Context(t, time.Minute)
		res, err := s.Navigate(ctx, base)
		if err != nil {
			t.Fatal(err)
		}
		act, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: ref(t, res, "See deal")})
		if err != nil {
			t.Fatal(err)
		}
		counts := blockedAfter(t, s, act)
		wantUntracked(t, tr)
		if counts[tr.URL] < 1 {
			t.Errorf("blocked %v, want the popup's requests under %s", counts, tr.URL)
		}
	})
}

// (b) An out-of-process frame (a granted resource on 127.0.0.2, another
// site) that calls the tracker as its document starts, before the
// session has attached to it.
func TestContainFrameFirstMoments(t *testing.T) {
	onEachEgress(t, func(t *testing.T, open opener) {
		tr := tracker(t)
		widget := serveCounting(t, "127.0.0.2:0", map[string]string{
			"/chat": fmt.Sprintf(`<!doctype html><title>Chat</title><img src="%[1]s/w.gif" alt=""><script>fetch(%[2]q).catch(() => {});</script>
	<main><h2>Chat with us</h2><button>Start chat</button></main>`, tr.URL, tr.URL+"/widget"),
		})
		base := browsertest.Serve(t, fmt.Sprintf(`<!doctype html><title>Support</title><header><nav><a href="/">Help centre</a></nav></header>
	<main><h1>Support</h1><p>Ask us anything.</p><iframe src="%s/chat" title="Chat"></iframe></main><footer>Help Inc.</footer>`, widget.URL))
		s := containedAt(t, open, base, widget.URL)
		res, err := s.Navigate(browsertest.Context(t, time.Minute), base)
		if err != nil {
			t.Fatal(err)
		}
		counts := blockedAfter(t, s, res)
		wantUntracked(t, tr)
		if widget.Requests.Load() == 0 || counts[tr.URL] < 1 {
			t.Errorf("the widget got %d requests; blocked %v", widget.Requests.Load(), counts)
		}
	})
}

// A contained session's download comes through its proxy whole: the file
// lands with the digest of what the server sent.
func TestContainDownloadThroughProxy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const mb = 1 << 20
	base := downloadSite(t, "Linux=/files/1048576?name=acme-sync-4.2.tar.gz")
	s := session(t, SessionOptions{DownloadDir: dir, Grant: policy.Grant{Origins: []string{strings.TrimSuffix(base, "/")}, Contain: true}})
	res, err := s.Navigate(browsertest.Context(t, time.Minute), base)
	if err != nil {
		t.Fatal(err)
	}
	out, act := clickNamed(t, s, res, "Download Linux")
	if act == nil || act.Download == nil {
		t.Fatalf("the act reports no download: %s", out.View)
	}
	if d := act.Download; d.State != browser.DownloadCompleted || d.Bytes != mb || d.SHA256 != hexSHA(pattern(mb)) {
		t.Fatalf("download %+v", d)
	}
}
