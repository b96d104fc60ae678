package chromium

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/policy"
)

// Dragging (tool version 1.8.0). A drag presses at one control, moves the
// pointer with the button held and releases it over another.

// dragMoves are the pointer moves between a drag's press and release:
// pages that sort by the pointer follow it through the items passed.
const dragMoves = 8

// drag drags the control a.Ref onto the control a.To. Both are
// guarded as a click's control is (there, visible, not covered at their
// points, shown in the window together); the action is authorized once,
// on the source's facts.
func (s *Session) drag(ctx context.Context, a browser.Action, authorize browser.Authorize) (*browser.ActResult, error) {
	src, err := s.control(a.Ref)
	defer s.leaveFrame()
	if err != nil {
		return nil, err
	}
	inFrame := s.act != nil
	dst, err := s.control(a.To)
	if err != nil {
		return nil, err
	}
	if inFrame || s.act != nil {
		// The two ends' points would have to be carried through owners
		// that may differ; drags stay in the top document.
		return nil, errcode.New(errcode.NotActionable, "drag works on controls of the page itself, not inside frames")
	}
	from := collect.GuardRequest{Target: src, Pointer: true, Reveal: collect.RevealNearest}
	to := collect.GuardRequest{Target: dst, Pointer: true, Reveal: collect.RevealNearest}
	insp, err := s.inspect(ctx, from)
	if err != nil {
		return nil, err
	}
	if _, err := s.inspect(ctx, to); err != nil {
		return nil, err
	}
	// Once authorized, each end is shown as far as it takes, the source
	// first; then the source, not scrolled again, must still show where it
	// is pressed.
	facts := actionFacts(a, insp)
	permit, _, err := s.authorizeAndPrepare(ctx, authorize, policy.ClassInput, facts, from)
	if err != nil {
		return nil, err
	}
	end, err := s.prepare(ctx, to)
	if err != nil {
		return nil, err
	}
	from.Reveal = collect.RevealNone
	start, err := s.prepare(ctx, from)
	if err != nil {
		return nil, err
	}
	if err := stillApproved(actionFacts(a, start), facts); err != nil {
		return nil, err
	}
	before := s.tab.Mark()
	if err := s.dragInput(ctx, src, point{start.X, start.Y}, point{end.X, end.Y}, permit); err != nil {
		return nil, err
	}
	return s.settled(ctx, before)
}

// dragInput presses at p, checks that the press reached the source, moves
// the pointer to q in dragMoves steps with the button held and releases
// it there. A press that did not reach the source is released where it
// was, and the drag ends.
func (s *Session) dragInput(ctx context.Context, src collect.Target, p, q point, permit policy.Permit) error {
	octx, end, err := s.tab.Begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	if err := s.arm(octx, collect.ArmRequest{Target: src, Kind: collect.GuardPress, X: p.x, Y: p.y}); err != nil {
		return err
	}
	if err := permit.Spend(); err != nil {
		s.disarm(octx, false)
		return err
	}
	mouse := func(typ input.DispatchMouseEventType, at point, buttons int64) func() error {
		return func() error {
			params := input.DispatchMouseEventParams{Type: typ, X: at.x, Y: at.y, Buttons: buttons}
			if typ != input.DispatchMouseEventTypeMouseMoved || buttons != 0 {
				params.Button = input.MouseButtonLeft
			}
			if typ != input.DispatchMouseEventTypeMouseMoved {
				params.ClickCount = 1
			}
			_, err := cdp.Call(octx, s.tab.Target(), input.DispatchMouseEvent, params)
			return err
		}
	}
	press := []func() error{
		mouse(input.DispatchMouseEventTypeMouseMoved, p, 0),
		mouse(input.DispatchMouseEventTypeMousePressed, p, 1),
		func() error { return s.disarm(octx, true) },
	}
	if err := s.runSteps(octx, press); err != nil {
		mouse(input.DispatchMouseEventTypeMouseReleased, p, 0)()
		return err
	}
	var moves []func() error
	for i := 1; i <= dragMoves; i++ {
		f := float64(i) / dragMoves
		moves = append(moves, mouse(input.DispatchMouseEventTypeMouseMoved, point{p.x + (q.x-p.x)*f, p.y + (q.y-p.y)*f}, 1))
	}
	moves = append(moves, mouse(input.DispatchMouseEventTypeMouseReleased, q, 0))
	if err := s.runSteps(octx, moves); err != nil {
		if errcode.Of(err) != errcode.ActionUncertain {
			// The press was delivered: whatever failed after it, the
			// drag may have moved something.
			err = errcode.Wrap(errcode.ActionUncertain, err, "the drag may have been delivered only in part; observe before trying again")
		}
		return err
	}
	return nil
}
