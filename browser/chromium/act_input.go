package chromium

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/keys"
	"github.com/veetbot/veetbrowser/policy"
)

// Input on one control: click, check and uncheck, hover, type, press (a key
// or a 1.8.0 chord), and the keys that choose an option (act_select.go).

// dispatch sends trusted input. Any failure once input may have reached the
// page is action_uncertain, and nothing is retried.
func (s *Session) dispatch(ctx context.Context, a browser.Action, req collect.GuardRequest, p *collect.GuardResult, at point, permit policy.Permit) error {
	octx, end, err := s.tab.Begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	tgt := s.tab.Target()
	option := collect.OptionRequest{Target: req.Target, Label: a.Option}
	var steps []func() error
	var release []func() error // after the guard: keyUps of a 1.8.0 press
	mouse := func(typ input.DispatchMouseEventType) func() error {
		return func() error {
			params := input.DispatchMouseEventParams{Type: typ, X: at.x, Y: at.y}
			if typ != input.DispatchMouseEventTypeMouseMoved {
				params.Button, params.ClickCount = input.MouseButtonLeft, 1
			}
			_, err := cdp.Call(octx, tgt, input.DispatchMouseEvent, params)
			return err
		}
	}
	switch a.Kind {
	case browser.ActClick, browser.ActCheck, browser.ActUncheck:
		steps = append(steps, mouse(input.DispatchMouseEventTypeMouseMoved), mouse(input.DispatchMouseEventTypeMousePressed), mouse(input.DispatchMouseEventTypeMouseReleased))
	case browser.ActHover:
		steps = append(steps, mouse(input.DispatchMouseEventTypeMouseMoved))
	case browser.ActType:
		typed := collect.TypedRequest{Target: req.Target, Value: a.Text}
		if kind := p.Facts.Input; s.realPages && kind != "" {
			if steps, err = s.typedSteps(octx, tgt, typed, kind); err != nil {
				return err
			}
		} else {
			steps = append(steps, func() error {
				_, err := cdp.Call(octx, tgt, input.InsertText, input.InsertTextParams{Text: a.Text})
				return err
			})
		}
		if s.realPages {
			steps = append(steps, s.typedCheckStep(octx, typed, p.Facts.Input))
		}
		if a.Submit {
			steps = append(steps, keys.Steps(octx, tgt, "Enter")...)
		}
	case browser.ActPress:
		if c, ok := keys.ParseChord(a.Key); s.interactions && ok {
			steps, release = keys.ChordSteps(octx, tgt, c)
		} else {
			steps = keys.Steps(octx, tgt, a.Key)
		}
	case browser.ActSelect:
		if steps, err = s.selectSteps(octx, tgt, option); err != nil {
			return err
		}
		req.Focus = len(steps) > 0 // the keyboard guard watches the keys, if any
	}
	// The guard is armed right before the input and checked right after it.
	guard := collect.ArmRequest{Target: req.Target}
	switch {
	case a.Kind == browser.ActHover:
		guard.Kind, guard.X, guard.Y = collect.GuardHover, p.X, p.Y
	case req.Pointer:
		guard.Kind, guard.X, guard.Y = collect.GuardPointer, p.X, p.Y
	case req.Focus && !(s.realPages && a.Kind == browser.ActType && p.Facts.Input == "color"):
		// A color is set as its picker does, with no key to guard.
		guard.Kind = collect.GuardKeyboard
		guard.Snapshot = s.realPages && a.Kind == browser.ActType && p.Facts.Input == ""
	}
	if guard.Kind != "" {
		if err := s.arm(octx, guard); err != nil {
			return err
		}
		// A hover may find the pointer resting on the control already,
		// which moves nothing: nothing to confirm, but nothing stopped.
		confirm := a.Kind != browser.ActHover
		steps = append(steps, func() error { return s.disarm(octx, confirm) })
	}
	steps = append(steps, release...)
	// The last guard passed: the approval is consumed now, right before
	// the input, and only now.
	if err := permit.Spend(); err != nil {
		if guard.Kind != "" {
			s.disarm(octx, false)
		}
		return err
	}
	if a.Kind == browser.ActSelect {
		steps = append(steps, s.selectedStep(octx, option))
	}
	return s.runSteps(octx, steps)
}
