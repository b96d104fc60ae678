package chromium

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// Tool version 1.9.0's pointer actions (docs/realpages.md): double click,
// context click, the options of a multiple-choice list by modifier
// clicks, and a control's text selected by a mouse drag. Each runs after
// the guards, grant and approval of a click (Act), dispatches trusted
// mouse input under the pointer guard, and the page verifies what a
// choice or selection should have done.

// realPagesPointer: a is of the 1.9.0 pointer actions this file
// dispatches.
func realPagesPointer(a browser.Action) bool {
	switch a.Kind {
	case browser.ActDblClick, browser.ActContextClick, browser.ActSelectText:
		return true
	}
	return a.Kind == browser.ActSelect && a.Options != nil
}

// errNothingToDo: the list already holds the choices; nothing was sent.
var errNothingToDo = errcode.New(errcode.NotActionable, "nothing to do")

// dispatchRealPages dispatches a, whose control is prepared and hit at
// local (in its frame's viewport), which is at in the window.
func (s *Session) dispatchRealPages(ctx context.Context, a browser.Action, ct collect.Target, local, at point, permit policy.Permit) error {
	octx, end, err := s.tab.Begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	tgt := s.tab.Target()
	m := mouser{octx: octx, tgt: tgt}
	switch a.Kind {
	case browser.ActDblClick:
		return s.guarded(octx, ct, collect.GuardPointer, local, permit, m.click(at, input.MouseButtonLeft, 0, 1), m.click(at, input.MouseButtonLeft, 0, 2))
	case browser.ActContextClick:
		return s.guarded(octx, ct, collect.GuardContext, local, permit, m.click(at, input.MouseButtonRight, 0, 1))
	case browser.ActSelectText:
		return s.selectText(octx, ct, a.Text, false, m, permit)
	}
	return s.chooseSeveral(octx, ct, a, m, permit)
}

// guarded arms the guard of kind for ct at local, the point in the
// control's frame, spends the permit, runs the steps and checks with the
// guard that the input reached the control.
func (s *Session) guarded(octx context.Context, ct collect.Target, kind collect.GuardKind, local point, permit policy.Permit, steps ...[]func() error) error {
	return s.guardedOn(octx, collect.Selection{Target: ct}, kind, local, permit, steps...)
}

// guardedOn is guarded, on a control or on the start of a planned
// selection of page text.
func (s *Session) guardedOn(octx context.Context, on collect.Selection, kind collect.GuardKind, local point, permit policy.Permit, steps ...[]func() error) error {
	if err := s.arm(octx, collect.ArmRequest{Target: on.Target, Kind: kind, X: local.x, Y: local.y, Selection: on.Selection}); err != nil {
		return err
	}
	if err := permit.Spend(); err != nil {
		s.disarm(octx, false)
		return err
	}
	var all []func() error
	for _, st := range steps {
		all = append(all, st...)
	}
	all = append(all, func() error { return s.disarm(octx, true) })
	return s.runSteps(octx, all)
}

// chooseSeveral makes the chosen options of a <select multiple> the set a
// asks for: one Control-click per option to toggle, each shown in the
// list and hit-tested first, then the whole set verified.
func (s *Session) chooseSeveral(octx context.Context, ct collect.Target, a browser.Action, m mouser, permit policy.Permit) error {
	mode := a.Mode
	if mode == "" {
		mode = browser.SelectSet
	}
	plan, err := collectIn(octx, s.eval, collect.ChoicesPlan(collect.ChoicesRequest{Target: ct, Labels: a.Options, Mode: string(mode)}), collect.DecodeChoicesPlan, "the options could not be looked up")
	if err != nil {
		return err
	}
	switch plan.Error {
	case "":
	case collect.Detached:
		return errcode.New(errcode.StaleReference, "the control is no longer on the page; observe again")
	case collect.Single:
		return errcode.New(errcode.NotActionable, "the list takes one choice: give option, not options")
	case collect.NotSelect:
		return errcode.New(errcode.NotActionable, "options work on a multiple-choice list (a native select, or an ARIA listbox with aria-multiselectable); in other lists, click each option")
	case collect.Disabled:
		return errcode.New(errcode.NotActionable, "the option labelled %s is disabled and would have to change", errcode.Quote(plan.Label))
	case collect.TooFar:
		return errcode.New(errcode.NotActionable, "the choice takes more than %d clicks; choose in smaller steps with add and remove", len(a.Options))
	default: // collect.NoOption
		return errcode.New(errcode.NotActionable, "no option labelled %s", errcode.Quote(plan.Label))
	}
	if plan.Toggles == 0 {
		return errNothingToDo
	}
	for i := range plan.Toggles {
		p, err := collectIn(octx, s.eval, collect.ChoicePoint(collect.PointRequest{Target: ct, Toggle: i}), collect.DecodeChoicePoint, "the option could not be shown")
		if err != nil {
			return err
		}
		switch p.Error {
		case "":
		case collect.Hidden:
			return errcode.New(errcode.NotActionable, "an option to change does not show in the list%s", doneSoFar(i))
		case collect.Covered:
			return errcode.New(errcode.NotActionable, "another element covers an option of the list%s", doneSoFar(i))
		default:
			return errcode.New(errcode.StaleReference, "the list changed; observe again%s", doneSoFar(i))
		}
		at, err := s.throughOwners(octx, point{p.X, p.Y})
		if err != nil {
			return err
		}
		// The permit is spent once, before the first click.
		if i > 0 {
			permit = policy.Permit{}
		}
		if err := s.guarded(octx, ct, collect.GuardPointer, point{p.X, p.Y}, permit, m.click(at, input.MouseButtonLeft, modCtrl, 1)); err != nil {
			return err
		}
	}
	// A choice whose change handler navigates was delivered: the check
	// does not wait behind that navigation (selectedStep).
	raw, navigating, err := s.evalUnlessNavigating(octx, collect.ChoicesAre(ct))
	if navigating {
		return nil
	}
	ok := false
	if err == nil {
		ok, err = collect.DecodeVerdict(raw)
	}
	if err != nil || !ok {
		return errcode.New(errcode.ActionUncertain, "the chosen options could not be confirmed as the ones asked for; observe before trying again")
	}
	return nil
}

// doneSoFar tells how many clicks were already delivered when a later one
// was refused.
func doneSoFar(clicks int) string {
	if clicks == 0 {
		return ""
	}
	return "; options were already changed: observe before trying again"
}

// selectText selects the control's visible text, or the part of it given
// as text, by a trusted drag from its first character to its last, and
// verifies that the page's selection holds it. With page (no control), it
// selects the first occurrence of text in the page's text.
func (s *Session) selectText(octx context.Context, ct collect.Target, text string, page bool, m mouser, permit policy.Permit) error {
	span, err := collectIn(octx, s.eval, collect.TextSpan(collect.SpanRequest{Target: ct, Text: text, Page: page}), collect.DecodeTextSpan, "the text could not be looked up")
	if err != nil {
		return err
	}
	switch span.Error {
	case "":
	case collect.NoText:
		if page {
			return errcode.New(errcode.NotActionable, "the page does not show the text %s outside its controls (within its first %d text nodes and %d UTF-16 units)", errcode.Quote(text), observation.TextNodes, observation.TextUnits)
		}
		if text != "" {
			return errcode.New(errcode.NotActionable, "the control does not show the text %s", errcode.Quote(text))
		}
		return errcode.New(errcode.NotActionable, "the control shows no text to select; in a text field, press Control+A selects its text")
	case collect.OffScreen:
		return errcode.New(errcode.NotActionable, "the text does not show in the window as a whole; select a shorter part of it")
	case collect.Covered:
		return errcode.New(errcode.NotActionable, "another element covers the text; close it or observe again")
	case collect.InControl:
		return errcode.New(errcode.NotActionable, "the text lies in a control: select it with that control's ref")
	default:
		return errcode.New(errcode.StaleReference, "the control is no longer on the page; observe again")
	}
	from, err := s.throughOwners(octx, point{span.X1, span.Y1})
	if err != nil {
		return err
	}
	to, err := s.throughOwners(octx, point{span.X2, span.Y2})
	if err != nil {
		return err
	}
	on := collect.Selection{Target: ct, Selection: page}
	if err := s.guardedOn(octx, on, collect.GuardPress, point{span.X1, span.Y1}, permit, m.drag(from, to)); err != nil {
		return err
	}
	ok, err := collectIn(octx, s.eval, collect.TextSelected(on), collect.DecodeVerdict, "the selection could not be checked")
	if err != nil || !ok {
		return errcode.New(errcode.ActionUncertain, "the drag reached the page but the text could not be confirmed as selected (the page may prevent selecting it); observe before trying again")
	}
	return nil
}

// selectPageText (select_text with no ref) selects the first occurrence
// of a.Text in the top document's text, outside every control, by the
// drag of selectText. Nothing is clicked, so only the origin is judged
// (class click, as every select_text), never an approval.
func (s *Session) selectPageText(ctx context.Context, a browser.Action, authorize browser.Authorize) (*browser.ActResult, error) {
	if a.Text == "" {
		return nil, errcode.New(errcode.InvalidArgument, "select_text needs a ref, or the text to select in the page")
	}
	permit, err := authorize(ctx, policy.ClassClick, policy.Facts{Origin: s.origin})
	if err != nil {
		return nil, err
	}
	before := s.tab.Mark()
	err = func() error {
		octx, end, err := s.tab.Begin(ctx)
		if err != nil {
			return err
		}
		defer end()
		return s.selectText(octx, collect.Target{}, a.Text, true, mouser{octx: octx, tgt: s.tab.Target()}, permit)
	}()
	if err != nil {
		return nil, err
	}
	return s.afterDispatch(ctx, before)
}

// modCtrl is CDP's bit of the Control key in an input event's modifiers:
// a Control-click toggles one option of a multiple-choice list.
const modCtrl int64 = 2

// mouser makes the steps of trusted mouse input.
type mouser struct {
	octx context.Context
	tgt  cdp.Session // the tab's target
}

func (m mouser) event(typ input.DispatchMouseEventType, at point, button input.MouseButton, buttons int64, mods int64, count int64) func() error {
	return func() error {
		params := input.DispatchMouseEventParams{Type: typ, X: at.x, Y: at.y, Modifiers: mods, Button: button, Buttons: buttons, ClickCount: count}
		_, err := cdp.Call(m.octx, m.tgt, input.DispatchMouseEvent, params)
		return err
	}
}

// click is a move to at, then a press and release of button, the
// count-th click in a row (2: a double click's second).
func (m mouser) click(at point, button input.MouseButton, mods int64, count int64) []func() error {
	held := int64(1)
	if button == input.MouseButtonRight {
		held = 2
	}
	return []func() error{
		m.event(input.DispatchMouseEventTypeMouseMoved, at, input.MouseButtonNone, 0, mods, 0),
		m.event(input.DispatchMouseEventTypeMousePressed, at, button, held, mods, count),
		m.event(input.DispatchMouseEventTypeMouseReleased, at, button, 0, mods, count),
	}
}

// dragSteps moves a drag takes between its press and its release.
const dragSteps = 8

// drag presses the left button at from, moves with it held to to, and
// releases it there: a person's selection of text.
func (m mouser) drag(from, to point) []func() error {
	steps := []func() error{
		m.event(input.DispatchMouseEventTypeMouseMoved, from, input.MouseButtonNone, 0, 0, 0),
		m.event(input.DispatchMouseEventTypeMousePressed, from, input.MouseButtonLeft, 1, 0, 1),
	}
	for i := 1; i <= dragSteps; i++ {
		f := float64(i) / dragSteps
		at := point{from.x + (to.x-from.x)*f, from.y + (to.y-from.y)*f}
		steps = append(steps, m.event(input.DispatchMouseEventTypeMouseMoved, at, input.MouseButtonLeft, 1, 0, 0))
	}
	return append(steps, m.event(input.DispatchMouseEventTypeMouseReleased, to, input.MouseButtonLeft, 0, 0, 1))
}
