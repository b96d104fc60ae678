// Package projection turns a canonical observation into the model view: valid
// JSON that never exceeds the session's inline byte budget, deterministic for
// a given observation and budget, and never cut inside a JSON token or a
// UTF-8 sequence (docs/admission.md).
//
// Admission order: the essentials (version, revision, trust, coverage), the
// first control that fits, the location and title context, then the
// remaining controls in order. A control that cannot fit even alone is
// skipped and listed; any other control that does not fit ends the shown
// prefix, and the continuation points right after the last control shown.
package projection

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// Budgets of the inline model view, in bytes.
const (
	DefaultBudget = 8 * 1024
	MinBudget     = 1024
	MaxBudget     = 1 << 20
)

// Display caps of the model view, in encoded bytes. The canonical record
// keeps the full text; a cut is always flagged.
const (
	nameCap  = 160
	titleCap = 160
	urlCap   = 240
)

// Options select what the view holds.
type Options struct {
	Budget int // bytes; 0 means DefaultBudget
	// Coverage and continuation (browser tools ≥ 1.2.0).
	Coverage bool
	// Action is the outcome of the act or upload that led to the observation.
	Action *Outcome
	// Steps and Stopped (1.9.0): the outcome words of the steps of one
	// browser_act call, at most tools.MaxSteps, and the step that stopped
	// it (steps.go).
	Steps   []string
	Stopped *Stopped
	// Handoff (1.10.0): the view after a person held the page
	// (browser_handoff).
	Handoff *Handoff
	// Regions (browser tools ≥ 1.3.0) and text coverage with the draft
	// receipt (≥ 1.5.0).
	Regions      bool
	TextCoverage bool
	// Offsets pages with element and text offsets (browser tools 1.1.0);
	// TextOffset counts Unicode characters.
	Offsets                   bool
	ElementOffset, TextOffset int
	// Reading (browser tools ≥ 1.6.0): the budget is shared between the
	// streams and one next resumes every stream that stopped (reading.go);
	// Next mints it. A nil Next mints under a zero key, which no session
	// accepts: a view re-projected without its recorded key.
	Reading bool
	Next    *observation.NextKey
	// Frames (browser tools ≥ 1.7.0): controls, regions and text parts
	// name their frame, and the view lists the frames (docs/frames.md,
	// frames.go). It takes effect with Reading, as 1.7.0 has it.
	Frames bool
	// Tabs (browser tools ≥ 1.8.0): the session's tabs (tabs.go).
	Tabs bool
	// Values (browser tools ≥ 1.9.0): controls show the values the
	// observation holds (read_values grant; records.go); else none.
	Values bool
	// Lean (browser tools ≥ 1.9.0): the coverage records leave out what
	// the version implies, and a page read whole in one view says so with
	// one marker instead (lean.go).
	Lean bool
	// Compact (browser tools ≥ 1.9.0): references are written in their
	// compact form (records.go, docs/reading.md).
	Compact bool
	// Changes (browser tools ≥ 1.9.0, changes.go): with Base, the
	// observation of the session's previous view, the view may be a delta
	// since it; ChangesAsked or ChangesLong says when.
	Changes string
	Base    *observation.Observation
	// Blocked (browser tools ≥ 1.9.0): the requests stopped before they
	// left the browser since the last result (blocked.go).
	Blocked bool
}

// Outcome is an action's postconditions; false flags are omitted.
type Outcome struct {
	Dispatched          bool `json:"dispatched"`
	NavigationStarted   bool `json:"navigation_started,omitempty"`
	NavigationDone      bool `json:"navigation_done,omitempty"`
	NavigationCancelled bool `json:"navigation_cancelled,omitempty"`
	DialogOpened        bool `json:"dialog_opened,omitempty"`
	// Download (tool version 1.10.0): the download the action started.
	Download *Download `json:"download,omitempty"`
}

// Dialog is a pending JavaScript dialog as the model sees it.
type Dialog struct {
	Type             string `json:"type"`
	Message          string `json:"message"`
	MessageTruncated bool   `json:"message_truncated,omitempty"`
}

const dialogCap = 200

// View is the model view. Field order is the output order; default-false
// flags, empty cursors and zero counts are omitted.
type View struct {
	Version         string    `json:"version"`
	Revision        string    `json:"revision"`
	Trust           string    `json:"trust,omitempty"` // 1.9.0 leaves it out: every view's page content is untrusted (lean.go)
	Action          *Outcome  `json:"action,omitempty"`
	Steps           []string  `json:"steps,omitempty"`   // 1.9.0
	Stopped         *Stopped  `json:"stopped,omitempty"` // 1.9.0
	Handoff         *Handoff  `json:"handoff,omitempty"` // 1.10.0
	Dialog          *Dialog   `json:"dialog,omitempty"`
	Tabs            *Tabs     `json:"tabs,omitempty"`    // 1.8.0
	Blocked         *Blocked  `json:"blocked,omitempty"` // 1.9.0
	URL             string    `json:"url,omitempty"`
	URLTruncated    bool      `json:"url_truncated,omitempty"`
	Title           string    `json:"title,omitempty"`
	TitleTruncated  bool      `json:"title_truncated,omitempty"`
	ContextOmitted  bool      `json:"context_omitted,omitempty"`
	Loading         bool      `json:"loading,omitempty"` // 1.6.0: the page had not finished loading
	Focus           string    `json:"focus,omitempty"`   // 1.9.0: the reading order, main content first (compact.go)
	Query           string    `json:"query,omitempty"`   // a find's
	Controls        []Control `json:"controls"`
	ControlsOmitted int       `json:"controls_omitted,omitempty"`
	Skipped         []Skipped `json:"skipped,omitempty"`
	Complete        bool      `json:"complete,omitempty"` // 1.9.0: every stream shown whole (lean.go)
	CoverageVersion int       `json:"coverage_version,omitempty"`
	ControlCoverage *Coverage `json:"control_coverage,omitempty"`
	Next            *Next     `json:"next,omitempty"`
	// A find's text matches (find.go).
	Matches        []Match       `json:"matches,omitempty"`
	MatchesOmitted int           `json:"matches_omitted,omitempty"`
	FindCoverage   *FindCoverage `json:"find_coverage,omitempty"`
	// 1.1.0 offset pagination: counts and next offsets.
	ElementCount      *int `json:"element_count,omitempty"`
	NextElementOffset *int `json:"next_element_offset,omitempty"`
	TextCount         *int `json:"text_count,omitempty"`
	NextTextOffset    *int `json:"next_text_offset,omitempty"`

	Regions        []Region        `json:"regions,omitempty"`
	RegionsOmitted int             `json:"regions_omitted,omitempty"`
	RegionsSkipped []Skipped       `json:"regions_skipped,omitempty"` // 1.6.0: too large to show even alone
	RegionCoverage *RegionCoverage `json:"region_coverage,omitempty"`
	TextContinues  bool            `json:"text_continues,omitempty"` // 1.6.0: the first part continues the previous view's last
	Text           []string        `json:"text,omitempty"`
	TextFrames     []int           `json:"text_frames,omitempty"`    // 1.7.0: the frame of each text part, when one is not the top document's
	TextTruncated  bool            `json:"text_truncated,omitempty"` // the last part shown is cut
	TextOmitted    int             `json:"text_omitted,omitempty"`   // parts not shown
	TextCoverage   *TextCoverage   `json:"text_coverage,omitempty"`
	Draft          *Draft          `json:"draft,omitempty"`
	// 1.7.0: the frame records the view names, then others as room allows
	// (frames.go).
	Frames        []Frame `json:"frames,omitempty"`
	FramesOmitted int     `json:"frames_omitted,omitempty"`
	// 1.9.0: a delta view's changes, in place of the streams (changes.go).
	Changes *Changes `json:"changes,omitempty"`
}

// Region is region evidence as the model sees it.
type Region struct {
	Ref              string `json:"ref"`
	Kind             string `json:"kind,omitempty"` // 1.9.0 leaves out heading when a level says it (records.go)
	Level            int    `json:"level,omitempty"`
	Name             string `json:"name,omitempty"`
	NameTruncated    bool   `json:"name_truncated,omitempty"`
	Summary          string `json:"summary"`
	SummaryTruncated bool   `json:"summary_truncated,omitempty"`
	Frame            int    `json:"frame,omitempty"` // 1.7.0: the frame it is in; 0, the top document, is left out
	// 1.9.0, a view that shows the whole page (lean.go): the summary is
	// the view's text parts first to last, joined by spaces, and is left
	// out; so are the evidence ref and an empty summary.
	SummaryText []int `json:"text,omitempty"`
	whole       bool
}

// Draft is the receipt of the agent's own draft: labelled, never page text.
type Draft struct {
	State string `json:"state"`
	Text  string `json:"text,omitempty"`
}

// Control is a control as the model sees it: string ref and name, role, and
// only its non-default states.
type Control struct {
	Ref           string `json:"ref"`
	Role          string `json:"role,omitempty"` // 1.9.0 leaves out link (records.go)
	Name          string `json:"name"`
	NameTruncated bool   `json:"name_truncated,omitempty"`
	Disabled      bool   `json:"disabled,omitempty"`
	Checked       bool   `json:"checked,omitempty"`
	Selected      bool   `json:"selected,omitempty"`
	Expanded      bool   `json:"expanded,omitempty"`
	Pressed       bool   `json:"pressed,omitempty"`
	Required      bool   `json:"required,omitempty"`
	Readonly      bool   `json:"readonly,omitempty"`
	Focused       bool   `json:"focused,omitempty"`
	Frame         int    `json:"frame,omitempty"` // 1.7.0: the frame it is in; 0, the top document, is left out
	// 1.9.0: a multiple-choice list's chosen options, and how many more.
	Chosen     []string `json:"chosen,omitempty"`
	ChosenMore int      `json:"chosen_more,omitempty"`
	// 1.9.0, read_values: the field's value, in its one record (records.go)
	Value          *string `json:"value,omitempty"`
	ValueTruncated bool    `json:"value_truncated,omitempty"`
}

// Skipped discloses a control too large to show even alone; pass its ref as
// `after` to continue past it.
type Skipped struct {
	Ref    string `json:"ref"`
	Reason string `json:"reason"`
}

// Next holds exactly the argument to pass back to observe.
type Next struct {
	After  string `json:"after,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// Project returns the model view of obs within opts.Budget bytes, or
// observation_too_large when not even the essentials fit.
func Project(obs *observation.Observation, opts Options) ([]byte, error) {
	if obs.Find != nil {
		return ProjectFind(obs, opts)
	}
	if opts.Base != nil && opts.Changes != "" {
		full := opts
		full.Base, full.Changes = nil, ""
		view, err := Project(obs, full)
		if err != nil {
			return nil, err
		}
		return withChanges(obs, opts, view), nil
	}
	budget := opts.Budget
	if budget == 0 {
		budget = DefaultBudget
	}
	a := admission{obs: obs, opts: opts, budget: budget}
	a.v = View{Version: obs.Version, Revision: obs.Revision, Trust: trustMark(opts.Lean), Action: opts.Action,
		Steps: opts.Steps, Stopped: stopped(opts.Stopped), Handoff: opts.Handoff}
	setTabs(&a.v, obs, opts.Tabs, budget)
	setBlocked(&a.v, obs, opts.Blocked, budget)
	if d := obs.Dialog; d != nil {
		msg, cut := clip(d.Message, dialogCap)
		a.v.Dialog = &Dialog{Type: d.Type, Message: msg, MessageTruncated: cut || d.MessageTruncated}
	}
	if opts.Coverage {
		cov := obs.ControlCoverage
		a.v.CoverageVersion = 1
		a.v.ControlCoverage = &Coverage{Offset: cov.Offset, Scanned: cov.Scanned, ScanLimitReached: cov.ScanLimitReached, Limit: cov.Limit, Ended: cov.Ended,
			InScrollContainers: cov.InScrollContainers}
	}
	source := obs.Controls
	if opts.Offsets {
		count := len(source)
		a.v.ElementCount = &count
		source = source[min(opts.ElementOffset, len(source)):]
	}
	a.controls = make([]Control, len(source))
	a.encoded = make([]int, len(source))
	for i, c := range source {
		a.controls[i] = modelControl(c, opts.Compact)
		if opts.Frames {
			a.controls[i].Frame = c.Frame
		}
		if opts.Values {
			a.controls[i].Value, a.controls[i].ValueTruncated = modelValue(c)
		}
		a.encoded[i] = size(&a.controls[i]) // a pointer: no copy of the record to encode it
	}
	if opts.Regions && obs.RegionCoverage != nil {
		c := obs.RegionCoverage
		a.v.RegionCoverage = &RegionCoverage{Version: c.Version, Scope: c.Scope, ScannedNodes: c.ScannedNodes, NodeLimitReached: c.NodeLimitReached, Omitted: c.Omitted,
			Resumed: c.Resumed, Ended: c.Ended, InScrollContainers: c.InScrollContainers}
	}
	if opts.TextCoverage && obs.TextCoverage != nil {
		c := obs.TextCoverage
		a.v.TextCoverage = &TextCoverage{Version: c.Version, Scope: c.Scope, ScannedNodes: c.ScannedNodes, InspectedUnits: c.InspectedUnits,
			NodeLimitReached: c.NodeLimitReached, TextLimitReached: c.TextLimitReached, ByteLimitReached: c.ByteLimitReached, OmittedBytes: c.OmittedBytes,
			Resumed: c.Resumed, Ended: c.Ended, FirstContinues: c.FirstContinues, LastCut: c.LastCut, ByteBound: c.ByteBound,
			InScrollContainers: c.InScrollContainers}
		if obs.Draft != nil {
			a.v.Draft = &Draft{State: obs.Draft.State}
		}
	}
	a.text, a.textFrames = pageText(obs)
	if opts.Reading {
		return a.reading()
	}
	if opts.Offsets {
		joined := []rune(strings.Join(a.text, "\n"))
		count := len(joined)
		a.v.TextCount = &count
		a.text = nil
		if off := min(opts.TextOffset, count); off < count {
			a.text = []string{string(joined[off:])}
		}
	}

	// The essentials, with the largest continuation and omission count they
	// may need, must fit, or the observation is refused explicitly.
	a.essentials = a.v
	a.essentials.ControlsOmitted = len(a.controls)
	a.essentials.RegionsOmitted = len(obs.Regions)
	a.essentials.TextOmitted = len(a.text)
	if opts.Coverage {
		a.essentials.Next = &Next{After: longestRef(obs)}
	}
	if opts.Offsets {
		big := len(obs.Controls) + len(a.text)*observation.TextUnits
		a.essentials.NextElementOffset, a.essentials.NextTextOffset = &big, &big
	}
	if size(a.essentials)-len("null")+len("[]") > budget {
		return nil, errcode.New(errcode.ObservationTooLarge, "the observation's essential coverage does not fit the %d-byte budget", budget)
	}

	// The first control that fits is reserved before the context, with
	// room for the flag that says the context was left out.
	a.v.ContextOmitted = true
	a.addControls(1)
	if withContext := contextOf(a.v, obs); a.fits(withContext, a.passed, a.lastRef, a.ctrlBytes, len(a.shown)) {
		a.v = withContext
	}
	a.addControls(len(a.controls))
	if opts.Offsets && len(a.controls) > 0 && len(a.shown) == 0 {
		// 1.1.0 has no skip disclosure: an element that cannot fit is an
		// explicit error, never a next offset that repeats itself.
		return nil, errcode.New(errcode.ObservationTooLarge, "the element at offset %d does not fit the %d-byte budget", opts.ElementOffset, budget)
	}

	v := a.finish(a.v, a.passed, a.lastRef)
	v.Controls = a.shown
	if v.Controls == nil {
		v.Controls = []Control{}
	}
	v = a.addRegions(v)
	v = a.addText(v)
	out, err := json.Marshal(v)
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "the observation could not be encoded")
	}
	if len(out) > budget {
		// The accounting above is exact; this guards the invariant.
		return nil, errcode.Wrap(errcode.ObservationTooLarge, fmt.Errorf("%d bytes: %s", len(out), out), "the observation does not fit the %d-byte budget", budget)
	}
	return out, nil
}

// admission is the state of one projection: controls are passed in order,
// each either shown or (when it cannot fit even alone) skipped and listed.
type admission struct {
	obs        *observation.Observation
	opts       Options
	budget     int
	controls   []Control
	encoded    []int // JSON size of each control
	essentials View

	text       []string  // page text parts (1.1.0: one part from the text offset)
	textFrames []int     // the frame of each page text part (1.7.0)
	v          View      // everything but the controls array
	shown      []Control // controls shown so far
	ctrlBytes  int       // their encoded bytes
	passed     int       // controls shown or skipped
	lastRef    string    // ref of the last control passed
	stopped    bool      // a control did not fit: the shown prefix ends
}

func (a *admission) addControls(limit int) {
	bound := a.controlsBound(a.v)
	for a.passed < len(a.controls) && len(a.shown) < limit && !a.stopped {
		c := a.controls[a.passed]
		ctrlBytes, n := a.ctrlBytes+a.encoded[a.passed], len(a.shown)+1
		if bound+ctrlBytes+n-1 <= a.budget || a.fits(a.v, a.passed+1, c.Ref, ctrlBytes, n) {
			a.shown = append(a.shown, c)
			a.ctrlBytes += a.encoded[a.passed]
			a.passed++
			a.lastRef = c.Ref
			continue
		}
		if !a.opts.Coverage || !a.oversized(a.passed) {
			a.stopped = true
			return
		}
		try := a.v
		try.Skipped = append(append([]Skipped(nil), a.v.Skipped...), Skipped{Ref: c.Ref, Reason: "oversized"})
		if !a.fits(try, a.passed+1, c.Ref, a.ctrlBytes, len(a.shown)) {
			a.stopped = true
			return
		}
		a.v = try
		a.passed++
		a.lastRef = c.Ref
		bound = a.controlsBound(a.v)
	}
}

// controlsBound is the size fits counts for v without its controls, with
// every field that passing controls changes at its widest: every control
// omitted, the longest continuation (a cursor as long as the longest ref
// or cursor) and next element offset. Passing controls never makes the
// view larger than this plus the controls' bytes and commas, so a control
// that fits under it fits.
func (a *admission) controlsBound(v View) int {
	v.ControlsOmitted = len(a.controls)
	if a.opts.Coverage {
		v.Next = &Next{Cursor: longestRef(a.obs)}
	}
	if a.opts.Offsets {
		next := a.opts.ElementOffset + len(a.controls)
		v.NextElementOffset = &next
	}
	v.Controls = nil
	v.RegionsOmitted = len(a.obs.Regions)
	v.TextOmitted = len(a.text)
	if a.opts.Offsets && len(a.text) > 0 {
		v.NextTextOffset = v.TextCount
	}
	return size(v) - len("null") + len("[]")
}

// fits reports whether v, with n controls of ctrlBytes encoded bytes and
// the continuation and omission count that passed and lastRef imply, fits.
func (a *admission) fits(v View, passed int, lastRef string, ctrlBytes, n int) bool {
	v = a.finish(v, passed, lastRef)
	v.Controls = nil
	// Regions and text come later; until then they count as omitted.
	v.RegionsOmitted = len(a.obs.Regions)
	v.TextOmitted = len(a.text)
	if a.opts.Offsets && len(a.text) > 0 {
		v.NextTextOffset = v.TextCount // the widest next offset text can need
	}
	total := size(v) + ctrlBytes
	if n > 1 {
		total += n - 1 // commas
	}
	return total-len("null")+len("[]") <= a.budget
}

// finish sets what follows from the controls passed: the omission count and
// the continuation (an after/cursor, or 1.1.0's next element offset).
func (a *admission) finish(v View, passed int, lastRef string) View {
	v.ControlsOmitted = len(a.controls) - passed
	v.Next = a.continuation(passed, lastRef)
	if a.opts.Offsets && passed < len(a.controls) {
		next := a.opts.ElementOffset + passed
		v.NextElementOffset = &next
	}
	return v
}

// addRegions admits whole region records in order, after every control,
// counting the ones that do not fit.
func (a *admission) addRegions(v View) View {
	if !a.opts.Regions {
		return v
	}
	all := a.obs.Regions
	v.RegionsOmitted = len(all)
	v.TextOmitted = len(a.text) // prose comes after regions: reserve its count
	if a.opts.Offsets && len(a.text) > 0 {
		v.NextTextOffset = v.TextCount
	}
	bound := a.restBound(v, true)
	regionBytes := 0
	for _, g := range all {
		r := modelRegion(g, a.opts.Compact)
		n := size(r)
		try := v
		try.Regions = append(append([]Region(nil), v.Regions...), r)
		try.RegionsOmitted--
		if !a.within(try, bound+listBytes("regions", len(try.Regions), regionBytes+n)) {
			break
		}
		v = try
		regionBytes += n
	}
	return v
}

// restBound is the size of v, whose controls are final, without its
// arrays of controls and text (nor of regions, when they are still to
// come), with every field that admitting regions and text changes at its
// widest: every count as if nothing were shown, the text cut, the widest
// next text offset. Admitting them never makes v larger than this plus its
// arrays.
func (a *admission) restBound(v View, regionsToCome bool) int {
	v.Controls, v.Text = nil, nil
	if regionsToCome {
		v.Regions, v.RegionsOmitted = nil, len(a.obs.Regions)
	}
	v.TextOmitted, v.TextTruncated = len(a.text), true
	if a.opts.Offsets && len(a.text) > 0 {
		v.NextTextOffset = v.TextCount
	}
	return size(v) - len("null") + len("[]")
}

// within reports whether v, whose controls are the ones shown, fits the
// budget, as size(v) would: bound is its size by restBound plus the arrays
// restBound left out. Only a view the bound does not clear is encoded, so
// a region or text part admitted far from the budget costs no encoding of
// the view.
func (a *admission) within(v View, bound int) bool {
	return bound+a.ctrlBytes+max(len(v.Controls)-1, 0) <= a.budget || size(v) <= a.budget
}

// listBytes is the size of an array of n records of bytes encoded bytes in
// all, with its key and the comma before it; 0 when empty (omitted).
func listBytes(key string, n, bytes int) int {
	if n == 0 {
		return 0
	}
	return len(`,"":[]`) + len(key) + n - 1 + bytes
}

// addText admits prose last: whole parts in order, then as much of the next
// part as fits, flagged. 1.1.0 reports the next text offset instead.
func (a *admission) addText(v View) View {
	v.TextOmitted = len(a.text)
	// 1.1.0 states where the unread text starts; shown text only moves it.
	nextText := func(v View, shownRunes int) View {
		if a.opts.Offsets && len(a.text) > 0 {
			next := a.opts.TextOffset + shownRunes
			v.NextTextOffset = &next
			if next >= *v.TextCount {
				v.NextTextOffset = nil
			}
		}
		return v
	}
	v = nextText(v, 0)
	if v.RegionsOmitted > 0 {
		return v // region evidence comes before prose
	}
	bound := a.restBound(v, false)
	shownRunes, textBytes := 0, 0
	for _, part := range a.text {
		n := size(part)
		try := v
		try.Text = append(append([]string(nil), v.Text...), part)
		try.TextOmitted--
		if try = nextText(try, shownRunes+utf8.RuneCountInString(part)); a.within(try, bound+listBytes("text", len(try.Text), textBytes+n)) {
			v = try
			shownRunes += utf8.RuneCountInString(part)
			textBytes += n
			continue
		}
		try.Text[len(try.Text)-1] = ""
		try.TextTruncated = true
		if a.opts.Offsets {
			try.NextTextOffset = try.TextCount // the widest the next offset can be
		}
		room := a.budget - size(try)
		if room > 0 {
			cut, _ := clip(part, room+len(`""`))
			if cut != "" {
				try.Text[len(try.Text)-1] = cut
				v = nextText(try, shownRunes+utf8.RuneCountInString(cut))
			}
		}
		break
	}
	return a.addDraft(v)
}

// addDraft echoes the agent's own draft, labelled, when it still matches
// and fits.
func (a *admission) addDraft(v View) View {
	if a.v.Draft != nil && a.obs.Draft != nil && a.obs.Draft.State == "match" {
		try := v
		d := *v.Draft
		d.Text = draftText(a.obs)
		try.Draft = &d
		if size(try) <= a.budget {
			v = try
		}
	}
	return v
}

// pageText is the page's own text parts, in order, and the frame of each;
// the agent's draft echo is shown apart (addDraft).
func pageText(obs *observation.Observation) (texts []string, frames []int) {
	for _, p := range obs.Text {
		if p.Source == observation.TextSourcePage {
			texts = append(texts, p.Text)
			frames = append(frames, p.Frame)
		}
	}
	return texts, frames
}

func draftText(obs *observation.Observation) string {
	for _, p := range obs.Text {
		if p.Source == observation.TextSourceDraft {
			return p.Text
		}
	}
	return ""
}

// continuation resumes right after the last control passed, or with the
// provider cursor once every control of the observation is passed.
func (a *admission) continuation(passed int, lastRef string) *Next {
	if !a.opts.Coverage {
		return nil
	}
	if passed < len(a.controls) {
		if lastRef == "" {
			return nil // nothing passed: the same request shows the same start
		}
		return &Next{After: lastRef}
	}
	if c := a.obs.ControlCoverage.Cursor; c != "" {
		return &Next{Cursor: c}
	}
	return nil
}

func (a *admission) oversized(i int) bool {
	return size(a.essentials)-len("null")+len("[]")+a.encoded[i] > a.budget
}

// contextOf is v with the page's location and title, clipped and flagged.
func contextOf(v View, obs *observation.Observation) View {
	v.ContextOmitted = false
	v.URL, v.URLTruncated = clip(obs.URL, urlCap)
	v.URLTruncated = v.URLTruncated || obs.URLTruncated
	v.Title, v.TitleTruncated = clip(obs.Title, titleCap)
	v.TitleTruncated = v.TitleTruncated || obs.TitleTruncated
	return v
}

func longestRef(obs *observation.Observation) string {
	longest := ""
	for _, c := range obs.Controls {
		if len(c.Ref) > len(longest) {
			longest = c.Ref
		}
	}
	if c := obs.ControlCoverage.Cursor; len(c) > len(longest) {
		longest = c
	}
	return longest
}

func longestRegionRef(obs *observation.Observation) string {
	longest := ""
	for _, g := range obs.Regions {
		if len(g.Ref) > len(longest) {
			longest = g.Ref
		}
	}
	return longest
}
