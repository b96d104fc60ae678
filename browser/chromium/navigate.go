package chromium

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/veetbot/veetbrowser/errcode"
)

// Navigation bounds. A navigation returns within about navigateBound even
// when the page never finishes loading (a stalled script, image or CDN): the
// page as it is then, marked as still loading. Client-side redirects (page
// script or a meta refresh) that start while a document loads, or within
// redirectWindow after its load event, are followed, at most
// maxClientRedirects hops; every hop passes the navigation guard.
const (
	// loadGrace is how long a navigation waits for the load event once the
	// document is parsed: a page whose subresources hang is still usable.
	loadGrace          = 3 * time.Second
	navigateBound      = 20 * time.Second
	redirectWindow     = 300 * time.Millisecond
	maxClientRedirects = 5
)

// navigated is where a navigation ended.
type navigated struct {
	// loading: the page is returned before its load event, either at the
	// bound or loadGrace after it was parsed (a stalled image or frame).
	loading bool
}

// navigate loads url in the main frame and waits for the document it leads
// to. A navigation that a beforeunload dialog stopped, after the runtime
// itself dismissed it, is navigation_cancelled: the page and its draft stay.
// A hop the navigation guard refused is its refusal: the page stays.
func (t *tab) navigate(ctx context.Context, url string) (navigated, error) {
	start, done, err := t.beginNavigation(ctx, url)
	if err != nil {
		return navigated{}, err
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
			cdp.Call(context.WithoutCancel(octx), t.target, page.StopLoading, cdp.Empty{})
			return navigated{}, errcode.Wrap(errcode.Timeout, err, "the site did not answer within %s; the page stayed", navigateBound)
		}
		return navigated{}, classify(octx, err, errcode.NavigationFailed, "the navigation failed")
	}
	if err := t.refusalSince(seen); err != nil {
		return navigated{}, err
	}
	if res.ErrorText != "" {
		dismissed := false
		if res.LoaderID == "" && strings.Contains(res.ErrorText, "ERR_ABORTED") {
			// The answer to the dialog can arrive after the navigation's
			// own answer: give the dismissal a moment to be recorded.
			wctx, cancel := context.WithTimeout(octx, time.Second)
			dismissed = t.waitFor(wctx, func() bool { return t.dismissed }) == nil
			cancel()
		}
		if dismissed {
			return navigated{}, errcode.New(errcode.NavigationCancelled, "the page asked to keep unsaved changes; the navigation was cancelled and the page kept")
		}
		return navigated{}, errcode.Wrap(errcode.NavigationFailed, errors.New(res.ErrorText), "the navigation failed: %s", publicNetError(res.ErrorText))
	}
	if res.LoaderID == "" {
		return navigated{}, nil // same-document navigation
	}
	seq = t.claim(res.LoaderID, seq)
	return t.follow(octx, res.LoaderID, seen, seq, deadline)
}

// follow waits for the document of loader and follows the client-side
// redirects it makes, until a document has loaded and stayed for
// redirectWindow, or the deadline (then the page is returned as it is).
func (t *tab) follow(ctx context.Context, loader cdp.LoaderID, seen, seq uint64, deadline time.Time) (navigated, error) {
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	for hops := 0; ; {
		// Wait for the document to load, or for a newer navigation.
		var parsedAt time.Time
		err := t.waitFor(dctx, func() bool {
			return t.navSeq > seq || t.refusals != seen || t.loadedLocked(loader, &parsedAt)
		})
		if rerr := t.refusalSince(seen); rerr != nil {
			return navigated{}, rerr
		}
		if err != nil {
			return t.asItIs(ctx, err)
		}
		if !t.navigatedSince(seq) {
			// Loaded: a redirect may still start right after the load event.
			wctx, wcancel := context.WithTimeout(dctx, redirectWindow)
			t.waitFor(wctx, func() bool { return t.navSeq > seq || t.refusals != seen })
			wcancel()
			if rerr := t.refusalSince(seen); rerr != nil {
				return navigated{}, rerr
			}
			if !t.navigatedSince(seq) {
				t.mu.Lock()
				loaded := t.lifecycle[loader] == "load"
				t.mu.Unlock()
				return navigated{loading: !loaded}, nil
			}
		}
		// A client-side redirect started: follow it to its document.
		if hops++; hops > maxClientRedirects {
			return navigated{}, errcode.New(errcode.NavigationFailed, "the page redirected more than %d times", maxClientRedirects)
		}
		t.mu.Lock()
		seq = t.navSeq
		t.mu.Unlock()
		err = t.waitFor(dctx, func() bool {
			_, committed := t.lifecycle[t.loader]
			return t.navSeq > seq || t.refusals != seen || (t.loader != loader && committed)
		})
		if rerr := t.refusalSince(seen); rerr != nil {
			return navigated{}, rerr
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
func (t *tab) asItIs(ctx context.Context, err error) (navigated, error) {
	if errors.Is(context.Cause(ctx), errDialog) {
		// The document opened a dialog as it loaded: the page is as it
		// is, held by the dialog, which its observation shows.
		return navigated{loading: true}, nil
	}
	if ctx.Err() != nil {
		return navigated{}, classify(ctx, err, errcode.NavigationFailed, "the page did not load")
	}
	if t.currentWorld() == "" {
		return navigated{}, errcode.Wrap(errcode.Timeout, err, "the page had no document after %s", navigateBound)
	}
	return navigated{loading: true}, nil
}

// navigatedSince reports whether a navigation after the seq-th started.
func (t *tab) navigatedSince(seq uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.navSeq > seq
}

func (t *tab) refusalSince(seen uint64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.refusalSinceLocked(seen)
}

// waitLoaded waits until the loader's document has loaded (or was parsed
// loadGrace ago) and its collector world exists.
func (t *tab) waitLoaded(ctx context.Context, loader cdp.LoaderID) error {
	var parsedAt time.Time
	return t.waitFor(ctx, func() bool { return t.loadedLocked(loader, &parsedAt) })
}

// loadedLocked reports whether loader's document has loaded, or was parsed
// loadGrace ago, and has its collector world; parsedAt keeps, across the
// checks of one wait, when it was parsed.
func (t *tab) loadedLocked(loader cdp.LoaderID, parsedAt *time.Time) bool {
	switch t.lifecycle[loader] {
	case "load":
		return t.world != ""
	case "DOMContentLoaded":
		if parsedAt.IsZero() {
			*parsedAt = time.Now()
			time.AfterFunc(loadGrace, t.wake)
		}
		return t.world != "" && time.Since(*parsedAt) >= loadGrace
	}
	return false
}

// historyStart bounds how long a history step may take to show what it
// does once the browser has taken it: start a new document, move within
// the document, or be refused or cancelled. A step that shows none of these
// (a history entry the browser skipped) leaves the page as it is.
const historyStart = 5 * time.Second

// navStart is the tab as a navigation found it when it began: what
// happens after it is the navigation's doing, or the page's.
type navStart struct {
	ctx      context.Context // the navigation's page step
	deadline time.Time       // navigateBound after it began
	seen     uint64          // refusals of the navigation guard so far
	seq      uint64          // navigations started so far
	sameDocs uint64          // navigations within the document so far
	restores uint64          // documents restored from the back-forward cache so far
	loader   cdp.LoaderID    // the current document's
}

// beginNavigation begins a page step that loads a document, leaving the
// current one for url (tab.leave): a crashed renderer is replaced by a new
// one when the tab navigates, so a crash does not stop it. A beforeunload
// dismissed before it is forgotten. done ends the step.
func (t *tab) beginNavigation(ctx context.Context, url string) (start navStart, done func(), err error) {
	left := t.leave(url)
	octx, end, err := t.begin(ctx)
	if errors.Is(err, errCrashed) {
		t.mu.Lock()
		t.crashed = false
		t.mu.Unlock()
		octx, end, err = t.begin(ctx)
	}
	if err != nil {
		left()
		return navStart{}, nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dismissed = false
	start = navStart{ctx: octx, deadline: time.Now().Add(navigateBound), seen: t.refusals, seq: t.navSeq,
		sameDocs: t.traffic.sameDocs, restores: t.traffic.restores, loader: t.loader}
	return start, func() { end(); left() }, nil
}

// traverse takes a history step under the rules of navigate: the navigation
// guard checks every hop, a beforeunload the runtime dismissed cancels it
// (navigation_cancelled, the page and its draft stay), and it returns
// within navigateBound with the page as it is. take issues the step; url is
// where it leads, as far as known.
func (t *tab) traverse(ctx context.Context, url string, take func(context.Context) error) (navigated, error) {
	start, done, err := t.beginNavigation(ctx, url)
	if err != nil {
		return navigated{}, err
	}
	defer done()
	octx, seen, seq := start.ctx, start.seen, start.seq
	nctx, cancel := context.WithDeadline(octx, start.deadline)
	defer cancel()
	if err := take(nctx); err != nil {
		return navigated{}, classify(octx, err, errcode.NavigationFailed, "the navigation failed")
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
	sctx, scancel := context.WithTimeout(nctx, historyStart)
	t.waitFor(sctx, func() bool {
		return t.navSeq != seq || t.dismissed || t.refusals != seen || t.traffic.sameDocs != start.sameDocs || committed()
	})
	scancel()
	if !t.navigatedSince(seq) {
		return t.traversed(seen)
	}
	err = t.waitFor(nctx, func() bool { return t.dismissed || t.refusals != seen || committed() })
	if _, rerr := t.traversed(seen); rerr != nil {
		return navigated{}, rerr
	}
	if err != nil {
		return t.asItIs(octx, err)
	}
	t.mu.Lock()
	if restored() {
		t.mu.Unlock()
		return navigated{}, nil
	}
	loader := t.loader
	started, ok := t.startedAt[loader]
	t.mu.Unlock()
	if !ok {
		started = seq + 1
	}
	return t.follow(octx, loader, seen, started, start.deadline)
}

// traversed is the outcome of a history step that loaded no new document:
// the guard's refusal, a cancellation by a beforeunload the runtime
// dismissed, or the page as it is.
func (t *tab) traversed(seen uint64) (navigated, error) {
	t.mu.Lock()
	refused, dismissed := t.refusalSinceLocked(seen), t.dismissed
	t.mu.Unlock()
	switch {
	case refused != nil:
		return navigated{}, refused
	case dismissed:
		return navigated{}, errcode.New(errcode.NavigationCancelled, "the page asked to keep unsaved changes; the navigation was cancelled and the page kept")
	}
	return navigated{}, nil
}
