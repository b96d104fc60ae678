package chromium

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/collect"
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
	class, err := actionClass(a)
	if err != nil {
		return nil, err
	}
	ct, err := s.control(a.Ref)
	if err != nil {
		return nil, err
	}
	defer s.leaveFrame()
	req := collect.GuardRequest{
		Target:   ct,
		Pointer:  a.Kind == browser.ActClick || a.Kind == browser.ActCheck || a.Kind == browser.ActUncheck,
		Focus:    a.Kind == browser.ActType || a.Kind == browser.ActPress || a.Kind == browser.ActSelect,
		Editable: a.Kind == browser.ActType,
	}
	// Read-only guards and facts first: nothing touches the page before the
	// action is authorized.
	insp, err := s.guards(ctx, collect.Inspect(req), collect.DecodeInspect)
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
	permit, err := authorize(ctx, class, facts)
	if err != nil {
		return nil, err
	}
	// Authorization may have waited for a person: the guards run again, and
	// the facts the user approved must still be the control's facts.
	if err := s.revealOwners(ctx); err != nil {
		return nil, err
	}
	prep, err := s.guards(ctx, collect.Prepare(req), collect.DecodePrepare)
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
	if now := actionFacts(a, prep); now != facts {
		if policy.Consequential(now) || policy.Consequential(facts) {
			return nil, errcode.New(errcode.ApprovalRequired, "the control changed while the action waited; it is now %s and needs the user's approval", now)
		}
		return nil, errcode.New(errcode.StaleReference, "the control changed before the action; observe again")
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
	f := policy.Facts{Origin: p.Facts.Origin, Role: p.Facts.Role, Name: p.Facts.Name, NameCut: p.Facts.NameCut, Form: p.Facts.Form}
	switch a.Kind {
	case browser.ActClick:
		f.Submit = p.Facts.Submit
	case browser.ActType:
		f.Submit = a.Submit && p.Facts.InForm
	case browser.ActPress:
		// Enter submits from any control of a form; Space activates a
		// focused submit button.
		f.Submit = (a.Key == "Enter" && p.Facts.InForm) || (a.Key == " " && p.Facts.Submit)
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

func actionClass(a browser.Action) (string, error) {
	switch a.Kind {
	case browser.ActClick:
		return policy.ClassClick, nil
	case browser.ActType, browser.ActPress, browser.ActSelect, browser.ActCheck, browser.ActUncheck:
		if a.Kind == browser.ActPress && a.Key == "" {
			return "", errcode.New(errcode.InvalidArgument, "press needs a key")
		}
		if _, named := namedKeys[a.Key]; a.Kind == browser.ActPress && !named && len([]rune(a.Key)) != 1 {
			return "", errcode.New(errcode.InvalidArgument, "unknown key %s", errcode.Quote(a.Key))
		}
		if a.Kind == browser.ActSelect && a.Option == "" {
			return "", errcode.New(errcode.InvalidArgument, "select needs the option's visible label")
		}
		return policy.ClassInput, nil
	}
	return "", errcode.New(errcode.InvalidArgument, "unknown action kind %s (click, type, press, select, check, uncheck, dialog)", errcode.Quote(string(a.Kind)))
}

// control resolves a control ref of the newest revision to the control the
// page retained for it.
func (s *Session) control(ref string) (collect.Target, error) {
	rev, index, err := s.refKeys.Parse(observation.KindControl, ref)
	if err != nil {
		return collect.Target{}, err
	}
	if err := s.current(rev); err != nil {
		return collect.Target{}, err
	}
	if s.places != nil {
		return s.frameControl(rev, index)
	}
	return collect.Target{Revision: s.revisionToken(rev), Index: index, Doc: s.doc}, nil
}

// guards runs the live guards of one step in the page (collect.Inspect
// before authorization, collect.Prepare after it) and returns the control's
// facts and, after Prepare, the point a pointer action hits.
func (s *Session) guards(ctx context.Context, expr string, decode func([]byte) (*collect.GuardResult, error)) (*collect.GuardResult, error) {
	raw, err := s.eval(ctx, expr)
	if err != nil {
		return nil, err
	}
	r, err := decode(raw)
	if err != nil {
		return nil, errcode.Wrap(errcode.CaptureFailed, err, "the control could not be inspected")
	}
	switch r.Error {
	case "":
		return r, nil
	case collect.DocumentChanged:
		return nil, errcode.New(errcode.DocumentChanged, "the page loaded a new document; observe again")
	case collect.Stale, collect.Detached:
		return nil, errcode.New(errcode.StaleReference, "the control is no longer on the page; observe again")
	case collect.Hidden:
		return nil, errcode.New(errcode.NotActionable, "the control is not visible; observe again")
	case collect.Disabled:
		return nil, errcode.New(errcode.NotActionable, "the control is disabled")
	case collect.Covered:
		return nil, errcode.New(errcode.NotActionable, "another element covers the control; close it or observe again")
	case collect.Unfocusable:
		return nil, errcode.New(errcode.NotActionable, "the control cannot take keyboard input")
	case collect.NotEditable:
		return nil, errcode.New(errcode.NotActionable, "the control does not take text; type works on text fields and editors")
	}
	return nil, errcode.New(errcode.NotActionable, "the control cannot be acted on")
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
	case browser.ActType:
		steps = append(steps, func() error {
			_, err := cdp.Call(octx, tgt, input.InsertText, input.InsertTextParams{Text: a.Text})
			return err
		})
		if a.Submit {
			steps = append(steps, keySteps(octx, tgt, "Enter")...)
		}
	case browser.ActPress:
		steps = keySteps(octx, tgt, a.Key)
	case browser.ActSelect:
		// Trusted keys on the focused select choose the option: the
		// page plans them, the keyboard guard watches them, and the choice
		// is verified afterwards.
		raw, err := s.eval(octx, collect.SelectPlan(option))
		if err != nil {
			return err
		}
		plan, err := collect.DecodeSelectPlan(raw)
		if err != nil {
			return errcode.Wrap(errcode.CaptureFailed, err, "the option could not be looked up")
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
	case req.Pointer:
		guard.Kind, guard.X, guard.Y = collect.GuardPointer, p.X, p.Y
	case req.Focus:
		guard.Kind = collect.GuardKeyboard
	}
	if guard.Kind != "" {
		if err := s.arm(octx, guard); err != nil {
			return err
		}
		steps = append(steps, func() error { return s.disarm(octx) })
	}
	// The last guard passed: the approval is consumed now, right before
	// the input, and only now.
	if err := permit.Spend(); err != nil {
		if guard.Kind != "" {
			s.disarm(octx)
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
	raw, err := s.eval(ctx, collect.Arm(req))
	if err != nil {
		return err
	}
	refusal, err := collect.DecodeArm(raw)
	if err != nil {
		return errcode.Wrap(errcode.CaptureFailed, err, "the control could not be checked before the input")
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
// (a frame took it, say) may have gone elsewhere.
func (s *Session) disarm(ctx context.Context) error {
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
	case g.Confirmed == 0:
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
	prep, err := s.guards(ctx, collect.Inspect(collect.GuardRequest{Target: ct}), collect.DecodeInspect)
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
