package tab

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	cdptarget "github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/veetbot/veetbrowser/errcode"
)

// The renderer guard. A page can keep its renderer's main thread from ever
// answering: a main-world `while(true){}`, at load, started later by a
// timer, or in a focus or click handler that the runtime's input runs, or a
// page whose style and layout never finish (tens of thousands of nested
// shadow roots). The isolated world runs on that same thread, so the
// collector and every input event wait with it. A page step therefore never
// waits on a silent renderer for more than HangBound: the renderer is then
// taken as hung, crashed on purpose, and the step reports page_crashed, the
// code of a renderer that is gone, with the same remedy: the session's next
// navigation loads its page in a new renderer process (a crashed renderer
// is never reused, same-site or not), so the session works again on its
// next call.
//
// A renderer is silent when it leaves a trivial evaluation unanswered for
// HangProbe after a step has run HangAfter: a step that keeps the renderer
// busy for HangBound (one collector run of that long included) is hung. On
// a loaded machine the probe waits longer (ProbeWait): a starved renderer
// is slow in proportion to the load, and a heavy page that takes a second
// or two of layout on an idle machine would otherwise be taken as hung. The
// collector's own bounds keep a healthy observation of the largest page far
// below that. A page whose main thread is busy for longer than HangBound in
// one task (laying out megabytes of mixed-script text, say) cannot be told
// from a hung one, and is stopped the same way.
//
// DevTools holds the commands for a renderer while a navigation of its
// main frame is on its way, until the new document commits, so the probe
// goes unanswered then even by a healthy renderer. Whose turn the
// navigation is on decides instead (navTurn): while its document request is
// with the network (a slow server, the navigation guard's decision) the
// renderer is excused, for NavigationExcuse at most; before the request
// leaves (the old document's beforeunload) and once the response is in (the
// commit, which a same-site navigation asks of the same renderer process)
// the renderer must act, and it is excused for one probe's wait only. So a
// navigation away from a spinning page meets the guard within HangBound.
// A server that holds its answer never reaches the guard: an action stops
// its navigation at SettleLoad, and a call on the page stops the page's
// own at NavigateBound (settle.go), both within NavigationExcuse.
// The durations are the tab's Timings (HangAfter, HangProbe, LoadFactor,
// MaxLoadFactor, NavigationExcuse, CrashWait).

var errHung = errcode.New(errcode.PageCrashed, "the page stopped responding and was stopped; navigate to load it again")

// navTurn is whose turn the main frame's pending navigation is on: the
// network's (server) or, since since, the renderer's.
type navTurn struct {
	server bool
	since  time.Time
}

// noteTurnLocked follows the pending navigation's document request (whose
// network id is its loader id). It runs in the event listener: no CDP.
func (t *Tab) noteTurnLocked(ev any) {
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		t.serversTurnLocked(cdp.LoaderID(ev.RequestID))
	case *network.EventResponseReceived:
		if t.pending != "" && cdp.LoaderID(ev.RequestID) == t.pending {
			t.turn = navTurn{since: time.Now()} // the commit is the renderer's
		}
	}
}

// serversTurnLocked: loader's document request is with the network.
func (t *Tab) serversTurnLocked(loader cdp.LoaderID) {
	if t.pending != "" && loader == t.pending {
		t.turn.server = true
	}
}

// watch guards one page step until step ends. A probe out when the step
// ends is still judged: the step may have ended at its own bound (a
// navigation that never loads), and the session's next step would
// otherwise meet the silent renderer with a fresh clock.
func (t *Tab) watch(step context.Context) {
	timer := time.NewTimer(t.timings.HangAfter)
	defer timer.Stop()
	for {
		select {
		case <-step.Done():
			return
		case <-timer.C:
		}
		if t.answers() {
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
// page is navigating on the network's turn is not hung.
func (t *Tab) answers() bool {
	factor := 1.0
	if t.timings.LoadFactor != nil {
		factor = t.timings.LoadFactor()
	}
	wait := t.timings.ProbeWait(factor)
	if t.excusedSilence(0) {
		return true
	}
	ctx, cancel := context.WithTimeout(t.ctx, wait)
	defer cancel()
	_, err := cdp.Call(ctx, t.target, runtime.Evaluate, runtime.EvaluateParams{Expression: "0", Silent: ptr(true)})
	return ctx.Err() == nil || err == nil || t.ctx.Err() != nil || t.excusedSilence(wait)
}

// excusedSilence reports whether the renderer may be silent now: it is
// gone, held by a dialog, or its pending navigation is on the network's
// turn (for NavigationExcuse) or came to the renderer's less than wait ago
// (after a probe: during it, and DevTools held the probe).
func (t *Tab) excusedSilence(wait time.Duration) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	navigating := t.pending != "" && (t.turn.server && time.Since(t.pendingAt) < t.timings.NavigationExcuse ||
		time.Since(t.turn.since) < wait)
	return t.crashed || t.gone || t.dialog != nil || navigating
}

// ping waits, inside the page step of a navigation about to begin, for the
// renderer to answer: a navigation away from a hung renderer would be
// held with it where the guard cannot crash it (DevTools holds even
// Page.crash while a navigation of the frame is on its way), so the guard
// meets the hang here, before the navigation starts. A renderer that is
// gone or held by a dialog is not asked, nor one with a navigation already
// on its way (a slow server's, which the new navigation cancels): DevTools
// holds the question behind it. Should that renderer hang, the new
// navigation meets the guard on the renderer's turn, and the page is
// replaced (Wedged).
func (t *Tab) ping(step context.Context) error {
	t.mu.Lock()
	skip := t.crashed || t.dialog != nil || t.pending != ""
	t.mu.Unlock()
	if skip {
		return nil
	}
	_, err := cdp.Call(step, t.target, runtime.Evaluate, runtime.EvaluateParams{Expression: "0", Silent: ptr(true)})
	if step.Err() != nil {
		return Classify(step, err, errcode.NavigationFailed, "the page did not answer before the navigation")
	}
	return nil // any answer is a sign of life
}

// stopHung crashes the hung renderer; the crash handling reports errHung to
// the steps that wait on it.
func (t *Tab) stopHung() {
	t.crashRenderer(true)
}

// crashRenderer crashes the tab's renderer and waits for the crash to be
// seen, so that it interrupts the steps of this renderer and never the
// navigation that follows, which starts a new one. DevTools holds every
// command of the page, Page.crash included, while a navigation of its main
// frame is on its way, and a hung renderer never lets it end (a spinning
// beforeunload or pagehide handler, a commit into a same-site renderer
// that spins): such a renderer is wedged, the tab is taken as crashed at
// once, and its page is replaced by a new one on the session's next
// navigation (Wedged).
func (t *Tab) crashRenderer(hung bool) {
	t.mu.Lock()
	if t.crashed || t.hung {
		t.mu.Unlock()
		return
	}
	t.hung = hung
	held := hung && t.pending != ""
	t.mu.Unlock()
	ctx, cancel := context.WithTimeout(t.ctx, t.timings.CrashWait)
	defer cancel()
	// The renderer never answers Page.crash: it is gone before it could.
	go cdp.Call(ctx, t.target, page.Crash, cdp.Empty{})
	if !held && t.waitFor(ctx, func() bool { return t.crashed }) == nil {
		return
	}
	// The crash did not come (or cannot): the renderer may still spin,
	// and only closing its page ends it.
	t.mu.Lock()
	t.wedged = true
	t.markCrashedLocked()
	t.mu.Unlock()
	t.wake()
}

// Wedged reports whether the tab's renderer was found hung where no crash
// could reach it: nothing on this page target works again, and the
// session replaces it (a new page in the same browser context) before its
// next navigation.
func (t *Tab) Wedged() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.wedged
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
