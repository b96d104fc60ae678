package collect

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/veetbot/veetbrowser/observation"
)

// Tool version 1.9.0's choices and selections (docs/realpages.md): the
// options of a multiple-choice list chosen by modifier clicks, and a
// control's text selected by a mouse drag. The page plans, Go clicks with
// trusted input, the page verifies.

const (
	fnChoicesPlan  = "choicesPlan"
	fnChoicePoint  = "choicePoint"
	fnChoicesAre   = "choicesAre"
	fnTextSpan     = "textSpan"
	fnTextSelected = "textSelected"
)

// Refusals of the choices and selection calls.
const (
	Single    Refusal = "single"     // options were given for a single-choice list
	NoText    Refusal = "no_text"    // the control shows no text, or not the text asked for
	OffScreen Refusal = "off_screen" // the text's ends are not both in the window
	InControl Refusal = "in_control" // page text asked for lies in a control: select it by the control's ref
)

var (
	choicesRefusals  = []Refusal{Detached, NotSelect, Single, NoOption, Disabled, TooFar}
	pointRefusals    = []Refusal{Detached, Covered, Hidden}
	textSpanRefusals = []Refusal{Detached, NoText, OffScreen, Covered, InControl}
)

// ChoicesRequest names the options of a multiple-choice <select> to set,
// add or remove.
type ChoicesRequest struct {
	Target
	Labels []string `json:"labels"`
	Mode   string   `json:"mode"`
}

// ChoicesPlan is the expression that plans the choices: the page keeps
// the options to toggle and the set wanted after, and answers how many
// clicks that takes.
func ChoicesPlan(r ChoicesRequest) string { return call(fnChoicesPlan, r) }

// ChoicesAnswer is the answer of ChoicesPlan.
type ChoicesAnswer struct {
	Error   Refusal `json:"error"`
	Label   string  `json:"label"` // the option a refusal is about
	Toggles int     `json:"toggles"`
}

func (a *ChoicesAnswer) Refused() Refusal { return a.Error }

// DecodeChoicesPlan decodes the answer of ChoicesPlan.
func DecodeChoicesPlan(raw []byte) (*ChoicesAnswer, error) {
	a, err := decodeRefusable[ChoicesAnswer](raw, choicesRefusals)
	if err != nil {
		return nil, err
	}
	if a.Toggles < 0 || a.Toggles > observation.MaxSelectChoices || observation.UTF16Len(a.Label) > observation.MaxNameUnits {
		return nil, fmt.Errorf("choices plan of %d toggles", a.Toggles)
	}
	return a, nil
}

// PointRequest asks for the point of the i-th planned toggle.
type PointRequest struct {
	Target
	Toggle int `json:"toggle"` // the planned toggle's place, from 0
}

// ChoicePoint is the expression that shows the i-th option to toggle in
// its list (scrolling the list, as a person's wheel does) and answers the
// point to click, hit-tested.
func ChoicePoint(r PointRequest) string { return call(fnChoicePoint, r) }

// Point is a refusal or a point in the frame's viewport.
type Point struct {
	Error Refusal `json:"error"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
}

func (p *Point) Refused() Refusal { return p.Error }

// DecodeChoicePoint decodes the answer of ChoicePoint.
func DecodeChoicePoint(raw []byte) (*Point, error) {
	return decodeRefusable[Point](raw, pointRefusals)
}

// ChoicesAre is the expression that says whether the list's chosen
// options are now exactly the planned set.
func ChoicesAre(t Target) string { return call(fnChoicesAre, t) }

// SpanRequest names the text of a control to select: all of its visible
// text, or the first occurrence of Text in it; with Page (and no Target),
// the first occurrence of Text in the document's visible text, outside
// every control.
type SpanRequest struct {
	Target
	Text string `json:"text"`
	Page bool   `json:"page,omitempty"`
}

// TextSpan is the expression that finds the text to select and answers
// the points of its first and last characters, hit-tested.
func TextSpan(r SpanRequest) string { return call(fnTextSpan, r) }

// Span is the answer of TextSpan: where a drag starts and ends.
type Span struct {
	Error Refusal `json:"error"`
	X1    float64 `json:"x1"`
	Y1    float64 `json:"y1"`
	X2    float64 `json:"x2"`
	Y2    float64 `json:"y2"`
}

func (s *Span) Refused() Refusal { return s.Error }

// DecodeTextSpan decodes the answer of TextSpan.
func DecodeTextSpan(raw []byte) (*Span, error) {
	return decodeRefusable[Span](raw, textSpanRefusals)
}

// Selection names what a guard or a selection check is about: the control
// of Target, or, with Selection, the element where the planned selection
// of page text (SpanRequest.Page) starts.
type Selection struct {
	Target
	Selection bool `json:"selection,omitempty"`
}

// TextSelected is the expression that says whether the page's selection
// now holds exactly the planned text: a verdict, never the text.
func TextSelected(t Selection) string { return call(fnTextSelected, t) }

// DecodeVerdict decodes a yes or no answer.
func DecodeVerdict(raw []byte) (bool, error) {
	var v *bool
	if err := json.Unmarshal(raw, &v); err != nil {
		return false, fmt.Errorf("decoding a verdict: %w", err)
	}
	if v == nil {
		return false, errors.New("a verdict answered null")
	}
	return *v, nil
}
