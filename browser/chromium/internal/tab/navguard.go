package tab

import (
	"context"
	"net/url"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"

	"github.com/veetbot/veetbrowser/errcode"
)

// The navigation guard: every document request of the tab is paused before
// it leaves the browser (CDP Fetch at the request stage, which also pauses
// each hop of a server redirect), and a top-level one goes on only if the
// session's check allows its URL. A refused hop is failed as aborted, which
// commits no error page: the current page stays, and the operation that
// caused the hop reports the refusal. Nothing in the page can race this: the
// request does not exist for the network until it is continued.
//
// The request guard (tool version 1.9.0, docs/navigation.md): with a
// request check, every other request of the tab is paused the same way
// (subresources, frames, fetch and XHR, beacons, EventSource, worker
// scripts and the requests of dedicated workers, prefetch) and continued
// only if the check allows it; a refused one fails as blocked by the client
// and is counted in the session's blocked tally. What Fetch never pauses
// has means of its own (requests.go): WebSocket handshakes, service
// workers and WebRTC.

func (t *Tab) enableNavGuard(ctx context.Context) error {
	// Documents, and the requests of type other, among which the page's
	// icon (favicon); with a request check, every request.
	patterns := []*fetch.RequestPattern{
		{URLPattern: "*", ResourceType: network.ResourceTypeDocument, RequestStage: fetch.RequestStageRequest},
		{URLPattern: "*", ResourceType: network.ResourceTypeOther, RequestStage: fetch.RequestStageRequest},
	}
	if t.checkRequest != nil {
		patterns = []*fetch.RequestPattern{{URLPattern: "*", RequestStage: fetch.RequestStageRequest}}
	}
	_, err := cdp.Call(ctx, t.target, fetch.Enable, fetch.EnableParams{Patterns: patterns, HandleAuthRequests: ptr(t.proxyAuth != nil)})
	if err != nil {
		return err
	}
	return t.enableRequestGuard(ctx, t.target)
}

// decide answers one paused request. It runs in its own goroutine: the
// event listener must not issue CDP commands.
func (t *Tab) decide(ev *fetch.EventRequestPaused) {
	ctx, cancel := context.WithTimeout(t.ctx, t.timings.NavigationDecision)
	defer cancel()
	t.mu.Lock()
	topLevel := ev.FrameID == t.mainFrame && ev.ResourceType == network.ResourceTypeDocument
	if topLevel {
		t.serversTurnLocked(cdp.LoaderID(ev.NetworkID)) // the decision is the browser's, not the renderer's
	}
	t.mu.Unlock()
	if favicon(ev.ResourceType, ev.Request.Headers) {
		t.favicons.Add(1)
		cdp.Call(ctx, t.target, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		return
	}
	if !topLevel {
		t.decideRequest(ctx, t.target, ev)
		return
	}
	var refusal error
	if t.competingRequest(ev.NetworkID) {
		// The page's own navigation lost to the runtime's: not a refusal.
		cdp.Call(ctx, t.target, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonAborted})
		return
	}
	refusal = t.CheckNavigation(ctx, ev.Request.URL)
	if refusal == nil {
		cdp.Call(ctx, t.target, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		return
	}
	t.mu.Lock()
	t.refusals++
	t.refused = refusal
	t.markBlockedLocked(ev.NetworkID)
	t.mu.Unlock()
	cdp.Call(ctx, t.target, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonAborted})
	t.wake()
}

// decideRequest answers a paused request that is not a top-level hop, on
// the session s it was paused in. Without a request check (before 1.9.0)
// only documents and requests of type other are paused (the page icon's
// among them, failed before this), and they go on as they always did.
func (t *Tab) decideRequest(ctx context.Context, s cdp.Session, ev *fetch.EventRequestPaused) {
	if t.checkRequest == nil {
		cdp.Call(ctx, s, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		return
	}
	u, err := url.Parse(ev.Request.URL)
	refusal := err
	switch {
	case err != nil:
	case u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "ws" && u.Scheme != "wss":
		// data:, blob: and the like never leave the browser.
	default:
		refusal = t.checkRequest(ctx, u)
	}
	if refusal == nil {
		cdp.Call(ctx, s, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		return
	}
	if t.blocked != nil {
		t.blocked.Add(requestOrigin(ev.Request.URL))
	}
	cdp.Call(ctx, s, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
}

// favicon reports whether a request, by its resource type and headers, is
// the browser's fetch of the page's icon, which it makes after a document
// loads: of type other, and accepting images. Nothing in the page uses the
// icon and no view shows it, so the navigation guard fails it: it is a
// request to the site, or to the CDN holding the icon, that no agent needs
// (docs/navigation.md). It is no refusal of the session's checks: the
// observation's blocked count leaves it out, whatever its origin, and the
// network log lists it failed, not blocked (which says the grant refused
// it, as browser_network's description tells the model).
func favicon(typ network.ResourceType, headers network.Headers) bool {
	if typ != network.ResourceTypeOther {
		return false
	}
	for k, v := range headers {
		if accept, ok := v.(string); ok && strings.EqualFold(k, "Accept") {
			return strings.HasPrefix(accept, "image/")
		}
	}
	return false
}

// Favicons counts the fetches of page icons the navigation guard failed
// (favicon).
func (t *Tab) Favicons() int64 { return t.favicons.Load() }

// requestOrigin is the scheme://host[:port] of a request URL, as the
// blocked record names it.
func requestOrigin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(invalid)"
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// CheckNavigation applies the scheme rule and the session's check to one
// top-level hop.
func (t *Tab) CheckNavigation(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errcode.New(errcode.ForeignOrigin, "the page tried to navigate to a URL that is not http or https; it was stopped and the page kept")
	}
	if t.check == nil {
		return nil
	}
	return t.check(ctx, u)
}

// refusalSinceLocked returns the newest refusal after the count seen, or nil.
func (t *Tab) refusalSinceLocked(seen uint64) error {
	if t.refusals == seen {
		return nil
	}
	return t.refused
}

// Refusals counts the top-level hops the navigation guard refused.
func (t *Tab) Refusals() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.refusals
}
