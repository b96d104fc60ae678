package veetbrowser

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// otherHost serves on 127.0.0.2, another loopback host the test controls,
// and counts what reaches it: HTTP requests (a WebSocket handshake is one)
// and TCP connections.
type otherHost = browsertest.Counted

func serveOtherHost(t *testing.T) *otherHost {
	t.Helper()
	return serveCounting(t, "127.0.0.2:0", nil)
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

// With contain, no request of any kind (nor a preconnect hint's
// connection) reaches another host, the view
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
	total, sockets, ws := 0, 0, strings.Replace(other.URL, "http://", "ws://", 1)
	for _, b := range []*observation.Blocked{blocked, obs.Observation.Blocked} {
		if b == nil {
			continue
		}
		total += b.Total
		for _, o := range b.Origins {
			// The browser's own connections in the session's context are
			// refused and counted too; none may be to another loopback
			// origin.
			if strings.Contains(o.Origin, "127.0.0.") && o.Origin != other.URL && o.Origin != ws && o.Origin != origin {
				t.Errorf("blocked origin %q", o.Origin)
			}
			if o.Origin == ws {
				sockets += o.Count
			}
		}
	}
	if n, c := other.Requests.Load(), other.Conns.Load(); n != 0 || c != 0 {
		t.Fatalf("the other host got %d requests over %d connections (the preconnect hint's): %v", n, c, other.Seen())
	}
	if sockets != 1 {
		t.Errorf("%d WebSockets to %s counted, want 1: %+v %+v", sockets, ws, blocked, obs.Observation.Blocked)
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
}

func pageText(obs *observation.Observation) string {
	var b strings.Builder
	for _, p := range obs.Text {
		b.WriteString(p.Text)
		b.WriteString("\n")
	}
	return b.String()
}

// The blocked record lists 16 origins and counts the 17th, in the
// observation and in the 1 KiB view; every request was stopped before it
// left (the ports on 127.0.0.2 have nothing behind them, and nothing could
// have reached them).
func TestContainBlockedRecordBound(t *testing.T) {
	t.Parallel()
	for _, n := range []int{observation.MaxBlockedOrigins, observation.MaxBlockedOrigins + 1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			var imgs strings.Builder
			for i := range n {
				fmt.Fprintf(&imgs, `<img src="http://127.0.0.2:%d/logo.png" alt="partner %d">`, 9100+i, i)
			}
			base := browsertest.Serve(t, `<title>Partners</title><main><h1>Our partners</h1>`+imgs.String()+`<button onclick="this.textContent='Thanks'">Subscribe</button></main>`)
			s := session(t, SessionOptions{Budget: 1024, Grant: policy.Grant{Origins: []string{strings.TrimSuffix(base, "/")}, Contain: true}})
			ctx := browsertest.Context(t, time.Minute)
			res, err := s.Navigate(ctx, base)
			if err != nil {
				t.Fatal(err)
			}
			b := res.Observation.Blocked
			listed := min(n, observation.MaxBlockedOrigins)
			if b == nil || b.Total != n || len(b.Origins) != listed || b.OtherOrigins != n-listed || b.OtherRequests != n-listed {
				t.Fatalf("blocked: %+v", b)
			}
			v := view(t, res)
			if v.Blocked == nil || v.Blocked.Total != n || len(v.Blocked.Origins)+v.Blocked.OtherOrigins != n {
				t.Fatalf("the view's blocked record: %+v in %s", v.Blocked, res.View)
			}
			if len(res.View) > 1024 {
				t.Fatalf("view of %d bytes", len(res.View))
			}
		})
	}
}

// Without containment a 1.9.0 session's requests still pass the
// destination rules: a page's image from a private address is refused
// where they deny private destinations (the sidecar without
// --allow-private), and goes through where they do not (the local
// default), with no blocked record.
func TestRequestCheckDestinations(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	u, _ := url.Parse("http://127.0.0.2:9/x.png")
	deny := requestCheck(policy.Grant{}, policy.Destinations{DenyPrivate: true})
	wantCode(t, deny(ctx, u), errcode.ForeignOrigin)
	wantCode(t, deny(ctx, u), errcode.ForeignOrigin) // the kept verdict
	if err := requestCheck(policy.Grant{}, policy.Destinations{})(ctx, u); err != nil {
		t.Errorf("the local default refused a loopback image: %v", err)
	}
	meta, _ := url.Parse("http://169.254.169.254/latest/meta-data/")
	wantCode(t, requestCheck(policy.Grant{}, policy.Destinations{})(ctx, meta), errcode.ForeignOrigin)
	contained := requestCheck(policy.Grant{Origins: []string{"http://127.0.0.1:8080"}, Resources: []string{"http://127.0.0.2:9"}, Contain: true}, policy.Destinations{})
	if err := contained(ctx, u); err != nil {
		t.Errorf("a granted resource was refused: %v", err)
	}
	other, _ := url.Parse("http://127.0.0.2:10/x.png")
	wantCode(t, contained(ctx, other), errcode.ForeignOrigin)

	// In the browser, the local default lets a loopback image through.
	host := serveOtherHost(t)
	base := browsertest.Serve(t, fmt.Sprintf(`<title>Gallery</title><main><h1>Gallery</h1><img src="%s/photo.png" alt="photo"></main>`, host.URL))
	s := session(t, SessionOptions{})
	res, err := s.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	if res.Observation.Blocked != nil || host.Requests.Load() != 1 {
		t.Errorf("the local default: blocked %+v, %d requests", res.Observation.Blocked, host.Requests.Load())
	}
}
