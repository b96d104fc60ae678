package chromium

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"

	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/keys"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// Typing that takes (tool version 1.9.0, docs/actions.md). Date, time,
// month, week and datetime-local fields take keystrokes segment by
// segment, a range takes arrow keys, a number takes its digits over the
// selected old value; each accepts the ISO form of its value whatever the
// locale shows. After every type the page checks that the field took the
// text and answers a verdict: a field that did not is not_actionable.

// isoForms are the forms a typed kind's text must have, as Go's time
// layouts, or a pattern.
var (
	isoLayouts = map[string]string{"date": "2006-01-02", "time": "15:04", "month": "2006-01", "datetime-local": "2006-01-02T15:04"}
	// A time may give its seconds: 14:05:30.
	isoSeconds = map[string]string{"time": "15:04:05", "datetime-local": "2006-01-02T15:04:05"}
	isoWeek    = regexp.MustCompile(`^([0-9]{4})-W([0-9]{2})$`)
	isoColor   = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)
	// isoNumber is HTML's valid floating-point number.
	isoNumber = regexp.MustCompile(`^-?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$`)
)

// typedParts are the segments of a date or time value, as the digits a
// keyboard types into each.
type typedParts map[string]string

// parseTyped checks text against the ISO form of an input of kind and
// returns its segments. Malformed text is invalid_argument, before
// anything is dispatched.
func parseTyped(kind, text string) (typedParts, error) {
	bad := func(form string) error {
		return errcode.New(errcode.InvalidArgument, "a %s input takes text of the form %s, not %s", kind, form, errcode.Quote(text))
	}
	switch kind {
	case "number", "range":
		if !isoNumber.MatchString(text) {
			return nil, bad("-12.5 (a decimal number)")
		}
		return nil, nil
	case "color":
		if !isoColor.MatchString(text) {
			return nil, bad("#ff8800")
		}
		return nil, nil
	case "week":
		m := isoWeek.FindStringSubmatch(text)
		if m == nil {
			return nil, bad("2012-W37")
		}
		y, _ := strconv.Atoi(m[1])
		w, _ := strconv.Atoi(m[2])
		// 28 December is always in the last ISO week of its year.
		if _, last := time.Date(y, time.December, 28, 0, 0, 0, 0, time.UTC).ISOWeek(); y < 1 || w < 1 || w > last {
			return nil, bad("2012-W37 (a week of that year)")
		}
		return typedParts{"year": m[1], "week": m[2]}, nil
	}
	layout := isoLayouts[kind]
	at, err := time.Parse(layout, text)
	secs := false
	if long, ok := isoSeconds[kind]; ok && err != nil {
		// Go takes a fraction after the seconds; the form has none.
		if at, err = time.Parse(long, text); err == nil && at.Format(long) != text {
			err = errors.New("a fraction of a second")
		}
		secs = err == nil
	}
	if err != nil || (kind != "time" && at.Year() < 1) {
		if isoSeconds[kind] != "" {
			return nil, bad(layout + " or " + isoSeconds[kind])
		}
		return nil, bad(layout)
	}
	h12 := at.Hour() % 12
	if h12 == 0 {
		h12 = 12
	}
	return typedParts{"year": fmt.Sprintf("%04d", at.Year()), "month": fmt.Sprintf("%02d", int(at.Month())), "day": fmt.Sprintf("%02d", at.Day()),
		"hour": fmt.Sprintf("%02d", at.Hour()), "hour12": fmt.Sprintf("%02d", h12), "minute": fmt.Sprintf("%02d", at.Minute()),
		"second": fmt.Sprintf("%02d", at.Second()), "seconds": strconv.FormatBool(secs), "pm": strconv.FormatBool(at.Hour() >= 12)}, nil
}

// typedRefusal refuses, before authorization, text that the input of kind
// cannot take.
func typedRefusal(kind, text string) error {
	_, err := parseTyped(kind, text)
	return err
}

// typedSteps are the key events that type r.Value into an input of kind,
// as the page plans them: a date or time field's segments in the
// locale's order, a range's arrows, a number's digits over its selected
// text; for a color, the one step that sets it as its picker would.
func (s *Session) typedSteps(octx context.Context, tgt cdp.Session, r collect.TypedRequest, kind string) ([]func() error, error) {
	if kind == "color" {
		// A color field opens the browser's picker, a window no trusted
		// input reaches: the page sets the value as the picker does.
		return []func() error{func() error {
			raw, err := s.eval(octx, collect.SetColor(r))
			verdict := collect.TypedGone
			if err == nil {
				verdict, err = collect.DecodeTypedCheck(raw)
			}
			if err != nil {
				return errcode.Wrap(errcode.ActionUncertain, err, "the color could not be set; observe before trying again")
			}
			if verdict != collect.TypedMatch {
				return &refused{errcode.New(errcode.StaleReference, "the color input is no longer on the page; observe again")}
			}
			return nil
		}}, nil
	}
	if kind == "number" {
		c, _ := keys.ParseChord("Control+a")
		press, release := keys.ChordSteps(octx, tgt, c)
		return append(append(press, release...), func() error {
			_, err := cdp.Call(octx, tgt, input.InsertText, input.InsertTextParams{Text: r.Value})
			return err
		}), nil
	}
	plan, err := collectIn(octx, s.eval, collect.TypedPlan(r), collect.DecodeTypedPlan, "the input could not be looked up")
	if err != nil {
		return nil, err
	}
	switch plan.Error {
	case "":
	case collect.Detached:
		return nil, errcode.New(errcode.StaleReference, "the control is no longer on the page; observe again")
	case collect.NoValue:
		return nil, errcode.New(errcode.NotActionable, "the range input has no step at %s within its minimum and maximum", errcode.Quote(r.Value))
	default: // collect.TooFar
		return nil, errcode.New(errcode.NotActionable, "the value %s is more than %d keys from either end of the range", errcode.Quote(r.Value), observation.MaxSelectKeys)
	}
	var steps []func() error
	press := func(ks ...string) {
		for _, k := range ks {
			steps = append(steps, keys.Steps(octx, tgt, k)...)
		}
	}
	if kind == "range" {
		press(plan.Keys...)
		return steps, nil
	}
	parts, _ := parseTyped(kind, r.Value)
	if shown := s.fieldSegments(octx, r.Target); len(shown) > 0 {
		plan.Fields = shown
	}
	if len(plan.Fields) == 0 {
		return nil, errcode.New(errcode.NotActionable, "the %s input's segments could not be read in this locale", kind)
	}
	twelve, seconds := false, false
	for _, f := range plan.Fields {
		twelve = twelve || f == "dayPeriod"
		seconds = seconds || f == "second"
	}
	if parts["seconds"] == "true" && !seconds {
		return nil, errcode.New(errcode.NotActionable, "the %s input shows no seconds (its step is a whole number of minutes): give the time without seconds", kind)
	}
	// Each segment is reached from the first, as a person moves with the
	// arrows: a segment that is full moves the focus on by itself and
	// another (a year, a month's name) does not, so counting from the
	// first is the one way that does not depend on which.
	for i, f := range plan.Fields {
		for range plan.Fields {
			press("ArrowLeft")
		}
		for range i {
			press("ArrowRight")
		}
		switch {
		case f == "dayPeriod":
			// Whatever the locale calls them: Backspace empties the
			// period, then ArrowUp sets the first (morning) and
			// ArrowDown the last (afternoon), as from any empty segment.
			if parts["pm"] == "true" {
				press("Backspace", "ArrowDown")
			} else {
				press("Backspace", "ArrowUp")
			}
		case f == "hour" && twelve:
			press(digits(parts["hour12"])...)
		default:
			press(digits(parts[f])...)
		}
	}
	return steps, nil
}

// fieldPseudo are the segments of a date or time field, by the pseudo
// element names the browser gives them in the input's own shadow tree.
var fieldPseudo = map[string]string{
	"-webkit-datetime-edit-year-field": "year", "-webkit-datetime-edit-month-field": "month", "-webkit-datetime-edit-day-field": "day",
	"-webkit-datetime-edit-week-field": "week", "-webkit-datetime-edit-hour-field": "hour", "-webkit-datetime-edit-minute-field": "minute",
	"-webkit-datetime-edit-second-field": "second", "-webkit-datetime-edit-ampm-field": "dayPeriod",
}

// maxFieldNodes bounds the walk of an input's shadow tree (about 30 nodes
// for a datetime-local field with seconds).
const maxFieldNodes = 256

// fieldSegments reads the segments of the date or time field of ct in the
// order it shows them, from the field itself: the browser's own
// (user-agent) shadow tree of the input, which no page script can read,
// holds one element per segment, laid out in the browser's locale, which
// navigator.language (an Accept-Language of the page's) need not be. Nil
// when it cannot be read: the page's plan is used then, and the check
// after the keys catches a wrong order.
func (s *Session) fieldSegments(octx context.Context, ct collect.Target) []string {
	const group = "veetbrowser-typed"
	target, world := s.tab.Target(), s.tab.World()
	if s.act != nil {
		target, world = s.act.target, s.act.world
	}
	if world == "" {
		return nil
	}
	defer s.tab.Release(octx, target, group)
	res, err := cdp.Call(octx, target, runtime.Evaluate, runtime.EvaluateParams{Expression: collect.Node(ct), UniqueContextID: world, ObjectGroup: group})
	if err != nil || res.ExceptionDetails != nil || res.Result.ObjectID == "" {
		return nil
	}
	depth, pierce := int64(-1), true
	n, err := cdp.Call(octx, target, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: res.Result.ObjectID, Depth: &depth, Pierce: &pierce})
	if err != nil || n.Node == nil {
		return nil
	}
	var out []string
	visited := 0
	var walk func(*cdp.Node)
	walk = func(x *cdp.Node) {
		if visited++; visited > maxFieldNodes {
			return
		}
		for i := 0; i+1 < len(x.Attributes); i += 2 {
			if f, ok := fieldPseudo[x.Attributes[i+1]]; ok && x.Attributes[i] == "pseudo" && len(out) < len(fieldPseudo) {
				out = append(out, f)
			}
		}
		for _, c := range x.ShadowRoots {
			if c.ShadowRootType == cdp.ShadowRootTypeUserAgent {
				walk(c)
			}
		}
		for _, c := range x.Children {
			walk(c)
		}
	}
	walk(n.Node)
	return out
}

func digits(s string) []string {
	out := make([]string, len(s))
	for i := range s {
		out[i] = s[i : i+1]
	}
	return out
}

// typedCheckStep checks, right after the text went in and before any
// Enter submits it, that the field took it. One that did not ends the
// action as not_actionable, its guard disarmed.
func (s *Session) typedCheckStep(octx context.Context, r collect.TypedRequest, kind string) func() error {
	return func() error {
		raw, err := s.eval(octx, collect.TypedCheck(r))
		verdict := collect.TypedChanged
		if err == nil {
			verdict, err = collect.DecodeTypedCheck(raw)
		}
		if err != nil {
			return errcode.Wrap(errcode.ActionUncertain, err, "whether the field took the text could not be checked; observe before trying again")
		}
		var msg string
		switch verdict {
		case collect.TypedMatch:
			return nil
		case collect.TypedCut:
			msg = "the field did not take the whole text: its maximum length cut it"
		case collect.TypedGone:
			msg = "the field left the page or lost the text during the input; observe again"
		default:
			msg = "the field does not hold the text typed: the page changed or rejected it"
			if kind != "" {
				msg = fmt.Sprintf("the %s input does not hold %s after the keystrokes: the page or its locale's field did not take it", kind, errcode.Quote(r.Value))
			}
		}
		s.disarm(octx, false)
		return &refused{errcode.New(errcode.NotActionable, "%s", msg)}
	}
}
