// Package browser defines what the runtime needs from a browser: a Provider
// of Sessions, each one page with one operation lock. The implementation is
// the chromium package: a launched Chromium, or one attached over CDP.
package browser

import (
	"context"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// Provider opens sessions in one browser.
type Provider interface {
	NewSession(ctx context.Context, opts SessionOptions) (Session, error)
	// Close ends every session and releases the browser; it is safe to call
	// more than once. Cleanup runs whatever ctx: a session waits a bounded
	// time for an operation in flight, then is closed under it.
	Close(ctx context.Context) error
}

// SessionOptions configure one page.
type SessionOptions struct {
	// CheckNavigation is asked about every top-level navigation hop before
	// its document request leaves the browser: the runtime's own, a clicked
	// link, a form post, a server or client-side redirect, page script. An
	// error stops the hop, the page stays, and the call that caused it
	// reports the error. Only http and https hops are ever asked; every
	// other scheme is refused. nil allows every http(s) hop.
	CheckNavigation func(ctx context.Context, u *url.URL) error
	// Reading observes as tool version 1.6.0 does: landmark regions with
	// names, regions in open shadow roots, and reading continuations
	// (observation.Streams) that resume every stream.
	Reading bool
	// ReadingBytes bounds the text bytes of each reading observation
	// (observation.ReadingWindow); 0: observation.TextBytes.
	ReadingBytes int
	// Frames observes as tool version 1.7.0 does: the content of child
	// frames, same-origin and cross-origin, in place of their elements
	// (docs/frames.md). FrameAllowed says whether a frame's origin may be
	// read and acted on; nil allows every origin.
	Frames       bool
	FrameAllowed func(origin string) bool
	// Interactions works as tool version 1.8.0 does: a page that one of
	// the session's pages opens becomes a tab of the session (at most
	// MaxTabs), history steps, waits, and the hover, scroll and drag
	// actions and key chords (docs/interactions.md).
	Interactions bool
	// RealPages works as tool version 1.9.0 does (docs/realpages.md):
	// pointer targets, scroll containers, inputs that take the typed
	// value, multiple choice, field values on request.
	RealPages bool
	// KeptListeners (with RealPages, tool version 1.10.0) keeps a large
	// page's listener marks between observations until an element is
	// added to it (docs/realpages.md).
	KeptListeners bool
	// ReadValues (with RealPages, under the read_values grant): each
	// editable control of a field that is not a credential or payment
	// field carries its current value.
	ReadValues bool
	// CheckRequest (tool version 1.9.0) is asked about every request of
	// the session's pages that is not a top-level hop (subresources,
	// frames, fetch and XHR, beacons, EventSource, worker scripts,
	// prefetch) before it leaves the browser; a refused one is blocked and
	// counted in the next observation's Blocked record. nil asks nothing.
	CheckRequest func(ctx context.Context, u *url.URL) error
	// CheckAddress (with CheckRequest) is asked about each address a
	// launched browser's egress proxy is about to connect to for the
	// session, after its own lookup of the name CheckRequest allowed: what
	// is dialled is what the destination rules allow. nil allows any.
	CheckAddress func(netip.Addr) error
	// Contain (with CheckRequest) lists the only origins requests may go
	// to: what Fetch never pauses is held to them too (WebSocket), and
	// WebRTC is off. nil: not contained.
	Contain []string
	// NoServiceWorkers refuses service worker scripts, whose own requests
	// no page sees.
	NoServiceWorkers bool
	// RefusedHosts (with CheckRequest) is what CheckRequest refuses of a
	// host without resolving it: where no egress proxy sees a WebSocket,
	// the WebSocket constructor of the pages and their workers refuses
	// these hosts.
	RefusedHosts policy.HostRules
	// Debugging works as tool version 1.10.0 does (docs/debugging.md):
	// every tab keeps its console and network logs.
	Debugging bool
	// Downloads (tool version 1.10.0, downloads.go) keeps the pages'
	// downloads; nil leaves the browser's download behaviour alone.
	Downloads *DownloadOptions
}

// MaxTabs bounds the tabs of one session. A popup past it is closed as it
// opens, and the next observation says so.
const MaxTabs = 8

// MaxWait bounds one Wait.
const MaxWait = 30 * time.Second

// Session is one page. Every method is serialized on the session's
// operation lock, including result validation, and each returns the fresh
// canonical observation of the page it leaves.
type Session interface {
	Navigate(ctx context.Context, url string) (*observation.Observation, error)
	Observe(ctx context.Context, req observation.Request) (*observation.Observation, error)
	// Act runs the live guards of a, reads the target's facts from the page,
	// asks authorize, and only then dispatches trusted input. It never
	// retries: a dispatch that may have reached the page but failed is
	// action_uncertain.
	Act(ctx context.Context, a Action, authorize Authorize) (*ActResult, error)
	// Step runs one step of a browser_act call with steps (tool version
	// 1.9.0) as Act does, but observes nothing after it: the newest
	// revision stays the one every step's ref is checked against, and its
	// result has no Observation. A session of an earlier version refuses
	// it.
	Step(ctx context.Context, a Action, authorize Authorize) (*ActResult, error)
	// Upload sets files on a file-input control. The live guards and
	// authorize run first; only then, still under the operation lock, is
	// stage asked for the files to set, so a refused upload reads nothing.
	Upload(ctx context.Context, ref string, stage Stage, authorize Authorize) (*ActResult, error)
	// Find looks for controls and text that hold every word of a query
	// (tool version 1.6.0) and returns them as a new revision: the matching
	// controls with refs, the text matches in Observation.Find. A non-empty
	// Cursor continues the newest find of the same query.
	Find(ctx context.Context, req FindRequest) (*observation.Observation, error)
	// History goes back, forward or reloads the active tab (tool version
	// 1.8.0), under the rules of Navigate: the navigation check, and a
	// beforeunload refusal is navigation_cancelled with the page kept.
	History(ctx context.Context, step HistoryStep) (*observation.Observation, error)
	// Wait blocks until a condition holds on the active tab, at most
	// req.Timeout (≤ MaxWait), and observes it then; timeout otherwise.
	Wait(ctx context.Context, req WaitRequest) (*observation.Observation, error)
	// Tabs lists, selects or closes the session's tabs (tool version
	// 1.8.0); the observation is of the tab active afterwards.
	Tabs(ctx context.Context, req TabsRequest) (*observation.Observation, error)
	// Screenshot captures the active tab (tool version 1.8.0), its form
	// fields painted over unless req.Unmasked, within req.MaxBytes.
	Screenshot(ctx context.Context, req ScreenshotRequest) (*Screenshot, error)
	// Log reads the console or network log of the active tab (tool
	// version 1.10.0, with SessionOptions.Debugging).
	Log(ctx context.Context, req LogRequest) (*observation.Log, error)
	// Emulate sets a viewport, device, color scheme, locale or time zone
	// for every tab of the session, those opened later too (tool version
	// 1.10.0), and observes the active tab.
	Emulate(ctx context.Context, req EmulateRequest) (*observation.Observation, error)
	// Gone reports whether the browser under the session is gone (it died,
	// or the connection to it dropped); every call then reports
	// browser_unavailable, and a new session is needed.
	Gone() bool
	// PersonInput forwards a person's input (browser_handoff, from the
	// control room) to the active tab as trusted input, under the
	// operation lock. It is never the model's and never recorded.
	PersonInput(ctx context.Context, in PersonInput) error
	// Screencast streams masked JPEG frames of the active tab to each (the
	// control room's live picture) until ctx ends or the tab goes. It is
	// never the model's and never recorded.
	Screencast(ctx context.Context, each func(jpeg []byte)) error
	Close(ctx context.Context) error
}

// PersonInput is one input of a person driving the page: a click at X, Y
// (fractions 0 to 1 of the viewport's width and height, as the person saw
// the picture), Text inserted at the focus, or one Key pressed.
type PersonInput struct {
	Kind PersonInputKind
	X, Y float64
	Text string
	Key  string
}

// PersonInputKind says what a PersonInput does.
type PersonInputKind string

// Person input kinds.
const (
	PersonClick PersonInputKind = "click"
	PersonText  PersonInputKind = "text"
	PersonKey   PersonInputKind = "key"
)

// MaxPersonText bounds the text of one PersonInput, in bytes: a person
// types a key at a time, or pastes a code.
const MaxPersonText = 256

// ScreenshotRequest asks for a screenshot: of the control Ref (of the
// newest revision), of the full page, or of the viewport. Unmasked is a
// runtime option, never a model argument; MaxBytes caps the image (0:
// DefaultScreenshotBytes).
type ScreenshotRequest struct {
	Ref      string
	FullPage bool
	Unmasked bool
	MaxBytes int
}

// MaskedBox is a painted box, in pixels of the screenshot's image, and what
// it hides (collect.Mask*): never a value.
type MaskedBox struct {
	Role                string
	X, Y, Width, Height int
}

// Screenshot is a masked JPEG of the page. Scale is the image's pixels per
// CSS pixel (the device pixel ratio times any scaling down to fit the cap).
type Screenshot struct {
	Data          []byte
	MediaType     string
	Width, Height int
	Scale         float64
	Quality       int
	// Masked lists at most MaxListedMasks painted boxes; MaskedCount counts
	// them all; MaskedAll: a read stopped at a bound, the whole image is
	// painted over.
	Masked      []MaskedBox
	MaskedCount int
	MaskedAll   bool
	Revision    string // the newest revision when it was taken; "" before the first
	// FullPageCut: the document was taller than MaxFullPageHeight.
	FullPageCut bool
}

// HistoryStep is one browser_navigate history step.
type HistoryStep string

// History steps.
const (
	HistoryBack    HistoryStep = "back"
	HistoryForward HistoryStep = "forward"
	HistoryReload  HistoryStep = "reload"
)

// WaitRequest is one browser_wait: exactly one condition.
type WaitRequest struct {
	// Text: readable text of the page holds every word of it (as
	// browser_find matches), never a value, hidden text or editable content.
	Text string
	// RefGone: the control of this ref (of the newest revision) is no
	// longer on the page or no longer visible.
	RefGone string
	// NetworkIdle: no request of the tab in flight for NetworkIdleQuiet.
	NetworkIdle bool
	Timeout     time.Duration
}

// Check refuses a wait without exactly one condition, or with a timeout
// outside 1 ms to MaxWait: invalid_argument.
func (r WaitRequest) Check() error {
	n := 0
	for _, given := range []bool{r.Text != "", r.RefGone != "", r.NetworkIdle} {
		if given {
			n++
		}
	}
	if n != 1 {
		return errcode.New(errcode.InvalidArgument, "give exactly one condition: text, ref_gone or network_idle")
	}
	if r.Timeout < time.Millisecond || r.Timeout > MaxWait {
		return errcode.New(errcode.InvalidArgument, "timeout_ms must be between 1 and %d", MaxWait.Milliseconds())
	}
	return nil
}

// NetworkIdleQuiet is how long a tab's network must be quiet to be idle.
const NetworkIdleQuiet = 500 * time.Millisecond

// TabsRequest is one browser_tabs call.
type TabsRequest struct {
	Action TabsAction
	Tab    string // select and close: an id of the session's tabs
}

// TabsAction names what browser_tabs does.
type TabsAction string

// Tab actions.
const (
	TabsList   TabsAction = "list"
	TabsSelect TabsAction = "select"
	TabsClose  TabsAction = "close"
)

// FindRequest is one browser_find request.
type FindRequest struct {
	Query  string
	Cursor string
}

// Stage prepares the files of an upload that passed the guards and the
// authorization, and returns the paths the browser is to read. A session
// calls it at most once per Upload, before Upload returns.
type Stage func(ctx context.Context, to UploadTarget) ([]string, error)

// UploadTarget names the file input an upload sets: Control is the same for
// the same element of the same document, Document for the same document.
// Both are opaque.
type UploadTarget struct {
	Document string
	Control  string
}

// Authorize decides, under the session's lock and from facts read live from
// the page before anything touches it, whether an action of class may be
// dispatched. The session spends the permit right before input, after the
// last guard, so an action stopped before its input keeps its approval.
type Authorize func(ctx context.Context, class string, facts policy.Facts) (policy.Permit, error)

// ActionKind names what an Action does; its values are the kind strings of
// browser_act.
type ActionKind string

// Action kinds.
const (
	ActClick   ActionKind = "click"
	ActType    ActionKind = "type"
	ActPress   ActionKind = "press"
	ActSelect  ActionKind = "select"
	ActCheck   ActionKind = "check"
	ActUncheck ActionKind = "uncheck"
	ActDialog  ActionKind = "dialog"
	// Tool version 1.8.0.
	ActHover  ActionKind = "hover"
	ActScroll ActionKind = "scroll"
	ActDrag   ActionKind = "drag"
	// Tool version 1.9.0.
	ActDblClick     ActionKind = "dblclick"
	ActContextClick ActionKind = "context_click"
	ActSelectText   ActionKind = "select_text"
)

// SelectMode says how a 1.9.0 select of several options changes a
// multiple-choice list: set (exactly these, the default), add or remove.
type SelectMode string

// Select modes.
const (
	SelectSet    SelectMode = "set"
	SelectAdd    SelectMode = "add"
	SelectRemove SelectMode = "remove"
)

// MaxScrollViewports bounds the viewports one scroll moves, either way.
const MaxScrollViewports = 10

// CheckViewports refuses a scroll of more than MaxScrollViewports either
// way (or not a number): invalid_argument.
func CheckViewports(v float64) error {
	if !(v >= -MaxScrollViewports && v <= MaxScrollViewports) {
		return errcode.New(errcode.InvalidArgument, "viewports must be between %d and %d", -MaxScrollViewports, MaxScrollViewports)
	}
	return nil
}

// Action is one browser_act request.
type Action struct {
	Kind   ActionKind `json:"kind"`
	Ref    string     `json:"ref,omitempty"`
	Text   string     `json:"text,omitempty"`   // type: text to insert; dialog: prompt text
	Submit bool       `json:"submit,omitempty"` // type: press Enter after the text
	Key    string     `json:"key,omitempty"`    // press
	Option string     `json:"option,omitempty"` // select: the option's visible label
	Accept bool       `json:"accept,omitempty"` // dialog: accept (true) or dismiss
	// Tool version 1.8.0.
	To        string  `json:"to,omitempty"`        // drag: the ref of the control to drop on
	Viewports float64 `json:"viewports,omitempty"` // scroll: viewports to move, negative up; 0 means 1
	// Tool version 1.9.0.
	Options []string   `json:"options,omitempty"` // select: the visible labels of a multiple-choice list's options
	Mode    SelectMode `json:"mode,omitempty"`    // select with options: set (default), add or remove
}

// ActResult reports an action's postconditions and the fresh observation.
type ActResult struct {
	Dispatched        bool `json:"dispatched"` // false when the state already held
	NavigationStarted bool `json:"navigation_started"`
	NavigationDone    bool `json:"navigation_done"`
	// NavigationCancelled: the page asked to keep unsaved changes; the
	// runtime dismissed the dialog (never accepts it) and the page stayed.
	NavigationCancelled bool   `json:"navigation_cancelled"`
	URL                 string `json:"url"`
	DialogOpened        bool   `json:"dialog_opened"`
	// Download: the action started a download (SessionOptions.Downloads).
	Download    *Download                `json:"download,omitempty"`
	Observation *observation.Observation `json:"-"`
}

// EnvChromium names the variable that points at a Chromium binary.
const EnvChromium = "VEETBROWSER_CHROMIUM"

// InstallHint tells a user how to get a browser; nothing ever downloads one.
const InstallHint = "install Chromium (Debian: apt-get install -y chromium) or pass --browser PATH or set " + EnvChromium

var searchPaths = []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// FindChromium returns the browser binary: explicit, then $VEETBROWSER_CHROMIUM,
// then the usual names. A missing browser is browser_unavailable.
func FindChromium(explicit string) (string, error) {
	for _, p := range []string{explicit, os.Getenv(EnvChromium)} {
		if p == "" {
			continue
		}
		if path, err := exec.LookPath(p); err == nil {
			return path, nil
		}
		return "", errcode.New(errcode.BrowserUnavailable, "no browser at %s: %s", errcode.Quote(p), InstallHint)
	}
	for _, p := range searchPaths {
		if path, err := exec.LookPath(p); err == nil {
			return path, nil
		}
	}
	return "", errcode.New(errcode.BrowserUnavailable, "no Chromium found: %s", InstallHint)
}

// LogRequest asks for one read of the active tab's console or network log
// (observation.LogConsole or LogNetwork): the entries from Cursor on (the
// zero cursor: from the start of the document) that match Filter
// (observation.LogEntry.Matches).
type LogRequest struct {
	Log    string
	Cursor observation.LogCursor
	Filter string
}

// Viewport bounds of browser_emulate (tool version 1.10.0), in CSS pixels.
const (
	MinViewport = 240
	MaxViewport = 3840
)

// EmulateRequest is what browser_emulate sets for the session's tabs (tool
// version 1.10.0, docs/debugging.md); a zero field keeps what an earlier
// request set. A device sets its size, scale, mobile, touch and user agent
// at once (Devices).
type EmulateRequest struct {
	Width, Height int
	Scale         float64
	Mobile, Touch bool
	UserAgent     string
	ColorScheme   string // "light" or "dark"
	Locale        string // BCP 47, such as de-DE
	Timezone      string // IANA, such as Asia/Tokyo
}

// Devices is browser_emulate's short list of named devices.
var Devices = map[string]EmulateRequest{
	"iphone-15": {Width: 393, Height: 852, Scale: 3, Mobile: true, Touch: true,
		UserAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"},
	"pixel-8": {Width: 412, Height: 915, Scale: 2.625, Mobile: true, Touch: true,
		UserAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36"},
	"ipad": {Width: 820, Height: 1180, Scale: 2, Mobile: true, Touch: true,
		UserAgent: "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"},
	"desktop": {Width: 1280, Height: 900, Scale: 1},
}

// Merge is r with the fields next sets; a device (next.Scale set) replaces
// the whole device part.
func (r EmulateRequest) Merge(next EmulateRequest) EmulateRequest {
	if next.Scale != 0 {
		r.Scale, r.Mobile, r.Touch, r.UserAgent = next.Scale, next.Mobile, next.Touch, next.UserAgent
	}
	if next.Width != 0 {
		r.Width = next.Width
	}
	if next.Height != 0 {
		r.Height = next.Height
	}
	for _, f := range []struct {
		to   *string
		from string
	}{{&r.ColorScheme, next.ColorScheme}, {&r.Locale, next.Locale}, {&r.Timezone, next.Timezone}} {
		if f.from != "" {
			*f.to = f.from
		}
	}
	return r
}
