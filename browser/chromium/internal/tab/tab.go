// Package tab owns one Chromium page target over CDP: the event listener
// that keeps its state (collector world, lifecycle, crash, dialogs,
// navigations, frames, network traffic), navigation and its guard, the
// renderer and popup guards, and the page steps that run on it (Begin,
// Evaluate). The browser session above works through the methods of Tab
// alone: every field is unexported, and what changes after creation is
// guarded by Tab.mu. Durations come from the tab's Timings (timings.go).
//
// The listener runs on chromedp's reader goroutine and never issues a CDP
// command (that would deadlock the reader); work that needs one runs in a
// goroutine of its own, or through a WorkQueue.
package tab

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"sync"
	"sync/atomic"
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
	"github.com/veetbot/veetbrowser/internal/chromeflags"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// Tab is one Chromium page target.
type Tab struct {
	// fixed at creation
	ctx     context.Context // the target's chromedp context
	cancel  context.CancelFunc
	target  *chromedp.Target
	dialogs chan *page.EventJavascriptDialogOpening
	check   func(context.Context, *url.URL) error // the session's navigation check; nil allows http(s)
	// the request guard (tool version 1.9.0, navguard.go, requests.go)
	checkRequest func(context.Context, *url.URL) error // every request that is not a top-level hop; nil: not paused
	blocked      *observation.BlockedTally
	contain      *Containment
	noWorkers    bool              // service worker registration is gone
	wsGuard      string            // the WebSocket constructor guard of its documents and workers (requests.go); "" for none
	proxied      bool              // Options.Proxied
	proxyAuth    *ProxyCredentials // Options.ProxyAuth (proxyauth.go)
	authAnswered answered
	timings      Timings

	mu sync.Mutex
	// guarded by mu
	changed   chan struct{} // closed and replaced on every state change
	mainFrame cdp.FrameID
	world     string // unique id of the collector world of the main document; "" between documents
	worldID   runtime.ExecutionContextID
	// marks: the listener marks of the collector's world (MarkListeners).
	marksMu   sync.Mutex
	marks     marks
	listings  atomic.Int64            // listener queries made (Listings)
	favicons  atomic.Int64            // page icons' fetches failed (Favicons)
	markings  atomic.Int64            // markings begun: each one's object group is its own
	lifecycle map[cdp.LoaderID]string // newest lifecycle milestone per main-frame loader
	crashed   bool
	hung      bool                               // the renderer was found hung and sent a crash
	wedged    bool                               // a hung renderer the crash could not reach: the page must be replaced (guard.go)
	dialog    *page.EventJavascriptDialogOpening // pending, nil if none
	dismissed bool                               // the runtime dismissed a beforeunload dialog
	leaving   bool                               // the runtime is navigating away from the current document
	leavingTo string                             // the URL the runtime is navigating to
	navSeq    uint64                             // main-frame navigations started
	startedAt map[cdp.LoaderID]uint64            // navSeq of the newest navigations, by their loader
	announces announcements                      // the redirects documents announced (redirect.go)
	own       cdp.LoaderID                       // the runtime's navigation, until its document commits
	competing map[cdp.LoaderID]bool              // page navigations that started while the runtime's was on its way
	pending   cdp.LoaderID                       // the newest main-frame navigation while it is on its way
	pendingAt time.Time                          // when pending started
	turn      navTurn                            // whose turn pending is on: the server's or the renderer's (guard.go)
	loader    cdp.LoaderID                       // newest main-frame loader
	inflight  map[*int]context.CancelCauseFunc
	refusals  uint64 // top-level navigation hops the navigation guard refused
	refused   error  // the newest refusal

	// withFrames: the session observes frames (tool version 1.7.0), so
	// out-of-process frames are attached to as they appear; set once the
	// tab is open.
	withFrames bool
	// Child frames (frames.go): by frame id, and the sessions of
	// out-of-process ones by target id; session is the tab's own.
	session       *frameSession
	frames        map[cdp.FrameID]*frame
	frameSessions map[cdptarget.ID]*frameSession
	attaching     int // out-of-process frames being attached (attachFrame)

	popups      map[cdptarget.ID]bool // pages the tab or its popups opened, until they are gone
	popupCloser *WorkQueue            // closes them, for the tab's life

	// hooks: the session keeps the pages the tab opens as tabs (tool
	// version 1.8.0) instead of closing them; nil closes them.
	hooks   *Hooks
	opened  uint64  // pages this tab opened
	gone    bool    // the page was closed (by itself, or by the session)
	traffic traffic // requests in flight, for browser_wait (netidle.go)
	logs    *logs   // console and network logs (log.go); nil unless Options.Logs
}

// Options are what a tab is opened with.
type Options struct {
	// Check is the session's navigation check of every top-level hop; nil
	// allows every http(s) URL.
	Check func(context.Context, *url.URL) error
	// CheckRequest (tool version 1.9.0) is asked about every other request
	// of the tab before it leaves the browser (navguard.go); a refused one
	// is counted in Blocked. nil lets them go unasked.
	CheckRequest func(context.Context, *url.URL) error
	Blocked      *observation.BlockedTally
	// Contain, with CheckRequest, stops what Fetch never pauses
	// (requests.go); NoServiceWorkers takes service worker registration
	// away.
	Contain          *Containment
	NoServiceWorkers bool
	// Proxied (with CheckRequest): every connection of the session goes
	// through its egress proxy, which checks (and counts) what Fetch does
	// not pause, WebSockets and shared workers included, so the in-page
	// means that stand in for it where there is no proxy are left out.
	Proxied bool
	// RefusedHosts (with CheckRequest) is what CheckRequest refuses of a
	// host without resolving it: the in-page WebSocket guard holds it where
	// no egress proxy does (requests.go).
	RefusedHosts policy.HostRules
	// HoldPopups (tool version 1.9.0) judges the first request of the
	// pages the tab opens before it leaves (popups.go).
	HoldPopups bool
	// Isolated opens the page in a browser context of its own, disposed of
	// when the tab's context ends.
	Isolated bool
	// Proxy (Open only), host:port of a proxy, opens the page in a
	// browser context of its own whose every connection, loopback ones
	// included, goes through that proxy (the egress package).
	Proxy string
	// ProxyAuth (with CheckRequest) answers the proxy's challenge, on
	// every tab of the context: a keyed proxy's (proxyauth.go).
	ProxyAuth *ProxyCredentials
	// Frames: the session observes frames (tool version 1.7.0), so
	// out-of-process frames are attached to as they appear.
	Frames bool
	// Hooks, if set, make the tab report the pages it opens instead of
	// closing them (SetHooks).
	Hooks   *Hooks
	Timings Timings
	// Logs: the tab keeps its console and network logs (tool version
	// 1.10.0, log.go).
	Logs bool
}

// Open opens a page in the browser of parent; the caller's ctx bounds the
// opening, not the page's life.
func Open(ctx, parent context.Context, opts Options) (*Tab, error) {
	var copts []chromedp.ContextOption
	switch {
	case opts.Proxy != "":
		copts = append(copts, chromedp.WithNewBrowserContext(func(p *cdptarget.CreateBrowserContextParams) {
			p.ProxyServer, p.ProxyBypassList = "http://"+opts.Proxy, chromeflags.NoBypass
		}))
	case opts.Isolated:
		copts = append(copts, chromedp.WithNewBrowserContext())
	}
	return start(ctx, parent, opts, copts...)
}

// Adopt makes a tab of page target id, which a page of the session opened
// (tool version 1.8.0); opts.Hooks are set before its first event. Ending
// the tab's context closes the page.
func Adopt(ctx, parent context.Context, id cdptarget.ID, opts Options) (*Tab, error) {
	return start(ctx, parent, opts, chromedp.WithTargetID(id))
}

// Hooks tell a session of the pages its tabs open and of the pages that
// close. They run in the event listener: no CDP in them, and no lock that
// a caller of a Tab method may hold.
type Hooks struct {
	Opened func(*cdptarget.Info)
	Gone   func(cdptarget.ID)
	// Refused (with Options.HoldPopups) tells of a popup of the tab whose
	// first request the tab's check refused before it left (popups.go).
	Refused func(id cdptarget.ID, refusal error)
	// Allowed (with Options.HoldPopups) tells of a popup of the tab whose
	// first request the tab's check allowed: it is judged.
	Allowed func(id cdptarget.ID)
}

func start(ctx, parent context.Context, opts Options, copts ...chromedp.ContextOption) (*Tab, error) {
	tabCtx, cancel := chromedp.NewContext(parent, copts...)
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
		return nil, Classify(ctx, ctx.Err(), errcode.BrowserUnavailable, "could not open a browser page")
	}
	if err != nil {
		cancel()
		return nil, errcode.Wrap(errcode.BrowserUnavailable, err, "could not open a browser page")
	}
	wsGuard, err := webSocketGuard(opts)
	if err != nil {
		cancel()
		return nil, errcode.Wrap(errcode.BrowserUnavailable, err, "could not prepare the browser page")
	}
	t := &Tab{
		ctx:           tabCtx,
		cancel:        cancel,
		target:        chromedp.FromContext(tabCtx).Target,
		dialogs:       make(chan *page.EventJavascriptDialogOpening, 4),
		check:         opts.Check,
		checkRequest:  opts.CheckRequest,
		blocked:       opts.Blocked,
		contain:       opts.Contain,
		noWorkers:     opts.NoServiceWorkers,
		wsGuard:       wsGuard,
		proxied:       opts.Proxied,
		proxyAuth:     opts.ProxyAuth,
		timings:       opts.Timings,
		changed:       make(chan struct{}),
		lifecycle:     make(map[cdp.LoaderID]string),
		startedAt:     make(map[cdp.LoaderID]uint64),
		competing:     make(map[cdp.LoaderID]bool),
		inflight:      make(map[*int]context.CancelCauseFunc),
		popups:        make(map[cdptarget.ID]bool),
		frames:        make(map[cdp.FrameID]*frame),
		frameSessions: make(map[cdptarget.ID]*frameSession),
		popupCloser:   NewWorkQueue(),
		hooks:         opts.Hooks,
	}
	if opts.Logs {
		t.logs = newLogs()
	}
	t.session = &frameSession{target: t.target, life: tabCtx, cancel: func() {}}
	if err := chromedp.Listen(tabCtx, t.onEvent); err != nil {
		cancel()
		return nil, errcode.Wrap(errcode.BrowserUnavailable, err, "could not open a browser page")
	}
	if opts.HoldPopups {
		if err := t.holdPopups(opening, parent); err != nil {
			cancel()
			return nil, Classify(opening, err, errcode.BrowserUnavailable, "could not prepare the browser page")
		}
	}
	if err := t.holdWorkers(opening, t.target.TargetID); err != nil {
		cancel()
		return nil, Classify(opening, err, errcode.BrowserUnavailable, "could not prepare the browser page")
	}
	go t.handleDialogs()
	go t.popupCloser.Run(tabCtx)
	if err := t.installCollector(opening); err != nil {
		cancel()
		return nil, Classify(opening, err, errcode.BrowserUnavailable, "could not prepare the browser page")
	}
	t.mu.Lock()
	t.withFrames = opts.Frames
	t.mu.Unlock()
	return t, nil
}

// installCollector registers the collector for every new document of the
// tab before any site is loaded, then creates the world for the blank
// document the tab starts with.
func (t *Tab) installCollector(ctx context.Context) error {
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
	if err := t.watchRefreshes(ctx); err != nil {
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
	wctx, cancel := context.WithTimeout(ctx, t.timings.CollectorReady)
	defer cancel()
	return t.waitFor(wctx, func() bool { return t.world != "" })
}

// onEvent runs on chromedp's reader goroutine: state changes only.
func (t *Tab) onEvent(ev any) {
	switch ev := ev.(type) {
	case *fetch.EventRequestPaused:
		go t.decide(ev)
		return
	case *fetch.EventAuthRequired:
		go t.answerAuth(t.target, ev)
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.onFrameEventLocked(t.session, ev) {
		t.changedLocked()
	}
	t.noteTrafficLocked(ev)
	t.noteTurnLocked(ev)
	t.noteLogLocked(ev)
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
			// this one is stopped at its request, even one paused after the
			// runtime's navigation has returned.
			if len(t.competing) > 64 {
				clear(t.competing)
			}
			t.competing[ev.LoaderID] = true
			return
		}
		t.navSeq++
		t.pending, t.pendingAt = ev.LoaderID, time.Now()
		t.turn = navTurn{since: t.pendingAt} // the renderer's first: the old document's beforeunload
		if len(t.startedAt) > 8 {
			clear(t.startedAt)
		}
		t.startedAt[ev.LoaderID] = t.navSeq
	case *page.EventFrameRequestedNavigation, *runtime.EventBindingCalled, *network.EventResponseReceived:
		t.noteAnnouncedLocked(ev)
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
		t.hooks.Opened(ev.TargetInfo)
	case *cdptarget.EventTargetDestroyed:
		delete(t.popups, ev.TargetID)
		if t.hooks == nil {
			return
		}
		t.hooks.Gone(ev.TargetID)
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
			t.interruptLocked(ErrDialog)
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
	t.changedLocked()
}

func (t *Tab) interruptLocked(cause error) {
	for _, cancel := range t.inflight {
		cancel(cause)
	}
}

// claim records loader, the answer to the runtime's Page.navigate, as the
// runtime's navigation until its document commits (onEvent already knows
// it by its URL when it starts), and returns the navSeq at which it started
// (guess if that is not known). A page that navigates itself all the time
// can start a navigation right before the runtime's, or while it is on its
// way; the first is not counted as the runtime's, the second is stopped
// (see competingRequest).
func (t *Tab) claim(loader cdp.LoaderID, guess uint64) uint64 {
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
func (t *Tab) competingRequest(id network.RequestID) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.competing[cdp.LoaderID(id)] {
		return false
	}
	delete(t.competing, cdp.LoaderID(id))
	return true
}

// waitFor blocks until cond, evaluated under t.mu, holds.
func (t *Tab) waitFor(ctx context.Context, cond func() bool) error {
	for {
		t.mu.Lock()
		if cond() {
			t.mu.Unlock()
			return nil
		}
		crashed, gone, ch := t.crashed, t.gone, t.changed
		t.mu.Unlock()
		if crashed {
			return ErrCrashed
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

// MarkGone notes that the page closed, which ends the calls on it.
func (t *Tab) MarkGone() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.gone {
		t.gone = true
		t.interruptLocked(errTabClosed)
		t.changedLocked()
	}
}

// Gone reports whether the page was closed.
func (t *Tab) Gone() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gone
}

// World is the unique id of the main document's collector world, "" between
// documents.
func (t *Tab) World() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.world
}

// Dialog is the pending JavaScript dialog, nil if none.
func (t *Tab) Dialog() *page.EventJavascriptDialogOpening {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dialog
}

// WaitDialogClosed waits until d is no longer the pending dialog (another
// may open right after it).
func (t *Tab) WaitDialogClosed(ctx context.Context, d *page.EventJavascriptDialogOpening) {
	t.waitFor(ctx, func() bool { return t.dialog != d })
}

// changedLocked makes every waitFor re-check its condition.
func (t *Tab) changedLocked() {
	close(t.changed)
	t.changed = make(chan struct{})
}

// wake makes every waitFor re-check its condition.
func (t *Tab) wake() {
	t.mu.Lock()
	t.changedLocked()
	t.mu.Unlock()
}

// SetHooks makes the tab report the pages it opens and the pages that
// close to h (tool version 1.8.0's tabs) instead of closing its popups.
func (t *Tab) SetHooks(h *Hooks) {
	t.mu.Lock()
	t.hooks = h
	t.mu.Unlock()
}

// Interrupt ends every page step in flight with cause (the browser is
// gone, say).
func (t *Tab) Interrupt(cause error) {
	t.mu.Lock()
	t.interruptLocked(cause)
	t.mu.Unlock()
}

// TargetID is the page target's id.
func (t *Tab) TargetID() cdptarget.ID { return t.target.TargetID }

// Target is the page's CDP session, for the commands a session issues
// itself (input, history, screenshots) inside a page step (Begin).
func (t *Tab) Target() *chromedp.Target { return t.target }

// Browser is the CDP session of the tab's browser.
func (t *Tab) Browser() *chromedp.Browser { return chromedp.FromContext(t.ctx).Browser }

// Context is the tab's context: it ends when the tab is closed.
func (t *Tab) Context() context.Context { return t.ctx }

// Owns reports whether frame id is the tab's main frame or one of the child
// frames it has seen: what a download that frame began is attributed by.
func (t *Tab) Owns(id cdp.FrameID) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return id == cdp.FrameID(t.target.TargetID) || id == t.mainFrame || t.frames[id] != nil
}
