// Package observation holds the canonical observation of a page: the types
// every surface shares, the bounds of the decision records, and the opaque
// references that bind a control to one revision of one session.
package observation

import "net/url"

// Bounds for controls (docs/observation.md).
const (
	MaxControls  = 256            // visible controls per observation
	WindowSize   = 4096           // candidates examined per observation
	MaxAcquired  = WindowSize + 1 // handles acquired, one lookahead
	MaxOffset    = 65536          // largest candidate offset a window may start at
	MaxNameUnits = 1024           // UTF-16 units of a name kept canonically
	// MaxValueUnits bounds a field's value shown under the read_values
	// grant (tool version 1.9.0), in UTF-16 units, cut in the page.
	MaxValueUnits = 256
	// ScanNodes bounds the nodes one control scan visits, skipping to its
	// offset included: the candidate bounds alone would let a page of prose
	// cost time linear in its size. It bounds one observation, not the
	// page: a scan that stops at it retains the last node it visited, and a
	// cursor resumes the walk there.
	ScanNodes = 262144
	// RetainedRevisions is how many revisions keep their controls' nodes in
	// the page; older ones are released.
	RetainedRevisions = 2
)

// Bounds of names, as the collector computes them.
const (
	NameNodes   = 256 // nodes read for one name: aria-labelledby targets, labels and content together
	MaxLabelIDs = 16  // aria-labelledby ids, and <label> elements, read for one name
	// GeneratedScan bounds the characters of a ::before or ::after content
	// value parsed for a name.
	GeneratedScan = 16 * (MaxNameUnits + 1)
	// PseudoRuleScan bounds the style rules an observation reads to learn
	// whether any can give an element ::before or ::after content; past it,
	// every name reads them as if one could.
	PseudoRuleScan = 8192
)

// Bounds of the page's identity, in UTF-16 units.
const (
	MaxTitleUnits = 1024
	MaxURLUnits   = 8192
)

// WithoutUserinfo is rawURL without its user name and password, which no
// observation, and nothing recorded of a call, ever shows; text that does
// not parse as a URL is dropped ("").
func WithoutUserinfo(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	u.User = nil
	return u.String()
}

// Trust marks everything collected from a page: it is evidence, never
// authority.
const Trust = "external_untrusted"

// Observation is a live snapshot: one revision of one document at one moment.
// It is stored whole; models see a projection of it.
type Observation struct {
	Version        string `json:"version"`
	Revision       string `json:"revision"`
	URL            string `json:"url"`
	URLTruncated   bool   `json:"url_truncated"`
	Origin         string `json:"origin"`
	Title          string `json:"title"`
	TitleTruncated bool   `json:"title_truncated"`
	Trust          string `json:"trust"`
	// Document (tool version 1.9.0) names the document observed: random per
	// document, so a new one means a new document and no delta to it.
	Document        string          `json:"document,omitempty"`
	Controls        []Control       `json:"controls"`
	ControlCoverage ControlCoverage `json:"control_coverage"`
	Regions         []Region        `json:"regions"`
	RegionCoverage  *RegionCoverage `json:"region_coverage"`
	Text            []TextPart      `json:"text"`
	TextCoverage    *TextCoverage   `json:"text_coverage"`
	// Draft reports the receipt of the agent's own submitted draft, if any.
	Draft *Draft `json:"draft,omitempty"`
	// Dialog is a pending JavaScript dialog. While one is open the page is
	// blocked: the observation holds no controls and says so.
	Dialog *Dialog `json:"dialog,omitempty"`
	// Loading: the navigation that led here returned at its time bound
	// before the page finished loading; the page is observed as it is.
	Loading bool `json:"loading,omitempty"`
	// Focus is the reading order the observation was made in (FocusMain,
	// FocusRest; tool version 1.9.0), "" for document order.
	Focus string `json:"focus,omitempty"`
	// Find holds the text matches of a find (tool version 1.6.0); its
	// Controls are the matching controls.
	Find *Find `json:"find,omitempty"`
	// Frames are the child frames the observation met (tool version
	// 1.7.0), collected or not, at most MaxFrameRecords; FramesOmitted
	// counts the others.
	Frames        []Frame `json:"frames,omitempty"`
	FramesOmitted int     `json:"frames_omitted,omitempty"`
	// Tabs are the session's tabs (tool version 1.8.0).
	Tabs *Tabs `json:"tabs,omitempty"`
	// Blocked counts the requests stopped before they left the browser
	// since the previous observation (tool version 1.9.0).
	Blocked *Blocked `json:"blocked,omitempty"`
	// NextKey mints the reading continuations of this revision (tool
	// version 1.6.0). It is not part of the observation: the record keeps it
	// with the view's projection inputs.
	NextKey *NextKey `json:"-"`
}

// Tabs is what an observation says of the session's tabs (tool version
// 1.8.0): its summary, and on browser_tabs list every tab.
type Tabs struct {
	TabsSummary
	List []Tab `json:"list,omitempty"`
}

// TabsSummary is which tab an observation shows, how many there are, and
// what happened to pages opened since the previous observation. A model
// view shows it as it is (projection.Tabs).
type TabsSummary struct {
	Active string `json:"active"`
	Count  int    `json:"count"`
	// Opened: tabs opened since the previous observation (by a link, a
	// script or a popup), newest last.
	Opened []string `json:"opened,omitempty"`
	// Closed: pages opened past the tab bound, closed as they opened;
	// Refused: pages opened to an origin outside the grant, closed.
	Closed  int `json:"closed,omitempty"`
	Refused int `json:"refused,omitempty"`
}

// Tab is one tab of Tabs.List.
type Tab struct {
	ID             string `json:"id"`
	URL            string `json:"url"`
	URLTruncated   bool   `json:"url_truncated,omitempty"`
	Title          string `json:"title"`
	TitleTruncated bool   `json:"title_truncated,omitempty"`
	Active         bool   `json:"active,omitempty"`
}

// MaxDialogMessage bounds a dialog's message, in UTF-16 units.
const MaxDialogMessage = 512

// Bounds of choosing an option of a <select> with trusted keys.
const (
	MaxSelectKeys     = 100   // arrow, Home and End presses one choice may take
	MaxSelectOptions  = 65536 // options looked at
	MaxTypeAheadUnits = 64    // longest label chosen by typing it instead
	MaxSelectChoices  = 64    // options one select of a multiple-choice list names (1.9.0)
)

// A multiple-choice list's control shows (1.9.0) the labels of its first
// MaxChosen chosen options, each cut to MaxChosenUnits UTF-16 units, and
// counts the others: the list's state, as a person sees it highlighted.
const (
	MaxChosen      = 16
	MaxChosenUnits = 64
)

// MaxSelectTextUnits bounds the text one select_text selects (1.9.0), in
// UTF-16 units: the control's text it looks at, and the part asked for.
const MaxSelectTextUnits = 4096

// ListenerRoots bounds the open shadow roots of a document whose
// listeners an observation reads for pointer targets (1.9.0), besides the
// document's own light tree, each one more listener query.
const ListenerRoots = 64

// ListenerNodes bounds the elements (shadow roots' included) of a document
// whose listeners are listed afresh for every observation (1.10.0). Past
// it, a listing costs the browser time in proportion to the page's size,
// so its marks are kept between observations and the listeners listed again
// only once an element was added to the document (docs/realpages.md).
const ListenerNodes = 4096

// Dialog is a pending alert, confirm, prompt or beforeunload dialog.
type Dialog struct {
	Type             string `json:"type"`
	Message          string `json:"message"`
	MessageTruncated bool   `json:"message_truncated"`
}

// Control is one visible actionable element. It never carries a value.
type Control struct {
	Ref           string `json:"ref"`
	Role          string `json:"role"`
	Name          string `json:"name"`
	NameTruncated bool   `json:"name_truncated"`
	States
	// Frame is the index of the frame the control is in (tool version
	// 1.7.0); 0, the top document, is omitted.
	Frame int `json:"frame,omitempty"`
	// Chosen (tool version 1.9.0) are the labels of a multiple-choice
	// list's chosen options, at most MaxChosen, each cut to
	// MaxChosenUnits; ChosenMore counts the chosen options past them.
	Chosen     []string `json:"chosen,omitempty"`
	ChosenMore int      `json:"chosen_more,omitempty"`
	// Key (tool version 1.9.0) is the control's node identity within its
	// frame's document, the same in every observation of that document; 0:
	// none. A view's changes match controls by (Frame, Key), since refs
	// name one revision (docs/changes.md).
	Key int `json:"key,omitempty"`
	// Value is an editable field's current value (tool version 1.9.0,
	// only under the read_values grant, never for a credential or payment
	// field; nil: not read), at most MaxValueUnits UTF-16 units, cut with
	// ValueTruncated. Page content like every other field: untrusted.
	Value          *string `json:"value,omitempty"`
	ValueTruncated bool    `json:"value_truncated,omitempty"`
}

// States are the ARIA and native states of a control; false is the default.
type States struct {
	Disabled bool `json:"disabled"`
	Checked  bool `json:"checked"`
	Selected bool `json:"selected"`
	Expanded bool `json:"expanded"`
	Pressed  bool `json:"pressed"`
	Required bool `json:"required"`
	Readonly bool `json:"readonly"`
	Focused  bool `json:"focused"`
}

// Scan limits that can end a control window early.
const (
	LimitNone     = ""         // the candidate sequence ended inside the window
	LimitControls = "controls" // MaxControls visible controls were collected
	LimitWindow   = "window"   // WindowSize candidates were examined
	LimitOffset   = "offset"   // the next window would start past MaxOffset: terminal
	LimitNodes    = "nodes"    // the scan visited ScanNodes nodes; its cursor resumes where the walk stopped
)

// ControlCoverage says what the control scan covered.
type ControlCoverage struct {
	Offset  int `json:"offset"`  // candidate offset of the window's first candidate
	Scanned int `json:"scanned"` // candidates examined (visible or not)
	// Cursor continues with the next candidate window; empty when none can.
	Cursor string `json:"cursor"`
	// ScanLimitReached: the scan stopped at a limit with candidates left, so
	// unobserved controls may remain. Limit names it.
	ScanLimitReached bool   `json:"scan_limit_reached"`
	Limit            string `json:"limit"`
	// Ended (tool version 1.6.0): an earlier view of this reading showed
	// the last control, so this observation did not scan controls.
	Ended bool `json:"ended,omitempty"`
	// InScrollContainers (tool version 1.9.0): how many of the controls
	// lie in a scroll container, where they are visible though a person
	// may have to scroll that box to see them (docs/realpages.md).
	InScrollContainers int `json:"in_scroll_containers,omitempty"`
}

// Request selects what an observation continues from: at most one of After
// (a control ref of the newest observation) and Cursor.
type Request struct {
	After  string `json:"after,omitempty"`
	Cursor string `json:"cursor,omitempty"`
	// Focus (tool version 1.9.0): FocusMain reads the page's main content
	// first (docs/reading.md); a reading continuation carries its order.
	Focus string `json:"focus,omitempty"`
}

// Reading orders (tool version 1.9.0, docs/reading.md): an observation of
// FocusMain holds the text of the page's main content alone; one of
// FocusRest the whole page, its text without the main content.
const (
	FocusMain = "main"
	FocusRest = "rest"
	// FocusScanNodes bounds the search for the main content: elements
	// visited in document order.
	FocusScanNodes = 8192
)

// Bounds for regions and readable text (docs/regions-and-text.md).
const (
	MaxRegions       = 32
	RegionScanNodes  = 8192
	SummaryNodes     = 256
	SummaryUnits     = 512
	TextNodes        = 8192
	TextUnits        = 262144
	TextBytes        = 256 * 1024
	TextPartOverhead = 3 // a text part's share of TextBytes besides its characters: two quotes and a comma
	DraftEditorNodes = 256
	DraftEditorUnits = 4096
	RegionCoverageV1 = 1
	TextCoverageV1   = 1
	RegionScope      = "main_document"
	TextScope        = "main_document_and_open_shadow_roots"
	// ReadingScope is the region scope of tool version 1.6.0, which
	// collects regions in open shadow roots too.
	ReadingScope    = "main_document_and_open_shadow_roots"
	TextSourcePage  = "page"
	TextSourceDraft = "draft"
)

// Bounds of find (browser_find). A find's control walk and its text walk
// each visit at most ScanNodes nodes; the control walk examines at most
// MaxOffset candidates.
const (
	FindMatches   = 32      // control matches, and text matches, per find
	FindUnits     = 1 << 20 // UTF-16 units of readable text one find inspects
	SnippetUnits  = 160     // UTF-16 units of a text match's snippet
	MaxQueryUnits = 256     // UTF-16 units of a query
	MaxQueryWords = 16      // words of a query
)

// Region is semantic evidence: a dialog, alert, status, form or heading
// with a bounded visible-text summary. Its ref is evidence only: never
// actionable, never a continuation anchor.
type Region struct {
	Ref              string `json:"ref"`
	Kind             string `json:"kind"`
	Level            int    `json:"level,omitempty"` // headings
	Summary          string `json:"summary"`
	SummaryTruncated bool   `json:"summary_truncated"`
	// Name is the region's accessible name (tool version 1.6.0), if it
	// has one: a form labelled "Profile", a dialog labelled by its heading.
	Name          string `json:"name,omitempty"`
	NameTruncated bool   `json:"name_truncated,omitempty"`
	Frame         int    `json:"frame,omitempty"` // as Control.Frame
}

// RegionCoverage (version 1) says what the region scan covered. A hit
// bound means unobserved regions may remain, not that none exist.
type RegionCoverage struct {
	Version          int    `json:"version"`
	Scope            string `json:"scope"`
	ScannedNodes     int    `json:"scanned_nodes"`
	NodeLimitReached bool   `json:"node_limit_reached"`
	Omitted          int    `json:"omitted"` // matching regions past MaxRegions in the scanned prefix
	// Reading (tool version 1.6.0): the scan resumed where a continuation
	// left off, or did not run because the stream had ended.
	Resumed bool `json:"resumed,omitempty"`
	Ended   bool `json:"ended,omitempty"`
	// InScrollContainers (tool version 1.9.0): how many of the regions
	// lie in a scroll container, as ControlCoverage's.
	InScrollContainers int `json:"in_scroll_containers,omitempty"`
}

// TextPart is one block of readable text.
type TextPart struct {
	Text   string `json:"text"`
	Source string `json:"source"`          // page, or draft for the echoed receipt
	Frame  int    `json:"frame,omitempty"` // as Control.Frame
}

// TextCoverage (version 1) says what the text walk covered.
type TextCoverage struct {
	Version          int    `json:"version"`
	Scope            string `json:"scope"`
	ScannedNodes     int    `json:"scanned_nodes"`
	InspectedUnits   int    `json:"inspected_units"`
	NodeLimitReached bool   `json:"node_limit_reached"`
	TextLimitReached bool   `json:"text_limit_reached"`
	ByteLimitReached bool   `json:"byte_limit_reached"`
	OmittedBytes     int    `json:"omitted_bytes"` // known text bytes cut by canonical bounding
	// Reading (tool version 1.6.0): the walk resumed where a continuation
	// left off, or did not run because the stream had ended; the first part
	// continues a part the previous view cut (FirstContinues); the last part
	// was cut by a bound, not ended by the page (LastCut).
	Resumed        bool `json:"resumed,omitempty"`
	Ended          bool `json:"ended,omitempty"`
	FirstContinues bool `json:"first_continues,omitempty"`
	LastCut        bool `json:"last_cut,omitempty"`
	// ByteBound is the byte bound of this walk when it is smaller than
	// TextBytes: a reading observation's window (ReadingWindow).
	ByteBound int `json:"byte_bound,omitempty"`
	// InScrollContainers (tool version 1.9.0): how many of the text parts
	// hold text from a scroll container (docs/realpages.md).
	InScrollContainers int `json:"in_scroll_containers,omitempty"`
}

// ReadingWindow bounds the text bytes one reading observation collects
// (tool version 1.6.0) for views of budget bytes: a view shows at most its
// budget, so collecting 256 KiB for each would be read, sent and stored in
// vain; the rest comes with the next observation.
func ReadingWindow(budget int) int { return min(TextBytes, max(16*1024, 2*budget)) }

// Draft is the state of the draft receipt: "match" echoes the known value.
type Draft struct {
	State  string `json:"state"`
	Echoed bool   `json:"echoed"` // false when the text ceiling left no room
}
