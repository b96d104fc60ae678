package veetbrowser

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
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

// otherHost serves on 127.0.0.2, another loopback host the test controls,
// and counts what reaches it: HTTP requests (a WebSocket handshake is one)
// and TCP connections.
type otherHost struct {
	URL      string
	requests atomic.Int32
	conns    atomic.Int32
	mu       sync.Mutex
	paths    []string
}

func serveOtherHost(t *testing.T) *otherHost {
	t.Helper()
	h := &otherHost{}
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no second loopback address: %v", err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.requests.Add(1)
		h.mu.Lock()
		h.paths = append(h.paths, r.URL.Path)
		h.mu.Unlock()
		w.Header().Set("Access-Control-Allow-Origin", "*")
		fmt.Fprint(w, "other")
	}))
	srv.Listener.Close()
	srv.Listener = l
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			h.conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	h.URL = srv.URL
	return h
}

func (h *otherHost) seen() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.paths...)
}

// everyRequestKind is an order page that, as it loads, asks another host
// for something by every means a page has: an image, a script, a frame, a
// prefetch and a preconnect hint, fetch, XHR, a beacon, EventSource, a
// WebSocket, a dedicated worker's fetch and a service worker. It then says
// whether WebRTC is there, without ever creating a peer connection, and
// its own button still works.
func everyRequestKind(other string) map[string]string {
	ws := strings.Replace(other, "http://", "ws://", 1)
	return map[string]string{
		"/": fmt.Sprintf(`<!doctype html><title>Order 1042</title>
<link rel="preconnect" href="%[1]s"><link rel="prefetch" href="%[1]s/prefetch">
<header><nav><a href="/">Shop</a> <a href="/orders">Orders</a></nav></header>
<main><h1>Order 1042</h1>
<img src="%[1]s/pixel.png" alt="tracking pixel">
<p>Status: <span id="status">loading</span></p>
<p>WebRTC: <span id="rtc">?</span></p>
<button onclick="document.getElementById('status').textContent = 'Details: 3 items, shipped'">Show details</button>
<iframe src="%[1]s/ad" title="Advertisement"></iframe>
</main>
<footer>Shop Inc.</footer>
<script src="%[1]s/analytics.js"></script>
<script>
fetch("%[1]s/fetch").catch(() => {});
const x = new XMLHttpRequest(); x.open("GET", "%[1]s/xhr"); x.send();
navigator.sendBeacon("%[1]s/beacon", "seen");
const es = new EventSource("%[1]s/events"); setTimeout(() => es.close(), 1500);
try { new WebSocket("%[2]s/socket"); } catch (e) {}
new Worker("/worker.js");
if (navigator.serviceWorker) navigator.serviceWorker.register("/sw.js").catch(() => {});
const f = document.createElement("iframe"); document.body.append(f);
document.getElementById("rtc").textContent = [typeof RTCPeerConnection, typeof webkitRTCPeerConnection, typeof f.contentWindow.RTCPeerConnection].join(" ");
document.getElementById("status").textContent = "Awaiting confirmation";
</script>`, other, ws),
		"/worker.js": fmt.Sprintf(`fetch(%q).catch(() => {});`, other+"/from-worker"),
		"/sw.js":     fmt.Sprintf(`fetch(%q).catch(() => {});`, other+"/from-service-worker"),
	}
}

func serveScripts(t *testing.T, pages map[string]string) string {
	t.Helper()
	return browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(r.URL.Path, ".js") {
			w.Header().Set("Content-Type", "text/javascript")
		} else {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		}
		fmt.Fprint(w, body)
	}))
}

// With contain, no request of any kind reaches another host, the view
// reports them as blocked, WebRTC is absent, and the page still works.
func TestContainBlocksEveryRequestKind(t *testing.T) {
	t.Parallel()
	other := serveOtherHost(t)
	base := serveScripts(t, everyRequestKind(other.URL))
	origin := strings.TrimSuffix(base, "/")
	s := session(t, SessionOptions{Grant: policy.Grant{Origins: []string{origin}, Contain: true}})
	ctx := browsertest.Context(t, time.Minute)
	res, err := s.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // EventSource retries, the worker and the service worker's attempt
	blocked := res.Observation.Blocked
	obs, err := s.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, b := range []*observation.Blocked{blocked, obs.Observation.Blocked} {
		if b == nil {
			continue
		}
		total += b.Total
		for _, o := range b.Origins {
			if o.Origin != other.URL && o.Origin != origin {
				t.Errorf("blocked origin %q", o.Origin)
			}
		}
	}
	if n := other.requests.Load(); n != 0 {
		t.Fatalf("the other host got %d requests: %v", n, other.seen())
	}
	// img, script, frame, prefetch, fetch, XHR, beacon, EventSource,
	// WebSocket, the worker's fetch, the service worker's script.
	if total < 9 {
		t.Errorf("blocked %d requests, want at least 9: %+v %+v", total, blocked, obs.Observation.Blocked)
	}
	if blocked == nil || !strings.Contains(string(res.View), `"blocked"`) {
		t.Errorf("the view shows no blocked record: %s", res.View)
	}
	text := pageText(obs.Observation)
	if !strings.Contains(text, "WebRTC: undefined undefined undefined") {
		t.Errorf("WebRTC is not off: %q", text)
	}
	if !strings.Contains(text, "Awaiting confirmation") {
		t.Errorf("the page's script did not run to its end: %q", text)
	}
	act, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: ref(t, obs, "Show details")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pageText(act.Observation), "Details: 3 items, shipped") {
		t.Errorf("the page does not work: %q", pageText(act.Observation))
	}
	t.Logf("blocked %d requests; TCP connections the other host saw (the preconnect hint): %d", total, other.conns.Load())
}

func pageText(obs *observation.Observation) string {
	var b strings.Builder
	for _, p := range obs.Text {
		b.WriteString(p.Text)
		b.WriteString("\n")
	}
	return b.String()
}
