package tab

import (
	"context"
	"net/url"

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

func (t *Tab) enableNavGuard(ctx context.Context) error {
	_, err := cdp.Call(ctx, t.target, fetch.Enable, fetch.EnableParams{
		Patterns: []*fetch.RequestPattern{{URLPattern: "*", ResourceType: network.ResourceTypeDocument, RequestStage: fetch.RequestStageRequest}},
	})
	return err
}

// decide answers one paused document request. It runs in its own goroutine:
// the event listener must not issue CDP commands.
func (t *Tab) decide(ev *fetch.EventRequestPaused) {
	ctx, cancel := context.WithTimeout(t.ctx, t.timings.NavigationDecision)
	defer cancel()
	t.mu.Lock()
	topLevel := ev.FrameID == t.mainFrame
	t.mu.Unlock()
	var refusal error
	if topLevel && t.competingRequest(ev.NetworkID) {
		// The page's own navigation lost to the runtime's: not a refusal.
		cdp.Call(ctx, t.target, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonAborted})
		return
	}
	if topLevel {
		refusal = t.CheckNavigation(ctx, ev.Request.URL)
	}
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
