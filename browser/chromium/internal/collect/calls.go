package collect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// The calls Go makes into the collector's world. Each call has one function
// that builds its expression from a typed request and, when it answers
// with data, one decoder that admits only the answer's documented shape:
// a refusal outside the call's own list, an unknown field or a value of the
// wrong kind is an error, never a guess.

// The functions the collector exposes on globalThis.__veetbrowser.
const (
	fnObserve       = "observe"
	fnInspect       = "inspect"
	fnPrepare       = "prepare"
	fnArm           = "arm"
	fnDisarm        = "disarm"
	fnSelectPlan    = "selectPlan"
	fnSelectedIs    = "selectedIs"
	fnTypedPlan     = "typedPlan"
	fnTypedCheck    = "typedCheck"
	fnSetColor      = "setColor"
	fnBindDraft     = "bindDraft"
	fnNode          = "node"
	fnRetainedNodes = "retainedNodes"
)

// call is the expression that calls the collector's fn with arg, or with no
// argument when arg is nil.
func call(fn string, arg any) string {
	args := ""
	if arg != nil {
		b, err := json.Marshal(arg)
		if err != nil {
			panic(err) // requests hold only strings, numbers and booleans
		}
		args = string(b)
	}
	return "globalThis.__veetbrowser." + fn + "(" + args + ")"
}

// Refusal is the page's reason for not doing what a call asked.
type Refusal string

// Refusals of observe's continuations, and of the action guards.
const (
	DocumentChanged Refusal = "document_changed" // the request's document is gone
	AnchorUnknown   Refusal = "anchor_unknown"   // the anchor's revision is no longer retained
	AnchorDetached  Refusal = "anchor_detached"  // the anchor left the document
	AnchorMoved     Refusal = "anchor_moved"     // the anchor changed parent or left the traversal

	Stale       Refusal = "stale"        // the revision no longer retains the control
	Detached    Refusal = "detached"     // the control left the document
	Hidden      Refusal = "hidden"       // the control is not visible
	Disabled    Refusal = "disabled"     // the control, or the option to choose, is disabled
	NotEditable Refusal = "not_editable" // a type action's control takes no text
	Covered     Refusal = "covered"      // the point a pointer action hits is another element's
	Unfocusable Refusal = "unfocusable"  // the keyboard focus is not in the control
	OutOfView   Refusal = "out_of_view"  // past the default Reveal, the control is out of the window

	NotSelect Refusal = "not_select" // the control is not a <select>
	Multiple  Refusal = "multiple"   // a multiple-choice list, which trusted keys cannot set
	NoOption  Refusal = "no_option"  // no option has the label
	TooFar    Refusal = "too_far"    // too many keys away, and the label is not unique to type
	NoValue   Refusal = "no_value"   // a range input has no step at the value to type
)

// The refusals each call may answer with.
var (
	observeRefusals = []Refusal{DocumentChanged, AnchorUnknown, AnchorDetached, AnchorMoved}
	inspectRefusals = []Refusal{DocumentChanged, Stale, Detached, Hidden, Disabled, NotEditable}
	prepareRefusals = []Refusal{DocumentChanged, Stale, Detached, Hidden, Disabled, NotEditable, Covered, Unfocusable, OutOfView}
	armRefusals     = []Refusal{Detached, Covered, Unfocusable}
	selectRefusals  = []Refusal{Detached, NotSelect, Multiple, NoOption, Disabled, TooFar}
	typedRefusals   = []Refusal{Detached, NoValue, TooFar}
)

// Refusable is the answer of a call that may refuse.
type Refusable interface {
	Refused() Refusal // "" when the call did what it was asked
}

// decodeRefusable decodes the answer of a call that may refuse, strictly,
// and admits only a refusal of allowed, the call's own list.
func decodeRefusable[T any, P interface {
	*T
	Refusable
}](raw []byte, allowed []Refusal) (*T, error) {
	r := P(new(T))
	if err := decodeStrict(raw, r); err != nil {
		return nil, err
	}
	if e := r.Refused(); e != "" && !slices.Contains(allowed, e) {
		return nil, fmt.Errorf("unknown refusal %q", e)
	}
	return r, nil
}

// DraftVerdict is the live equality check of the draft receipt.
type DraftVerdict string

const (
	DraftNone       DraftVerdict = ""           // no check was asked for
	DraftMatch      DraftVerdict = "match"      // the editor still holds the known value
	DraftChanged    DraftVerdict = "changed"    // it holds something else
	DraftHidden     DraftVerdict = "hidden"     // it is not visible
	DraftCredential DraftVerdict = "credential" // it takes a password or the like
	DraftOversized  DraftVerdict = "oversized"  // it is larger than the check reads
	DraftGone       DraftVerdict = "gone"       // it left the document
)

var draftVerdicts = []DraftVerdict{DraftNone, DraftMatch, DraftChanged, DraftHidden, DraftCredential, DraftOversized, DraftGone}

// Target is a control a revision retained in the page: the revision token
// the observation bound it to and its index, in the document it was
// observed in.
type Target struct {
	Revision string `json:"revision"`
	Index    uint64 `json:"index"`
	Doc      string `json:"doc"`
}

// GuardRequest asks for the live guards of an action on a control: one
// that hits a point (Pointer), takes the keyboard focus (Focus) or must
// take text (Editable). Tool version 1.8.0 adds: how Prepare brings the
// control into view (Reveal), a wheel over it (Scroller: the point is
// hit-tested and the answer measures what the wheel scrolls), and a focus
// that keeps the caret and selection of a control that took the last
// keyboard action and still holds the focus (KeepSelection).
type GuardRequest struct {
	Target
	Pointer       bool   `json:"pointer,omitempty"`
	Focus         bool   `json:"focus,omitempty"`
	Editable      bool   `json:"editable,omitempty"`
	Reveal        Reveal `json:"reveal,omitempty"`
	Scroller      bool   `json:"scroller,omitempty"`
	KeepSelection bool   `json:"keep_selection,omitempty"`
}

// Reveal is how Prepare brings a control into view. Past the default, the
// point is the middle of the part of the control in the window, and a
// control out of the window is refused (OutOfView).
type Reveal string

const (
	RevealCenter  Reveal = ""        // scrolled to the middle of the window
	RevealNearest Reveal = "nearest" // scrolled only as far as it takes to show it
	RevealNone    Reveal = "none"    // not scrolled
)

// Inspect runs the read-only guards and reads the control's label facts;
// it changes nothing in the page, so it may run before authorization.
func Inspect(r GuardRequest) string { return call(fnInspect, r) }

// Prepare runs the guards again once the action is authorized, and what
// needs the page touched: scrolling into view, the hit test of a pointer
// action's point, the focus of a keyboard action.
func Prepare(r GuardRequest) string { return call(fnPrepare, r) }

// Facts are a control's live label facts and what the action may do with it.
type Facts struct {
	Role     string `json:"role"`
	Name     string `json:"name"`
	NameCut  bool   `json:"name_cut"`
	Form     string `json:"form"`    // the form's accessible name
	InForm   bool   `json:"in_form"` // the control belongs to a form
	Submit   bool   `json:"submit"`  // activating it submits its form
	File     bool   `json:"file"`
	Editable bool   `json:"editable"` // a rich-text editor, which may hold a draft
	Checked  bool   `json:"checked"`
	Origin   string `json:"origin"`
	Input    string `json:"input"` // a typed kind of input (date, time, range…), else ""
}

// GuardResult is the answer of Inspect or Prepare: a refusal, or the facts
// and (after Prepare) the point a pointer action hits. Facts come with a
// refusal too when the control was found, and so do a Scroller request's
// height of the scroller's viewport and how far it is scrolled (Top).
type GuardResult struct {
	PointResult
	Facts  *Facts   `json:"facts"`
	Height *float64 `json:"height"`
	Top    *float64 `json:"top"`
}

// PointResult is the answer of a call that finds where a point is: a
// refusal, or the point, in CSS pixels of a document's viewport.
type PointResult struct {
	Error Refusal `json:"error"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
}

func (r *PointResult) Refused() Refusal { return r.Error }

// DecodeInspect decodes the answer of Inspect.
func DecodeInspect(raw []byte) (*GuardResult, error) { return decodeGuard(raw, inspectRefusals) }

// DecodePrepare decodes the answer of Prepare.
func DecodePrepare(raw []byte) (*GuardResult, error) { return decodeGuard(raw, prepareRefusals) }

func decodeGuard(raw []byte, allowed []Refusal) (*GuardResult, error) {
	r, err := decodeRefusable[GuardResult](raw, allowed)
	if err != nil {
		return nil, err
	}
	if r.Error == "" && r.Facts == nil {
		return nil, errors.New("guard answer without facts")
	}
	if (r.Height == nil) != (r.Top == nil) || (r.Height != nil && (*r.Height < 0 || r.Facts == nil)) {
		return nil, errors.New("guard answer with a partial or impossible scroller")
	}
	if f := r.Facts; f != nil && (observation.UTF16Len(f.Name) > policy.MaxFactName || observation.UTF16Len(f.Form) > policy.MaxFactName) {
		return nil, errors.New("guard answer with a name over its bound")
	}
	return r, nil
}

// GuardKind is what the input guard watches while it is armed.
type GuardKind string

const (
	GuardPointer  GuardKind = "pointer"  // mouse input at a point
	GuardKeyboard GuardKind = "keyboard" // key input at the focus
	GuardHover    GuardKind = "hover"    // the mouse's arrival at a point
	GuardPress    GuardKind = "press"    // a drag's press at a point (its moves and release are not watched)
	GuardContext  GuardKind = "context"  // a right-button click at a point, confirmed by the page's contextmenu event (1.9.0)
)

// ArmRequest arms the input guard for a control, after a last check that
// a pointer, hover or press action's point (X, Y) still hits it or that it still has the
// keyboard focus.
type ArmRequest struct {
	Target
	Kind GuardKind `json:"kind"`
	X    float64   `json:"x"`
	Y    float64   `json:"y"`
	// Snapshot (1.9.0) keeps, in the page, what a text field holds around
	// its selection, for TypedCheck.
	Snapshot bool `json:"snapshot,omitempty"`
	// Selection (1.9.0): the guard is on the element where the planned
	// selection of page text starts, not on a control.
	Selection bool `json:"selection,omitempty"`
}

// Arm is the expression that arms the guard.
func Arm(r ArmRequest) string { return call(fnArm, r) }

// armAnswer is the answer of Arm: a refusal, or that the guard is armed.
type armAnswer struct {
	Error Refusal `json:"error"`
	OK    bool    `json:"ok"`
}

func (r *armAnswer) Refused() Refusal { return r.Error }

// DecodeArm decodes the answer of Arm: the refusal, or "" when the guard
// is armed.
func DecodeArm(raw []byte) (Refusal, error) {
	r, err := decodeRefusable[armAnswer](raw, armRefusals)
	if err != nil {
		return "", err
	}
	if r.OK == (r.Error != "") {
		return "", errors.New("arm answer neither armed nor refused")
	}
	return r.Error, nil
}

// Disarm is the expression that ends the guard and reports what it saw.
func Disarm() string { return call(fnDisarm, nil) }

// DisarmResult is what the guard saw while it was armed: trusted input
// events on the control (Hits), those that prove delivery (Confirmed: a
// click, a keydown or a beforeinput), and those it stopped because they
// were aimed elsewhere (Blocked).
type DisarmResult struct {
	// Unarmed: the world holds no armed guard, so the document the guard
	// was armed in is gone.
	Unarmed   bool `json:"unarmed,omitempty"`
	Hits      int  `json:"hits"`
	Confirmed int  `json:"confirmed"`
	Blocked   int  `json:"blocked"`
}

// DecodeDisarm decodes the answer of Disarm.
func DecodeDisarm(raw []byte) (DisarmResult, error) {
	return decodeChecked(raw, func(r DisarmResult) error {
		if r.Hits < 0 || r.Blocked < 0 || r.Confirmed < 0 || r.Confirmed > r.Hits || r.Unarmed && r.Hits+r.Blocked > 0 {
			return fmt.Errorf("disarm answer with impossible counts %+v", r)
		}
		return nil
	})
}

// OptionRequest names the option of a <select> control by its visible label.
type OptionRequest struct {
	Target
	Label string `json:"label"`
}

// SelectPlan is the expression that plans the trusted keys choosing the option.
func SelectPlan(r OptionRequest) string { return call(fnSelectPlan, r) }

// Plan is the answer of SelectPlan: a refusal, the keys to press (none
// when the option is already chosen), or the label to type instead.
type Plan struct {
	Error Refusal  `json:"error"`
	Keys  []string `json:"keys"`
	Type  string   `json:"type"`
}

func (p *Plan) Refused() Refusal { return p.Error }

// selectKeys are the only keys a plan may press.
var selectKeys = []string{"ArrowUp", "ArrowDown", "Home", "End"}

// DecodeSelectPlan decodes the answer of SelectPlan.
func DecodeSelectPlan(raw []byte) (*Plan, error) {
	p, err := decodeRefusable[Plan](raw, selectRefusals)
	if err != nil {
		return nil, err
	}
	answers := 0
	for _, given := range []bool{p.Error != "", p.Keys != nil, p.Type != ""} {
		if given {
			answers++
		}
	}
	switch {
	case answers != 1:
		return nil, errors.New("select plan answer with not exactly one of a refusal, keys and a label")
	case len(p.Keys) > observation.MaxSelectKeys+1:
		// Home or End, then at most MaxSelectKeys arrows.
		return nil, fmt.Errorf("select plan of %d keys", len(p.Keys))
	case observation.UTF16Len(p.Type) > observation.MaxTypeAheadUnits:
		return nil, errors.New("select plan types a label over its bound")
	}
	for _, k := range p.Keys {
		if !slices.Contains(selectKeys, k) {
			return nil, fmt.Errorf("select plan presses %q", k)
		}
	}
	return p, nil
}

// SelectedIs is the expression that says whether the option is now chosen.
func SelectedIs(r OptionRequest) string { return call(fnSelectedIs, r) }

// DecodeSelectedIs decodes the answer of SelectedIs.
func DecodeSelectedIs(raw []byte) (bool, error) {
	var chosen *bool
	if err := json.Unmarshal(raw, &chosen); err != nil {
		return false, fmt.Errorf("decoding the answer of selectedIs: %w", err)
	}
	if chosen == nil {
		return false, errors.New("selectedIs answered null")
	}
	return *chosen, nil
}

// BindDraft is the expression that binds the draft receipt to an editor.
func BindDraft(t Target) string { return call(fnBindDraft, t) }

// BindResult is the answer of BindDraft: whether the receipt is bound, and
// whether it was already bound to that editor (the agent typed into it
// again).
type BindResult struct {
	OK   bool `json:"ok"`
	Same bool `json:"same"`
}

// DecodeBindDraft decodes the answer of BindDraft.
func DecodeBindDraft(raw []byte) (BindResult, error) {
	return decodeChecked(raw, func(r BindResult) error {
		if r.Same && !r.OK {
			return errors.New("bind answer both unbound and the same")
		}
		return nil
	})
}

// Node is the expression whose value is the control itself, for the CDP
// calls that need a handle to it; it has no JSON answer.
func Node(t Target) string { return call(fnNode, t) }

// RetainedNodes is the expression that counts the nodes the page retains
// for the runtime, a number: a diagnostic for tests.
func RetainedNodes() string { return call(fnRetainedNodes, nil) }

// decodeChecked decodes an answer strictly and holds it to check, the
// call's own invariants; an answer refused either way is the zero T.
func decodeChecked[T any](raw []byte, check func(T) error) (T, error) {
	var r T
	err := decodeStrict(raw, &r)
	if err == nil {
		err = check(r)
	}
	if err != nil {
		var zero T
		return zero, err
	}
	return r, nil
}

// decodeStrict decodes one JSON object into v, refusing any other value,
// unknown fields, duplicate or differently cased names, and trailing data.
// It is the JSON v2 decoder that cdproto decodes CDP with: on a page of 60
// regions (a 30 KB answer) it took 0.21 ms where encoding/json's strict
// decoder took 0.78. A string that is not valid UTF-8 has the replacement
// character in place of the bad bytes, as with encoding/json.
func decodeStrict(raw []byte, v any) error {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return fmt.Errorf("collector answer is not an object: %.40q", raw)
	}
	if err := jsonv2.Unmarshal(trimmed, v, strictAnswer); err != nil {
		return fmt.Errorf("decoding the collector's answer: %w", err)
	}
	return nil
}

// strictAnswer are decodeStrict's options.
var strictAnswer = jsonv2.JoinOptions(jsonv2.RejectUnknownMembers(true), jsontext.AllowInvalidUTF8(true))

// TypedRequest names the text a type action (1.9.0) types into a control.
type TypedRequest struct {
	Target
	Value string `json:"value"`
}

// TypedPlan is the expression that plans the keys of a typed input: the
// order of a date or time field's segments, or a range's keys.
func TypedPlan(r TypedRequest) string { return call(fnTypedPlan, r) }

// TypedKeys is the answer of TypedPlan: a refusal, or the input's kind
// with its segments in the locale's order (Fields), or a range's keys.
type TypedKeys struct {
	Error  Refusal  `json:"error"`
	Kind   string   `json:"kind"`
	Fields []string `json:"fields"`
	Keys   []string `json:"keys"`
}

func (p *TypedKeys) Refused() Refusal { return p.Error }

// dateSegments are the only segments a date or time field may have.
var dateSegments = []string{"year", "month", "day", "week", "hour", "minute", "second", "dayPeriod"}

// rangeKeys are the only keys a range plan may press.
var rangeKeys = []string{"Home", "End", "ArrowLeft", "ArrowRight"}

// DecodeTypedPlan decodes the answer of TypedPlan.
func DecodeTypedPlan(raw []byte) (*TypedKeys, error) {
	p, err := decodeRefusable[TypedKeys](raw, typedRefusals)
	if err != nil {
		return nil, err
	}
	if (p.Error != "" && (p.Fields != nil || p.Keys != nil)) || (p.Error == "" && p.Kind == "") || (p.Fields != nil && p.Keys != nil) {
		return nil, errors.New("typed plan answer with not exactly one of a refusal, segments and keys")
	}
	if len(p.Fields) > len(dateSegments) || len(p.Keys) > observation.MaxSelectKeys+1 {
		return nil, errors.New("typed plan over its bounds")
	}
	for _, f := range p.Fields {
		if !slices.Contains(dateSegments, f) {
			return nil, fmt.Errorf("typed plan with segment %q", f)
		}
	}
	for _, k := range p.Keys {
		if !slices.Contains(rangeKeys, k) {
			return nil, fmt.Errorf("typed plan presses %q", k)
		}
	}
	return p, nil
}

// TypedCheck is the expression that checks, after a type action, that the
// field took the text; it answers a verdict, never the value.
func TypedCheck(r TypedRequest) string { return call(fnTypedCheck, r) }

// SetColor is the expression that sets a color input to the value as its
// picker would (1.9.0); it answers TypedGone when the control is no longer
// a color input on the page, else TypedMatch. TypedCheck verifies after.
func SetColor(r TypedRequest) string { return call(fnSetColor, r) }

// TypedVerdict is the answer of TypedCheck and SetColor.
type TypedVerdict string

const (
	TypedMatch   TypedVerdict = "typed"   // the field holds the text as typed
	TypedChanged TypedVerdict = "changed" // it holds something else: a page script changed or rejected it
	TypedCut     TypedVerdict = "cut"     // it holds less: its maxlength cut the text
	TypedGone    TypedVerdict = "gone"    // it left the document, or was not the field the input began in
)

var typedVerdicts = []TypedVerdict{TypedMatch, TypedChanged, TypedCut, TypedGone}

// DecodeTypedCheck decodes the answer of TypedCheck.
func DecodeTypedCheck(raw []byte) (TypedVerdict, error) {
	var v TypedVerdict
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", fmt.Errorf("decoding the answer of typedCheck: %w", err)
	}
	if !slices.Contains(typedVerdicts, v) {
		return "", fmt.Errorf("unknown typed verdict %q", v)
	}
	return v, nil
}
