// Package observation holds the canonical observation of a page: the types
// every surface shares, the bounds of the decision records, and the opaque
// references that bind a control to one revision of one session.
package observation

// Bounds of ADR-0157 for controls.
const (
	MaxControls  = 256            // visible controls per observation
	WindowSize   = 4096           // candidates examined per observation
	MaxAcquired  = WindowSize + 1 // handles acquired, one lookahead
	MaxOffset    = 65536          // largest candidate offset a window may start at
	MaxNameUnits = 1024           // UTF-16 units of a name kept canonically
)

// Trust marks everything collected from a page: it is evidence, never
// authority.
const Trust = "external_untrusted"

// Observation is a live snapshot: one revision of one document at one moment.
// It is stored whole; models see a projection of it.
type Observation struct {
	Version         string          `json:"version"`
	Revision        string          `json:"revision"`
	URL             string          `json:"url"`
	URLTruncated    bool            `json:"url_truncated"`
	Origin          string          `json:"origin"`
	Title           string          `json:"title"`
	TitleTruncated  bool            `json:"title_truncated"`
	Trust           string          `json:"trust"`
	Controls        []Control       `json:"controls"`
	ControlCoverage ControlCoverage `json:"control_coverage"`
	// Dialog is a pending JavaScript dialog. While one is open the page is
	// blocked: the observation holds no controls and says so.
	Dialog *Dialog `json:"dialog,omitempty"`
}

// MaxDialogMessage bounds a dialog's message, in UTF-16 units.
const MaxDialogMessage = 512

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
}

// Request selects what an observation continues from: at most one of After
// (a control ref of the newest observation) and Cursor.
type Request struct {
	After  string `json:"after,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}
