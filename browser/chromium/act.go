package chromium

import (
	"context"
	"errors"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/keys"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// Actions (docs/actions.md): the path every action takes. The ref is
// verified, the read-only guards run and read the control's facts, the
// grant and approval are checked on them (authorizeAndPrepare), the guards
// run again, the input is dispatched once by the file of its kind
// (act_input.go, act_select.go, act_scroll.go, act_drag.go, act_upload.go,
// act_dialog.go), and the postconditions are observed. Nothing is retried.

// Act implements browser.Session.
func (s *Session) Act(ctx context.Context, a browser.Action, authorize browser.Authorize) (*browser.ActResult, error) {
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.lock.Release(1)
	res, err := s.action(ctx, a, authorize)
	if err != nil {
		return nil, err
	}
	return s.observed(ctx, res)
}

// Step implements browser.Session: the action without the observation
// after it, so that the next step's ref is checked against the revision
// the call was given (docs/actions.md).
func (s *Session) Step(ctx context.Context, a browser.Action, authorize browser.Authorize) (*browser.ActResult, error) {
	if !s.realPages {
		return nil, errcode.New(errcode.InvalidArgument, "steps need tool version 1.9.0")
	}
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.lock.Release(1)
	return s.action(ctx, a, authorize)
}

// action runs an action up to its postconditions; its result has no
// observation yet.
func (s *Session) action(ctx context.Context, a browser.Action, authorize browser.Authorize) (*browser.ActResult, error) {
	if a.Kind == browser.ActDialog {
		return s.answerDialog(ctx, a, authorize)
	}
	if s.tab.Dialog() != nil {
		return nil, errcode.New(errcode.NotActionable, "a JavaScript dialog is open; answer it with kind dialog first")
	}
	class, err := s.actionClass(a)
	if err != nil {
		return nil, err
	}
	switch a.Kind {
	case browser.ActScroll:
		return s.scroll(ctx, a, authorize)
	case browser.ActDrag:
		return s.drag(ctx, a, authorize)
	case browser.ActSelectText:
		if a.Ref == "" && s.realPages {
			return s.selectPageText(ctx, a, authorize)
		}
	}
	ct, err := s.control(a.Ref)
	if err != nil {
		return nil, err
	}
	defer s.leaveFrame()
	req := collect.GuardRequest{
		Target:   ct,
		Pointer:  a.Kind == browser.ActClick || a.Kind == browser.ActCheck || a.Kind == browser.ActUncheck || a.Kind == browser.ActHover || s.realPages && realPagesPointer(a),
		Focus:    a.Kind == browser.ActType || a.Kind == browser.ActPress || a.Kind == browser.ActSelect && !(s.realPages && realPagesPointer(a)),
		Editable: a.Kind == browser.ActType,
	}
	// From 1.8.0 a control that took the last keyboard action and still
	// holds the focus keeps its caret and selection, so that typing after
	// a chord such as Control+A replaces the selected text.
	req.KeepSelection = s.interactions && req.Focus
	// Read-only guards and facts first: nothing touches the page before the
	// action is authorized.
	insp, err := s.inspect(ctx, req)
	if err != nil {
		return nil, err
	}
	if (a.Kind == browser.ActCheck || a.Kind == browser.ActUncheck) && insp.Facts.Checked == (a.Kind == browser.ActCheck) {
		return &browser.ActResult{}, nil
	}
	if s.realPages && a.Kind == browser.ActType && insp.Facts.Input != "" {
		if err := typedRefusal(insp.Facts.Input, a.Text); err != nil {
			return nil, err
		}
	}
	facts := actionFacts(a, insp)
	permit, prep, err := s.authorizeAndPrepare(ctx, authorize, class, facts, req)
	if err != nil {
		return nil, err
	}
	at := point{prep.X, prep.Y}
	if req.Pointer {
		// A control in a frame is hit where the page shows it, through
		// every owner, none covered.
		if at, err = s.throughOwners(ctx, at); err != nil {
			return nil, err
		}
	}
	if err := stillApproved(actionFacts(a, prep), facts); err != nil {
		return nil, err
	}

	before := s.tab.Mark()
	if s.realPages && realPagesPointer(a) {
		err = s.dispatchRealPages(ctx, a, ct, point{prep.X, prep.Y}, at, permit)
	} else {
		err = s.dispatch(ctx, a, req, prep, at, permit)
	}
	if err == errNothingToDo {
		return &browser.ActResult{}, nil
	}
	if err != nil {
		return nil, err
	}
	if a.Kind == browser.ActType && prep.Facts.Editable {
		s.bindDraft(ctx, ct, a.Text)
	}
	return s.settled(ctx, before)
}

// actionFacts are the facts the policy judges an action by: the control's
// live label facts, and whether this action submits its form.
func actionFacts(a browser.Action, p *collect.GuardResult) policy.Facts {
	if a.Kind == browser.ActHover || a.Kind == browser.ActScroll {
		// Pointing at a control or scrolling under it does not act on it:
		// only the origin is judged (the grant), so neither ever asks for,
		// nor consumes, an approval meant for the control.
		return policy.Facts{Origin: p.Facts.Origin}
	}
	f := policy.Facts{Origin: p.Facts.Origin, Role: p.Facts.Role, Name: p.Facts.Name, NameCut: p.Facts.NameCut, Form: p.Facts.Form}
	switch a.Kind {
	case browser.ActClick, browser.ActDblClick, browser.ActContextClick, browser.ActSelectText:
		f.Submit = p.Facts.Submit
	case browser.ActType:
		f.Submit = a.Submit && p.Facts.InForm
	case browser.ActPress:
		// Enter submits from any control of a form, with modifiers too
		// (a 1.8.0 chord); Space activates a focused submit button.
		key := a.Key
		if c, ok := keys.ParseChord(a.Key); ok {
			key = c.Key()
		}
		f.Submit = (key == "Enter" && p.Facts.InForm) || (key == " " && p.Facts.Submit)
	}
	return f
}

// bindDraft keeps the text the agent typed into a rich-text editor as
// the draft receipt, weakly bound to the editor. Typing into the same
// editor again extends the known value.
func (s *Session) bindDraft(ctx context.Context, ct collect.Target, text string) {
	raw, err := s.eval(ctx, collect.BindDraft(ct))
	if err != nil {
		s.draft = nil
		return
	}
	r, err := collect.DecodeBindDraft(raw)
	if err != nil || !r.OK {
		s.draft = nil
		return
	}
	value := text
	if r.Same && s.draft != nil {
		value = s.draft.Value + text
	}
	s.draft = &collect.Draft{Value: value}
}

func (s *Session) actionClass(a browser.Action) (string, error) {
	switch a.Kind {
	case browser.ActClick:
		return policy.ClassClick, nil
	case browser.ActDblClick, browser.ActContextClick, browser.ActSelectText:
		if s.realPages {
			// A double click or a drag over a button clicks it too: each
			// is judged as a click.
			return policy.ClassClick, nil
		}
	case browser.ActType, browser.ActPress, browser.ActSelect, browser.ActCheck, browser.ActUncheck:
		if !s.realPages && (a.Options != nil || a.Mode != "") {
			return "", errcode.New(errcode.InvalidArgument, "options and mode need tool version 1.9.0")
		}
		if a.Kind == browser.ActPress && a.Key == "" {
			return "", errcode.New(errcode.InvalidArgument, "press needs a key")
		}
		if a.Kind == browser.ActPress && s.interactions {
			if _, ok := keys.ParseChord(a.Key); !ok {
				return "", errcode.New(errcode.InvalidArgument, "unknown key or chord %s (modifiers Control, Shift, Alt, Meta, each once, joined by + to one named key or character)", errcode.Quote(a.Key))
			}
		} else if a.Kind == browser.ActPress && !keys.Named(a.Key) && len([]rune(a.Key)) != 1 {
			return "", errcode.New(errcode.InvalidArgument, "unknown key %s", errcode.Quote(a.Key))
		}
		if a.Kind == browser.ActSelect && a.Option == "" && a.Options == nil {
			return "", errcode.New(errcode.InvalidArgument, "select needs the option's visible label")
		}
		return policy.ClassInput, nil
	case browser.ActHover, browser.ActScroll, browser.ActDrag:
		if !s.interactions {
			break
		}
		switch {
		case a.Kind != browser.ActScroll && a.Ref == "":
			return "", errcode.New(errcode.InvalidArgument, "%s needs a ref", a.Kind)
		case a.Kind == browser.ActDrag && a.To == "":
			return "", errcode.New(errcode.InvalidArgument, "drag needs to: the ref of the control to drop on")
		case a.Kind == browser.ActDrag && a.To == a.Ref:
			return "", errcode.New(errcode.InvalidArgument, "drag needs two different controls")
		case a.Kind == browser.ActScroll:
			if err := browser.CheckViewports(a.Viewports); err != nil {
				return "", err
			}
		}
		return policy.ClassInput, nil
	}
	if s.realPages {
		return "", errcode.New(errcode.InvalidArgument, "unknown action kind %s (click, dblclick, context_click, type, press, select, select_text, check, uncheck, dialog, hover, scroll, drag)", errcode.Quote(string(a.Kind)))
	}
	if s.interactions {
		return "", errcode.New(errcode.InvalidArgument, "unknown action kind %s (click, type, press, select, check, uncheck, dialog, hover, scroll, drag)", errcode.Quote(string(a.Kind)))
	}
	return "", errcode.New(errcode.InvalidArgument, "unknown action kind %s (click, type, press, select, check, uncheck, dialog)", errcode.Quote(string(a.Kind)))
}

// control resolves a control ref of the newest revision to the control the
// page retained for it.
func (s *Session) control(ref string) (collect.Target, error) {
	rev, index, err := s.newest(observation.KindControl, ref)
	if err != nil {
		return collect.Target{}, err
	}
	if s.places != nil {
		return s.frameControl(rev, index)
	}
	return collect.Target{Revision: s.revisionToken(rev), Index: index, Doc: s.doc}, nil
}

// inspect runs the read-only guards of an action (collect.Inspect), which
// change nothing in the page, and returns the control's facts.
func (s *Session) inspect(ctx context.Context, req collect.GuardRequest) (*collect.GuardResult, error) {
	return collectOr(ctx, s.eval, collect.Inspect(req), collect.DecodeInspect, "the control could not be inspected", controlRefusal)
}

// prepare runs the guards of an action again once it is authorized
// (collect.Prepare) and returns the control's facts and the point a
// pointer action hits.
func (s *Session) prepare(ctx context.Context, req collect.GuardRequest) (*collect.GuardResult, error) {
	return collectOr(ctx, s.eval, collect.Prepare(req), collect.DecodePrepare, "the control could not be inspected", controlRefusal)
}

// authorizeAndPrepare asks authorize for the action on facts, the
// control's as inspected. Authorization may have waited for a person: the
// owners of a control in a frame are shown again and the guards of req run
// again (prepare). A caller that acts on the prepared facts holds them to
// the approved ones (stillApproved); one that only needs the point may
// discard them.
func (s *Session) authorizeAndPrepare(ctx context.Context, authorize browser.Authorize, class string, facts policy.Facts, req collect.GuardRequest) (policy.Permit, *collect.GuardResult, error) {
	permit, err := authorize(ctx, class, facts)
	if err != nil {
		return policy.Permit{}, nil, err
	}
	if err := s.revealOwners(ctx); err != nil {
		return policy.Permit{}, nil, err
	}
	prep, err := s.prepare(ctx, req)
	if err != nil {
		return policy.Permit{}, nil, err
	}
	return permit, prep, nil
}

// stillApproved refuses an action whose control's facts are no longer the
// facts it was authorized on: one that needs the user's approval now, or
// needed it then, is asked for again.
func stillApproved(now, approved policy.Facts) error {
	if now == approved {
		return nil
	}
	if policy.Consequential(now) || policy.Consequential(approved) {
		return errcode.New(errcode.ApprovalRequired, "the control changed while the action waited; it is now %s and needs the user's approval", now)
	}
	return errcode.New(errcode.StaleReference, "the control changed before the action; observe again")
}

// refusalWords tell the agent of the page's refusals about a control: the
// code of each, and its words for the control itself and for an owner of
// the control's frame ("": the page never refuses an owner so).
var refusalWords = map[collect.Refusal]struct {
	code           errcode.Code
	control, owner string
}{
	collect.DocumentChanged: {errcode.DocumentChanged, "the page loaded a new document; observe again", "a document holding the control's frame changed; observe again"},
	collect.Stale:           {errcode.StaleReference, "the control is no longer on the page; observe again", "the control's frame is no longer on the page; observe again"},
	collect.Detached:        {errcode.StaleReference, "the control is no longer on the page; observe again", "the control's frame is no longer on the page; observe again"},
	collect.Hidden:          {errcode.NotActionable, "the control is not visible; observe again", "the control's frame is out of view; observe again"},
	collect.Disabled:        {errcode.NotActionable, "the control is disabled", ""},
	collect.Covered:         {errcode.NotActionable, "another element covers the control; close it or observe again", "another element covers the control's frame; close it or observe again"},
	collect.Unfocusable:     {errcode.NotActionable, "the control cannot take keyboard input", ""},
	collect.NotEditable:     {errcode.NotActionable, "the control does not take text; type works on text fields and editors", ""},
	collect.OutOfView:       {errcode.NotActionable, "the control is out of the window; a drag's two ends must show in it together", ""},
}

// controlRefusal is the public error for the page's refusal to act on, or
// to capture, a control.
func controlRefusal(r collect.Refusal) error {
	w, ok := refusalWords[r]
	if !ok {
		// Decoding admits only the refusals a call may answer with.
		return errcode.New(errcode.NotActionable, "the control cannot be acted on")
	}
	return errcode.New(w.code, "%s", w.control)
}

// runSteps dispatches the steps of one action in order and stops at the
// first that fails.
func (s *Session) runSteps(octx context.Context, steps []func() error) error {
	for i, step := range steps {
		if err := step(); err != nil {
			if errors.Is(tab.Cause(octx, err), tab.ErrDialog) {
				return nil // the input opened a dialog: it was delivered
			}
			var r *refused
			if errors.As(err, &r) {
				return r.err
			}
			if errcode.Of(err) == errcode.ActionUncertain {
				return err
			}
			if i > 0 && s.tab.ClosedBy(octx, err) {
				// The input closed the page (a "Done" button that calls
				// window.close) before the browser answered: it was
				// delivered, and the next observation shows the tab now
				// active.
				return nil
			}
			if errcode.Of(tab.Cause(octx, err)) == errcode.PageCrashed {
				if i == 0 {
					return err
				}
				// The renderer is gone, and with it whatever the input did
				// in the page: the agent must navigate, not observe.
				return errcode.Wrap(errcode.PageCrashed, tab.Cause(octx, err), "the page stopped responding during the action, which may have reached it, and was stopped; navigate to load it again")
			}
			return errcode.Wrap(errcode.ActionUncertain, tab.Cause(octx, err), "the action may or may not have reached the page; observe before trying again")
		}
	}
	return nil
}

// arm runs the last guard check before input and arms the in-page guard.
func (s *Session) arm(ctx context.Context, req collect.ArmRequest) error {
	refusal, err := collectIn(ctx, s.eval, collect.Arm(req), collect.DecodeArm, "the control could not be checked before the input")
	if err != nil {
		return err
	}
	switch refusal {
	case "":
		return nil
	case collect.Covered:
		return errcode.New(errcode.NotActionable, "another element covers the control; close it or observe again")
	case collect.Unfocusable:
		return errcode.New(errcode.NotActionable, "the control lost the keyboard focus before the input; observe again")
	default: // collect.Detached
		return errcode.New(errcode.StaleReference, "the control is no longer on the page; observe again")
	}
}

// disarm ends the guard and reports what it saw. Input the guard stopped
// never reached the page; input it did not see confirmed on the control
// (a frame took it, say) may have gone elsewhere, when confirm asks for it.
func (s *Session) disarm(ctx context.Context, confirm bool) error {
	raw, navigating, err := s.evalUnlessNavigating(ctx, collect.Disarm())
	if navigating || err != nil {
		// The input navigated away or opened a dialog: it was delivered.
		return nil
	}
	g, err := collect.DecodeDisarm(raw)
	if err != nil {
		return errcode.Wrap(errcode.ActionUncertain, err, "the input could not be confirmed on the control; observe before trying again")
	}
	switch {
	case g.Unarmed:
		// The input navigated and the new document committed before this
		// check: it was delivered, and Settle reports the navigation.
		return nil
	case g.Blocked > 0 && g.Hits == 0:
		return &refused{errcode.New(errcode.NotActionable, "the page changed under the input, which was stopped before it reached the page; observe again")}
	case g.Blocked > 0:
		return errcode.New(errcode.ActionUncertain, "the page changed during the input, which may have been delivered only in part; observe before trying again")
	case g.Confirmed == 0 && confirm:
		return errcode.New(errcode.ActionUncertain, "the input could not be confirmed on the control; observe before trying again")
	}
	return nil
}

// evalUnlessNavigating runs expr, a check right after input, unless a
// main-frame navigation is on its way (navigating): DevTools would hold
// the check behind it until its document commits, which a server that
// holds its answer never lets happen (tab.UntilNavigating). The input
// started that navigation, so it was delivered; Settle reports it.
func (s *Session) evalUnlessNavigating(ctx context.Context, expr string) (raw []byte, navigating bool, err error) {
	nctx, stop := s.tab.UntilNavigating(ctx)
	defer stop()
	raw, err = s.eval(nctx, expr)
	if err != nil && nctx.Err() != nil && ctx.Err() == nil {
		return nil, true, nil
	}
	return raw, false, err
}

// refused is a step that the page refused before any effect.
type refused struct{ err error }

func (r *refused) Error() string { return r.err.Error() }

// afterDispatch reports postconditions and observes the result.
func (s *Session) afterDispatch(ctx context.Context, before tab.Mark) (*browser.ActResult, error) {
	res, err := s.settled(ctx, before)
	if err != nil {
		return nil, err
	}
	return s.observed(ctx, res)
}

// settled reports the postconditions of a dispatched input.
func (s *Session) settled(ctx context.Context, before tab.Mark) (*browser.ActResult, error) {
	if s.act != nil {
		before = before.In(s.act.target, s.act.world) // settle in the frame's renderer too
	}
	sctx, stop := s.dl.settleContext(ctx)
	st := s.tab.Settle(sctx, before)
	stop()
	if st.Refused != nil {
		// The input was delivered; the navigation it started was stopped
		// before its request left the browser, and the page stayed.
		return nil, st.Refused
	}
	if st.Opened {
		if err := s.popupRefusal(ctx); err != nil {
			// Delivered too; the page it opened was closed before its
			// first request left the browser.
			return nil, err
		}
	}
	res := &browser.ActResult{Dispatched: true, NavigationStarted: st.Started, NavigationDone: st.Done,
		NavigationCancelled: st.Cancelled, DialogOpened: st.Dialog}
	var begin time.Duration
	if st.Started && !st.Done {
		begin = downloadBegin // the navigation may have become a download
	}
	if res.Download = s.dl.report(ctx, s.timings.SettleLoad, begin); res.Download != nil && !st.Done {
		// The navigation became a download: no document replaced the page.
		res.NavigationStarted = false
	}
	return res, nil
}

// observed adds the observation after an action to its result. Once input
// was dispatched, a failure to observe leaves the action uncertain.
func (s *Session) observed(ctx context.Context, res *browser.ActResult) (*browser.ActResult, error) {
	obs, err := s.observe(ctx, observation.Request{})
	if err != nil {
		if !res.Dispatched {
			return nil, err
		}
		return nil, errcode.Wrap(errcode.ActionUncertain, err, "the action was dispatched but the page could not be observed afterwards; observe again")
	}
	res.URL, res.Observation = obs.URL, obs
	return res, nil
}
