package chromium

import (
	"context"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	cdptarget "github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// Tabs (tool version 1.8.0, docs/interactions.md). A page that one of the
// session's tabs opens (a target=_blank link, window.open, a sign-in
// popup) becomes a tab of the session, up to browser.MaxTabs; one past
// the bound is closed as it opens. A tab is adopted with the navigation
// guard, the collector and the dialog rules of the first; a popup whose
// first hop the session's navigation check refuses is closed as refused,
// as are the pages a closed page opened. The session works on one tab,
// the active one (Session.tab); the agent selects another by its id.
//
// The registry is told of pages by the tabs' event listeners (tab.Hooks),
// so it never issues CDP; a worker goroutine adopts and closes pages, each
// within Timings.TabOpen.

type tabSet struct {
	// fixed at creation
	work  *tab.WorkQueue // adopts and closes pages
	hooks *tab.Hooks
	s     *Session

	mu sync.Mutex
	// guarded by mu
	entries  []*tabEntry // open tabs, in the order they opened
	byTarget map[cdptarget.ID]*tabEntry
	closing  map[cdptarget.ID]bool // closed or refused pages: what they open is closed too
	serial   uint64
	opened   []*tabEntry           // opened since the last observation
	closed   int                   // pages closed at the bound since the last observation
	refused  int                   // popups refused since the last observation
	refusal  error                 // the newest popup refusal (tool version 1.9.0)
	allowed  map[cdptarget.ID]bool // popups whose first request was allowed before notePage heard of them
	// shown is the tab in front of the others, as far as the session
	// knows: nil once one of its pages opened or closed since it brought
	// a tab to the front (showActive)
	shown *tab.Tab
}

type tabEntry struct {
	serial uint64
	target cdptarget.ID
	opener cdptarget.ID
	// guarded by tabSet.mu
	tab    *tab.Tab      // nil until adopted
	ready  chan struct{} // closed when adoption ended, with tab or not
	gone   bool
	passed int // navigation hops of the page the check allowed
	// decided is closed once the page's first hop was judged (by the
	// popup gate as it was paused, or by its URL when it loaded before
	// the adoption), it closed, or it ran without one for SettleWindow
	// after its adoption, the cap (what a 1.9.0 action that opened it
	// waits for)
	decided   chan struct{}
	isDecided bool
	// guarded by the session's lock: the tab's draft receipt while
	// another tab is active
	draft *collect.Draft
}

// startTabs makes s keep the pages its tabs open, first being its tab.
func (s *Session) startTabs(ctx context.Context, first *tab.Tab) {
	ts := &tabSet{byTarget: map[cdptarget.ID]*tabEntry{}, closing: map[cdptarget.ID]bool{}, allowed: map[cdptarget.ID]bool{},
		work: tab.NewWorkQueue(), s: s}
	ts.hooks = &tab.Hooks{Opened: ts.notePage, Gone: ts.noteGone}
	if s.realPages {
		ts.hooks.Refused, ts.hooks.Allowed = ts.noteRefused, ts.noteAllowed
	}
	e := &tabEntry{target: first.TargetID(), tab: first, ready: make(chan struct{})}
	close(e.ready)
	ts.entries, ts.byTarget[e.target] = []*tabEntry{e}, e
	ts.shown = first
	s.tabs, s.active = ts, e
	first.SetHooks(ts.hooks)
	go ts.work.Run(ctx)
}

// closeTargetLocked closes a page that is not a tab.
func (ts *tabSet) closeTargetLocked(id cdptarget.ID) {
	ts.closing[id] = true
	ts.work.Push(func(ctx context.Context) {
		cctx, cancel := context.WithTimeout(ctx, ts.s.timings.TabOpen)
		defer cancel()
		cdp.Call(cctx, ts.s.browser(), cdptarget.CloseTarget, cdptarget.CloseTargetParams{TargetID: id})
	})
}

// notePage decides what becomes of a page that a tab opened. It runs in a
// tab's event listener (every tab hears of every page).
func (ts *tabSet) notePage(info *cdptarget.Info) {
	if info.Type != "page" || info.OpenerID == "" {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	id := info.TargetID
	if ts.byTarget[id] != nil || ts.closing[id] {
		return
	}
	opener := ts.byTarget[info.OpenerID]
	defer delete(ts.allowed, id)
	if opener != nil || ts.closing[info.OpenerID] {
		ts.shown = nil // Chromium shows a new tab in front of its opener
	}
	switch {
	case ts.closing[info.OpenerID] || opener != nil && opener.gone:
		ts.closeTargetLocked(id)
	case opener == nil:
		return // another session's page
	case len(ts.entries) >= browser.MaxTabs:
		ts.closed++
		ts.closeTargetLocked(id)
	default:
		ts.serial++
		e := &tabEntry{serial: ts.serial, target: id, opener: info.OpenerID, ready: make(chan struct{}), decided: make(chan struct{})}
		if ts.allowed[id] {
			e.decideLocked()
		}
		ts.entries = append(ts.entries, e)
		ts.byTarget[id] = e
		ts.opened = append(ts.opened, e)
		ts.work.Push(ts.adoptJob(e))
	}
}

// noteGone drops a page that closed. It runs in a tab's event listener.
func (ts *tabSet) noteGone(id cdptarget.ID) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	e := ts.byTarget[id]
	if e != nil || ts.closing[id] {
		ts.shown = nil // Chromium shows another tab in its place
	}
	delete(ts.closing, id)
	if e != nil {
		ts.dropLocked(e)
	}
}

// dropLocked removes e from the open tabs and releases its tab; the first
// tab's context is kept until the session closes, as ending it would end
// an isolated session's browser context with every tab in it.
func (ts *tabSet) dropLocked(e *tabEntry) {
	if e.gone {
		return
	}
	e.gone = true
	e.decideLocked()
	ts.entries = slices.DeleteFunc(ts.entries, func(o *tabEntry) bool { return o == e })
	ts.opened = slices.DeleteFunc(ts.opened, func(o *tabEntry) bool { return o == e })
	if t := e.tab; t != nil {
		// Not here: a listener holds a tab's lock, then this one.
		ts.work.Push(func(context.Context) {
			t.MarkGone()
			if e.serial != 0 {
				t.Close()
			}
		})
	}
}

// adoptJob attaches to e's page as a tab. A popup refused before it loaded
// anything, or whose page the check refuses once attached, is closed.
func (ts *tabSet) adoptJob(e *tabEntry) func(ctx context.Context) {
	return func(ctx context.Context) {
		s := ts.s
		actx, cancel := context.WithTimeout(ctx, s.timings.TabOpen)
		defer cancel()
		check := func(cctx context.Context, u *url.URL) error {
			var err error
			if s.checkNav != nil {
				err = s.checkNav(cctx, u)
			}
			ts.mu.Lock()
			defer ts.mu.Unlock()
			if err == nil {
				e.passed++
			} else if e.passed == 0 {
				ts.refusal = err
				ts.refuseLocked(e)
			}
			e.decideLocked()
			return err
		}
		t, err := tab.Adopt(actx, s.browserCtx, e.target, s.tabOptions(tab.Options{Check: check, Hooks: ts.hooks, HoldPopups: s.realPages}))
		ts.mu.Lock()
		defer ts.mu.Unlock()
		defer close(e.ready)
		if err != nil {
			ts.dropLocked(e)
			return
		}
		e.tab = t
		if e.gone || ctx.Err() != nil {
			go t.Close()
			return
		}
		// A page that loaded before the guard was on is judged by its URL,
		// and is decided then. One the gate has not judged yet (a page
		// with no request so far) is decided when its first request is
		// judged, or once it ran SettleWindow without one: a cap, not a
		// wait, for a popup whose request comes late or never.
		ts.work.Push(func(ctx context.Context) {
			judged := ts.judgeLoaded(ctx, e)
			ts.mu.Lock()
			if judged {
				e.decideLocked()
			}
			ts.mu.Unlock()
			if !judged {
				time.AfterFunc(s.timings.SettleWindow, func() {
					ts.mu.Lock()
					e.decideLocked()
					ts.mu.Unlock()
				})
			}
		})
	}
}

// judgeLoaded refuses an adopted popup whose document already came from an
// origin the check refuses (it loaded before the guard attached); it
// reports whether the popup's page was judged by its URL.
func (ts *tabSet) judgeLoaded(ctx context.Context, e *tabEntry) bool {
	s := ts.s
	cctx, cancel := context.WithTimeout(ctx, s.timings.TabOpen)
	defer cancel()
	info, err := cdp.Call(cctx, s.browser(), cdptarget.GetTargetInfo, cdptarget.GetTargetInfoParams{TargetID: e.target})
	if err != nil {
		return false
	}
	u, err := url.Parse(info.TargetInfo.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if s.checkNav == nil {
		return true
	}
	if err := s.checkNav(cctx, u); err != nil {
		ts.mu.Lock()
		ts.refusal = err
		ts.refuseLocked(e)
		ts.mu.Unlock()
	}
	return true
}

// noteAllowed marks a popup whose first request the gate allowed as
// judged (tool version 1.9.0): the action that opened it reports it at
// once. It may come before notePage heard of the page.
func (ts *tabSet) noteAllowed(id cdptarget.ID) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if e := ts.byTarget[id]; e != nil {
		e.decideLocked()
		return
	}
	if len(ts.allowed) >= maxEarlyAllowed {
		clear(ts.allowed)
	}
	ts.allowed[id] = true
}

// maxEarlyAllowed bounds the popups remembered as allowed before they were
// heard of; past it they are forgotten (and wait out the cap).
const maxEarlyAllowed = 64

// refuseLocked closes a popup as refused.
func (ts *tabSet) refuseLocked(e *tabEntry) {
	if e.gone {
		return
	}
	ts.refused++
	ts.closing[e.target] = true
	ts.dropLocked(e)
	if e.tab == nil {
		ts.closeTargetLocked(e.target)
	}
}

// noteRefused closes a popup whose first request the gate refused before
// it left the browser (tool version 1.9.0), as refused.
func (ts *tabSet) noteRefused(id cdptarget.ID, refusal error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.refusal = refusal
	if e := ts.byTarget[id]; e != nil {
		ts.refuseLocked(e)
		return
	}
	if !ts.closing[id] {
		ts.refused++
		ts.closeTargetLocked(id)
	}
}

func (e *tabEntry) decideLocked() {
	if e.decided != nil && !e.isDecided {
		e.isDecided = true
		close(e.decided)
	}
}

// popupRefusal waits, at most TabOpen, for the popups not yet judged to
// be, and returns the newest refusal of a popup since the last
// observation, if any: the action that opened a popup outside the grant
// reports it (tool version 1.9.0). It is called when the action opened a
// page.
func (s *Session) popupRefusal(ctx context.Context) error {
	if s.tabs == nil || !s.realPages {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, s.timings.TabOpen)
	defer cancel()
	for {
		s.tabs.mu.Lock()
		var pending *tabEntry
		for _, e := range s.tabs.entries {
			if e.decided != nil && !e.isDecided {
				pending = e
				break
			}
		}
		refusal := s.tabs.refusal
		if s.tabs.refused == 0 {
			refusal = nil
		}
		s.tabs.mu.Unlock()
		if pending == nil {
			return refusal
		}
		select {
		case <-pending.decided:
		case <-wctx.Done():
			return refusal
		}
	}
}

// tabID is e's id, bound to the session.
func (s *Session) tabID(e *tabEntry) string {
	return s.refKeys.Mint(observation.KindTab, 0, e.serial)
}

// syncActive makes the active tab an open one: a tab that closed (by
// itself, or refused) hands over to its opener, or to the newest tab.
// Called under the session's lock.
func (s *Session) syncActive() {
	if s.tabs == nil {
		return
	}
	s.tabs.mu.Lock()
	if !s.active.gone {
		s.tabs.mu.Unlock()
		return
	}
	next := s.tabs.byTarget[s.active.opener]
	if next == nil || next.gone || next.tab == nil {
		next = nil
		for _, e := range slices.Backward(s.tabs.entries) {
			if e.tab != nil {
				next = e
				break
			}
		}
	}
	s.tabs.mu.Unlock()
	if next != nil {
		s.switchTo(next)
	}
}

// showActive brings the active tab to the front of the session's tabs
// when another may have taken its place there: a page one of them opened
// (Chromium shows a new tab in front of its opener), one that closed, or
// another tab made active. A tab behind another is hidden to its page:
// its document's visibilityState is hidden, it runs no animation frames
// (a page that draws on requestAnimationFrame shows nothing new), and
// Chromium answers a mouse move sent to it only after a 5 s timeout, so
// that every click, hover and drag on the opener of a tab took 5 s more.
// A failed attempt is made again by the next operation. Called under the
// session's lock.
func (s *Session) showActive(ctx context.Context) {
	if s.tabs == nil {
		return
	}
	t := s.tab
	s.tabs.mu.Lock()
	if s.tabs.shown == t {
		s.tabs.mu.Unlock()
		return
	}
	s.tabs.shown = t // a page that opens from here on takes it back
	s.tabs.mu.Unlock()
	if _, err := cdp.Call(ctx, t.Target(), page.BringToFront, cdp.Empty{}); err != nil {
		s.tabs.mu.Lock()
		if s.tabs.shown == t {
			s.tabs.shown = nil
		}
		s.tabs.mu.Unlock()
	}
}

// switchTo makes e the active tab. References of the tab left are not
// valid in the new one: its next observation is a new revision.
func (s *Session) switchTo(e *tabEntry) {
	s.active.draft, s.draft = s.draft, e.draft
	s.active, s.tab = e, e.tab
	s.revision++ // no reference of the tab left resolves in this one
	s.doc, s.origin, s.cursor, s.frameCursor, s.places, s.textPlaces = "", "", nil, nil, nil, nil
}

// browser is the CDP session of the session's browser.
func (s *Session) browser() *chromedp.Browser {
	return s.first.Browser()
}

// stampTabs puts the tabs record on obs; list adds every tab (every
// browser_tabs call lists them).
func (s *Session) stampTabs(ctx context.Context, obs *observation.Observation, list bool) {
	if s.tabs == nil {
		return
	}
	s.tabs.mu.Lock()
	rec := &observation.Tabs{TabsSummary: observation.TabsSummary{Active: s.tabID(s.active), Count: len(s.tabs.entries), Closed: s.tabs.closed, Refused: s.tabs.refused}}
	for _, e := range s.tabs.opened {
		rec.Opened = append(rec.Opened, s.tabID(e))
	}
	entries := slices.Clone(s.tabs.entries)
	s.tabs.mu.Unlock()
	if list {
		// One round trip for every tab's URL and title.
		infos := map[cdptarget.ID]*cdptarget.Info{}
		if got, err := cdp.Call(ctx, s.browser(), cdptarget.GetTargets, cdptarget.GetTargetsParams{}); err == nil {
			for _, info := range got.TargetInfos {
				infos[info.TargetID] = info
			}
		}
		rec.List = []observation.Tab{}
		for _, e := range entries {
			tab := observation.Tab{ID: s.tabID(e), Active: e == s.active}
			if info := infos[e.target]; info != nil {
				tab.URL, tab.URLTruncated = observation.CutUTF16(observation.WithoutUserinfo(info.URL), observation.MaxURLUnits)
				tab.Title, tab.TitleTruncated = observation.CutUTF16(info.Title, observation.MaxTitleUnits)
			}
			rec.List = append(rec.List, tab)
		}
	}
	obs.Tabs = rec
}

// tabsReported forgets what obs.Tabs reported, once obs is published.
func (s *Session) tabsReported(obs *observation.Observation) {
	if s.tabs == nil || obs.Tabs == nil {
		return
	}
	s.tabs.mu.Lock()
	defer s.tabs.mu.Unlock()
	s.tabs.opened = slices.DeleteFunc(s.tabs.opened, func(e *tabEntry) bool {
		return slices.Contains(obs.Tabs.Opened, s.tabID(e))
	})
	s.tabs.closed -= obs.Tabs.Closed
	s.tabs.refused -= obs.Tabs.Refused
}

// Tabs implements browser.Session.
func (s *Session) Tabs(ctx context.Context, req browser.TabsRequest) (*observation.Observation, error) {
	if !s.interactions {
		return nil, errcode.New(errcode.InvalidArgument, "tabs need tool version 1.8.0 or later")
	}
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.lock.Release(1)
	switch req.Action {
	case browser.TabsList:
		if req.Tab != "" {
			return nil, errcode.New(errcode.InvalidArgument, "list takes no tab")
		}
		return s.observeTabs(ctx, true)
	case browser.TabsSelect, browser.TabsClose:
	default:
		return nil, errcode.New(errcode.InvalidArgument, "unknown tabs action %s (list, select, close)", errcode.Quote(string(req.Action)))
	}
	e, err := s.lookupTab(ctx, req.Tab)
	if err != nil {
		return nil, err
	}
	if req.Action == browser.TabsSelect {
		if e != s.active {
			s.switchTo(e)
		}
		return s.observeTabs(ctx, true)
	}
	if err := s.closeTab(ctx, e); err != nil {
		return nil, err
	}
	return s.observeTabs(ctx, true)
}

func (s *Session) observeTabs(ctx context.Context, list bool) (*observation.Observation, error) {
	s.listTabs = list
	defer func() { s.listTabs = false }()
	return s.observe(ctx, observation.Request{})
}

// lookupTab resolves a tab id of the session to an open, adopted tab.
func (s *Session) lookupTab(ctx context.Context, id string) (*tabEntry, error) {
	if id == "" {
		return nil, errcode.New(errcode.InvalidArgument, "tab is required")
	}
	_, serial, err := s.refKeys.Parse(observation.KindTab, id)
	if err != nil {
		return nil, err
	}
	s.tabs.mu.Lock()
	var e *tabEntry
	for _, o := range s.tabs.entries {
		if o.serial == serial {
			e = o
		}
	}
	s.tabs.mu.Unlock()
	if e == nil {
		return nil, errcode.New(errcode.StaleReference, "the tab was closed; list the tabs")
	}
	wctx, cancel := context.WithTimeout(ctx, s.timings.TabOpen)
	defer cancel()
	select {
	case <-e.ready:
	case <-wctx.Done():
		return nil, tab.Classify(wctx, wctx.Err(), errcode.Timeout, "the tab is still opening")
	}
	s.tabs.mu.Lock()
	defer s.tabs.mu.Unlock()
	if e.gone || e.tab == nil {
		return nil, errcode.New(errcode.StaleReference, "the tab was closed; list the tabs")
	}
	return e, nil
}

// closeTab closes e's page as a person would: its beforeunload handler
// runs, and a page that asks to keep unsaved changes stays open (the
// dialog is dismissed, never accepted): navigation_cancelled.
func (s *Session) closeTab(ctx context.Context, e *tabEntry) error {
	s.tabs.mu.Lock()
	last := len(s.tabs.entries) == 1
	s.tabs.mu.Unlock()
	if last {
		return errcode.New(errcode.InvalidArgument, "the session's last tab cannot be closed")
	}
	dismissed, err := e.tab.ClosePage(ctx, s.timings.TabOpen)
	if err != nil {
		return err
	}
	s.tabs.mu.Lock()
	gone := e.gone
	s.tabs.mu.Unlock()
	if dismissed && !gone {
		return errcode.New(errcode.NavigationCancelled, "the page asked to keep unsaved changes; the tab stays open")
	}
	if !gone {
		return errcode.New(errcode.ActionUncertain, "the tab did not close in time; list the tabs")
	}
	s.syncActive()
	return nil
}

// closeTabs closes every tab, the first last, for Close (a tab that
// replaced a wedged first one among them: renew.go).
func (s *Session) closeTabs() {
	if s.tabs == nil {
		if s.tab != s.first {
			s.tab.Close()
		}
		s.first.Close()
		return
	}
	s.tabs.mu.Lock()
	var tabs []*tab.Tab
	for _, e := range s.tabs.entries {
		if e.tab != nil && e.tab != s.first {
			tabs = append(tabs, e.tab)
		}
	}
	s.tabs.mu.Unlock()
	for _, t := range tabs {
		t.Close()
	}
	s.first.Close()
}
