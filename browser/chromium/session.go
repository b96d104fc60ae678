package chromium

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"sync/atomic"

	"github.com/chromedp/cdproto/page"
	"golang.org/x/sync/semaphore"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/framemerge"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// Session is one page of a Provider. Its operation lock serializes startup,
// every page operation, result validation and close, so no two
// operations ever share page state such as a beforeunload cancellation.
// Every page operation takes the lock, and the unexported methods it calls
// run under it; the Locked suffix marks only what needs a mutex held
// (tabSet.mu). The page itself is reached only through the methods of its
// tab.Tab.
type Session struct {
	// fixed at creation
	provider *Provider
	timings  tab.Timings         // the provider's
	refKeys  *observation.Keys   // signs and checks this session's refs and cursors
	lock     *semaphore.Weighted // the operation lock: a mutex whose acquire a context can cancel
	// validate is admission (observation.Validate); a test can make it
	// refuse, which no page can, to show what a refusal leaves behind.
	validate func(*observation.Observation) error
	reading  bool // observe as tool version 1.6.0: browser.SessionOptions.Reading
	window   int  // text bytes of a reading observation: browser.SessionOptions.ReadingBytes
	// frames observes child frames as tool version 1.7.0 does
	// (frames_observe.go); frameAllowed judges a frame's origin.
	frames       bool
	frameAllowed func(origin string) bool
	// interactions: tool version 1.8.0's tabs, history, waits, hover,
	// scroll, drag and key chords (browser.SessionOptions.Interactions).
	interactions bool
	// realPages: tool version 1.9.0's everyday web (docs/realpages.md;
	// browser.SessionOptions.RealPages).
	realPages bool
	// keptListeners: tool version 1.10.0 keeps a large page's listener
	// marks (browser.SessionOptions.KeptListeners).
	keptListeners bool
	// readValues: the read_values grant of a 1.9.0 session
	// (browser.SessionOptions.ReadValues).
	readValues bool
	// debugging: tool version 1.10.0's console and network logs
	// (browser.SessionOptions.Debugging, logs.go).
	debugging bool
	// first is the tab the session opened with; browserCtx the browser's
	// context, which tabs are adopted under; checkNav the session's
	// navigation check (browser.SessionOptions.CheckNavigation).
	first      *tab.Tab
	browserCtx context.Context
	checkNav   func(context.Context, *url.URL) error
	// requests: the request guard's options every tab of the session
	// opens with (tool version 1.9.0; requests.go); its Blocked tally is
	// the session's.
	requests tab.Options
	// checkAddress: the destination rules on each address the egress
	// proxy connects to for the session (browser.SessionOptions.CheckAddress).
	checkAddress func(netip.Addr) error
	stopTabs     context.CancelFunc
	// dl: the session's downloads (tool version 1.10.0, downloads.go);
	// nil when it keeps none.
	dl *sessionDownloads

	closed  atomic.Bool // set by Close, even when an operation is stuck
	casting atomic.Bool // a screencast runs (screencast.go): one at a time

	// guarded by lock
	// tab is the active tab: the first, or one tabs.go adopted. Provider.watch
	// reads it without the lock, only to interrupt the step in flight.
	tab      *tab.Tab
	revision uint64         // newest published revision; 0 before the first
	doc      string         // collector document id of the newest revision
	origin   string         // origin of the newest revision's main document
	cursor   *uint64        // the newest revision's control cursor index (cursorIndex); nil: none
	draft    *collect.Draft // the agent's own submitted rich-text draft, weakly bound in the page
	// places of the newest frames-mode revision's controls; nil otherwise
	places     []framemerge.Place
	textPlaces []framemerge.Place // and of its text parts, one more: where the text continues
	// where the newest revision's cursor resumes when it continues inside
	// frames (cursorInFrames); nil otherwise
	frameCursor *framemerge.Cursor
	// with places: the frame of each region, and whether the top
	// document's region stream ended with the regions it gave (topRegion)
	regionFrames []int
	regionsDone  bool
	act          *inFrame // the running action's frame, if its control is in one
	// tool version 1.8.0's tabs (tabs.go): nil for earlier versions;
	// active is the entry of tab; listTabs asks the observation for the
	// list of tabs
	tabs     *tabSet
	active   *tabEntry
	listTabs bool
	// tool version 1.10.0's emulation (emulate.go): what the session set,
	// its generation (0: none), and the generation each tab has
	emulated     browser.EmulateRequest
	emulation    uint64
	emulatedTabs map[*tab.Tab]uint64
}

var _ browser.Session = (*Session)(nil)

func newSession(ctx context.Context, p *Provider, inst *instance, opts browser.SessionOptions) (*Session, error) {
	browserCtx := inst.ctx
	s := &Session{provider: p, timings: p.timings, refKeys: observation.NewKeys(), lock: semaphore.NewWeighted(1), validate: observation.Validate,
		reading: opts.Reading, window: opts.ReadingBytes, frames: opts.Frames && opts.Reading, frameAllowed: opts.FrameAllowed,
		interactions: opts.Interactions, realPages: opts.RealPages, keptListeners: opts.KeptListeners,
		readValues: opts.RealPages && opts.ReadValues, debugging: opts.Debugging}
	if opts.CheckRequest != nil {
		s.requests = tab.Options{CheckRequest: opts.CheckRequest, Blocked: &observation.BlockedTally{}, NoServiceWorkers: opts.NoServiceWorkers,
			RefusedHosts: opts.RefusedHosts}
		if opts.Contain != nil {
			s.requests.Contain = &tab.Containment{Origins: opts.Contain}
		}
		s.checkAddress = opts.CheckAddress
	}
	first := tab.Options{Check: opts.CheckNavigation, Isolated: p.isolated, HoldPopups: s.realPages && s.interactions}
	stopEgress, err := s.startEgress(inst, &first)
	if err != nil {
		return nil, err
	}
	t, err := tab.Open(ctx, browserCtx, s.tabOptions(first))
	if err != nil {
		stopEgress()
		return nil, err
	}
	// The first tab's context lasts as long as the session (renew.go
	// keeps it when it replaces a wedged first page).
	context.AfterFunc(t.Context(), stopEgress)
	s.tab, s.first, s.browserCtx, s.checkNav = t, t, browserCtx, opts.CheckNavigation
	s.stopTabs = func() {}
	if s.interactions {
		ctx, stop := context.WithCancel(t.Context())
		s.stopTabs = stop
		s.startTabs(ctx, t)
	}
	if opts.Downloads != nil {
		if err := s.startDownloads(ctx, inst, opts.Downloads); err != nil {
			s.stopTabs()
			s.closeTabs()
			return nil, err
		}
	}
	return s, nil
}

func (s *Session) acquire(ctx context.Context) error {
	if err := s.lock.Acquire(ctx, 1); err != nil {
		return tab.Classify(ctx, err, errcode.Cancelled, "the operation was cancelled")
	}
	if s.closed.Load() {
		s.lock.Release(1)
		return errcode.New(errcode.BrowserUnavailable, "the session is closed")
	}
	if s.Gone() {
		s.lock.Release(1)
		return errBrowserGone
	}
	s.syncActive()
	s.showActive(ctx)
	s.dl.markOperation()
	if err := s.applyEmulation(ctx); err != nil {
		s.lock.Release(1)
		return err
	}
	return nil
}

// Observe refreshes the page and returns a new revision, continuing after
// req.After or from req.Cursor when one is given (docs/observation.md).
func (s *Session) Observe(ctx context.Context, req observation.Request) (*observation.Observation, error) {
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.lock.Release(1)
	// An observation asked for again, not one an action or a navigation
	// ends with, most likely finds the page's listeners as they were.
	return s.observeWith(ctx, req, req == observation.Request{})
}

// Navigate loads rawURL and observes the page it leads to.
func (s *Session) Navigate(ctx context.Context, rawURL string) (*observation.Observation, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errcode.New(errcode.InvalidArgument, "the URL must be an absolute http or https URL")
	}
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.lock.Release(1)
	if err := s.renewWedged(ctx); err != nil {
		return nil, err
	}
	nav, err := s.tab.Navigate(ctx, u.String())
	if err != nil {
		return nil, err
	}
	return s.observeLoaded(ctx, nav)
}

// observeLoaded observes the page a navigation led to, saying whether it
// was still loading when the navigation's bound ran out. A navigation the
// page starts while that view is taken is followed as one more redirect
// (docs/navigation.md), and the page it leads to observed instead.
func (s *Session) observeLoaded(ctx context.Context, nav tab.Navigated) (*observation.Observation, error) {
	obs, err := s.observe(ctx, observation.Request{})
	for i := 0; s.tab.MovedSince(nav) && i < tab.MaxClientRedirects; i++ {
		if nav, err = s.tab.FollowPage(ctx, nav); err != nil {
			return nil, err
		}
		obs, err = s.observe(ctx, observation.Request{})
	}
	if err != nil {
		return nil, err
	}
	obs.Loading = nav.Loading
	return obs, nil
}

func (s *Session) revisionToken(n uint64) string {
	return s.refKeys.Mint(observation.KindRevision, n, 0)
}

func (s *Session) observe(ctx context.Context, req observation.Request) (*observation.Observation, error) {
	return s.observeWith(ctx, req, false)
}

// observeWith observes the page; with ahead, the collector's calls, the
// page's and each frame's, may be sent beside their listener markings
// (marked).
func (s *Session) observeWith(ctx context.Context, req observation.Request, ahead bool) (*observation.Observation, error) {
	params := collect.Params{
		MaxVisible: observation.MaxControls,
		Window:     observation.WindowSize,
		MaxOffset:  observation.MaxOffset,
		Reading:    s.reading,
		RealPages:  s.realPages,
	}
	if s.reading && s.window < observation.TextBytes {
		params.TextBytes = s.window
	}
	if err := req.Check(); err != nil {
		return nil, err
	}
	s.syncActive()            // the active tab may have closed during the call
	s.showActive(ctx)         // or another been selected
	var rs *framemerge.Resume // where streams that stopped in frames resume
	switch {
	case req.Focus != "":
		if !s.realPages {
			return nil, errcode.New(errcode.InvalidArgument, "focus needs tool version 1.9.0 or later")
		}
		focusMain(&params)
	case req.Cursor != "" && observation.Kind(req.Cursor[0]) == observation.KindNext:
		if err := s.readOn(&params, &rs, req.Cursor); err != nil {
			return nil, err
		}
	case req.After != "":
		rev, index, err := s.newest(observation.KindControl, req.After)
		if err != nil {
			return nil, err
		}
		if err := s.afterIn(&params, &rs, rev, index); err != nil {
			return nil, err
		}
		params.Doc = s.doc
	case req.Cursor != "":
		rev, index, err := s.newest(observation.KindCursor, req.Cursor)
		if err != nil {
			return nil, err
		}
		if err := s.resumeControls(&params, &rs, rev, index); err != nil {
			return nil, err
		}
		params.Doc = s.doc
	}
	next := s.revision + 1
	if d := s.tab.Dialog(); d != nil {
		if params.Doc != "" {
			return nil, errcode.New(errcode.NotActionable, "a JavaScript dialog is open; answer it before continuing")
		}
		obs := s.dialogObservation(next, d)
		s.stampTabs(ctx, obs, s.listTabs)
		s.stampBlocked(obs)
		if err := observation.Validate(obs); err != nil {
			return nil, err
		}
		s.revision, s.cursor, s.frameCursor, s.places, s.textPlaces = next, nil, nil, nil, nil
		s.tabsReported(obs)
		return obs, nil
	}
	params.Revision = s.revisionToken(next)
	params.Draft = s.draft
	params.Frames = s.frames
	params.Values = s.readValues
	if s.frames {
		s.tab.NameMainFrames(ctx, observation.MaxFrameRecords*4)
	}
	expr := collect.Expression(params)
	eval, released, err := marked(ctx, s.tab.Evaluate, expr, ahead && s.realPages && s.tab.MarkedBefore(),
		func() (tab.Marking, error) { return s.markPointers(ctx) })
	if err != nil {
		return nil, err
	}
	defer released()
	res, err := collectIn(ctx, eval, expr, collect.Decode, "the page could not be observed")
	if err != nil {
		return nil, err
	}
	if res.Error != "" {
		return nil, continuationError(res.Error, params.Resume != nil || params.Regions != nil || params.Text != nil)
	}
	var fm *framemerge.Out
	if s.frames {
		if res, fm, err = s.withFrames(ctx, params, res, rs, ahead); err != nil {
			return nil, err
		}
	}
	if !params.Values && slices.ContainsFunc(res.Controls, func(c collect.Control) bool { return c.Value != nil }) {
		// Without the grant no value may reach the observation.
		return nil, errcode.Wrap(errcode.CaptureFailed, fmt.Errorf("collector returned a value it was not asked for"), "the page could not be observed")
	}
	if params.TextBytes > 0 && !params.TextEnded && res.TextCoverage.ByteBound != params.TextBytes {
		// Decode holds the text to the bound the collector reports: it
		// must be the one asked for.
		return nil, errcode.Wrap(errcode.CaptureFailed, fmt.Errorf("text bound %d, asked %d", res.TextCoverage.ByteBound, params.TextBytes), "the page could not be observed")
	}
	cursor, frameCursor := nextWindow(res.ControlCoverage), (*framemerge.Cursor)(nil)
	if fm != nil && fm.Cursor != nil && cursor != nil {
		i := cursorIndex(0, cursorInFrames)
		cursor, frameCursor = &i, fm.Cursor
	}
	obs := s.build(next, res, cursor)
	fm.Apply(obs)
	dropDraft := false
	if s.draft != nil {
		obs.Draft = &observation.Draft{State: string(res.Draft)}
		if res.Draft != collect.DraftMatch {
			dropDraft = true // changed, hidden, credential, oversized or gone
		} else if obs.TextCost()+observation.TextPartCost(s.draft.Value) <= observation.TextBytes {
			// The receipt echoes only what the agent itself submitted, and
			// only within the text ceiling: a full page keeps the label alone.
			obs.Text = append(obs.Text, observation.TextPart{Text: s.draft.Value, Source: observation.TextSourceDraft})
			obs.Draft.Echoed = true
		}
	}
	s.stampTabs(ctx, obs, s.listTabs)
	s.stampBlocked(obs)
	if err := s.validate(obs); err != nil {
		return nil, err // a rejected observation leaves the receipt as it was
	}
	s.tabsReported(obs)
	if dropDraft {
		s.draft = nil
	}
	s.revision, s.doc, s.origin, s.cursor, s.frameCursor = next, res.Doc, res.Origin, cursor, frameCursor
	s.places, s.textPlaces = nil, nil
	if fm != nil {
		s.places, s.textPlaces, s.regionFrames = fm.Places, fm.TextPlaces, fm.RegionFrames()
		s.regionsDone = obs.RegionCoverage.Omitted == 0 && !obs.RegionCoverage.NodeLimitReached
	}
	if s.reading {
		nk := s.refKeys.NextKey(next)
		obs.NextKey = &nk
	}
	return obs, nil
}

// evaluator runs an expression in one world and returns its JSON value: a
// tab's (Tab.Evaluate), a frame's (Tab.EvaluatorIn) or the running
// action's (Session.eval).
type evaluator func(ctx context.Context, expr string) ([]byte, error)

// collectIn evaluates a collector call with eval and decodes its answer; an
// answer that does not decode is capture_failed with msg.
func collectIn[R any](ctx context.Context, eval evaluator, expr string, decode func([]byte) (R, error), msg string) (R, error) {
	raw, err := eval(ctx, expr)
	if err != nil {
		var none R
		return none, err
	}
	res, err := decode(raw)
	if err != nil {
		return res, errcode.Wrap(errcode.CaptureFailed, err, "%s", msg)
	}
	return res, nil
}

// collectOr evaluates a collector call that may refuse, as collectIn does;
// a refusal in its answer is the public error refused makes of it.
func collectOr[R collect.Refusable](ctx context.Context, eval evaluator, expr string, decode func([]byte) (R, error), msg string, refused func(collect.Refusal) error) (R, error) {
	res, err := collectIn(ctx, eval, expr, decode, msg)
	if err == nil && res.Refused() != "" {
		err = refused(res.Refused())
	}
	if err != nil {
		var none R
		return none, err
	}
	return res, nil
}

// current refuses a reference of any revision but the newest.
func (s *Session) current(rev uint64) error {
	if rev != s.revision || rev == 0 {
		return errcode.New(errcode.StaleReference, "the reference is from an older observation; use the newest observation's references")
	}
	return nil
}

// newest verifies a reference of kind, full or compact (tool version
// 1.9.0's views), and returns its revision and index; a reference of any
// revision but the newest is refused (current).
func (s *Session) newest(kind observation.Kind, ref string) (rev, index uint64, err error) {
	if s.realPages {
		rev, index, err = s.refKeys.ParseNewest(kind, ref, s.revision)
	} else {
		rev, index, err = s.refKeys.Parse(kind, ref)
	}
	if err == nil {
		err = s.current(rev)
	}
	return rev, index, err
}

// pageObservation is the observation of revision rev of page, with its
// collected controls.
func (s *Session) pageObservation(rev uint64, page collect.Page, controls []collect.Control) *observation.Observation {
	return &observation.Observation{
		Revision:       s.revisionToken(rev),
		URL:            observation.WithoutUserinfo(page.URL),
		URLTruncated:   page.URLTruncated,
		Origin:         page.Origin,
		Title:          page.Title,
		TitleTruncated: page.TitleTruncated,
		Trust:          observation.Trust,
		Controls:       s.mintControls(rev, controls),
	}
}

// build is the observation of revision rev from res; cursor is the index
// of its control cursor, if it has one.
func (s *Session) build(rev uint64, res *collect.Result, cursor *uint64) *observation.Observation {
	obs := s.pageObservation(rev, res.Page, res.Controls)
	if s.realPages {
		obs.Document = res.Page.Doc // what a view's changes compare (docs/changes.md)
	}
	obs.Regions = res.Regions
	for i := range obs.Regions {
		obs.Regions[i].Ref = s.refKeys.Mint(observation.KindRegion, rev, uint64(i))
	}
	rc, tc := res.RegionCoverage, res.TextCoverage
	obs.RegionCoverage, obs.TextCoverage = &rc, &tc
	obs.Focus = res.Focus
	obs.Text = make([]observation.TextPart, len(res.Text))
	for i, t := range res.Text {
		obs.Text[i] = observation.TextPart{Text: t, Source: observation.TextSourcePage}
	}
	cov := res.ControlCoverage
	obs.ControlCoverage = observation.ControlCoverage{
		Offset:           cov.Offset,
		Scanned:          cov.Scanned,
		ScanLimitReached: cov.More && cov.Limit != observation.LimitNone,
		Limit:            cov.Limit,
		Ended:            cov.Ended,

		InScrollContainers: cov.InScrollContainers,
	}
	if cursor != nil {
		obs.ControlCoverage.Cursor = s.refKeys.Mint(observation.KindCursor, rev, *cursor)
	}
	return obs
}

// nextWindow is the cursor index of the control window after cov, or nil
// when none follows. Only the offset bound is terminal: a window the node
// bound ended continues from where its walk stopped.
func nextWindow(cov collect.ControlCoverage) *uint64 {
	if !cov.More || cov.Limit == observation.LimitOffset {
		return nil
	}
	i := cursorIndex(cov.Offset+cov.Scanned, cov.From)
	return &i
}

// mintControls gives collected controls the refs of revision rev, by their
// index, which is where the page retains them.
func (s *Session) mintControls(rev uint64, collected []collect.Control) []observation.Control {
	out := make([]observation.Control, len(collected))
	for i, c := range collected {
		out[i] = observation.Control{
			Ref:           s.refKeys.Mint(observation.KindControl, rev, uint64(i)),
			Role:          c.Role,
			Name:          c.Name,
			NameTruncated: c.NameTruncated,
			States:        c.States,
			Chosen:        c.Chosen,
			ChosenMore:    c.ChosenMore,
			Key:           c.Key,
			// Only a read_values observation holds values (observe).
			Value:          c.Value,
			ValueTruncated: c.ValueTruncated,
		}
	}
	return out
}

// dialogObservation is the observation of a page blocked by a dialog: the
// dialog and nothing else, since the page cannot be read while it is open.
func (s *Session) dialogObservation(rev uint64, d *page.EventJavascriptDialogOpening) *observation.Observation {
	msg, cut := observation.CutUTF16(d.Message, observation.MaxDialogMessage)
	return &observation.Observation{
		Revision: s.revisionToken(rev),
		URL:      observation.WithoutUserinfo(d.URL),
		Origin:   s.origin,
		Trust:    observation.Trust,
		Controls: []observation.Control{},
		Regions:  []observation.Region{},
		// Nothing was scanned: the page is blocked until the dialog closes.
		RegionCoverage: &observation.RegionCoverage{Version: observation.RegionCoverageV1, Scope: observation.RegionScope},
		Text:           []observation.TextPart{},
		TextCoverage:   &observation.TextCoverage{Version: observation.TextCoverageV1, Scope: observation.TextScope},
		Dialog:         &observation.Dialog{Type: string(d.Type), Message: msg, MessageTruncated: cut},
	}
}

// Close closes the page. It waits for the running operation, whatever the
// caller's context, because cleanup must run.
func (s *Session) Close(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.timings.CloseWait)
	defer cancel()
	if s.closed.Swap(true) {
		return nil
	}
	if err := s.lock.Acquire(cctx, 1); err != nil {
		// An operation is stuck: close the page under it, which ends it.
		s.dl.stop()
		s.stopTabs()
		s.closeTabs()
		s.provider.forget(s)
		return errcode.Wrap(errcode.Timeout, err, "the session was closed while an operation was stuck")
	}
	defer s.lock.Release(1)
	s.dl.stop()
	s.stopTabs()
	s.closeTabs()
	s.provider.forget(s)
	return nil
}

// markPointers readies a scan for pointer targets (tool version 1.9.0,
// docs/realpages.md): the elements with click-type listeners are marked in
// the page, at most a window of them, for the scan to list. The caller
// sends the scan at once and calls the Marking's Released when the scan
// answered.
func (s *Session) markPointers(ctx context.Context) (tab.Marking, error) {
	if !s.realPages {
		return tab.Marking{Released: func() {}}, nil
	}
	return s.tab.MarkListeners(ctx, observation.WindowSize, s.keptListeners)
}

// marked marks the pointer targets of one document (mark: the page's or a
// frame's) for its collector's call expr, and returns the evaluator to
// collect with and the wait the caller calls once the collector answered
// (tab.Marking.Released). With ahead, which the caller gives when the
// document holds a complete marking and is not large (tab.MarkedBefore,
// tab.FrameMarkedBefore), the call is sent at once, beside the marking,
// which then most likely changes nothing: the collector waits for one
// round trip where it waited for two. Its answer stands only if the
// marking changed no mark (tab.Marking.Changed), since the call may have
// run before the marking; when one did change, the collector is called
// again, which on a document that is not large costs a few milliseconds.
// The view an action, a navigation or a wait ends with, whose page has
// just changed, does not call ahead (Observe).
func marked(ctx context.Context, eval evaluator, expr string, ahead bool, mark func() (tab.Marking, error)) (evaluator, tab.Released, error) {
	var early *earlyCall
	if ahead {
		early = &earlyCall{done: make(chan struct{})}
		go func() {
			defer close(early.done)
			early.raw, early.err = eval(ctx, expr)
		}()
	}
	m, err := mark()
	if err != nil {
		early.wait()
		return nil, nil, err
	}
	if early != nil && !m.Changed {
		return early.answer, m.Released, nil
	}
	early.wait() // it may have run before the new marks: asked again
	return eval, m.Released, nil
}

// earlyCall is a collector call sent ahead (marked).
type earlyCall struct {
	done chan struct{}
	raw  []byte
	err  error
}

// answer is the call's answer, as an evaluator of its expression.
func (c *earlyCall) answer(context.Context, string) ([]byte, error) {
	<-c.done
	return c.raw, c.err
}

// wait waits for the call to end, its answer unused, so that no call of
// an observation outlives it; a nil call has nothing to wait for.
func (c *earlyCall) wait() {
	if c != nil {
		<-c.done
	}
}
