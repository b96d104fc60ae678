package tools

import (
	"encoding/json"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// browser_act's arguments by version. Tool version 1.9.0 adds
// (docs/realpages.md) several options of a multiple-choice list, double
// click, context click and text selection.

// actBefore18 is browser_act's arguments before 1.8.0, which has no to or
// viewports.
type actBefore18 struct {
	Kind   browser.ActionKind `json:"kind"`
	Ref    string             `json:"ref,omitempty"`
	Text   string             `json:"text,omitempty"`
	Submit bool               `json:"submit,omitempty"`
	Key    string             `json:"key,omitempty"`
	Option string             `json:"option,omitempty"`
	Accept bool               `json:"accept,omitempty"`
}

// ParseAct parses browser_act's arguments strictly, as version v defines
// them.
func ParseAct(v Version, raw json.RawMessage) (browser.Action, error) {
	var a browser.Action
	if v.RealPages {
		if err := strict(raw, &a); err != nil {
			return a, err
		}
		if err := checkRealPagesAct(a); err != nil {
			return a, err
		}
	} else if v.Interactions {
		var old actBefore19
		if err := strict(raw, &old); err != nil {
			return a, err
		}
		a = old.action()
	} else {
		var old actBefore18
		if err := strict(raw, &old); err != nil {
			return a, err
		}
		a = browser.Action{Kind: old.Kind, Ref: old.Ref, Text: old.Text, Submit: old.Submit, Key: old.Key, Option: old.Option, Accept: old.Accept}
	}
	if a.Kind == "" {
		return a, errcode.New(errcode.InvalidArgument, "kind is required")
	}
	switch a.Kind {
	case browser.ActHover, browser.ActScroll, browser.ActDrag:
		if !v.Interactions {
			return a, errcode.New(errcode.InvalidArgument, "unknown action kind %s (click, type, press, select, check, uncheck, dialog)", errcode.Quote(string(a.Kind)))
		}
	}
	if a.Kind != browser.ActDialog && a.Kind != browser.ActScroll && a.Ref == "" {
		return a, errcode.New(errcode.InvalidArgument, "ref is required for %s", errcode.Quote(string(a.Kind)))
	}
	if a.Kind == browser.ActDrag && a.To == "" {
		return a, errcode.New(errcode.InvalidArgument, "drag needs to: the ref of the control to drop on")
	}
	if a.To != "" && a.Kind != browser.ActDrag || a.Viewports != 0 && a.Kind != browser.ActScroll {
		return a, errcode.New(errcode.InvalidArgument, "to is for drag and viewports for scroll")
	}
	return a, browser.CheckViewports(a.Viewports)
}

// actBefore19 is browser_act's arguments of 1.8.0, which has no options
// or mode. Its fields are browser.Action's up to 1.8.0, in order.
type actBefore19 struct {
	Kind      browser.ActionKind `json:"kind"`
	Ref       string             `json:"ref,omitempty"`
	Text      string             `json:"text,omitempty"`
	Submit    bool               `json:"submit,omitempty"`
	Key       string             `json:"key,omitempty"`
	Option    string             `json:"option,omitempty"`
	Accept    bool               `json:"accept,omitempty"`
	To        string             `json:"to,omitempty"`
	Viewports float64            `json:"viewports,omitempty"`
}

func (o actBefore19) action() browser.Action {
	return browser.Action{Kind: o.Kind, Ref: o.Ref, Text: o.Text, Submit: o.Submit, Key: o.Key, Option: o.Option,
		Accept: o.Accept, To: o.To, Viewports: o.Viewports}
}

// checkRealPagesAct checks the arguments 1.9.0 adds: options and mode are
// for select only, options name 1 to observation.MaxSelectChoices
// distinct, non-empty labels, and option and options are not both given.
func checkRealPagesAct(a browser.Action) error {
	if a.Options == nil && a.Mode == "" {
		return nil
	}
	if a.Kind != browser.ActSelect {
		return errcode.New(errcode.InvalidArgument, "options and mode are for select")
	}
	if a.Option != "" {
		return errcode.New(errcode.InvalidArgument, "give option (one choice) or options (a multiple-choice list), not both")
	}
	switch a.Mode {
	case "", browser.SelectSet, browser.SelectAdd, browser.SelectRemove:
	default:
		return errcode.New(errcode.InvalidArgument, "mode must be set, add or remove")
	}
	if len(a.Options) == 0 || len(a.Options) > observation.MaxSelectChoices {
		return errcode.New(errcode.InvalidArgument, "options must name 1 to %d options", observation.MaxSelectChoices)
	}
	seen := make(map[string]bool, len(a.Options))
	for _, o := range a.Options {
		if o == "" {
			return errcode.New(errcode.InvalidArgument, "an option's label must not be empty")
		}
		if observation.UTF16Len(o) > observation.MaxNameUnits {
			return errcode.New(errcode.InvalidArgument, "an option's label is longer than %d characters", observation.MaxNameUnits)
		}
		if seen[o] {
			return errcode.New(errcode.InvalidArgument, "option %s is named twice", errcode.Quote(o))
		}
		seen[o] = true
	}
	return nil
}

// realPagesAct changes browser_act's description and schema for 1.9.0.
func realPagesAct(all []Tool) {
	for i := range all {
		if all[i].Name != Act {
			continue
		}
		all[i].Description = "Act on a control of the newest observation by its ref: click, dblclick, context_click (the right " +
			"button: the page's own context menu), type (insert text; submit:true presses Enter), press (a key or a chord such as " +
			"Control+A, Control+C, Shift+Tab, Meta+Enter), select (an option by its visible label; in a multiple-choice list, " +
			"options with mode set, add or remove), select_text (select the control's visible text, or the part of it given as " +
			"text, as a mouse drag does: then Control+C copies it), check, uncheck, hover (move the pointer over it: menus that " +
			"open on hover), scroll (the page by viewports, or the container under a ref; content that loads on scroll shows in " +
			"the result), drag (from ref onto the control of to), or dialog (accept or dismiss the open JavaScript dialog; no ref). " +
			"Publishing, sending, buying, paying, deleting, confirming and form submission (also by a chord with Enter) need the " +
			"user's approval. A failed action is never retried: observe and decide again. " + stepsNote + observationNote + tabsNote
		all[i].InputSchema = object(nil,
			`"ref":{"type":"string","description":"ref of a control in the newest observation (optional for scroll)"}`,
			`"kind":{"type":"string","enum":["click","dblclick","context_click","type","press","select","select_text","check","uncheck","hover","scroll","drag","dialog"]}`,
			`"text":{"type":"string","description":"type: the text to insert (a date, time, month, week, number or range input takes its ISO form: 2012-09-10, 14:05, 2012-09, 2012-W37); select_text: the part of the control's text to select (default all); dialog: prompt text"}`,
			`"submit":{"type":"boolean","description":"type: press Enter after the text"}`,
			`"key":{"type":"string","description":"press: a key such as Enter, Tab, Escape, ArrowDown, or one character, with modifiers Control, Shift, Alt, Meta joined by + (Control+A)"}`,
			`"option":{"type":"string","description":"select: the visible label of the option"}`,
			`"options":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":64,"description":"select in a multiple-choice list: the visible labels of the options"}`,
			`"mode":{"type":"string","enum":["set","add","remove"],"description":"select with options: exactly these (set, the default), add them, or remove them"}`,
			`"accept":{"type":"boolean","description":"dialog: accept (true) or dismiss (false)"}`,
			`"to":{"type":"string","description":"drag: ref of the control to drop on"}`,
			`"viewports":{"type":"number","minimum":-10,"maximum":10,"description":"scroll: viewports to move, negative up (default 1)"}`,
			stepsSchema)
	}
}
