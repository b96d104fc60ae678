package tab

import (
	"context"
	"errors"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/veetbot/veetbrowser/errcode"
)

// Page steps: the calls a session makes on the page, each of which a crash,
// a dialog or the page's closing interrupts.

var (
	// ErrCrashed: the page's renderer is gone.
	ErrCrashed = errcode.New(errcode.PageCrashed, "the page crashed; navigate to load it again")
	// ErrDialog interrupts a step when a JavaScript dialog opens.
	ErrDialog = errcode.New(errcode.CaptureFailed, "a JavaScript dialog is open on the page")
	// errTabClosed: the page closed itself (window.close) during a call.
	errTabClosed = errcode.New(errcode.NotActionable, "the tab was closed; observe to see the active tab")
)

// Begin derives a context for one page step that a crash or a dialog
// interrupts, and that the renderer guard watches. The returned func must
// be called when the step ends. A step whose caller set no deadline is
// bounded by StepTimeout: a page that blocks its main thread must not hold
// the session forever. (An action's approval, which may wait for a person,
// is not a page step.)
func (t *Tab) Begin(ctx context.Context) (context.Context, func(), error) {
	stop := func() {}
	if _, ok := ctx.Deadline(); !ok {
		ctx, stop = context.WithTimeout(ctx, t.timings.StepTimeout)
	}
	octx, cancel := context.WithCancelCause(ctx)
	key := new(int)
	t.mu.Lock()
	if t.crashed || t.gone {
		err := ErrCrashed
		if t.gone {
			err = errTabClosed
		}
		t.mu.Unlock()
		cancel(nil)
		stop()
		return nil, nil, err
	}
	t.inflight[key] = cancel
	t.mu.Unlock()
	// A step within a step (an evaluate during an action's dispatch) is
	// already watched: one hang probe per renderer is enough.
	if ctx.Value(stepKey{}) == nil {
		octx = context.WithValue(octx, stepKey{}, true)
		go t.watch(octx)
	}
	return octx, func() {
		t.mu.Lock()
		delete(t.inflight, key)
		t.mu.Unlock()
		cancel(nil)
		stop()
	}, nil
}

// ClosedBy reports whether err, which ended a step (of ctx) on the page,
// came from the page closing itself (window.close): the tab saw its target
// destroyed, or the browser detached a session, which for a closing page
// comes right before its destruction. A detach that no destruction of the
// page follows within PopupClose (a frame's session, whose frame went
// elsewhere) is not the page closing.
func (t *Tab) ClosedBy(ctx context.Context, err error) bool {
	if errors.Is(Cause(ctx, err), errTabClosed) {
		return true
	}
	if !errors.Is(err, chromedp.ErrTargetDetached) {
		return false
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.timings.PopupClose)
	defer cancel()
	return t.waitFor(wctx, func() bool { return t.gone }) == nil
}

// stepKey marks the context of a page step that Begin watches.
type stepKey struct{}

// Cause returns the interruption of a page step, or err.
func Cause(ctx context.Context, err error) error {
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) && !errors.Is(c, context.DeadlineExceeded) {
		return c
	}
	return err
}

// Evaluate runs expr in the collector world of the current document and
// returns its JSON value. A document change during the call is
// document_changed; nothing partial is returned.
func (t *Tab) Evaluate(ctx context.Context, expr string) ([]byte, error) {
	octx, end, err := t.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	if t.Dialog() != nil {
		return nil, ErrDialog
	}
	var world string
	if err := t.waitFor(octx, func() bool { world = t.world; return world != "" }); err != nil {
		return nil, Classify(octx, err, errcode.CaptureFailed, "the page has no document to observe")
	}
	go t.unhold(octx)
	res, err := cdp.Call(octx, t.target, runtime.Evaluate, runtime.EvaluateParams{
		Expression:      expr,
		UniqueContextID: world,
		ReturnByValue:   ptr(true),
		Silent:          ptr(true),
	})
	if err != nil {
		return nil, t.stepError(octx, world, err, "the page could not be observed")
	}
	if res.ExceptionDetails != nil {
		msg := res.ExceptionDetails.Text
		if res.ExceptionDetails.Exception != nil {
			msg += " " + res.ExceptionDetails.Exception.Description
		}
		return nil, errcode.Wrap(errcode.CaptureFailed, errors.New(msg), "the page could not be observed")
	}
	return res.Result.Value, nil
}

// stepError is the public error of a failed call in world, the collector
// world of the document a step began on: document_changed when that
// document went away during the call, else the step's own failure.
func (t *Tab) stepError(octx context.Context, world string, err error, msg string) error {
	if octx.Err() != nil {
		// Cancelled, timed out, or interrupted by a crash or a dialog.
		return Classify(octx, err, errcode.CaptureFailed, msg)
	}
	t.mu.Lock()
	moved := t.world != world
	t.mu.Unlock()
	if err != nil {
		text := err.Error()
		if strings.Contains(text, "Cannot find context") || strings.Contains(text, "context was destroyed") {
			moved = true
		}
	}
	if moved {
		return errcode.Wrap(errcode.DocumentChanged, err, "the document changed during the observation; observe again")
	}
	return Classify(octx, err, errcode.CaptureFailed, msg)
}

// Classify maps a page step's failure to a public error: an interruption
// keeps its own code, a context error its own, anything else gets code.
func Classify(ctx context.Context, err error, code errcode.Code, msg string) error {
	err = Cause(ctx, err)
	var e *errcode.Error
	if errors.As(err, &e) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return errcode.Wrap(errcode.Timeout, err, "the page did not answer in time")
	}
	if errors.Is(err, context.Canceled) {
		return errcode.Wrap(errcode.Cancelled, err, "the operation was cancelled")
	}
	return errcode.Wrap(code, err, "%s", msg)
}

// publicNetError keeps only the net error name, which is safe to show.
func publicNetError(text string) string {
	if i := strings.Index(text, "net::"); i >= 0 {
		return strings.Fields(text[i:])[0]
	}
	return "network error"
}

// EvaluateIn runs expr in world on target (a frame's collector world) and
// returns its JSON value. One call is bounded by FrameStep: a frame whose
// renderer does not answer is reported, not waited on (the renderer guard
// watches the page's renderer, not a frame's).
func (t *Tab) EvaluateIn(ctx context.Context, target *chromedp.Target, world, expr string) ([]byte, error) {
	octx, end, err := t.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	sctx, stop := t.within(octx, target)
	defer stop()
	fctx, cancel := context.WithTimeout(sctx, t.timings.FrameStep)
	defer cancel()
	res, err := cdp.Call(fctx, target, runtime.Evaluate, runtime.EvaluateParams{
		Expression:      expr,
		UniqueContextID: world,
		ReturnByValue:   ptr(true),
		Silent:          ptr(true),
	})
	if err != nil {
		return nil, Classify(fctx, err, errcode.CaptureFailed, "a frame could not be observed")
	}
	if res.ExceptionDetails != nil {
		return nil, errcode.New(errcode.CaptureFailed, "a frame could not be observed")
	}
	return res.Result.Value, nil
}

// EvaluatorIn is EvaluateIn bound to one world of one target.
func (t *Tab) EvaluatorIn(target *chromedp.Target, world string) func(context.Context, string) ([]byte, error) {
	return func(ctx context.Context, expr string) ([]byte, error) { return t.EvaluateIn(ctx, target, world, expr) }
}

func ptr[T any](v T) *T { return &v }

// Release releases an object group of handles on target after a step on
// ctx, within Timings.Cleanup: the step may have ended because the renderer
// stopped answering.
func (t *Tab) Release(ctx context.Context, target *chromedp.Target, group string) {
	cctx, cancel := t.cleanupOn(ctx, target)
	defer cancel()
	cdp.Call(cctx, target, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: group})
}

// cleanupOn is the context of a call on target after a step on ctx ended:
// within Timings.Cleanup, and no longer than the tab holds target's
// session, whose commands would otherwise wait out the bound once it is
// gone (within).
func (t *Tab) cleanupOn(ctx context.Context, target *chromedp.Target) (context.Context, context.CancelFunc) {
	cctx, cancel := t.timings.CleanupContext(ctx)
	sctx, stop := t.within(cctx, target)
	return sctx, func() {
		stop()
		cancel()
	}
}
