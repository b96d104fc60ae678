// Package collect holds the in-page collector and the Go side of its contract:
// the parameters Go sends, and the decoding and validation of what comes back.
//
// The collector runs in an isolated world registered before the page's own
// documents are created, and enforces every bound before data crosses to Go;
// Decode checks the bounds again, so a broken collector cannot publish an
// oversized observation.
package collect

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// Script is the collector source, evaluated in WorldName on every new
// document: one closure holding the bounds, the codes and the collector's
// files.
var Script = assemble("")

// sources are the collector's files, one per job.
//
//go:embed js/*.js
var sources embed.FS

// files are the collector's files in the order they are concatenated:
// shared traversals first, then each job, then the entry points. Functions
// may call any file's functions; code that runs while the script loads
// uses only what an earlier file or its own defines.
var files = []string{
	"dom.js", "strings.js", "styles.js", "visibility.js", "clip.js", "names.js", "frames.js", "controls.js", "pointer.js", "regions.js",
	"focus.js", "text.js", "draft.js", "values.js", "typed.js", "actions.js", "choices.js", "find.js", "screenshot.js", "observe.js",
}

// named is one value the collector reads from B or R, by its Go name.
type named struct {
	name  string
	value any
}

// bounds are every number the collector enforces (and the coverage
// versions and scopes it reports), named as the Go constants they come
// from. The script holds no bound of its own: it reads them from B, so the
// two sides cannot drift.
var bounds = []named{
	{"MaxControls", observation.MaxControls},
	{"WindowSize", observation.WindowSize},
	{"MaxOffset", observation.MaxOffset},
	{"ScanNodes", observation.ScanNodes},
	{"RetainedRevisions", observation.RetainedRevisions},
	{"MaxNameUnits", observation.MaxNameUnits},
	{"MaxFactName", policy.MaxFactName},
	{"NameNodes", observation.NameNodes},
	{"MaxLabelIDs", observation.MaxLabelIDs},
	{"GeneratedScan", observation.GeneratedScan},
	{"PseudoRuleScan", observation.PseudoRuleScan},
	{"MaxTitleUnits", observation.MaxTitleUnits},
	{"MaxURLUnits", observation.MaxURLUnits},
	{"MaxRegions", observation.MaxRegions},
	{"RegionScanNodes", observation.RegionScanNodes},
	{"SummaryNodes", observation.SummaryNodes},
	{"SummaryUnits", observation.SummaryUnits},
	{"TextNodes", observation.TextNodes},
	{"TextUnits", observation.TextUnits},
	{"TextBytes", observation.TextBytes},
	{"TextPartOverhead", observation.TextPartOverhead},
	{"DraftEditorNodes", observation.DraftEditorNodes},
	{"DraftEditorUnits", observation.DraftEditorUnits},
	{"MaxSelectKeys", observation.MaxSelectKeys},
	{"MaxSelectOptions", observation.MaxSelectOptions},
	{"MaxTypeAheadUnits", observation.MaxTypeAheadUnits},
	{"MaxSelectChoices", observation.MaxSelectChoices},
	{"MaxChosen", observation.MaxChosen},
	{"MaxChosenUnits", observation.MaxChosenUnits},
	{"MaxSelectTextUnits", observation.MaxSelectTextUnits},
	{"ListenerRoots", observation.ListenerRoots},
	{"ListenerNodes", observation.ListenerNodes},
	{"RegionCoverageV1", observation.RegionCoverageV1},
	{"RegionScope", observation.RegionScope},
	{"TextCoverageV1", observation.TextCoverageV1},
	{"TextScope", observation.TextScope},
	{"FindMatches", observation.FindMatches},
	{"FindUnits", observation.FindUnits},
	{"SnippetUnits", observation.SnippetUnits},
	{"MaxQueryUnits", observation.MaxQueryUnits},
	{"MaxQueryWords", observation.MaxQueryWords},
	{"ReadingScope", observation.ReadingScope},
	{"MaxValueUnits", observation.MaxValueUnits},
	{"FocusScanNodes", observation.FocusScanNodes},
	// Not numbers: the words that make a field a credential field, from
	// the one list policy keeps (values.js).
	{"CredentialWords", policy.CredentialWords},
	{"CredentialSpaceless", policy.CredentialSpaceless},
}

// codes are every refusal the collector answers a call with and every
// verdict of the draft check, named as the Go constants the decoders
// accept. The script writes no code of its own: it reads them from R.
var codes = []named{
	{"DocumentChanged", DocumentChanged},
	{"AnchorUnknown", AnchorUnknown},
	{"AnchorDetached", AnchorDetached},
	{"AnchorMoved", AnchorMoved},
	{"Stale", Stale},
	{"Detached", Detached},
	{"Hidden", Hidden},
	{"Disabled", Disabled},
	{"NotEditable", NotEditable},
	{"Covered", Covered},
	{"Unfocusable", Unfocusable},
	{"OutOfView", OutOfView},
	{"NotSelect", NotSelect},
	{"Multiple", Multiple},
	{"NoOption", NoOption},
	{"TooFar", TooFar},
	{"Single", Single},
	{"NoText", NoText},
	{"OffScreen", OffScreen},
	{"InControl", InControl},
	{"DraftMatch", DraftMatch},
	{"DraftChanged", DraftChanged},
	{"DraftHidden", DraftHidden},
	{"DraftCredential", DraftCredential},
	{"DraftOversized", DraftOversized},
	{"DraftGone", DraftGone},
	{"NoValue", NoValue},
	{"TypedMatch", TypedMatch},
	{"TypedChanged", TypedChanged},
	{"TypedCut", TypedCut},
	{"TypedGone", TypedGone},
}

// prelude declares B, the frozen bounds, and R, the frozen codes, ahead
// of the files.
func prelude() string {
	var b strings.Builder
	b.WriteString("// Generated from the Go constants of the same names.\n")
	frozen(&b, "B", bounds)
	frozen(&b, "R", codes)
	return b.String()
}

// frozen writes the declaration of a frozen object holding values.
func frozen(b *strings.Builder, name string, values []named) {
	fmt.Fprintf(b, "const %s = Object.freeze({\n", name)
	for _, c := range values {
		v, err := json.Marshal(c.value)
		if err != nil {
			panic(err) // numbers, strings and lists of strings only
		}
		fmt.Fprintf(b, "  %s: %s,\n", c.name, v)
	}
	b.WriteString("});\n")
}

// assemble wraps the prelude and the files, then tail, in one closure that
// installs nothing if the collector is already installed in its world.
func assemble(tail string) string {
	var b strings.Builder
	b.WriteString("(() => {\n'use strict';\nif (globalThis.__veetbrowser) return;\n")
	b.WriteString(prelude())
	for _, name := range files {
		src, err := sources.ReadFile("js/" + name)
		if err != nil {
			panic(err) // embedded: only a wrong name in files fails
		}
		b.WriteString("\n")
		b.Write(src)
	}
	b.WriteString(tail)
	b.WriteString("})();\n")
	return b.String()
}

// WorldName names the isolated world the collector lives in.
const WorldName = "veetbrowser"

// Params are the arguments of one observation.
type Params struct {
	Revision string `json:"revision"` // binds the retained nodes
	// Doc, when set, is the document a continuation belongs to: the
	// collector refuses to continue on another document.
	Doc        string  `json:"doc,omitempty"`
	Offset     int     `json:"offset"`
	After      *Anchor `json:"after,omitempty"`
	Resume     *Resume `json:"resume,omitempty"`
	MaxVisible int     `json:"max_visible"`
	Window     int     `json:"window"`
	MaxOffset  int     `json:"max_offset"`
	Draft      *Draft  `json:"draft,omitempty"`

	// Reading (tool version 1.6.0): landmark regions with names, regions in
	// open shadow roots, and streams that continue where a view stopped.
	Reading bool `json:"reading,omitempty"`
	// A stream that ended is not collected at all; one that continues
	// resumes at a point its revision retained in the page.
	ControlsEnded bool  `json:"controls_ended,omitempty"`
	RegionsEnded  bool  `json:"regions_ended,omitempty"`
	TextEnded     bool  `json:"text_ended,omitempty"`
	Regions       *From `json:"regions,omitempty"`
	Text          *From `json:"text,omitempty"`
	// TextBytes bounds the text of a reading observation below
	// observation.TextBytes (observation.ReadingWindow); 0: TextBytes.
	TextBytes int `json:"text_bytes,omitempty"`
	// Focus (tool version 1.9.0): the reading order of the text stream,
	// observation.FocusMain or FocusRest (focus.js); "" document order.
	Focus string `json:"focus,omitempty"`

	// Frames (tool version 1.7.0): frame owners are candidates of the
	// control scan and marks of the text walk, and the bounds below are
	// what the page and its other frames left of the observation's (0:
	// the whole bound; a spent one is not collected at all).
	Frames bool `json:"frames,omitempty"`
	// AfterFrame continues the control scan after the owner of the frame
	// of that key, instead of After.
	AfterFrame  string `json:"after_frame,omitempty"`
	TextNodes   int    `json:"text_nodes,omitempty"`
	TextUnits   int    `json:"text_units,omitempty"`
	RegionNodes int    `json:"region_nodes,omitempty"`
	MaxRegions  *int   `json:"max_regions,omitempty"`

	// RealPages (tool version 1.9.0, docs/realpages.md): pointer targets,
	// elements a person clicks though ARIA names no control, are
	// candidates of the control scan; content that scroll containers clip
	// is visible, and coverage counts what came from them; a
	// multiple-choice list's control carries the labels of its chosen
	// options.
	RealPages bool `json:"real_pages,omitempty"`
	// Values (tool version 1.9.0 with the read_values grant): each
	// editable control of a field that is not a credential or payment
	// field carries its current value (values.js); without it the
	// collector reads no value at all.
	Values bool `json:"values,omitempty"`
}

// RoleFrame is the role of a frame owner in a frames-mode control scan: a
// place holder for the frame's content, never a control.
const RoleFrame = "frame"

// FrameMark is where a frame's text goes: before the Index-th text part.
type FrameMark struct {
	Frame string `json:"frame"` // the key the runtime named the owner with; "" if none
	Index int    `json:"index"`
}

// From continues a region or text stream of a revision: at the Index-th
// region of its window, or at its Index-th text part, of which Units
// UTF-16 units were already shown.
type From struct {
	Revision string `json:"revision"`
	Index    int    `json:"index"`
	Units    int    `json:"units,omitempty"`
	// Frame, for text (tool version 1.7.0), continues right after the
	// element of the frame of that key instead of at Index.
	Frame string `json:"frame,omitempty"`
}

// Draft asks for the live equality check of the draft receipt.
type Draft struct {
	Value string `json:"value"`
}

// Anchor is a retained control: the revision that retained it and its index.
type Anchor struct {
	Revision string `json:"revision"`
	Index    int    `json:"index"`
}

// Resume continues a cursor's scan from a point its revision retained in
// the page instead of the document's start.
type Resume struct {
	Revision string `json:"revision"`
	From     string `json:"from"` // ResumeOrigin or ResumeStop
}

// Where a scan's walk starts, as ControlCoverage.From reports it for the
// next window and Resume asks for it.
const (
	ResumeStart  = ""       // the document's start
	ResumeOrigin = "origin" // the point the scan itself resumed from
	ResumeStop   = "stop"   // right after the last node a scan stopped by the node bound visited
)

// Expression returns the JavaScript expression that runs the collector.
func Expression(p Params) string {
	return call(fnObserve, p)
}

// Page is the identity of the document an answer comes from, as observe
// and find report it.
type Page struct {
	Doc            string `json:"doc"` // random per document: a new one means a new document
	URL            string `json:"url"`
	URLTruncated   bool   `json:"url_truncated"`
	Origin         string `json:"origin"`
	Title          string `json:"title"`
	TitleTruncated bool   `json:"title_truncated"`
}

func (p Page) check() error {
	if observation.UTF16Len(p.Title) > observation.MaxTitleUnits || observation.UTF16Len(p.URL) > observation.MaxURLUnits {
		return errors.New("collector returned a title or URL over its bound")
	}
	return nil
}

// Result is what the collector returns.
type Result struct {
	Error Refusal `json:"error"`
	Page
	Controls        []Control                  `json:"controls"`
	ControlCoverage ControlCoverage            `json:"control_coverage"`
	Regions         []observation.Region       `json:"regions"` // refs are minted by the session
	RegionCoverage  observation.RegionCoverage `json:"region_coverage"`
	Text            []string                   `json:"text"`
	TextCoverage    observation.TextCoverage   `json:"text_coverage"`
	Draft           DraftVerdict               `json:"draft"`           // verdict of the draft check, DraftNone if none asked
	Focus           string                     `json:"focus,omitempty"` // Params.Focus, as the text was read
	// Frames mode: the keys of the owners the control scan found hidden,
	// and where each visible frame's text goes.
	HiddenFrames []FrameMark `json:"hidden_frames,omitempty"` // Index: controls before it
	TextFrames   []FrameMark `json:"text_frames,omitempty"`
}

func (r *Result) Refused() Refusal { return r.Error }

// Control is a collected control; Position is its candidate position.
type Control struct {
	Role          string             `json:"role"`
	Name          string             `json:"name"`
	NameTruncated bool               `json:"name_truncated"`
	Position      int                `json:"position"`
	States        observation.States `json:"states"`
	Frame         string             `json:"frame,omitempty"` // RoleFrame: the key of its frame
	// 1.9.0, a multiple-choice list: its chosen options' labels, and how
	// many more are chosen past observation.MaxChosen.
	Chosen     []string `json:"chosen,omitempty"`
	ChosenMore int      `json:"chosen_more,omitempty"`
	// Key (1.9.0): the node's identity within its document's world.
	Key int `json:"key,omitempty"`
	// Value: Params.Values only, at most observation.MaxValueUnits.
	Value          *string `json:"value,omitempty"`
	ValueTruncated bool    `json:"value_truncated,omitempty"`
}

// ControlCoverage is the collector's view of the control scan.
type ControlCoverage struct {
	Offset  int    `json:"offset"`
	Scanned int    `json:"scanned"`
	More    bool   `json:"more"` // candidates remain after the scanned ones
	Limit   string `json:"limit"`
	// Acquired counts the candidates held before visibility work, at most
	// observation.MaxAcquired; it is checked, not published.
	Acquired int `json:"acquired"`
	// From is where the next window's walk starts (ResumeStart, ResumeOrigin
	// or ResumeStop); the session binds it into the cursor.
	From string `json:"from"`
	// Ended: the stream had ended and was not scanned (reading only).
	Ended bool `json:"ended,omitempty"`
	// InScrollContainers (tool version 1.9.0): kept controls that lie in
	// a scroll container.
	InScrollContainers int `json:"in_scroll_containers,omitempty"`
}

// Decode parses a collector result and checks its bounds. Like every
// other in-page answer it is decoded strictly: a field Result does not know
// or trailing data means the collector and Go disagree on the contract.
func Decode(raw []byte) (*Result, error) {
	r, err := decodeRefusable[Result](raw, observeRefusals)
	if err != nil || r.Error != "" {
		return r, err
	}
	if n := len(r.Controls); n > observation.MaxControls {
		return nil, fmt.Errorf("collector returned %d controls, more than %d", n, observation.MaxControls)
	}
	for _, c := range r.Controls {
		if c.Value != nil && observation.UTF16Len(*c.Value) > observation.MaxValueUnits {
			return nil, fmt.Errorf("collector returned a value of %d units, more than %d", observation.UTF16Len(*c.Value), observation.MaxValueUnits)
		}
	}
	if a := r.ControlCoverage.Acquired; a > observation.MaxAcquired {
		return nil, fmt.Errorf("collector acquired %d candidates, more than %d", a, observation.MaxAcquired)
	}
	if n := r.ControlCoverage.InScrollContainers; n < 0 || n > len(r.Controls) {
		return nil, fmt.Errorf("collector counted %d controls in scroll containers of %d", n, len(r.Controls))
	}
	if n := r.RegionCoverage.InScrollContainers; n < 0 || n > len(r.Regions) {
		return nil, fmt.Errorf("collector counted %d regions in scroll containers of %d", n, len(r.Regions))
	}
	if n := r.TextCoverage.InScrollContainers; n < 0 || n > len(r.Text) {
		return nil, fmt.Errorf("collector counted %d text parts in scroll containers of %d", n, len(r.Text))
	}
	if s := r.ControlCoverage.Scanned; s < 0 || s > observation.WindowSize {
		return nil, fmt.Errorf("collector scanned %d candidates, more than %d", s, observation.WindowSize)
	}
	if !slices.Contains(draftVerdicts, r.Draft) {
		return nil, fmt.Errorf("collector returned an unknown draft verdict")
	}
	if f := r.ControlCoverage.From; f != ResumeStart && f != ResumeOrigin && f != ResumeStop {
		return nil, fmt.Errorf("collector returned an unknown resume point")
	}
	if err := r.Page.check(); err != nil {
		return nil, err
	}
	if len(r.HiddenFrames) > observation.WindowSize {
		return nil, fmt.Errorf("collector returned %d hidden frames, more than its window", len(r.HiddenFrames))
	}
	for _, m := range r.HiddenFrames {
		if m.Index < 0 || m.Index > len(r.Controls) {
			return nil, fmt.Errorf("collector returned a hidden frame at control %d of %d", m.Index, len(r.Controls))
		}
	}
	last := 0
	for _, m := range r.TextFrames {
		if m.Index < last || m.Index > len(r.Text) {
			return nil, fmt.Errorf("collector returned a frame mark at part %d of %d", m.Index, len(r.Text))
		}
		last = m.Index
	}
	if len(r.TextFrames) > observation.TextNodes {
		return nil, fmt.Errorf("collector returned %d frame marks, more than its node bound", len(r.TextFrames))
	}
	for _, c := range r.Controls {
		if observation.UTF16Len(c.Name) > observation.MaxNameUnits {
			return nil, fmt.Errorf("collector returned a name over %d units", observation.MaxNameUnits)
		}
		if c.Key < 0 {
			return nil, fmt.Errorf("collector returned a node key of %d", c.Key)
		}
		if len(c.Chosen) > observation.MaxChosen || c.ChosenMore < 0 || c.ChosenMore > observation.MaxSelectOptions {
			return nil, fmt.Errorf("collector returned %d chosen options and %d more", len(c.Chosen), c.ChosenMore)
		}
		for _, l := range c.Chosen {
			if observation.UTF16Len(l) > observation.MaxChosenUnits {
				return nil, fmt.Errorf("collector returned a chosen option's label over %d units", observation.MaxChosenUnits)
			}
		}
	}
	if n := len(r.Regions); n > observation.MaxRegions {
		return nil, fmt.Errorf("collector returned %d regions, more than %d", n, observation.MaxRegions)
	}
	for _, g := range r.Regions {
		if observation.UTF16Len(g.Summary) > observation.SummaryUnits {
			return nil, fmt.Errorf("collector returned a summary over %d units", observation.SummaryUnits)
		}
		if observation.UTF16Len(g.Name) > observation.MaxNameUnits {
			return nil, fmt.Errorf("collector returned a region name over %d units", observation.MaxNameUnits)
		}
	}
	if c := r.RegionCoverage; c.Version != observation.RegionCoverageV1 || c.ScannedNodes < 0 || c.ScannedNodes > observation.RegionScanNodes || c.Omitted < 0 {
		return nil, fmt.Errorf("collector returned region coverage %+v", c)
	}
	c := r.TextCoverage
	// Counts are checked from below too: a negative omission would hide text
	// from the byte bound.
	if c.Version != observation.TextCoverageV1 || c.ScannedNodes < 0 || c.ScannedNodes > observation.TextNodes ||
		c.InspectedUnits < 0 || c.InspectedUnits > observation.TextUnits || c.OmittedBytes < 0 {
		return nil, fmt.Errorf("collector returned text coverage %+v", c)
	}
	bound := observation.TextBytes
	if c.ByteBound != 0 {
		bound = c.ByteBound
	}
	if total := observation.TextCost(c.OmittedBytes, slices.Values(r.Text)); bound > observation.TextBytes || bound < 0 || total > bound {
		return nil, fmt.Errorf("collector returned %d text bytes with omissions, more than %d", total, bound)
	}
	return r, nil
}
