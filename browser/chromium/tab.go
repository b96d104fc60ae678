package chromium

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	cdptarget "github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/errcode"
)

var (
	errCrashed = errcode.New(errcode.PageCrashed, "the page crashed; navigate to load it again")
	errDialog  = errcode.New(errcode.CaptureFailed, "a JavaScript dialog is open on the page")
	// errTabClosed: the page closed itself (window.close) during a call.
	errTabClosed = errcode.New(errcode.NotActionable, "the tab was closed; observe to see the active tab")
)

// tab is one Chromium page target. Its state is kept current by an event
// listener that never issues a CDP command (that would deadlock chromedp's
// reader); work that needs a command runs in its own goroutine.
type tab struct {
	// fixed at creation
	ctx     context.Context // the target's chromedp context
	cancel  context.CancelFunc
	target  *chromedp.Target
	dialogs chan *page.EventJavascriptDialogOpening
	check   func(context.Context, *url.URL) error // the session's navigation check; nil allows http(s)

	mu        sync.Mutex
	changed   chan struct{} // closed and replaced on every state change
	mainFrame cdp.FrameID
	world     string // unique id of the collector world of the main document; "" between documents
	worldID   runtime.ExecutionContextID
	lifecycle map[cdp.LoaderID]string // newest lifecycle milestone per main-frame loader
	crashed   bool
	hung      bool                               // the renderer was found hung and sent a crash
	dialog    *page.EventJavascriptDialogOpening // pending, nil if none
	dismissed bool                               // the runtime dismissed a beforeunload dialog
	leaving   bool                               // the runtime is navigating away from the current document
	leavingTo string                             // the URL the runtime is navigating to
	navSeq    uint64                             // main-frame navigations started
	startedAt map[cdp.LoaderID]uint64            // navSeq of the newest navigations, by their loader
	own       cdp.LoaderID                       // the runtime's navigation, until its document commits
	competing map[cdp.LoaderID]bool              // page navigations that started while the runtime's was on its way
	pending   cdp.LoaderID                       // the newest main-frame navigation while it is on its way
	pendingAt time.Time                          // when pending started
	loader    cdp.LoaderID                       // newest main-frame loader
	inflight  map[*int]context.CancelCauseFunc
	refusals  uint64 // top-level navigation hops the navigation guard refused
	refused   error  // the newest refusal

	// withFrames: the session observes frames (tool version 1.7.0), so
	// out-of-process frames are attached to as they appear.
	withFrames bool
	// Child frames (frames.go): by frame id, and the sessions of
	// out-of-process ones by target id; session is the tab's own.
	session       *frameSession
	frames        map[cdp.FrameID]*frame
	frameSessions map[cdptarget.ID]*frameSession

	popups      map[cdptarget.ID]bool // pages the tab or its popups opened, until they are gone
	popupCloser *workQueue            // closes them, for the tab's life

	// hooks: the session keeps the pages the tab opens as tabs (tool
	// version 1.8.0) instead of closing them; nil closes them. Fixed
	// before the first event.
	hooks   *pageHooks
	opened  uint64  // pages this tab opened
	gone    bool    // the page was closed (by itself, or by the session)
	traffic traffic // requests in flight, for browser_wait (netidle.go)
}

// openTab opens a page in the browser of parent, in a browser context of
// its own if isolated (disposed of when the tab's context ends); the
// caller's ctx bounds the opening, not the page's life.
func openTab(ctx, parent context.Context, check func(context.Context, *url.URL) error, isolated bool) (*tab, error) {
	var opts []chromedp.ContextOption
	if isolated {
		opts = append(opts, chromedp.WithNewBrowserContext())
	}
	return startTab(ctx, parent, check, nil, opts...)
}

// adoptTab makes a tab of page target id, which a page of the session
// opened (tool version 1.8.0); hooks are set before its first event.
// Ending the tab's context closes the page.
func adoptTab(ctx, parent context.Context, id cdptarget.ID, check func(context.Context, *url.URL) error, hooks *pageHooks) (*tab, error) {
	return startTab(ctx, parent, check, hooks, chromedp.WithTargetID(id))
}

// pageHooks tell a session of the pages its tabs open and of the pages
// that close (tabs.go). They run in the event listener: no CDP in them.
type pageHooks struct {
	opened func(*cdptarget.Info)
	gone   func(cdptarget.ID)
}

func startTab(ctx, parent context.Context, check func(context.Context, *url.URL) error, hooks *pageHooks, opts ...chromedp.ContextOption) (*tab, error) {
	tabCtx, cancel := chromedp.NewContext(parent, opts...)
	// Opening runs on the tab's own context, which ends if ctx does first.
	opening, opened := context.WithCancel(tabCtx)
	defer opened()
	stop := context.AfterFunc(ctx, opened)
	defer stop()
	// The first run creates (or attaches to) the target and binds it to
	// tabCtx, so it cannot take ctx; ending tabCtx is what stops it.
	created := make(chan error, 1)
	go func() { created <- chromedp.Do(tabCtx) }()
	var err error
	select {
	case err = <-created:
	case <-ctx.Done():
		cancel()
		<-created
		return nil, classify(ctx, ctx.Err(), errcode.BrowserUnavailable, "could not open a browser page")
	}
	if err != nil {
		cancel()
		return nil, errcode.Wrap(errcode.BrowserUnavailable, err, "could not open a browser page")
	}
	t := &tab{
		ctx:           tabCtx,
		cancel:        cancel,
		target:        chromedp.FromContext(tabCtx).Target,
		dialogs:       make(chan *page.EventJavascriptDialogOpening, 4),
		check:         check,
		changed:       make(chan struct{}),
		lifecycle:     make(map[cdp.LoaderID]string),
		startedAt:     make(map[cdp.LoaderID]uint64),
		competing:     make(map[cdp.LoaderID]bool),
		inflight:      make(map[*int]context.CancelCauseFunc),
		popups:        make(map[cdptarget.ID]bool),
		frames:        make(map[cdp.FrameID]*frame),
		frameSessions: make(map[cdptarget.ID]*frameSession),
		popupCloser:   newWorkQueue(),
		hooks:         hooks,
	}
	t.session = &frameSession{target: t.target, cancel: func() {}}
	if err := chromedp.Listen(tabCtx, t.onEvent); err != nil {
		cancel()
		return nil, errcode.Wrap(errcode.BrowserUnavailable, err, "could not open a browser page")
	}
	go t.handleDialogs()
	go t.popupCloser.run(tabCtx)
	if err := t.installCollector(opening); err != nil {
		cancel()
		return nil, classify(opening, err, errcode.BrowserUnavailable, "could not prepare the browser page")
	}
	return t, nil
}

// installCollector registers the collector for every new document of the
// tab before any site is loaded, then creates the world for the blank
// document the tab starts with.
func (t *tab) installCollector(ctx context.Context) error {
	tree, err := cdp.Call(ctx, t.target, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.mainFrame = tree.FrameTree.Frame.ID
	t.mu.Unlock()
	if err := t.enableNavGuard(ctx); err != nil {
		return err
	}
	if _, err := cdp.Call(ctx, t.target, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: collect.Script, WorldName: collect.WorldName,
	}); err != nil {
		return err
	}
	w, err := cdp.Call(ctx, t.target, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{
		FrameID: tree.FrameTree.Frame.ID, WorldName: collect.WorldName,
	})
	if err != nil {
		return err
	}
	res, err := cdp.Call(ctx, t.target, runtime.Evaluate, runtime.EvaluateParams{
		Expression: collect.Script, ContextID: w.ExecutionContextID, Silent: ptr(true),
	})
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return errors.New("collector: " + res.ExceptionDetails.Text)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return t.waitFor(wctx, func() bool { return t.world != "" })
}

func ptr[T any](v T) *T { return &v }

// onEvent runs on chromedp's reader goroutine: state changes only.
func (t *tab) onEvent(ev any) {
	if ev, ok := ev.(*fetch.EventRequestPaused); ok {
		go t.decide(ev)
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.onFrameEventLocked(t.session, ev) {
		close(t.changed)
		t.changed = make(chan struct{})
	}
	t.noteTrafficLocked(ev)
	switch ev := ev.(type) {
	case *runtime.EventExecutionContextCreated:
		if ev.Context.Name != collect.WorldName {
			return
		}
		var aux struct {
			FrameID cdp.FrameID `json:"frameId"`
		}
		if json.Unmarshal(ev.Context.AuxData, &aux) != nil || aux.FrameID != t.mainFrame {
			return
		}
		t.world, t.worldID = ev.Context.UniqueID, ev.Context.ID
	case *runtime.EventExecutionContextDestroyed:
		if ev.ExecutionContextUniqueID == t.world {
			t.world = ""
		}
	case *runtime.EventExecutionContextsCleared:
		t.world = ""
	case *page.EventLifecycleEvent:
		if ev.FrameID != t.mainFrame {
			return
		}
		if ev.Name == "init" && len(t.lifecycle) > 8 {
			clear(t.lifecycle)
		}
		if ev.Name == "init" || ev.Name == "DOMContentLoaded" || ev.Name == "load" {
			t.lifecycle[ev.LoaderID] = ev.Name
		}
		if ev.Name == "init" && ev.LoaderID == t.own {
			t.own = "" // committed: what the page does next is its own
		}
		if ev.Name == "init" {
			t.pending = ""
			t.loader = ev.LoaderID
		}
	case *page.EventFrameStartedNavigating:
		same := ev.NavigationType == page.FrameStartedNavigatingNavigationTypeSameDocument ||
			ev.NavigationType == page.FrameStartedNavigatingNavigationTypeHistorySameDocument
		if ev.FrameID != t.mainFrame || same {
			return // only a new main document changes what was observed
		}
		if t.leaving && t.own == "" && ev.URL == t.leavingTo && ev.NavigationType == page.FrameStartedNavigatingNavigationTypeDifferentDocument {
			t.own = ev.LoaderID // the runtime's own navigation, known before its answer
		}
		if t.own != "" && ev.LoaderID != t.own {
			// The page started a navigation of its own (a reload loop)
			// while the runtime's was on its way: the runtime's wins, and
			// this one is stopped at its request.
			t.competing[ev.LoaderID] = true
			return
		}
		t.navSeq++
		t.pending, t.pendingAt = ev.LoaderID, time.Now()
		if len(t.startedAt) > 8 {
			clear(t.startedAt)
		}
		t.startedAt[ev.LoaderID] = t.navSeq
	case *inspector.EventTargetCrashed:
		t.markCrashedLocked()
	case *network.EventLoadingFailed:
		if cdp.LoaderID(ev.RequestID) == t.pending {
			t.pending = "" // the navigation failed without a document
		}
		return
	case *cdptarget.EventTargetCreated:
		if t.hooks == nil {
			t.notePopupLocked(ev.TargetInfo)
			return
		}
		if ev.TargetInfo.Type == "page" && ev.TargetInfo.OpenerID == t.target.TargetID {
			t.opened++
		}
		t.hooks.opened(ev.TargetInfo)
	case *cdptarget.EventTargetDestroyed:
		delete(t.popups, ev.TargetID)
		if t.hooks == nil {
			return
		}
		t.hooks.gone(ev.TargetID)
		if ev.TargetID != t.target.TargetID || t.gone {
			return
		}
		t.gone = true
		t.interruptLocked(errTabClosed)
	case *page.EventJavascriptDialogOpening:
		t.dialog = ev
		select {
		case t.dialogs <- ev:
		default:
		}
		if ev.Type != page.DialogTypeBeforeunload && !t.leaving {
			t.interruptLocked(errDialog)
		}
	case *page.EventFrameNavigated:
		if ev.Frame.ParentID == "" {
			t.mainFrame = ev.Frame.ID
			t.leaving = false // the document being left is gone
		}
	case *page.EventJavascriptDialogClosed:
		t.dialog = nil
	default:
		return
	}
	close(t.changed)
	t.changed = make(chan struct{})
}

func (t *tab) interruptLocked(cause error) {
	for _, cancel := range t.inflight {
		cancel(cause)
	}
}

// handleDialogs dismisses the beforeunload dialogs that a runtime navigation
// raises, and any other dialog of a document the runtime is navigating away
// from (an alert loop must not hold the agent's navigation). It never
// accepts one: a page that asks to keep its draft keeps it, and a confirm
// of a page being left gets the safe answer.
func (t *tab) handleDialogs() {
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
			ctx, cancel := context.WithTimeout(t.ctx, 5*time.Second)
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
func (t *tab) leave(url string) func() {
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
		clear(t.competing)
		t.mu.Unlock()
	}
}

// claim records loader, the answer to the runtime's Page.navigate, as the
// runtime's navigation until its document commits (onEvent already knows
// it by its URL when it starts), and returns the navSeq at which it started
// (guess if that is not known). A page that navigates itself all the time
// can start a navigation right before the runtime's, or while it is on its
// way; the first is not counted as the runtime's, the second is stopped
// (see competingRequest).
func (t *tab) claim(loader cdp.LoaderID, guess uint64) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, committed := t.lifecycle[loader]; !committed {
		// The browser's answer is the last word on which one is ours.
		t.own = loader
		delete(t.competing, loader)
	}
	if n, ok := t.startedAt[loader]; ok {
		return n
	}
	return guess
}

// competingRequest reports whether a paused document request belongs to a
// page navigation that started while the runtime's was on its way; such a
// request is failed so that the runtime's navigation wins. (A navigation's
// network request id is its loader id.)
func (t *tab) competingRequest(id network.RequestID) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.competing[cdp.LoaderID(id)] {
		return false
	}
	delete(t.competing, cdp.LoaderID(id))
	return true
}

// waitFor blocks until cond, evaluated under t.mu, holds.
func (t *tab) waitFor(ctx context.Context, cond func() bool) error {
	for {
		t.mu.Lock()
		if cond() {
			t.mu.Unlock()
			return nil
		}
		crashed, gone, ch := t.crashed, t.gone, t.changed
		t.mu.Unlock()
		if crashed {
			return errCrashed
		}
		if gone {
			return errTabClosed
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// stepTimeout bounds one page step whose caller set no deadline: a page
// that blocks its main thread must not hold the session forever. (An
// action's approval, which may wait for a person, is not a page step.)
const stepTimeout = 90 * time.Second

// begin derives a context for one page operation that a crash or a dialog
// interrupts. The returned func must be called when the operation ends.
func (t *tab) begin(ctx context.Context) (context.Context, func(), error) {
	stop := func() {}
	if _, ok := ctx.Deadline(); !ok {
		ctx, stop = context.WithTimeout(ctx, stepTimeout)
	}
	octx, cancel := context.WithCancelCause(ctx)
	key := new(int)
	t.mu.Lock()
	if t.crashed || t.gone {
		err := errCrashed
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

// stepKey marks the context of a page step that begin watches.
type stepKey struct{}

// cause returns the interruption of an operation, or err.
func cause(ctx context.Context, err error) error {
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) && !errors.Is(c, context.DeadlineExceeded) {
		return c
	}
	return err
}

// evaluate runs expr in the collector world of the current document and
// returns its JSON value. A document change during the call is
// document_changed; nothing partial is returned.
func (t *tab) evaluate(ctx context.Context, expr string) ([]byte, error) {
	octx, end, err := t.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	if t.pendingDialog() != nil {
		return nil, errDialog
	}
	var world string
	if err := t.waitFor(octx, func() bool { world = t.world; return world != "" }); err != nil {
		return nil, classify(octx, err, errcode.CaptureFailed, "the page has no document to observe")
	}
	res, err := cdp.Call(octx, t.target, runtime.Evaluate, runtime.EvaluateParams{
		Expression:      expr,
		UniqueContextID: world,
		ReturnByValue:   ptr(true),
		Silent:          ptr(true),
	})
	if err != nil {
		if octx.Err() != nil {
			// Cancelled, timed out, or interrupted by a crash or a dialog.
			return nil, classify(octx, err, errcode.CaptureFailed, "the page could not be observed")
		}
		t.mu.Lock()
		moved := t.world != world
		t.mu.Unlock()
		msg := err.Error()
		if moved || strings.Contains(msg, "Cannot find context") || strings.Contains(msg, "context was destroyed") {
			return nil, errcode.Wrap(errcode.DocumentChanged, err, "the document changed during the observation; observe again")
		}
		return nil, classify(octx, err, errcode.CaptureFailed, "the page could not be observed")
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

// classify maps an operation failure to a public error: an interruption
// keeps its own code, a context error its own, anything else gets code.
func classify(ctx context.Context, err error, code errcode.Code, msg string) error {
	err = cause(ctx, err)
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

// markGone notes that the page closed, which ends the calls on it.
func (t *tab) markGone() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.gone {
		t.gone = true
		t.interruptLocked(errTabClosed)
		close(t.changed)
		t.changed = make(chan struct{})
	}
}

func (t *tab) isGone() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gone
}

func (t *tab) currentWorld() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.world
}

func (t *tab) pendingDialog() *page.EventJavascriptDialogOpening {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dialog
}

// wake makes every waitFor re-check its condition.
func (t *tab) wake() {
	t.mu.Lock()
	close(t.changed)
	t.changed = make(chan struct{})
	t.mu.Unlock()
}

// navMark is what settle compares against: taken before a dispatch.
type navMark struct {
	seq      uint64
	loader   cdp.LoaderID
	refusals uint64
	opened   uint64
}

func (t *tab) mark() navMark {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dismissed = false
	return navMark{t.navSeq, t.loader, t.refusals, t.opened}
}

// settleWindow is how long an action may take to start a navigation or
// open a dialog before the page is taken as settled.
const settleWindow = 300 * time.Millisecond

// settled is what an input event led to.
type settled struct {
	started, done bool  // a main-frame navigation started; its document loaded
	cancelled     bool  // the runtime dismissed a beforeunload dialog, which cancelled it
	dialog        bool  // a dialog the agent must answer is open
	refused       error // the navigation guard stopped a navigation it started
}

// blockingDialogLocked: a pending dialog other than beforeunload, which the
// runtime answers itself.
func (t *tab) blockingDialogLocked() bool {
	return t.dialog != nil && t.dialog.Type != page.DialogTypeBeforeunload
}

// settle waits briefly for the consequences of an input event: a main-frame
// navigation (then waits for its document), a dialog, or a navigation the
// guard refused.
func (t *tab) settle(ctx context.Context, before navMark) settled {
	wctx, cancel := context.WithTimeout(ctx, settleWindow)
	t.waitFor(wctx, func() bool {
		return t.navSeq != before.seq || t.blockingDialogLocked() || t.dismissed || t.refusals != before.refusals ||
			t.opened != before.opened || t.gone
	})
	cancel()
	t.mu.Lock()
	out := settled{started: t.navSeq != before.seq, dialog: t.blockingDialogLocked(), cancelled: t.dismissed,
		refused: t.refusalSinceLocked(before.refusals)}
	t.mu.Unlock()
	if !out.started || out.dialog || out.cancelled || out.refused != nil || t.isGone() {
		return out
	}
	lctx, lcancel := context.WithTimeout(ctx, 15*time.Second)
	defer lcancel()
	// The new loader is known once the navigation commits.
	var loader cdp.LoaderID
	t.waitFor(lctx, func() bool {
		loader = t.loader
		_, seen := t.lifecycle[loader]
		return t.blockingDialogLocked() || t.dismissed || t.refusals != before.refusals ||
			(seen && loader != before.loader && t.lifecycle[loader] != "init" && t.world != "")
	})
	t.mu.Lock()
	out.dialog, out.cancelled, out.refused = t.blockingDialogLocked(), t.dismissed, t.refusalSinceLocked(before.refusals)
	committed := loader != before.loader && t.lifecycle[loader] != ""
	t.mu.Unlock()
	if out.dialog || out.cancelled || out.refused != nil || !committed {
		return out
	}
	out.done = t.waitLoaded(lctx, loader) == nil
	return out
}

// publicNetError keeps only the net error name, which is safe to show.
func publicNetError(text string) string {
	if i := strings.Index(text, "net::"); i >= 0 {
		return strings.Fields(text[i:])[0]
	}
	return "network error"
}

func (t *tab) close() {
	t.cancel()
}
