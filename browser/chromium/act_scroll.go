package chromium

import (
	"context"
	"math"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/policy"
)

// Scrolling (tool version 1.8.0). A scroll is wheel input: over a control
// it scrolls what the page scrolls under it (a feed, a list), without one
// the page. The wait for the position to stop changing (smooth scrolling,
// content loaded as it comes into view) is Timings.ScrollSettle.

const (
	// wheelStep is about how far one wheel event scrolls; a scroll is sent
	// in several, as a wheel turns, and at most maxWheelSteps.
	wheelStep     = 400.0
	minWheelSteps = 3
	maxWheelSteps = 30
)

// scroll scrolls by a.Viewports viewports (0 means 1): over the
// control a.Ref, by the height of what it scrolls, or over the middle of
// the window by its height.
func (s *Session) scroll(ctx context.Context, a browser.Action, authorize browser.Authorize) (*browser.ActResult, error) {
	viewports := a.Viewports
	if viewports == 0 {
		viewports = 1
	}
	if a.Ref == "" {
		return s.scrollPage(ctx, viewports, authorize)
	}
	ct, err := s.control(a.Ref)
	if err != nil {
		return nil, err
	}
	defer s.leaveFrame()
	// The read-only guards (the control is there and visible), no focus;
	// the control is shown only as far as it takes, and the wheel goes to
	// the middle of what shows of it.
	req := collect.GuardRequest{Target: ct, Scroller: true, Reveal: collect.RevealNearest}
	insp, err := s.inspect(ctx, req)
	if err != nil {
		return nil, err
	}
	facts := actionFacts(a, insp)
	permit, prep, err := s.authorizeAndPrepare(ctx, authorize, policy.ClassInput, facts, req)
	if err != nil {
		return nil, err
	}
	if actionFacts(a, prep) != facts || prep.Height == nil {
		return nil, errcode.New(errcode.StaleReference, "the control changed before the action; observe again")
	}
	at, err := s.throughOwners(ctx, point{prep.X, prep.Y})
	if err != nil {
		return nil, err
	}
	// Where the scroller stands, read whatever became of the control:
	// scrolled out of view, it still answers; gone, the wait ends.
	position := func(ctx context.Context) (float64, bool) {
		raw, err := s.eval(ctx, collect.Inspect(req))
		if err != nil {
			return 0, false
		}
		r, err := collect.DecodeInspect(raw)
		if err != nil || r.Top == nil {
			return 0, false
		}
		return *r.Top, true
	}
	return s.wheel(ctx, at, viewports*(*prep.Height), permit, position)
}

// scrollPage scrolls the page: the wheel over the middle of the window.
func (s *Session) scrollPage(ctx context.Context, viewports float64, authorize browser.Authorize) (*browser.ActResult, error) {
	permit, err := authorize(ctx, policy.ClassInput, policy.Facts{Origin: s.origin})
	if err != nil {
		return nil, err
	}
	m, err := s.layout(ctx)
	if err != nil {
		return nil, err
	}
	position := func(ctx context.Context) (float64, bool) {
		m, err := s.layout(ctx)
		if err != nil {
			return 0, false
		}
		return m.PageY, true
	}
	at := point{m.ClientWidth / 2, m.ClientHeight / 2}
	return s.wheel(ctx, at, viewports*m.ClientHeight, permit, position)
}

// layout is the top document's visual viewport.
func (s *Session) layout(ctx context.Context) (*page.VisualViewport, error) {
	octx, end, err := s.tab.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	m, err := cdp.Call(octx, s.tab.Target(), page.GetLayoutMetrics, cdp.Empty{})
	if err != nil {
		return nil, tab.Classify(octx, err, errcode.CaptureFailed, "the window could not be measured")
	}
	if m.CSSVisualViewport == nil || m.CSSVisualViewport.ClientHeight <= 0 {
		return nil, errcode.New(errcode.CaptureFailed, "the window could not be measured")
	}
	return m.CSSVisualViewport, nil
}

// wheel spends the permit, turns the wheel at the point by dy CSS
// pixels (negative up) in a few steps, waits a bounded time for the
// position to stop changing, and observes.
func (s *Session) wheel(ctx context.Context, at point, dy float64, permit policy.Permit, position func(context.Context) (float64, bool)) (*browser.ActResult, error) {
	n := int(math.Ceil(math.Abs(dy) / wheelStep))
	n = min(max(n, minWheelSteps), maxWheelSteps)
	before := s.tab.Mark()
	octx, end, err := s.tab.Begin(ctx)
	if err != nil {
		return nil, err
	}
	if err := permit.Spend(); err != nil {
		end()
		return nil, err
	}
	var steps []func() error
	for range n {
		steps = append(steps, func() error {
			_, err := cdp.Call(octx, s.tab.Target(), dispatchWheel, wheelParams{
				Type: input.DispatchMouseEventTypeMouseWheel, X: at.x, Y: at.y, DeltaY: dy / float64(n)})
			return err
		})
	}
	err = s.runSteps(octx, steps)
	end()
	if err != nil {
		return nil, err
	}
	s.settleScroll(ctx, position)
	return s.settled(ctx, before)
}

// wheelParams are Input.dispatchMouseEvent's for a wheel: Chromium needs
// both deltas, and input.DispatchMouseEventParams omits a zero deltaX.
type wheelParams struct {
	Type   input.DispatchMouseEventType `json:"type"`
	X      float64                      `json:"x"`
	Y      float64                      `json:"y"`
	DeltaX float64                      `json:"deltaX"`
	DeltaY float64                      `json:"deltaY"`
}

var dispatchWheel = cdp.Command[wheelParams, cdp.Empty]{Method: input.CommandDispatchMouseEvent}

// settleScroll waits, at most ScrollSettle, until two readings of the
// position a little apart agree.
func (s *Session) settleScroll(ctx context.Context, position func(context.Context) (float64, bool)) {
	wctx, cancel := context.WithTimeout(ctx, s.timings.ScrollSettle)
	defer cancel()
	last, ok := position(wctx)
	for ok {
		select {
		case <-wctx.Done():
			return
		case <-time.After(s.timings.ScrollPoll):
		}
		var now float64
		if now, ok = position(wctx); ok && now == last {
			return
		}
		last = now
	}
}
