package tab

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Mark is what Settle compares against: taken before a dispatch.
type Mark struct {
	seq      uint64
	loader   cdp.LoaderID
	refusals uint64
	opened   uint64
	asked    asked
	// in is the session and collector world of the frame the input acted
	// in, when it is another renderer's (an out-of-process frame).
	in      *chromedp.Target
	inWorld string
}

// In marks the input as acted in a frame of session target, in its
// collector world: Settle makes its round trip in that renderer too.
func (m Mark) In(target *chromedp.Target, world string) Mark {
	m.in, m.inWorld = target, world
	return m
}

// Mark takes the tab's state before a dispatch; a beforeunload dismissed
// before it is forgotten.
func (t *Tab) Mark() Mark {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dismissed = false
	return Mark{seq: t.navSeq, loader: t.loader, refusals: t.refusals, opened: t.opened, asked: t.announces.asked}
}

// Settled is what an input event led to.
type Settled struct {
	Started, Done bool  // a main-frame navigation started; its document loaded
	Cancelled     bool  // the runtime dismissed a beforeunload dialog, which cancelled it
	Dialog        bool  // a dialog the agent must answer is open
	Refused       error // the navigation guard stopped a navigation it started
	Opened        bool  // the tab opened a page
}

// blockingDialogLocked: a pending dialog other than beforeunload, which the
// runtime answers itself.
func (t *Tab) blockingDialogLocked() bool {
	return t.dialog != nil && t.dialog.Type != page.DialogTypeBeforeunload
}

// Settle reports the consequences of an input event already dispatched: a
// main-frame navigation (then it waits, at most SettleLoad, for its
// document), a dialog, a page the tab opened, or a navigation the guard
// refused. It waits for no consequence the page did not announce: Input's
// dispatch returns once the renderer handled the event, so what a handler
// started synchronously has been announced by then, and one round trip to
// the renderer's main thread (quiet) orders every announcement it sent
// before the answer. A consequence a handler schedules later (a timer) is
// the page's own later change, which the next call meets. SettleWindow
// bounds the round trip on a busy page.
func (t *Tab) Settle(ctx context.Context, before Mark) Settled {
	wctx, cancel := context.WithTimeout(ctx, t.timings.SettleWindow)
	answered := t.quiet(wctx, before)
	moved := func() bool {
		return t.navSeq != before.seq || t.blockingDialogLocked() || t.dismissed || t.refusals != before.refusals ||
			t.opened != before.opened || t.gone
	}
	t.waitFor(wctx, func() bool {
		select {
		case <-answered:
			return true
		default:
			return moved() || t.announces.asked != before.asked
		}
	})
	cancel()
	t.mu.Lock()
	ask := t.announces.asked != before.asked && !moved()
	t.mu.Unlock()
	if ask {
		// The renderer asked for a navigation that has not started yet:
		// it is waited for as a redirect the page announced is.
		sctx, scancel := context.WithTimeout(ctx, t.timings.RedirectStart)
		t.waitFor(sctx, moved)
		scancel()
	}
	t.mu.Lock()
	out := Settled{Started: t.navSeq != before.seq, Dialog: t.blockingDialogLocked(), Cancelled: t.dismissed,
		Refused: t.refusalSinceLocked(before.refusals), Opened: t.opened != before.opened}
	t.mu.Unlock()
	if !out.Started || out.Dialog || out.Cancelled || out.Refused != nil || t.Gone() {
		return out
	}
	lctx, lcancel := context.WithTimeout(ctx, t.timings.SettleLoad)
	defer lcancel()
	// The new loader is known once the navigation commits.
	var loader cdp.LoaderID
	t.waitFor(lctx, func() bool {
		loader = t.loader
		_, seen := t.lifecycle[loader]
		// A navigation that ended without a document (a 204, a failed
		// request) leaves the page as it was.
		failed := t.pending == "" && loader == before.loader
		return t.blockingDialogLocked() || t.dismissed || t.refusals != before.refusals || failed ||
			(seen && loader != before.loader && t.lifecycle[loader] != "init" && t.world != "")
	})
	t.mu.Lock()
	out.Dialog, out.Cancelled, out.Refused = t.blockingDialogLocked(), t.dismissed, t.refusalSinceLocked(before.refusals)
	committed := loader != before.loader && t.lifecycle[loader] != ""
	t.mu.Unlock()
	if out.Dialog || out.Cancelled || out.Refused != nil {
		return out
	}
	if !committed {
		// No document by SettleLoad: the server holds its answer.
		t.stopWaiting(ctx, before.loader)
		return out
	}
	out.Done = t.waitLoaded(lctx, loader) == nil
	return out
}

// quietTurn answers after the renderer's next frame and the tasks queued
// before it: what input queued for later (a list scrolling to the option
// it chose) has run, and what a handler announced has been sent.
const quietTurn = "new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))"

// quiet makes one round trip to the renderer's main thread, in the
// collector's world, and, when the input acted in an out-of-process frame,
// one to that frame's renderer at the same time, whose handlers ran there
// (its next frame and tasks are not the page's); the channel closes when
// both answered. Without a world (between documents) the page's never
// does: Settle then waits out SettleWindow. A frame whose world is gone
// (it navigated) has nothing left to wait for.
func (t *Tab) quiet(ctx context.Context, before Mark) <-chan struct{} {
	done := make(chan struct{})
	t.mu.Lock()
	world := t.world
	t.mu.Unlock()
	if world == "" {
		return done
	}
	turn := func(s cdp.Session, world string) error {
		_, err := cdp.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{
			Expression: quietTurn, UniqueContextID: world, Silent: ptr(true), AwaitPromise: ptr(true)})
		return err
	}
	frame := make(chan struct{})
	if before.in != nil && before.in != t.target && before.inWorld != "" {
		go func() {
			turn(before.in, before.inWorld)
			close(frame)
		}()
	} else {
		close(frame)
	}
	go func() {
		if turn(t.target, world) != nil {
			return
		}
		select {
		case <-frame:
		case <-ctx.Done():
			return
		}
		t.mu.Lock()
		close(done)
		t.changedLocked()
		t.mu.Unlock()
	}()
	return done
}

// UntilNavigating derives from ctx a context that ends once a main-frame
// navigation of the tab is on its way. DevTools holds every command of the
// page behind such a navigation until its document commits, which a
// server that holds its answer never lets happen: a check that runs right
// after input (the input guard's) must not wait behind it. The input
// started the navigation, so it was delivered.
func (t *Tab) UntilNavigating(ctx context.Context) (context.Context, context.CancelFunc) {
	nctx, cancel := context.WithCancel(ctx)
	go func() {
		if t.waitFor(nctx, func() bool { return t.pending != "" }) == nil {
			cancel()
		}
	}()
	return nctx, cancel
}

// stopWaiting stops the navigation an action started that is still on its
// way (its server holds its answer) when Settle stops waiting for its
// document: DevTools would hold every later command of the page behind it,
// the observation after the action included. The page stays as it was, as
// it does for navigate at its bound. It waits, within Cleanup, for the
// navigation to end.
func (t *Tab) stopWaiting(ctx context.Context, loader cdp.LoaderID) {
	t.mu.Lock()
	held := t.pending != "" && t.loader == loader
	t.mu.Unlock()
	if !held {
		return
	}
	cctx, cancel := t.timings.CleanupContext(ctx)
	defer cancel()
	cdp.Call(cctx, t.target, page.StopLoading, cdp.Empty{})
	t.waitFor(cctx, func() bool { return t.pending == "" })
}

// unhold stops, until ctx ends, the main frame's pending navigation once
// its request has been with the network for NavigateBound: a call on the
// page (an observation) is held by DevTools behind it, and a server that
// holds its answer would keep it there until the renderer guard took the
// page as hung. The page stays as it was, as it does when navigate meets
// such a server at its bound, and the held call then runs on it.
func (t *Tab) unhold(ctx context.Context) {
	for {
		t.mu.Lock()
		held := t.pending != "" && t.turn.server
		left := t.timings.NavigateBound - time.Since(t.pendingAt)
		loader, ch := t.loader, t.changed
		t.mu.Unlock()
		if held && left <= 0 {
			t.stopWaiting(ctx, loader)
			return
		}
		var bound <-chan time.Time
		timer := time.NewTimer(left)
		if held {
			bound = timer.C
		}
		select {
		case <-ctx.Done():
		case <-ch:
		case <-bound:
		}
		timer.Stop()
		if ctx.Err() != nil {
			return
		}
	}
}
