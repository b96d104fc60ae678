package tab

import (
	"context"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	cdptarget "github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Popups judged before their first request (tool version 1.9.0). A popup
// runs before any session of it can be attached, so its first document
// request would leave before its own navigation guard is on. The browser
// session therefore pauses every document request of the browser (CDP
// Fetch at the request stage on the browser target), and the gate answers
// them: the first one of a page that a holding tab opened is judged by that
// tab's navigation check; every other one goes on at once (the tabs' own
// guards judge them). A refused first request is failed before it leaves,
// and Hooks.Refused closes the popup: not one request of it reaches the
// network. (Holding the popup with auto-attach's waitForDebuggerOnStart
// does not do: the popup shares its opener's renderer until it commits,
// and the hold stops the opener too.)

// gate is one browser's judge of popups' first requests.
type gate struct {
	browser *chromedp.Browser
	ctx     context.Context
	mu      sync.Mutex
	owners  map[cdptarget.ID]*Tab // tabs whose popups are judged
	first   map[cdptarget.ID]*Tab // popups whose first request is to come, by their opener
}

var (
	gatesMu sync.Mutex
	gates   = map[*chromedp.Browser]*gate{}
)

// maxPending bounds the popups a gate waits on for a first request; past
// it the oldest are forgotten (their tabs' own guards judge them).
const maxPending = 256

// holdPopups makes the first request of t's popups judged by t's check.
func (t *Tab) holdPopups(ctx context.Context, parent context.Context) error {
	g, err := gateOf(ctx, parent)
	if err != nil {
		return err
	}
	g.mu.Lock()
	g.owners[t.target.TargetID] = t
	g.mu.Unlock()
	context.AfterFunc(t.ctx, func() {
		g.mu.Lock()
		delete(g.owners, t.target.TargetID)
		g.mu.Unlock()
	})
	return nil
}

// gateOf returns the gate of parent's browser, setting it up on first use.
func gateOf(ctx, parent context.Context) (*gate, error) {
	b := chromedp.FromContext(parent).Browser
	gatesMu.Lock()
	defer gatesMu.Unlock()
	if g := gates[b]; g != nil {
		return g, nil
	}
	g := &gate{browser: b, ctx: parent, owners: map[cdptarget.ID]*Tab{}, first: map[cdptarget.ID]*Tab{}}
	if err := chromedp.ListenBrowser(parent, g.onEvent); err != nil {
		return nil, err
	}
	if _, err := cdp.Call(ctx, b, fetch.Enable, fetch.EnableParams{
		Patterns: []*fetch.RequestPattern{{URLPattern: "*", ResourceType: network.ResourceTypeDocument, RequestStage: fetch.RequestStageRequest}},
	}); err != nil {
		return nil, err
	}
	gates[b] = g
	context.AfterFunc(parent, func() {
		gatesMu.Lock()
		delete(gates, b)
		gatesMu.Unlock()
	})
	return g, nil
}

// onEvent runs on the browser's reader goroutine: no CDP here.
func (g *gate) onEvent(ev any) {
	switch ev := ev.(type) {
	case *cdptarget.EventTargetCreated:
		info := ev.TargetInfo
		if info.Type != "page" || info.OpenerID == "" {
			return
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		owner := g.owners[info.OpenerID]
		if owner == nil {
			return
		}
		if len(g.first) >= maxPending {
			clear(g.first)
		}
		g.first[info.TargetID] = owner
	case *cdptarget.EventTargetDestroyed:
		g.mu.Lock()
		delete(g.first, ev.TargetID)
		g.mu.Unlock()
	case *fetch.EventRequestPaused:
		g.mu.Lock()
		owner := g.first[cdptarget.ID(ev.FrameID)] // a page's main frame id is its target id
		delete(g.first, cdptarget.ID(ev.FrameID))
		g.mu.Unlock()
		go g.decide(ev, owner)
	}
}

// decide answers one paused document request of the browser.
func (g *gate) decide(ev *fetch.EventRequestPaused, owner *Tab) {
	ctx, cancel := context.WithTimeout(g.ctx, DefaultTimings().NavigationDecision)
	defer cancel()
	if owner == nil {
		cdp.Call(ctx, g.browser, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		return
	}
	refusal := owner.CheckNavigation(ctx, ev.Request.URL)
	owner.mu.Lock()
	hooks := owner.hooks
	owner.mu.Unlock()
	if refusal == nil {
		cdp.Call(ctx, g.browser, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		if hooks != nil && hooks.Allowed != nil {
			hooks.Allowed(cdptarget.ID(ev.FrameID)) // the action that opened it need not wait
		}
		return
	}
	cdp.Call(ctx, g.browser, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonAborted})
	if hooks != nil && hooks.Refused != nil {
		hooks.Refused(cdptarget.ID(ev.FrameID), refusal)
	}
}
