package chromium

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// Act implements browser.Session.
func (s *Session) Act(ctx context.Context, a browser.Action, authorize browser.Authorize) (*browser.ActResult, error) {
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.lock.Release(1)
	if a.Kind == browser.ActDialog {
		return s.answerDialogLocked(ctx, a, authorize)
	}
	if s.tab.pendingDialog() != nil {
		return nil, errcode.New(errcode.NotActionable, "a JavaScript dialog is open; answer it with kind dialog first")
	}
	class, err := s.actionClass(a)
	if err != nil {
		return nil, err
	}
	switch a.Kind {
	case browser.ActScroll:
		return s.scrollLocked(ctx, a, authorize)
	case browser.ActDrag:
		return s.dragLocked(ctx, a, authorize)
	}
	ct, err := s.control(a.Ref)
	if err != nil {
		return nil, err
	}
	defer s.leaveFrame()
	req := collect.GuardRequest{
		Target:   ct,
		Pointer:  a.Kind == browser.ActClick || a.Kind == browser.ActCheck || a.Kind == browser.ActUncheck || a.Kind == browser.ActHover,
		Focus:    a.Kind == browser.ActType || a.Kind == browser.ActPress || a.Kind == browser.ActSelect,
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
		obs, err := s.observeLocked(ctx, observation.Request{})
		if err != nil {
			return nil, err
		}
		return &browser.ActResult{URL: obs.URL, Observation: obs}, nil
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

	before := s.tab.mark()
	if err := s.dispatch(ctx, a, req, prep, at, permit); err != nil {
		return nil, err
	}
	if a.Kind == browser.ActType && prep.Facts.Editable {
		s.bindDraftLocked(ctx, ct, a.Text)
	}
	return s.afterDispatchLocked(ctx, before)
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
	case browser.ActClick:
		f.Submit = p.Facts.Submit
	case browser.ActType:
		f.Submit = a.Submit && p.Facts.InForm
	case browser.ActPress:
		// Enter submits from any control of a form, with modifiers too
		// (a 1.8.0 chord); Space activates a focused submit button.
		key := a.Key
		if c, ok := parseChord(a.Key); ok {
			key = c.key
		}
		f.Submit = (key == "Enter" && p.Facts.InForm) || (key == " " && p.Facts.Submit)
	}
	return f
}

// bindDraftLocked keeps the text the agent typed into a rich-text editor as
// the draft receipt, weakly bound to the editor. Typing into the same
// editor again extends the known value.
func (s *Session) bindDraftLocked(ctx context.Context, ct collect.Target, text string) {
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
	case browser.ActType, browser.ActPress, browser.ActSelect, browser.ActCheck, browser.ActUncheck:
		if a.Kind == browser.ActPress && a.Key == "" {
			return "", errcode.New(errcode.InvalidArgument, "press needs a key")
		}
		if a.Kind == browser.ActPress && s.interactions {
			if _, ok := parseChord(a.Key); !ok {
				return "", errcode.New(errcode.InvalidArgument, "unknown key or chord %s (modifiers Control, Shift, Alt, Meta, each once, joined by + to one named key or character)", errcode.Quote(a.Key))
			}
		} else if _, named := namedKeys[a.Key]; a.Kind == browser.ActPress && !named && len([]rune(a.Key)) != 1 {
			return "", errcode.New(errcode.InvalidArgument, "unknown key %s", errcode.Quote(a.Key))
		}
		if a.Kind == browser.ActSelect && a.Option == "" {
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

// dispatch sends trusted input. Any failure once input may have reached the
// page is action_uncertain, and nothing is retried.
func (s *Session) dispatch(ctx context.Context, a browser.Action, req collect.GuardRequest, p *collect.GuardResult, at point, permit policy.Permit) error {
	octx, end, err := s.tab.begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	tgt := s.tab.target
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
		steps = append(steps, func() error {
			_, err := cdp.Call(octx, tgt, input.InsertText, input.InsertTextParams{Text: a.Text})
			return err
		})
		if a.Submit {
			steps = append(steps, keySteps(octx, tgt, "Enter")...)
		}
	case browser.ActPress:
		if c, ok := parseChord(a.Key); s.interactions && ok {
			steps, release = chordSteps(octx, tgt, c)
		} else {
			steps = keySteps(octx, tgt, a.Key)
		}
	case browser.ActSelect:
		// Trusted keys on the focused select choose the option: the
		// page plans them, the keyboard guard watches them, and the choice
		// is verified afterwards.
		plan, err := collectIn(octx, s.eval, collect.SelectPlan(option), collect.DecodeSelectPlan, "the option could not be looked up")
		if err != nil {
			return err
		}
		switch plan.Error {
		case "":
		case collect.Detached:
			return errcode.New(errcode.StaleReference, "the control is no longer on the page; observe again")
		case collect.Multiple:
			return errcode.New(errcode.NotActionable, "choosing in a multiple-choice list is not supported: the runtime sets choices only with trusted keys, and a multiple list needs modifier clicks")
		case collect.Disabled:
			return errcode.New(errcode.NotActionable, "the option labelled %s is disabled", errcode.Quote(a.Option))
		case collect.TooFar:
			return errcode.New(errcode.NotActionable, "the option labelled %s is more than %d keys away and its label is not unique to type; the runtime chooses only with trusted keys", errcode.Quote(a.Option), observation.MaxSelectKeys)
		case collect.NotSelect:
			return errcode.New(errcode.NotActionable, "the control is not a list of options")
		default: // collect.NoOption
			return errcode.New(errcode.NotActionable, "no enabled option labelled %s", errcode.Quote(a.Option))
		}
		for _, k := range plan.Keys {
			steps = append(steps, keySteps(octx, tgt, k)...)
		}
		for _, r := range plan.Type {
			steps = append(steps, keySteps(octx, tgt, string(r))...)
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
	case req.Focus:
		guard.Kind = collect.GuardKeyboard
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
		steps = append(steps, func() error {
			raw, err := s.eval(octx, collect.SelectedIs(option))
			chosen := false
			if err == nil {
				chosen, err = collect.DecodeSelectedIs(raw)
			}
			if err != nil || !chosen {
				return errcode.New(errcode.ActionUncertain, "the option could not be confirmed as chosen; observe before trying again")
			}
			return nil
		})
	}
	return runSteps(octx, steps)
}

// runSteps dispatches the steps of one action in order and stops at the
// first that fails.
func runSteps(octx context.Context, steps []func() error) error {
	for i, step := range steps {
		if err := step(); err != nil {
			if errors.Is(cause(octx, err), errDialog) {
				return nil // the input opened a dialog: it was delivered
			}
			var r *refused
			if errors.As(err, &r) {
				return r.err
			}
			if errcode.Of(err) == errcode.ActionUncertain {
				return err
			}
			if i == 0 && errcode.Of(err) == errcode.PageCrashed {
				return err
			}
			return errcode.Wrap(errcode.ActionUncertain, cause(octx, err), "the action may or may not have reached the page; observe before trying again")
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
	raw, err := s.eval(ctx, collect.Disarm())
	if err != nil {
		// The input navigated away or opened a dialog: it was delivered.
		return nil
	}
	g, err := collect.DecodeDisarm(raw)
	if err != nil {
		return errcode.Wrap(errcode.ActionUncertain, err, "the input could not be confirmed on the control; observe before trying again")
	}
	switch {
	case g.Blocked > 0 && g.Hits == 0:
		return &refused{errcode.New(errcode.NotActionable, "the page changed under the input, which was stopped before it reached the page; observe again")}
	case g.Blocked > 0:
		return errcode.New(errcode.ActionUncertain, "the page changed during the input, which may have been delivered only in part; observe before trying again")
	case g.Confirmed == 0 && confirm:
		return errcode.New(errcode.ActionUncertain, "the input could not be confirmed on the control; observe before trying again")
	}
	return nil
}

// refused is a step that the page refused before any effect.
type refused struct{ err error }

func (r *refused) Error() string { return r.err.Error() }

// afterDispatchLocked reports postconditions and observes the result.
func (s *Session) afterDispatchLocked(ctx context.Context, before navMark) (*browser.ActResult, error) {
	st := s.tab.settle(ctx, before)
	if st.refused != nil {
		// The input was delivered; the navigation it started was stopped
		// before its request left the browser, and the page stayed.
		return nil, st.refused
	}
	res := &browser.ActResult{Dispatched: true, NavigationStarted: st.started, NavigationDone: st.done,
		NavigationCancelled: st.cancelled, DialogOpened: st.dialog}
	obs, err := s.observeLocked(ctx, observation.Request{})
	if err != nil {
		return nil, errcode.Wrap(errcode.ActionUncertain, err, "the action was dispatched but the page could not be observed afterwards; observe again")
	}
	res.URL, res.Observation = obs.URL, obs
	return res, nil
}

// answerDialogLocked accepts or dismisses the pending JavaScript dialog.
func (s *Session) answerDialogLocked(ctx context.Context, a browser.Action, authorize browser.Authorize) (*browser.ActResult, error) {
	d := s.tab.pendingDialog()
	if d == nil {
		return nil, errcode.New(errcode.NotActionable, "no JavaScript dialog is open")
	}
	if d.Type == page.DialogTypeBeforeunload && a.Accept {
		return nil, errcode.New(errcode.NotActionable, "the runtime never accepts a leave-page dialog; dismiss it")
	}
	// Dismissing is always safe. Accepting is judged on the dialog's own
	// words (accepting "Delete everything?" is consequential), on the
	// origin of the page it blocks: a frame's dialog blocks its page.
	if a.Accept {
		// The whole message, as a control's name: the observation shows
		// MaxDialogMessage units, but the words past them count too.
		msg, cut := observation.CutUTF16(d.Message, policy.MaxFactName)
		facts := policy.Facts{Origin: s.origin, Role: "dialog", Name: msg, NameCut: cut}
		p, err := authorize(ctx, policy.ClassDialog, facts)
		if err != nil {
			return nil, err
		}
		if s.tab.pendingDialog() != d {
			return nil, errcode.New(errcode.NotActionable, "the dialog closed while the action waited for approval; observe again")
		}
		if err := p.Spend(); err != nil {
			return nil, err
		}
	}
	before := s.tab.mark()
	octx, end, err := s.tab.begin(ctx)
	if err != nil {
		return nil, err
	}
	_, err = cdp.Call(octx, s.tab.target, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: a.Accept, PromptText: a.Text})
	end()
	if err != nil {
		return nil, errcode.Wrap(errcode.ActionUncertain, err, "the dialog may or may not have been answered; observe again")
	}
	// Wait for this dialog to close (another may open right after it).
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	s.tab.waitFor(wctx, func() bool { return s.tab.dialog != d })
	cancel()
	return s.afterDispatchLocked(ctx, before)
}

// Upload implements browser.Session.
func (s *Session) Upload(ctx context.Context, ref string, stage browser.Stage, authorize browser.Authorize) (*browser.ActResult, error) {
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.lock.Release(1)
	res, err := s.uploadLocked(ctx, ref, stage, authorize)
	if err != nil && s.Gone() {
		return nil, errBrowserGone
	}
	return res, err
}

func (s *Session) uploadLocked(ctx context.Context, ref string, stage browser.Stage, authorize browser.Authorize) (*browser.ActResult, error) {
	ct, err := s.control(ref)
	if err != nil {
		return nil, err
	}
	defer s.leaveFrame()
	// Setting files needs no scroll or focus: the read-only guards suffice.
	prep, err := s.inspect(ctx, collect.GuardRequest{Target: ct})
	if err != nil {
		return nil, err
	}
	if !prep.Facts.File {
		return nil, errcode.New(errcode.UploadRefused, "the control is not a file input")
	}
	permit, err := authorize(ctx, policy.ClassUpload, actionFacts(browser.Action{}, prep))
	if err != nil {
		return nil, err
	}
	before := s.tab.mark()
	if err := s.setFiles(ctx, ct, stage, permit); err != nil {
		return nil, err
	}
	return s.afterDispatchLocked(ctx, before)
}

// setFiles resolves the retained node to a handle in its own object group,
// has stage prepare the files once the node is known to be there, spends
// the permit, sets the files, and releases the group. An upload refused
// before the files are set keeps its approval.
func (s *Session) setFiles(ctx context.Context, ct collect.Target, stage browser.Stage, permit policy.Permit) error {
	octx, end, err := s.tab.begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	const group = "veetbrowser-upload"
	target, world := s.tab.target, s.tab.currentWorld()
	if s.act != nil {
		target, world = s.act.target, s.act.world
	}
	if world == "" {
		// Never fall back to the page's own world.
		return errcode.New(errcode.DocumentChanged, "the page is between documents; observe again")
	}
	defer cdp.Call(context.WithoutCancel(octx), target, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: group})
	res, err := cdp.Call(octx, target, runtime.Evaluate, runtime.EvaluateParams{
		Expression: collect.Node(ct), UniqueContextID: world, ObjectGroup: group,
	})
	if err != nil || res.ExceptionDetails != nil || res.Result.ObjectID == "" {
		return errcode.Wrap(errcode.StaleReference, fmt.Errorf("resolving the file input: %v", err), "the control is no longer on the page; observe again")
	}
	// The backend node id names the element for as long as it lives: the
	// caller keeps one upload's files per control.
	node, err := cdp.Call(octx, target, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: res.Result.ObjectID})
	if err != nil {
		return classify(octx, err, errcode.StaleReference, "the control is no longer on the page; observe again")
	}
	files, err := stage(octx, browser.UploadTarget{Document: ct.Doc, Control: fmt.Sprintf("%s/%d", ct.Doc, node.Node.BackendNodeID)})
	if err != nil {
		return classify(octx, err, errcode.UploadRefused, "the upload could not be prepared")
	}
	if err := permit.Spend(); err != nil {
		return err
	}
	if _, err := cdp.Call(octx, target, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: files, ObjectID: res.Result.ObjectID}); err != nil {
		return errcode.Wrap(errcode.ActionUncertain, err, "the files may or may not have been set; observe again")
	}
	return nil
}

// Scrolling and dragging (tool version 1.8.0). A scroll is wheel input:
// over a control it scrolls what the page scrolls under it (a feed, a
// list), without one the page. A drag presses at one control, moves the
// pointer with the button held and releases it over another.

const (
	// wheelStep is about how far one wheel event scrolls; a scroll is sent
	// in several, as a wheel turns, and at most maxWheelSteps.
	wheelStep     = 400.0
	minWheelSteps = 3
	maxWheelSteps = 30
	// scrollSettle bounds the wait for the scroll position to stop
	// changing (smooth scrolling, content loaded as it comes into view).
	scrollSettle = time.Second
	// dragMoves are the pointer moves between a drag's press and release:
	// pages that sort by the pointer follow it through the items passed.
	dragMoves = 8
)

// scrollLocked scrolls by a.Viewports viewports (0 means 1): over the
// control a.Ref, by the height of what it scrolls, or over the middle of
// the window by its height.
func (s *Session) scrollLocked(ctx context.Context, a browser.Action, authorize browser.Authorize) (*browser.ActResult, error) {
	viewports := a.Viewports
	if viewports == 0 {
		viewports = 1
	}
	if a.Ref == "" {
		return s.scrollPageLocked(ctx, viewports, authorize)
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
	return s.wheelLocked(ctx, at, viewports*(*prep.Height), permit, position)
}

// scrollPageLocked scrolls the page: the wheel over the middle of the window.
func (s *Session) scrollPageLocked(ctx context.Context, viewports float64, authorize browser.Authorize) (*browser.ActResult, error) {
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
	return s.wheelLocked(ctx, at, viewports*m.ClientHeight, permit, position)
}

// layout is the top document's visual viewport.
func (s *Session) layout(ctx context.Context) (*page.VisualViewport, error) {
	octx, end, err := s.tab.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	m, err := cdp.Call(octx, s.tab.target, page.GetLayoutMetrics, cdp.Empty{})
	if err != nil {
		return nil, classify(octx, err, errcode.CaptureFailed, "the window could not be measured")
	}
	if m.CSSVisualViewport == nil || m.CSSVisualViewport.ClientHeight <= 0 {
		return nil, errcode.New(errcode.CaptureFailed, "the window could not be measured")
	}
	return m.CSSVisualViewport, nil
}

// wheelLocked spends the permit, turns the wheel at the point by dy CSS
// pixels (negative up) in a few steps, waits a bounded time for the
// position to stop changing, and observes.
func (s *Session) wheelLocked(ctx context.Context, at point, dy float64, permit policy.Permit, position func(context.Context) (float64, bool)) (*browser.ActResult, error) {
	n := int(math.Ceil(math.Abs(dy) / wheelStep))
	n = min(max(n, minWheelSteps), maxWheelSteps)
	before := s.tab.mark()
	octx, end, err := s.tab.begin(ctx)
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
			_, err := cdp.Call(octx, s.tab.target, dispatchWheel, wheelParams{
				Type: input.DispatchMouseEventTypeMouseWheel, X: at.x, Y: at.y, DeltaY: dy / float64(n)})
			return err
		})
	}
	err = runSteps(octx, steps)
	end()
	if err != nil {
		return nil, err
	}
	s.settleScroll(ctx, position)
	return s.afterDispatchLocked(ctx, before)
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

// settleScroll waits, at most scrollSettle, until two readings of the
// position a little apart agree.
func (s *Session) settleScroll(ctx context.Context, position func(context.Context) (float64, bool)) {
	wctx, cancel := context.WithTimeout(ctx, scrollSettle)
	defer cancel()
	last, ok := position(wctx)
	for ok {
		select {
		case <-wctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
		var now float64
		if now, ok = position(wctx); ok && now == last {
			return
		}
		last = now
	}
}

// dragLocked drags the control a.Ref onto the control a.To. Both are
// guarded as a click's control is (there, visible, not covered at their
// points, shown in the window together); the action is authorized once,
// on the source's facts.
func (s *Session) dragLocked(ctx context.Context, a browser.Action, authorize browser.Authorize) (*browser.ActResult, error) {
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
	before := s.tab.mark()
	if err := s.dragInput(ctx, src, point{start.X, start.Y}, point{end.X, end.Y}, permit); err != nil {
		return nil, err
	}
	return s.afterDispatchLocked(ctx, before)
}

// dragInput presses at p, checks that the press reached the source, moves
// the pointer to q in dragMoves steps with the button held and releases
// it there. A press that did not reach the source is released where it
// was, and the drag ends.
func (s *Session) dragInput(ctx context.Context, src collect.Target, p, q point, permit policy.Permit) error {
	octx, end, err := s.tab.begin(ctx)
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
			_, err := cdp.Call(octx, s.tab.target, input.DispatchMouseEvent, params)
			return err
		}
	}
	press := []func() error{
		mouse(input.DispatchMouseEventTypeMouseMoved, p, 0),
		mouse(input.DispatchMouseEventTypeMousePressed, p, 1),
		func() error { return s.disarm(octx, true) },
	}
	if err := runSteps(octx, press); err != nil {
		mouse(input.DispatchMouseEventTypeMouseReleased, p, 0)()
		return err
	}
	var moves []func() error
	for i := 1; i <= dragMoves; i++ {
		f := float64(i) / dragMoves
		moves = append(moves, mouse(input.DispatchMouseEventTypeMouseMoved, point{p.x + (q.x-p.x)*f, p.y + (q.y-p.y)*f}, 1))
	}
	moves = append(moves, mouse(input.DispatchMouseEventTypeMouseReleased, q, 0))
	if err := runSteps(octx, moves); err != nil {
		if errcode.Of(err) != errcode.ActionUncertain {
			// The press was delivered: whatever failed after it, the
			// drag may have moved something.
			err = errcode.Wrap(errcode.ActionUncertain, err, "the drag may have been delivered only in part; observe before trying again")
		}
		return err
	}
	return nil
}
