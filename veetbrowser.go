// Package veetbrowser is a browser runtime for AI agents: bounded
// observations of real Chromium pages, continuation through live pages, and
// model views that always fit a byte budget.
//
// The pieces: a browser.Provider opens pages; chromium.Launch starts a
// private headless Chromium and chromium.Attach connects to a running one.
// A Runtime opens Sessions on a provider it does not own: the caller closes
// the provider, after the runtime. Each Session is one page, pinned for life
// to one tool version (package tools), with the task's grant and approver
// (package policy):
//
//   - Navigate loads a URL and observes the page;
//   - Observe observes it again, or continues, with ObserveOptions, where
//     the last view stopped;
//   - Act and Upload pass live guards, the grant and approvals before any
//     input reaches the page, then observe the result.
//
// Each returns a Result: the canonical observation, whole, and the model
// view, JSON within the session's byte budget (package projection). Call
// runs the same tools by name with JSON arguments; the CLI and the MCP
// server go through it. Every call is recorded in the runtime's artifact
// store (package store) before its result is returned; package replay
// re-derives the recorded views.
package veetbrowser

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"os"
	"sync"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/uploads"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/sqlitestore"
	"github.com/veetbot/veetbrowser/tools"
)

// Options configure a Runtime. The zero value is usable with a Provider.
type Options struct {
	// Budget is the default inline byte budget of model views; 0 means
	// projection.DefaultBudget.
	Budget int
	// Store records every call of every session (docs/artifacts.md): the
	// runtime only writes, so any store.Recorder will do. nil opens the
	// default SQLite store (sqlitestore.OpenDefault), which the runtime
	// then owns and Close closes; a store given here stays the caller's to
	// close. Not recording is an explicit choice: store.Discard.
	Store store.Recorder
	// Screenshots (tool version 1.8.0): ActionScreenshots takes a masked
	// screenshot after each action that succeeded and stores it with the
	// action's record (off by default: it costs a capture per action);
	// UnmaskedScreenshots leaves form fields unpainted. Neither is ever a
	// model's argument.
	ActionScreenshots   bool
	UnmaskedScreenshots bool
}

// Runtime opens sessions on one provider.
type Runtime struct {
	provider  browser.Provider
	budget    int
	store     store.Recorder
	ownStore  io.Closer // the default store, opened by New: Close closes it
	redaction []byte    // the key typed text is redacted under; never stored
	shots     screenshotOptions
}

type screenshotOptions struct{ afterActions, unmasked bool }

// New returns a runtime over provider. It does not own the provider.
func New(provider browser.Provider, opts Options) (*Runtime, error) {
	budget, err := checkBudget(opts.Budget)
	if err != nil {
		return nil, err
	}
	r := &Runtime{provider: provider, budget: budget, store: opts.Store, redaction: make([]byte, 32),
		shots: screenshotOptions{afterActions: opts.ActionScreenshots, unmasked: opts.UnmaskedScreenshots}}
	rand.Read(r.redaction)
	if r.store == nil {
		own, err := sqlitestore.OpenDefault(context.Background())
		if err != nil {
			return nil, err
		}
		r.store, r.ownStore = own, own
	}
	return r, nil
}

// Store is the artifact store the runtime records to.
func (r *Runtime) Store() store.Recorder { return r.store }

// Close closes the artifact store if the runtime opened it itself. It does
// not close the provider or the sessions. Closing a store does not wait on
// the network, so ctx is not consulted yet; it is there so that every Close
// of the API reads alike.
func (r *Runtime) Close(ctx context.Context) error {
	if r.ownStore == nil {
		return nil
	}
	return r.ownStore.Close()
}

func checkBudget(b int) (int, error) {
	if b == 0 {
		return projection.DefaultBudget, nil
	}
	if b < projection.MinBudget || b > projection.MaxBudget {
		return 0, errcode.New(errcode.InvalidArgument, "the budget must be between %d and %d bytes", projection.MinBudget, projection.MaxBudget)
	}
	return b, nil
}

// SessionOptions configure one session.
type SessionOptions struct {
	Version string // browser tool version; "" pins the newest
	Budget  int    // inline byte budget; 0 takes the runtime's
	// Grant limits origins and action classes; the zero Grant allows all
	// of them, and shows no field value (Grant.ReadValues, tool version
	// 1.9.0, docs/realpages.md).
	Grant policy.Grant
	// Destinations refuses link-local and cloud-metadata addresses, and
	// with DenyPrivate private and loopback ones, on every top-level hop;
	// from tool version 1.9.0 on every other request too, and in a
	// launched browser on every connection, in its egress proxy
	// (docs/navigation.md).
	Destinations policy.Destinations
	// Approver is asked for consequential actions that no stored approval
	// covers; nil refuses them with approval_required.
	Approver policy.Approver
	// UploadRoot is the only directory uploads may read from; "" refuses
	// every upload.
	UploadRoot string
	// MaxUploadBytes bounds each uploaded file (0: DefaultMaxUpload,
	// 10 MiB), MaxUploadFiles the files of one upload (0:
	// DefaultMaxUploadFiles, 16), and MaxUploadKept the bytes of copies the
	// session keeps at once for the page to read (0: DefaultMaxUploadKept,
	// 64 MiB).
	MaxUploadBytes int64
	MaxUploadFiles int
	MaxUploadKept  int64
	// Downloads (1.10.0, docs/downloads.md) land in DownloadDir, an
	// existing directory, or a private temp dir that Close removes ("");
	// MaxDownloadBytes caps a file (0: 64 MiB), MaxDownloadTotal the
	// session's files (0: 256 MiB).
	DownloadDir      string
	MaxDownloadBytes int64
	MaxDownloadTotal int64
	// Surface names what opened the session in its record: cli, mcp,
	// http, suite; "" is library.
	Surface string
	// Handoff is the person browser_handoff hands the page to (tool
	// version 1.10.0; the control room's page); nil refuses it with
	// handoff_unavailable.
	Handoff Handoffer
}

// Caller is a session that a surface drives by tool name: a local
// *Session, or one hosted by a sidecar (package hosted). Both answer the
// same tools with the same views and error codes.
type Caller interface {
	Version() tools.Version
	Call(ctx context.Context, tool string, args json.RawMessage) (*Result, error)
	// Approve stores one single-use approval for exactly these facts, as
	// the user gave it (never the model).
	Approve(f policy.Facts)
	Close(ctx context.Context) error
}

var _ Caller = (*Session)(nil)

// Session is one page, pinned for life to one tool version.
type Session struct {
	// fixed at creation
	page      *reopeningPage
	version   tools.Version
	budget    int
	grant     policy.Grant
	approver  policy.Approver
	approvals policy.Approvals
	uploads   uploads.Root
	rec       recorder
	shots     screenshotOptions
	shown     shownView // the previous view, and the refs its deltas keep valid (changes.go)
	downloads string    // where downloads land (1.10.0, downloads.go); "" for none
	ownDL     bool      // downloads is a temp dir of the session's: Close removes it
	handoff   Handoffer // handoff.go

	mu     sync.Mutex   // guards the upload copies and takenAt
	copies string       // the session's directory of upload copies; "" until the first upload
	kept   []keptUpload // uploads whose copies the page may still read, oldest first
	closed bool
	// takenAt: since when a person holds the page unasked (takeover.go)
	takenAt time.Time
}

// NewSession opens a page.
func (r *Runtime) NewSession(ctx context.Context, opts SessionOptions) (*Session, error) {
	v, err := tools.Lookup(opts.Version)
	if err != nil {
		return nil, err
	}
	budget := r.budget
	if opts.Budget != 0 {
		if budget, err = checkBudget(opts.Budget); err != nil {
			return nil, err
		}
	}
	root, err := uploadRoot(opts)
	if err != nil {
		return nil, err
	}
	bopts := browser.SessionOptions{CheckNavigation: navigationCheck(opts.Grant, opts.Destinations),
		Reading: v.Reading, ReadingBytes: observation.ReadingWindow(budget),
		Frames: v.Frames, FrameAllowed: opts.Grant.AllowsOrigin, Interactions: v.Interactions, RealPages: v.RealPages,
		ReadValues: opts.Grant.ReadValues, Debugging: v.Debugging, KeptListeners: v.KeptListeners}
	if v.RealPages {
		bopts.CheckRequest = requestCheck(opts.Grant, opts.Destinations)
		bopts.CheckAddress = opts.Destinations.CheckAddr
		bopts.Contain = opts.Grant.Contained()
		bopts.NoServiceWorkers = bopts.Contain != nil || opts.Destinations.DenyPrivate
		bopts.RefusedHosts = opts.Destinations.HostRules()
	}
	if bopts.Downloads, err = downloadOptions(v, opts); err != nil {
		return nil, err
	}
	page, err := openPage(ctx, r.provider, bopts)
	if err != nil {
		dropDownloads(opts, bopts.Downloads)
		return nil, err
	}
	s := &Session{page: page, version: v, budget: budget, grant: opts.Grant, approver: opts.Approver, handoff: opts.Handoff, shots: r.shots,
		uploads: root, rec: recorder{store: r.store, key: r.redaction, id: store.NewSessionID()}}
	s.downloads, s.ownDL = downloadsOf(opts, bopts.Downloads)
	if err := s.recordSession(ctx, opts.Surface); err != nil {
		s.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return s, nil
}

// ID is the session's id in the artifact store.
func (s *Session) ID() string { return s.rec.id }

// Version is the tool version the session is pinned to.
func (s *Session) Version() tools.Version { return s.version }

// Tools are the tools of the session's version.
func (s *Session) Tools() []tools.Tool { return tools.Tools(s.version) }

// Result is a tool call's outcome: the canonical observation (stored whole)
// and the model view within the session's budget.
type Result struct {
	Observation *observation.Observation
	Action      *browser.ActResult // postconditions of act and upload; nil otherwise
	Image       *Image             // browser_screenshot's image; nil otherwise
	Log         *observation.Log   // browser_console's or browser_network's read, as recorded; nil otherwise
	Downloads   *browser.Downloads // browser_downloads' list; nil otherwise
	// View is the model view, byte for byte what the model is given:
	// JSON that DecodeView reads into a projection.View.
	View json.RawMessage

	projected projection.Options // what View was projected with, for the record
	// encoded is Observation as the record encoded it, when nothing was
	// withheld from it (ObservationJSON).
	encoded json.RawMessage
}

// ObservationJSON is Observation as encoding/json writes it. A surface
// that sends the canonical observation on (the sidecar) takes the bytes
// the call's record already encoded, instead of encoding it again; the
// observation must not have changed since the call returned.
func (r *Result) ObservationJSON() (json.RawMessage, error) {
	if r.encoded != nil || r.Observation == nil {
		return r.encoded, nil
	}
	return json.Marshal(r.Observation)
}

// Navigate loads url and observes the page. A URL outside the grant is
// foreign_origin and is never loaded.
func (s *Session) Navigate(ctx context.Context, url string) (*Result, error) {
	rec, err := s.intent(ctx, tools.Navigate, navigateArgs(url))
	if err != nil {
		return nil, err
	}
	res, err := s.navigate(ctx, url)
	return rec.finish(ctx, res, err)
}

func (s *Session) navigate(ctx context.Context, url string) (*Result, error) {
	if !s.grant.AllowsClass(policy.ClassNavigate) {
		return nil, errcode.New(errcode.ForeignOrigin, "this task may not navigate")
	}
	if !s.grant.AllowsURL(url) {
		return nil, errcode.New(errcode.ForeignOrigin, "the URL's origin is outside this task's grant")
	}
	obs, err := s.page.Navigate(ctx, url)
	if err != nil {
		return nil, err
	}
	return s.result(obs, nil)
}

// Approve stores one single-use approval for exactly these facts, as the
// user gave it (never the model).
func (s *Session) Approve(f policy.Facts) { s.approvals.Add(f) }

// authorize returns the grant and approval check every action of one call
// passes, with facts read live from the page; what it judged goes into the
// call's record: the facts, whether an approval was needed, and whether a
// stored approval or the approver gave it, or it was refused.
func (s *Session) authorize(rec *callRecord) browser.Authorize {
	return func(ctx context.Context, class string, f policy.Facts) (policy.Permit, error) {
		j := judgement{Class: class, Facts: f}
		permit, err := s.judge(ctx, &j)
		rec.judged(j, err)
		return permit, err
	}
}

func (s *Session) judge(ctx context.Context, j *judgement) (policy.Permit, error) {
	if !s.grant.AllowsClass(j.Class) {
		return policy.Permit{}, errcode.New(errcode.ForeignOrigin, "this task may not perform %s actions", j.Class)
	}
	if !s.grant.AllowsOrigin(j.Facts.Origin) {
		return policy.Permit{}, errcode.New(errcode.ForeignOrigin, "the page's origin is outside this task's grant; it can be observed but not acted on")
	}
	j.ApprovalNeeded = policy.Consequential(j.Facts)
	p, err := policy.Authorize(ctx, j.Facts, &s.approvals, policy.PreApproved(s.grant.Approve, s.approver))
	j.Approval = p.Source()
	return p, err
}

// Act performs one guarded action and observes the result.
func (s *Session) Act(ctx context.Context, a Action) (*Result, error) {
	rec, err := s.intent(ctx, tools.Act, s.actArgs(a))
	if err != nil {
		return nil, err
	}
	res, err := s.page.Act(ctx, s.carryAction(a), s.authorize(rec))
	if err != nil {
		return rec.finish(ctx, nil, err)
	}
	r, err := s.result(res.Observation, res)
	if err == nil {
		s.shotAfterAction(ctx, rec)
	}
	return rec.finish(ctx, r, err)
}

// Observe observes the page again, continuing where opts say. Options the
// session's tool version does not accept are refused as browser_observe's
// arguments would be: invalid_argument, or expansion_unsupported for a
// continuation before 1.2.0.
func (s *Session) Observe(ctx context.Context, opts ObserveOptions) (*Result, error) {
	args := opts.wire()
	if err := args.Check(s.version); err != nil {
		return nil, err
	}
	return s.observe(ctx, args)
}

// observe records args as the call's arguments: Call passes them as parsed,
// so an offset sent as 0 is recorded as sent.
func (s *Session) observe(ctx context.Context, args tools.ObserveArgs) (*Result, error) {
	rec := s.read(tools.Observe, args)
	obs, err := s.page.Observe(ctx, observation.Request{After: s.carry(args.After), Cursor: args.Cursor, Focus: args.Focus})
	if err != nil {
		return rec.finish(ctx, nil, err)
	}
	res, err := s.project(obs, nil, observeOptions(args))
	return rec.finish(ctx, res, err)
}

// FindOptions are browser_find's arguments: the words to look for, and the
// cursor of the newest find's next to continue it.
type FindOptions struct {
	Query  string
	Cursor string
}

// Find looks for controls and text that hold every word of the query
// (tool version 1.6.0 and later), without changing the page. The matching
// controls come with refs of a new revision; each text match with the
// reading continuation that resumes Observe at its paragraph.
func (s *Session) Find(ctx context.Context, opts FindOptions) (*Result, error) {
	rec := s.read(tools.Find, tools.FindArgs{Query: opts.Query, Cursor: opts.Cursor})
	if !s.version.Has(tools.Find) {
		return rec.finish(ctx, nil, errcode.New(errcode.InvalidArgument, "browser_find needs tool version 1.6.0 or later; this session has %s", s.version.Name))
	}
	obs, err := s.page.Find(ctx, browser.FindRequest{Query: opts.Query, Cursor: opts.Cursor})
	return s.finishObserved(ctx, rec, obs, err)
}

// History goes back, forward or reloads the active tab (tool version 1.8.0
// and later), under the rules of Navigate: every hop passes the session's
// navigation check, and a page with unsaved changes that asks to stay is
// kept (navigation_cancelled).
func (s *Session) History(ctx context.Context, step HistoryStep) (*Result, error) {
	rec, err := s.intent(ctx, tools.Navigate, tools.NavigateArgs{History: step})
	if err != nil {
		return nil, err
	}
	if !s.version.Interactions {
		return rec.finish(ctx, nil, errcode.New(errcode.InvalidArgument, "history steps need tool version 1.8.0 or later; this session has %s", s.version.Name))
	}
	if !s.grant.AllowsClass(policy.ClassNavigate) {
		return rec.finish(ctx, nil, errcode.New(errcode.ForeignOrigin, "this task may not navigate"))
	}
	obs, err := s.page.History(ctx, step)
	return s.finishObserved(ctx, rec, obs, err)
}

// Wait waits until a condition holds on the active tab and observes it
// (tool version 1.8.0 and later); timeout otherwise. It changes nothing.
func (s *Session) Wait(ctx context.Context, opts WaitOptions) (*Result, error) {
	rec := s.read(tools.Wait, tools.WaitArgs{Text: opts.Text, RefGone: opts.RefGone, NetworkIdle: opts.NetworkIdle,
		TimeoutMS: int(opts.Timeout / time.Millisecond)})
	if !s.version.Has(tools.Wait) {
		return rec.finish(ctx, nil, errcode.New(errcode.InvalidArgument, "browser_wait needs tool version 1.8.0 or later; this session has %s", s.version.Name))
	}
	obs, err := s.page.Wait(ctx, s.carryWait(opts.request()))
	return s.finishObserved(ctx, rec, obs, err)
}

// Tabs lists, selects or closes the session's tabs (tool version 1.8.0 and
// later) and observes the tab active afterwards. Closing a tab is recorded
// as an intent first: it may lose the page's unsaved changes.
func (s *Session) Tabs(ctx context.Context, opts TabsOptions) (*Result, error) {
	args := tools.TabsArgs{Action: opts.Action, Tab: opts.Tab}
	var rec *callRecord
	if opts.Action == CloseTab {
		var err error
		if rec, err = s.intent(ctx, tools.Tabs, args); err != nil {
			return nil, err
		}
	} else {
		rec = s.read(tools.Tabs, args)
	}
	if !s.version.Has(tools.Tabs) {
		return rec.finish(ctx, nil, errcode.New(errcode.InvalidArgument, "browser_tabs needs tool version 1.8.0 or later; this session has %s", s.version.Name))
	}
	obs, err := s.page.Tabs(ctx, browser.TabsRequest{Action: opts.Action, Tab: opts.Tab})
	return s.finishObserved(ctx, rec, obs, err)
}

// Call runs a tool by name with JSON arguments, as the session's version
// defines them.
func (s *Session) Call(ctx context.Context, tool string, args json.RawMessage) (*Result, error) {
	v := s.version
	switch {
	case !v.Has(tool): // a tool the session's version does not have is unknown too
	case tool == tools.Navigate:
		return parsed(tools.ParseNavigate(v, args)).run(ctx, s.navigateOrStep)
	case tool == tools.Observe:
		return parsed(tools.ParseObserve(v, args)).run(ctx, s.observe)
	case tool == tools.Act:
		return parsed(tools.ParseActArgs(v, args)).run(ctx, s.actCall)
	case tool == tools.Upload:
		return parsed(tools.ParseUpload(args)).run(ctx, s.uploadArgs)
	case tool == tools.Find:
		return parsed(tools.ParseFind(args)).run(ctx, s.findArgs)
	case tool == tools.Wait:
		return parsed(waitOptions(args)).run(ctx, s.Wait)
	case tool == tools.Screenshot:
		return parsed(tools.ParseScreenshot(args)).run(ctx, s.screenshotArgs)
	case tool == tools.Tabs:
		return parsed(tools.ParseTabs(args)).run(ctx, s.tabsRequest)
	case tool == tools.Downloads:
		return parsed(tools.ParseDownloads(args)).run(ctx, s.downloadsArgs) // 1.10.0 (downloads.go)
	case tool == tools.Console || tool == tools.Network || tool == tools.Emulate:
		return s.callDebugging(ctx, tool, args) // 1.10.0 (debugging.go)
	case tool == tools.Handoff:
		return parsed(tools.ParseHandoff(args)).run(ctx, s.handoffCall) // 1.10.0 (handoff.go)
	}
	return nil, errcode.New(errcode.InvalidArgument, "unknown tool %s", errcode.Quote(tool))
}

// navigateOrStep loads a's URL, or takes its history step (1.8.0).
func (s *Session) navigateOrStep(ctx context.Context, a tools.NavigateArgs) (*Result, error) {
	if a.History != "" {
		return s.History(ctx, a.History)
	}
	return s.navigateTo(ctx, a)
}

func (s *Session) uploadArgs(ctx context.Context, a tools.UploadArgs) (*Result, error) {
	return s.Upload(ctx, a.Ref, a.Paths)
}

func (s *Session) findArgs(ctx context.Context, a tools.FindArgs) (*Result, error) {
	return s.Find(ctx, FindOptions{Query: a.Query, Cursor: a.Cursor})
}

// waitOptions is browser_wait's parser for Call, which needs only the
// request.
func waitOptions(raw json.RawMessage) (WaitOptions, error) {
	req, _, err := tools.ParseWait(raw)
	return WaitOptions{Text: req.Text, RefGone: req.RefGone, NetworkIdle: req.NetworkIdle, Timeout: req.Timeout}, err
}

func (s *Session) screenshotArgs(ctx context.Context, a tools.ScreenshotArgs) (*Result, error) {
	return s.Screenshot(ctx, ScreenshotOptions{Ref: a.Ref, FullPage: a.FullPage})
}

func (s *Session) tabsRequest(ctx context.Context, req browser.TabsRequest) (*Result, error) {
	return s.Tabs(ctx, TabsOptions{Action: req.Action, Tab: req.Tab})
}

// finishObserved finishes rec with the view of obs, which a page operation
// returned, or with the operation's error.
func (s *Session) finishObserved(ctx context.Context, rec *callRecord, obs *observation.Observation, err error) (*Result, error) {
	if err != nil {
		return rec.finish(ctx, nil, err)
	}
	res, err := s.result(obs, nil)
	return rec.finish(ctx, res, err)
}

func (s *Session) result(obs *observation.Observation, act *browser.ActResult) (*Result, error) {
	return s.project(obs, act, ObserveOptions{})
}

// project stamps the session's version on obs and projects its view.
func (s *Session) project(obs *observation.Observation, act *browser.ActResult, o ObserveOptions) (*Result, error) {
	obs.Version = s.version.Name
	opts := tools.ViewOptions(s.version, s.budget, o.ElementOffset, o.TextOffset)
	opts.Next, opts.Steps, opts.Stopped = obs.NextKey, o.steps.outcomes(), o.steps.stopped() // steps: 1.9.0
	if act != nil {
		opts.Action = &projection.Outcome{Dispatched: act.Dispatched, NavigationStarted: act.NavigationStarted,
			NavigationDone: act.NavigationDone, NavigationCancelled: act.NavigationCancelled, DialogOpened: act.DialogOpened}
		if s.version.Downloads {
			opts.Action.Download = downloadOutcome(act.Download)
		}
	}
	view, err := s.view(obs, &opts, act != nil, o.Changes)
	if err != nil {
		return nil, err
	}
	return &Result{Observation: obs, Action: act, View: view, projected: opts}, nil
}

// Close closes the page, removes the session's upload copies, and its
// downloads if in its own temp dir.
func (s *Session) Close(ctx context.Context) error {
	err := s.page.Close(ctx)
	s.mu.Lock()
	s.closed = true
	if s.ownDL {
		os.RemoveAll(s.downloads)
		s.ownDL = false
	}
	if s.copies != "" {
		os.RemoveAll(s.copies)
		s.copies = ""
	}
	s.kept = nil
	s.mu.Unlock()
	return err
}
