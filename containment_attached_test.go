package veetbrowser

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// A browser on another machine, reached over its DevTools port, gets no
// egress proxy unless given an egress address (remoteEgressSession): what
// Fetch does not pause is held by the guards alone.
// Each test attaches to a Chromium of its own, on this machine's loopback
// (the only place a test may run one), declared Remote as a forwarded port
// to another machine would be.

// attachedSession opens a session with opts on a browser the test started
// and attached to as to a remote one, as the sidecar's fleet does.
func attachedSession(t *testing.T, opts SessionOptions) *Session {
	return attachedSessionWith(t, chromium.Options{Remote: true}, opts)
}

// remoteEgressSession opens a session with opts on a browser attached to
// as to a remote one that reaches its egress proxy on 127.0.0.2 (another
// loopback address, standing for an address of this machine).
func remoteEgressSession(t *testing.T, opts SessionOptions) *Session {
	t.Helper()
	e, err := chromium.ListenEgress("127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return attachedSessionWith(t, chromium.Options{Remote: true, Egress: e}, opts)
}

func attachedSessionWith(t *testing.T, copts chromium.Options, opts SessionOptions) *Session {
	t.Helper()
	ws, _ := browsertest.DevTools(t)
	p, err := chromium.Attach(context.Background(), ws, copts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	rt, err := New(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	s, err := rt.NewSession(browsertest.Context(t, time.Minute), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

// Contained, on an attached browser: the page's WebSocket, and a dedicated
// worker's WebSocket and fetch towards the tracker are refused (the worker
// is held until its guard is in, then runs and reports), a shared worker
// is not created (SharedWorker is absent), and the tracker accepts not one
// connection. The page keeps working: its own script and the worker ran.
func TestContainAttachedWorkers(t *testing.T) {
	t.Parallel()
	tr := tracker(t)
	ws := strings.Replace(tr.URL, "http://", "ws://", 1)
	probe := fmt.Sprintf(`let socket; try { new WebSocket(%q); socket = "opened"; } catch (e) { socket = "refused " + e.name; }
const report = fetch(%q).then(() => "reached", () => "blocked").then((f) => "socket " + socket + ", fetch " + f + ", nested " + typeof Worker);`, ws+"/worker", tr.URL+"/worker")
	base := serveScripts(t, map[string]string{
		"/": fmt.Sprintf(`<!doctype html><title>Live scores</title><header><nav><a href="/">Scores</a></nav></header>
<main><h1>Live scores</h1><p>Page socket: <span id="sock">?</span></p><p>Worker: <span id="worker">waiting</span></p>
<p>Shared worker: <span id="shared">waiting</span></p></main>
<script>
try { new WebSocket(%q); sock.textContent = "opened"; } catch (e) { sock.textContent = "refused " + e.name; }
new Worker("/worker.js").onmessage = (e) => { worker.textContent = e.data; };
if (typeof SharedWorker === "undefined") shared.textContent = "absent";
else new SharedWorker("/shared.js").port.onmessage = (e) => { shared.textContent = e.data; };
</script>`, ws+"/page"),
		"/worker.js": probe + `report.then(postMessage);`,
		"/shared.js": `onconnect = (c) => { ` + strings.ReplaceAll(probe, "/worker", "/shared") + ` report.then((r) => c.ports[0].postMessage(r)); };`,
	})
	s := attachedSession(t, SessionOptions{Grant: policy.Grant{Origins: []string{strings.TrimSuffix(base, "/")}, Contain: true}})
	ctx := browsertest.Context(t, time.Minute)
	res, err := s.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	// Each observation takes the requests blocked since the one before.
	blocked := map[string]int{}
	tally := func(b *observation.Blocked) {
		if b == nil {
			return
		}
		for _, o := range b.Origins {
			blocked[o.Origin] += o.Count
		}
	}
	tally(res.Observation.Blocked)
	text := pageText(res.Observation)
	for i := 0; strings.Contains(text, "waiting") && i < 50; i++ {
		time.Sleep(200 * time.Millisecond)
		obs, err := s.Observe(ctx, ObserveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tally(obs.Observation.Blocked)
		text = pageText(obs.Observation)
	}
	for _, want := range []string{"Page socket: refused SecurityError", "Worker: socket refused SecurityError, fetch blocked, nested undefined", "Shared worker: absent"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not say %q:\n%s", want, text)
		}
	}
	time.Sleep(1500 * time.Millisecond) // what the page might still send
	obs, err := s.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tally(obs.Observation.Blocked)
	wantUntracked(t, tr)
	if blocked[tr.URL] != 1 {
		t.Errorf("blocked %v, want the worker's fetch under %s", blocked, tr.URL)
	}
}
