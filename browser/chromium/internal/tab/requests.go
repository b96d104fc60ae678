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
)

// Containment (tool version 1.9.0, the grant's contain field,
// docs/navigation.md): the request guard refuses every request to an origin
// outside the grant's origins and resources, and what CDP Fetch does not
// pause is stopped in each document before its own scripts run (in the
// page's own world, so a page script that works hard enough around it is
// not ruled out; docs/navigation.md says what is and is not covered):
//
//   - WebSocket handshakes, which Fetch never pauses: behind the session's
//     egress proxy (Containment.Proxied) the proxy refuses and counts
//     them; without it the constructor the page sees refuses an origin
//     outside the containment (not counted in the blocked record: no
//     request was ever made);
//   - WebRTC, which opens sockets no request guard sees: the peer
//     connection constructors are gone;
//   - service workers (also without containment where the destination
//     rules refuse private addresses), whose own requests no page session
//     sees: registration is gone.
//
// A preconnect or DNS prefetch hint sends no request: only the egress
// proxy, through which the browser then connects and resolves, stops what
// it would open.

// Containment is what a contained session's requests may reach.
type Containment struct {
	// Origins are the origins (scheme://host[:port]) requests may go to:
	// the grant's origins and resources.
	Origins []string
	// Proxied: every connection of the session goes through its egress
	// proxy, which refuses (and counts) a WebSocket's tunnel itself, so
	// the constructor the page sees is left alone.
	Proxied bool
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
		Patterns: []*fetch.RequestPattern{{URLPattern: "*", RequestStage: fetch.RequestStageRequest}},
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

// holdWebSockets lets a WebSocket be created only to an allowed origin
// (%s: their JSON list); the constructor the page sees, under both of its
// names, refuses the others before any handshake. The page may still
// replace it (a library's wrapper), but the browser's own constructor is
// reachable through neither name.
const holdWebSockets = `(() => { const allowed = %s; const W = globalThis.WebSocket; if (!W) return;
const P = new Proxy(W, { construct(target, args, nt) { const u = new URL(String(args[0]), location.href);
const o = (u.protocol === "wss:" ? "https:" : u.protocol === "ws:" ? "http:" : u.protocol) + "//" + u.host;
if (!allowed.includes(o)) throw new DOMException("this page may not open a WebSocket to " + u.origin, "SecurityError");
return Reflect.construct(target, args, nt); } });
Object.defineProperty(W.prototype, "constructor", { value: P, configurable: true, writable: true });
Object.defineProperty(globalThis, "WebSocket", { value: P, configurable: true, writable: true }); })();`

// noServiceWorkers removes service worker registration from a document.
const noServiceWorkers = `(() => { try { delete Navigator.prototype.serviceWorker; } catch (e) {} })();`

// enableRequestGuard puts in every document of target, before its own
// scripts run, what stops the requests Fetch never pauses.
func (t *Tab) enableRequestGuard(ctx context.Context, target *chromedp.Target) error {
	var src string
	if t.contain != nil {
		origins := make([]string, len(t.contain.Origins))
		for i, o := range t.contain.Origins {
			origins[i] = strings.ToLower(strings.TrimSuffix(o, "/"))
		}
		allowed, err := json.Marshal(origins)
		if err != nil {
			return err
		}
		src = noWebRTC
		if !t.contain.Proxied {
			src += fmt.Sprintf(holdWebSockets, allowed)
		}
	}
	if t.noWorkers {
		src += noServiceWorkers
	}
	if src == "" {
		return nil
	}
	_, err := cdp.Call(ctx, target, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src, RunImmediately: ptr(true)})
	return err
}
