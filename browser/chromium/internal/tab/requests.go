package tab

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/veetbot/veetbrowser/policy"
)

// Containment (tool version 1.9.0, the grant's contain field,
// docs/navigation.md): the request guard refuses every request to an origin
// outside the grant's origins and resources, and what CDP Fetch does not
// pause is stopped in each document before its own scripts run (in the
// page's own world, so a page script that works hard enough around it is
// not ruled out; docs/navigation.md says what is and is not covered):
//
//   - WebSocket handshakes, which Fetch never pauses: behind the session's
//     egress proxy (Options.Proxied) the proxy refuses and counts
//     them; without it the constructor the page, its frames and its
//     dedicated workers (workers.go) see refuses an origin outside the
//     containment (not counted in the blocked record: no request was ever
//     made);
//   - WebRTC, which opens sockets no request guard sees: the peer
//     connection constructors are gone;
//   - service workers (also without containment where the destination
//     rules refuse private addresses), whose own requests no page session
//     sees: registration is gone; without the proxy, shared workers too.
//
// Without containment and without the proxy, the same WebSocket
// constructor guard holds the destination rules for a host it can judge
// without resolving it (an address literal, a metadata or localhost name:
// Options.RefusedHosts).
//
// A preconnect or DNS prefetch hint sends no request: only the egress
// proxy, through which the browser then connects and resolves, stops what
// it would open.

// Containment is what a contained session's requests may reach.
type Containment struct {
	// Origins are the origins (scheme://host[:port]) requests may go to:
	// the grant's origins and resources.
	Origins []string
}

// allows reports whether origin is one of c's, a ws(s) origin being the
// http(s) one of the same host and port.
func (c *Containment) allows(origin string) bool {
	origin = httpOrigin(origin)
	for _, o := range c.Origins {
		if strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	return false
}

func httpOrigin(origin string) string {
	if rest, ok := strings.CutPrefix(origin, "ws://"); ok {
		return "http://" + rest
	}
	if rest, ok := strings.CutPrefix(origin, "wss://"); ok {
		return "https://" + rest
	}
	return origin
}

// noWebRTC removes the WebRTC constructors from a document before its own
// scripts run (WebIDL interface objects are configurable).
const noWebRTC = `(() => { for (const k of ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel", "RTCIceTransport", "RTCSctpTransport", "RTCDtlsTransport", "RTCRtpSender", "RTCRtpReceiver", "RTCRtpTransceiver"]) { try { delete globalThis[k]; } catch (e) {} } })();`

// guardFrameSession puts the request guard on an out-of-process frame's
// session. Its requests before the session attached went unasked: Chromium
// runs the frame before the tab hears of it.
func (t *Tab) guardFrameSession(ctx context.Context, target *chromedp.Target) error {
	if t.checkRequest == nil {
		return nil
	}
	if _, err := cdp.Call(ctx, target, fetch.Enable, fetch.EnableParams{
		Patterns:           []*fetch.RequestPattern{{URLPattern: "*", RequestStage: fetch.RequestStageRequest}},
		HandleAuthRequests: ptr(t.proxyAuth != nil),
	}); err != nil {
		return err
	}
	return t.enableRequestGuard(ctx, target)
}

// decideFrameRequest answers a request paused in a frame's session.
func (t *Tab) decideFrameRequest(target *chromedp.Target, ev *fetch.EventRequestPaused) {
	if target == nil {
		return // the pause came before Fetch.enable's answer: not possible
	}
	ctx, cancel := context.WithTimeout(t.ctx, t.timings.NavigationDecision)
	defer cancel()
	t.decideRequest(ctx, target, ev)
}

// hostRefusal is a function of the guard's rules (wsRules) that tells
// whether the destination rules refuse a URL's host without resolving it:
// an address in rules.ranges (an IPv4-mapped IPv6 address as its IPv4
// one), or a name in rules.names. It reads the host as the URL parser
// serialized it: an IPv4 address in dotted decimal, an IPv6 one in hex
// groups between brackets.
const hostRefusal = `((rules) => {
const address = (h) => {
  if (h.startsWith("[")) {
    const [head, tail] = h.slice(1, -1).split("::"), part = (s) => s ? s.split(":") : [];
    const hs = part(head), ts = tail === undefined ? [] : part(tail);
    const groups = tail === undefined ? hs : [...hs, ...Array(8 - hs.length - ts.length).fill("0"), ...ts];
    const b = groups.flatMap((g) => { const n = parseInt(g, 16); return [n >> 8, n & 255]; });
    return b.slice(0, 10).every((x) => x === 0) && b[10] === 255 && b[11] === 255 ? b.slice(12) : b;
  }
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(h);
  return m && m.slice(1).map(Number);
};
const within = (b, [p, bits]) => { if (b.length !== p.length) return false;
  for (let i = 0; i < bits; i++) { const k = i >> 3, s = 7 - (i & 7); if (((b[k] >> s) & 1) !== ((p[k] >> s) & 1)) return false; }
  return true; };
return (u) => { const h = u.hostname.toLowerCase().replace(/\.$/, "");
  if (rules.names.some((n) => n.startsWith(".") ? h.endsWith(n) : h === n)) return true;
  const b = address(h); return !!b && rules.ranges.some((r) => within(b, r)); };
})`

// guardWebSockets holds the WebSocket constructor of a document or a
// worker to the session's rules (%s: their JSON, wsRules): a WebSocket to
// an origin outside rules.allowed (when set, under containment) or to a
// host the destination rules refuse without resolving it (hostRefusal)
// throws SecurityError before any handshake. The page may still replace
// the constructor (a library's wrapper), but the browser's own is
// reachable through neither of its names. A host name that would have to
// be resolved is let through: the check must answer at once, and a lookup
// cannot.
const guardWebSockets = `(() => { const rules = %s; const W = globalThis.WebSocket; if (!W) return;
const refused = ` + hostRefusal + `(rules);
const P = new Proxy(W, { construct(target, args, nt) { const u = new URL(String(args[0]), location.href);
const o = (u.protocol === "wss:" ? "https:" : u.protocol === "ws:" ? "http:" : u.protocol) + "//" + u.host;
if ((rules.allowed && !rules.allowed.includes(o)) || refused(u)) throw new DOMException("this page may not open a WebSocket to " + u.origin, "SecurityError");
return Reflect.construct(target, args, nt); } });
Object.defineProperty(W.prototype, "constructor", { value: P, configurable: true, writable: true });
Object.defineProperty(globalThis, "WebSocket", { value: P, configurable: true, writable: true }); })();`

// wsRules are what guardWebSockets holds a WebSocket to.
type wsRules struct {
	Allowed []string `json:"allowed"` // null: any origin
	Ranges  [][2]any `json:"ranges"`  // [address bytes, prefix bits]
	Names   []string `json:"names"`
}

// webSocketGuard is the guardWebSockets source for the documents and
// workers of a tab with these options, "" when they need none: without a
// request check (before 1.9.0) or behind the egress proxy, which refuses
// (and counts) a WebSocket's tunnel itself, and when nothing is refused
// that the guard could see.
func webSocketGuard(opts Options) (string, error) {
	if opts.CheckRequest == nil || opts.Proxied {
		return "", nil
	}
	rules := rulesOf(opts.RefusedHosts)
	if opts.Contain != nil {
		rules.Allowed = make([]string, len(opts.Contain.Origins))
		for i, o := range opts.Contain.Origins {
			rules.Allowed[i] = strings.ToLower(strings.TrimSuffix(o, "/"))
		}
	} else if len(rules.Ranges) == 0 && len(rules.Names) == 0 {
		return "", nil
	}
	b, err := json.Marshal(rules)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(guardWebSockets, b), nil
}

// rulesOf is h as the guard reads it.
func rulesOf(h policy.HostRules) wsRules {
	rules := wsRules{Ranges: [][2]any{}, Names: h.Names}
	if rules.Names == nil {
		rules.Names = []string{}
	}
	for _, p := range h.Ranges {
		b := make([]int, 0, 16)
		for _, x := range p.Addr().AsSlice() {
			b = append(b, int(x))
		}
		rules.Ranges = append(rules.Ranges, [2]any{b, p.Bits()})
	}
	return rules
}

// noServiceWorkers removes service worker registration from a document.
const noServiceWorkers = `(() => { try { delete Navigator.prototype.serviceWorker; } catch (e) {} })();`

// noSharedWorkers removes the SharedWorker constructor from a document: a
// shared worker's own requests are paused by no page's Fetch (nor by
// Fetch on the worker's own session), so without the egress proxy one is
// not created where service workers are refused.
const noSharedWorkers = `(() => { try { delete globalThis.SharedWorker; } catch (e) {} })();`

// enableRequestGuard puts in every document of target, before its own
// scripts run, what stops the requests Fetch never pauses.
func (t *Tab) enableRequestGuard(ctx context.Context, target *chromedp.Target) error {
	var src string
	if t.contain != nil {
		src = noWebRTC
	}
	src += t.wsGuard
	if t.noWorkers {
		src += noServiceWorkers
		if !t.proxied {
			src += noSharedWorkers
		}
	}
	if src == "" {
		return nil
	}
	_, err := cdp.Call(ctx, target, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src, RunImmediately: ptr(true)})
	return err
}
