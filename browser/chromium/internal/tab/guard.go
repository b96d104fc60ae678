package tab

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	cdptarget "github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/veetbot/veetbrowser/errcode"
)

// The renderer guard. A page can keep its renderer's main thread from ever
// answering: a main-world `while(true){}`, at load or started later by a
// timer, or a page whose style and layout never finish (tens of thousands of
// nested shadow roots). The isolated world runs on that same thread, so the
// collector and every input event wait with it. A page step therefore never
// waits on a silent renderer for more than HangBound: the renderer is then
// taken as hung, crashed on purpose, and the step reports page_crashed, the
// code of a renderer that is gone, with the same remedy: the session's next
// navigation loads the page in a new renderer.
//
// A renderer is silent when it leaves a trivial evaluation unanswered for
// HangProbe after a step has run HangAfter: a step that keeps the renderer
// busy for HangBound (one collector run of that long included) is hung. On
// a loaded machine the probe waits longer (ProbeWait): a starved renderer
// is slow in proportion to the load, and a heavy page that takes a second
// or two of layout on an idle machine would otherwise be taken as hung. The
// collector's own bounds keep a healthy observation of the largest page far
// below that. A slow network is not a hung renderer: a navigation waiting on
// a server is probed again every HangAfter and runs on to its own deadline.
// The durations are the tab's Timings (HangAfter, HangProbe, LoadFactor,
// MaxLoadFactor, NavigationExcuse, CrashWait).

var errHung = errcode.New(errcode.PageCrashed, "the page stopped responding and was stopped; navigate to load it again")

// watch guards one page step until step ends.
func (t *Tab) watch(step context.Context) {
	timer := time.NewTimer(t.timings.HangAfter)
	defer timer.Stop()
	for {
		select {
		case <-step.Done():
			return
		case <-timer.C:
		}
		if t.answers(step) || step.Err() != nil {
			timer.Reset(t.timings.HangAfter)
			continue
		}
		t.stopHung()
		return
	}
}

// answers asks the renderer a trivial question. Any answer, an error
// included, is a sign of life. A renderer that is gone, one held by a
// JavaScript dialog (which waits for the agent, not forever), or one whose
// page is navigating is not hung.
func (t *Tab) answers(step context.Context) bool {
	if t.excusedSilence() {
		return true
	}
	factor := 1.0
	if t.timings.LoadFactor != nil {
		factor = t.timings.LoadFactor()
	}
	ctx, cancel := context.WithTimeout(step, t.timings.ProbeWait(factor))
	defer cancel()
	_, err := cdp.Call(ctx, t.target, runtime.Evaluate, runtime.EvaluateParams{Expression: "0", Silent: ptr(true)})
	return ctx.Err() == nil || err == nil || t.excusedSilence()
}

// excusedSilence: DevTools holds the commands for a renderer while a
// navigation of its main frame is on its way, until the new document
// commits: silence then is not a hang, for as long as a navigation may take
// (NavigationExcuse).
func (t *Tab) excusedSilence() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	navigating := t.pending != "" && time.Since(t.pendingAt) < t.timings.NavigationExcuse
	return t.crashed || t.dialog != nil || navigating
}

// stopHung crashes the hung renderer; the crash handling reports errHung to
// the steps that wait on it.
func (t *Tab) stopHung() {
	t.crashRenderer(true)
}

// crashRenderer crashes the tab's renderer and waits for the crash to be
// seen, so that it interrupts the steps of this renderer and never the
// navigation that follows, which starts a new one.
func (t *Tab) crashRenderer(hung bool) {
	t.mu.Lock()
	if t.crashed || t.hung {
		t.mu.Unlock()
		return
	}
	t.hung = hung
	t.mu.Unlock()
	ctx, cancel := context.WithTimeout(t.ctx, t.timings.CrashWait)
	defer cancel()
	// The renderer never answers Page.crash: it is gone before it could.
	go cdp.Call(ctx, t.target, page.Crash, cdp.Empty{})
	if t.waitFor(ctx, func() bool { return t.crashed }) == nil {
		return
	}
	// The crash was not seen in time: take the renderer as gone all the
	// same, so the next navigation starts over.
	t.mu.Lock()
	t.markCrashedLocked()
	t.mu.Unlock()
	t.wake()
}

// markCrashedLocked records that the renderer is gone and interrupts every
// step that waits on it, with errHung if the guard stopped it.
func (t *Tab) markCrashedLocked() {
	t.crashed = true
	t.world = ""
	cause := ErrCrashed
	if t.hung {
		cause = errHung
	}
	t.hung = false // the renderer it was about is gone
	t.interruptLocked(cause)
}

// The popup guard. Every page that one of the session's pages opens (by
// window.open, a target=_blank link, or a form) is closed at once: nothing
// shows it to the agent, and a page that opens a hundred would otherwise
// keep them all loading and running for the session's life. Popups opened
// by those popups before they closed are closed too. This is the one place
// that decides what happens to a popup.

// notePopupLocked queues a new page target for closing when the tab, or a
// popup of it, opened it. It runs in the event listener: no CDP here.
func (t *Tab) notePopupLocked(info *cdptarget.Info) {
	if info.Type != "page" || info.OpenerID == "" {
		return
	}
	if info.OpenerID != t.target.TargetID && !t.popups[info.OpenerID] {
		return
	}
	if t.popups[info.TargetID] {
		return
	}
	t.popups[info.TargetID] = true
	id := info.TargetID
	// Each close waits for its page to go; none waits for another.
	t.popupCloser.Push(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, t.timings.PopupClose)
		defer cancel()
		cdp.Call(ctx, chromedp.FromContext(t.ctx).Browser, cdptarget.CloseTarget, cdptarget.CloseTargetParams{TargetID: id})
	})
}
