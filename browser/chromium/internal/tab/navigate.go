package tab

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/veetbot/veetbrowser/errcode"
)

// Navigation. A navigation returns within about NavigateBound even when the
// page never finishes loading (a stalled script, image or CDN): the page as
// it is then, marked as still loading. Once the document is parsed it waits
// LoadGrace for the load event: a page whose subresources hang is still
// usable. Client-side redirects that start while a document loads, or that
// the loaded document announced (redirect.go), are followed, at most
// MaxClientRedirects hops; every hop passes the navigation guard.
const MaxClientRedirects = 5

// Navigated is where a navigation ended.
type Navigated struct {
	// Loading: the page is returned before its load event, either at the
	// bound or LoadGrace after it was parsed (a stalled image or frame).
	Loading bool
	// end is where a navigation that loaded a document left the tab, for
	// FollowPage; nil when there is nothing to follow from.
	end *navEnd
}

// Navigate loads url in the main frame and waits for the document it leads
// to. A navigation that a beforeunload dialog stopped, after the runtime
// itself dismissed it, is navigation_cancelled: the page and its draft stay.
// A hop the navigation guard refused is its refusal: the page stays.
func (t *Tab) Navigate(ctx context.Context, url string) (Navigated, error) {
	start, done, err := t.beginNavigation(ctx, url)
	if err != nil {
		return Navigated{}, err
	}
	defer done()
	octx, seen, deadline := start.ctx, start.seen, start.deadline
	// Our own navigation is the next one to start; any after it is the
	// page's (a client-side redirect).
	seq := start.seq + 1
	nctx, cancel := context.WithDeadline(octx, deadline)
	res, err := cdp.Call(nctx, t.target, page.Navigate, page.NavigateParams{URL: url})
	cancel()
	if err != nil {
		if octx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			// The server never answered: stop the request, keep the page.
			cctx, cancel := t.timings.CleanupContext(octx)
			cdp.Call(cctx, t.target, page.StopLoading, cdp.Empty{})
			cancel()
			return Navigated{}, errcode.Wrap(errcode.Timeout, err, "the site did not answer within %s; the page stayed", t.timings.NavigateBound)
		}
		return Navigated{}, Classify(octx, err, errcode.NavigationFailed, "the navigation failed")
	}
	if err := t.refusalSince(seen); err != nil {
		return Navigated{}, err
	}
	if res.ErrorText != "" {
		dismissed := false
		if res.LoaderID == "" && strings.Contains(res.ErrorText, "ERR_ABORTED") {
			// The answer to the dialog can arrive after the navigation's
			// own answer: give the dismissal a moment to be recorded.
			wctx, cancel := context.WithTimeout(octx, t.timings.DismissalWait)
			dismissed = t.waitFor(wctx, func() bool { return t.dismissed }) == nil
			cancel()
		}
		if dismissed {
			return Navigated{}, errcode.New(errcode.NavigationCancelled, "the page asked to keep unsaved changes; the navigation was cancelled and the page kept")
		}
		return Navigated{}, errcode.Wrap(errcode.NavigationFailed, errors.New(res.ErrorText), "the navigation failed: %s", publicNetError(res.ErrorText))
	}
	if res.LoaderID == "" {
		return Navigated{}, nil // same-document navigation
	}
	seq = t.claim(res.LoaderID, seq)
	return t.follow(octx, res.LoaderID, seen, seq, deadline, 0)
}

// follow waits for the document of loader and follows the client-side
// redirects it makes, until a document has loaded and announced no
// redirect, or the deadline (then the page is returned as it is); hops
// redirects were followed before.
func (t *Tab) follow(ctx context.Context, loader cdp.LoaderID, seen, seq uint64, deadline time.Time, hops int) (Navigated, error) {
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	for {
		// Wait for the document to load, or for a newer navigation.
		var parsedAt time.Time
		err := t.waitFor(dctx, func() bool {
			return t.navSeq > seq || t.refusals != seen || t.loadedLocked(loader, &parsedAt)
		})
		if rerr := t.refusalSince(seen); rerr != nil {
			return Navigated{}, rerr
		}
		if err != nil {
			return t.asItIs(ctx, err)
		}
		if !t.navigatedSince(seq) {
			// Loaded: wait only for a redirect the document announced.
			if wait := t.announced(loader); wait > 0 {
				t.mu.Lock()
				docs := t.traffic.sameDocs
				t.mu.Unlock()
				wctx, wcancel := context.WithTimeout(dctx, wait)
				t.waitFor(wctx, func() bool { return t.navSeq > seq || t.refusals != seen || t.traffic.sameDocs != docs })
				wcancel()
			}
			if rerr := t.refusalSince(seen); rerr != nil {
				return Navigated{}, rerr
			}
			if !t.navigatedSince(seq) {
				t.mu.Lock()
				defer t.mu.Unlock()
				return Navigated{Loading: t.lifecycle[loader] != "load",
					end: &navEnd{loader: loader, seen: seen, seq: t.navSeq, asked: t.announces.asked, hops: hops, deadline: deadline}}, nil
			}
		}
		// A client-side redirect started: follow it to its document.
		if hops++; hops > MaxClientRedirects {
			return Navigated{}, errcode.New(errcode.NavigationFailed, "the page redirected more than %d times", MaxClientRedirects)
		}
		t.mu.Lock()
		seq = t.navSeq
		t.mu.Unlock()
		err = t.waitFor(dctx, func() bool {
			_, committed := t.lifecycle[t.loader]
			return t.navSeq > seq || t.refusals != seen || (t.loader != loader && committed)
		})
		if rerr := t.refusalSince(seen); rerr != nil {
			return Navigated{}, rerr
		}
		if err != nil {
			return t.asItIs(ctx, err)
		}
		t.mu.Lock()
		if t.loader != loader {
			loader = t.loader
		}
		t.mu.Unlock()
	}
}

// asItIs ends a wait that reached the navigation bound: the page is returned
// as it is, still loading, if it has a document to observe.
func (t *Tab) asItIs(ctx context.Context, err error) (Navigated, error) {
	if errors.Is(context.Cause(ctx), ErrDialog) {
		// The document opened a dialog as it loaded: the page is as it
		// is, held by the dialog, which its observation shows.
		return Navigated{Loading: true}, nil
	}
	if ctx.Err() != nil {
		return Navigated{}, Classify(ctx, err, errcode.NavigationFailed, "the page did not load")
	}
	if t.World() == "" {
		return Navigated{}, errcode.Wrap(errcode.Timeout, err, "the page had no document after %s", t.timings.NavigateBound)
	}
	return Navigated{Loading: true}, nil
}

// navigatedSince reports whether a navigation after the seq-th started.
func (t *Tab) navigatedSince(seq uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.navSeq > seq
}

func (t *Tab) refusalSince(seen uint64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.refusalSinceLocked(seen)
}

// waitLoaded waits until the loader's document has loaded (or was parsed
// LoadGrace ago) and its collector world exists.
func (t *Tab) waitLoaded(ctx context.Context, loader cdp.LoaderID) error {
	var parsedAt time.Time
	return t.waitFor(ctx, func() bool { return t.loadedLocked(loader, &parsedAt) })
}

// loadedLocked reports whether loader's document has loaded, or was parsed
// LoadGrace ago, and has its collector world; parsedAt keeps, across the
// checks of one wait, when it was parsed.
func (t *Tab) loadedLocked(loader cdp.LoaderID, parsedAt *time.Time) bool {
	switch t.lifecycle[loader] {
	case "load":
		return t.world != ""
	case "DOMContentLoaded":
		if parsedAt.IsZero() {
			*parsedAt = time.Now()
			time.AfterFunc(t.timings.LoadGrace, t.wake)
		}
		return t.world != "" && time.Since(*parsedAt) >= t.timings.LoadGrace
	}
	return false
}

// navStart is the tab as a navigation found it when it began: what
// happens after it is the navigation's doing, or the page's.
type navStart struct {
	ctx      context.Context // the navigation's page step
	deadline time.Time       // NavigateBound after it began
	seen     uint64          // refusals of the navigation guard so far
	seq      uint64          // navigations started so far
	sameDocs uint64          // navigations within the document so far
	restores uint64          // documents restored from the back-forward cache so far
	loader   cdp.LoaderID    // the current document's
}

// beginNavigation begins a page step that loads a document, leaving the
// current one for url (tab.leave): a crashed renderer is replaced by a new
// one when the tab navigates, so a crash does not stop it; a live one must
// answer first (ping), so that a hung one is stopped before the navigation
// is held with it. A beforeunload dismissed before it is forgotten. done
// ends the step.
func (t *Tab) beginNavigation(ctx context.Context, url string) (start navStart, done func(), err error) {
	left := t.leave(url)
	if t.Wedged() {
		left()
		return navStart{}, nil, errHung // only a new page target works again
	}
	octx, end, err := t.Begin(ctx)
	if err == nil {
		if err = t.ping(octx); err != nil {
			end()
		}
	}
	// A renderer that is gone, known before the step or met by the ping
	// (killed before the browser said so), is no renderer to ask: the
	// navigation starts a new one.
	if errors.Is(err, ErrCrashed) {
		t.mu.Lock()
		t.crashed = false
		t.mu.Unlock()
		octx, end, err = t.Begin(ctx)
	}
	if err != nil {
		left()
		return navStart{}, nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dismissed = false
	start = navStart{ctx: octx, deadline: time.Now().Add(t.timings.NavigateBound), seen: t.refusals, seq: t.navSeq,
		sameDocs: t.traffic.sameDocs, restores: t.traffic.restores, loader: t.loader}
	return start, func() { end(); left() }, nil
}

// Traverse takes a history step under the rules of Navigate: the navigation
// guard checks every hop, a beforeunload the runtime dismissed cancels it
// (navigation_cancelled, the page and its draft stay), and it returns
// within NavigateBound with the page as it is. take issues the step; url is
// where it leads, as far as known. A step that shows within HistoryStart
// none of what it may do once the browser has taken it (start a new
// document, move within the document, be refused or cancelled: a history
// entry the browser skipped) leaves the page as it is.
func (t *Tab) Traverse(ctx context.Context, url string, take func(context.Context) error) (Navigated, error) {
	start, done, err := t.beginNavigation(ctx, url)
	if err != nil {
		return Navigated{}, err
	}
	defer done()
	octx, seen, seq := start.ctx, start.seen, start.seq
	nctx, cancel := context.WithDeadline(octx, start.deadline)
	defer cancel()
	if err := take(nctx); err != nil {
		return Navigated{}, Classify(octx, err, errcode.NavigationFailed, "the navigation failed")
	}
	// A document restored from the back-forward cache is whole at once,
	// and the lifecycle does not report it: it is done when its world is.
	restored := func() bool { return t.traffic.restores != start.restores && t.world != "" }
	committed := func() bool {
		_, ok := t.lifecycle[t.loader]
		return restored() || t.loader != start.loader && ok
	}
	// A navigation reports its start before the page is asked to leave:
	// a beforeunload may still cancel it, so a start alone ends nothing.
	sctx, scancel := context.WithTimeout(nctx, t.timings.HistoryStart)
	t.waitFor(sctx, func() bool {
		return t.navSeq != seq || t.dismissed || t.refusals != seen || t.traffic.sameDocs != start.sameDocs || committed()
	})
	scancel()
	if !t.navigatedSince(seq) {
		return t.traversed(seen)
	}
	err = t.waitFor(nctx, func() bool { return t.dismissed || t.refusals != seen || committed() })
	if _, rerr := t.traversed(seen); rerr != nil {
		return Navigated{}, rerr
	}
	if err != nil {
		return t.asItIs(octx, err)
	}
	t.mu.Lock()
	if restored() {
		t.mu.Unlock()
		return Navigated{}, nil
	}
	loader := t.loader
	started, ok := t.startedAt[loader]
	t.mu.Unlock()
	if !ok {
		started = seq + 1
	}
	return t.follow(octx, loader, seen, started, start.deadline, 0)
}

// traversed is the outcome of a history step that loaded no new document:
// the guard's refusal, a cancellation by a beforeunload the runtime
// dismissed, or the page as it is.
func (t *Tab) traversed(seen uint64) (Navigated, error) {
	t.mu.Lock()
	refused, dismissed := t.refusalSinceLocked(seen), t.dismissed
	t.mu.Unlock()
	switch {
	case refused != nil:
		return Navigated{}, refused
	case dismissed:
		return Navigated{}, errcode.New(errcode.NavigationCancelled, "the page asked to keep unsaved changes; the navigation was cancelled and the page kept")
	}
	return Navigated{}, nil
}

// handleDialogs dismisses the beforeunload dialogs that a runtime navigation
// raises, and any other dialog of a document the runtime is navigating away
// from (an alert loop must not hold the agent's navigation). It never
// accepts one: a page that asks to keep its draft keeps it, and a confirm
// of a page being left gets the safe answer.
func (t *Tab) handleDialogs() {
	for {
		select {
		case <-t.ctx.Done():
			return
		case ev := <-t.dialogs:
			t.mu.Lock()
			beforeunload, leaving := ev.Type == page.DialogTypeBeforeunload, t.leaving && t.dialog == ev
			t.mu.Unlock()
			if !beforeunload && !leaving {
				continue
			}
			ctx, cancel := context.WithTimeout(t.ctx, t.timings.DialogAnswer)
			_, err := cdp.Call(ctx, t.target, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
			cancel()
			if err == nil && beforeunload {
				t.mu.Lock()
				t.dismissed = true
				t.mu.Unlock()
				t.wake()
			}
		}
	}
}

// leave marks the runtime's navigation away from the current document until
// the returned func is called or a new document commits; the dialogs the
// document opens meanwhile are dismissed. A document already held by a
// dialog is discarded with its renderer first: its script is stopped inside
// the dialog and may only open the next one as it is answered (an alert
// loop), which no navigation could get past. Call it before the
// navigation's page step begins, which then starts a new renderer.
func (t *Tab) leave(url string) func() {
	t.mu.Lock()
	t.leaving, t.leavingTo = true, url
	held := t.dialog != nil && t.dialog.Type != page.DialogTypeBeforeunload && !t.crashed
	t.mu.Unlock()
	if held {
		t.crashRenderer(false)
	}
	return func() {
		t.mu.Lock()
		t.leaving = false
		t.own = ""
		t.mu.Unlock()
	}
}
