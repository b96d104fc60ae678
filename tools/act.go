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
	// select_text of 1.9.0 without a ref selects text of the page.
	pageText := v.RealPages && a.Kind == browser.ActSelectText && a.Text != ""
	if a.Kind != browser.ActDialog && a.Kind != browser.ActScroll && a.Ref == "" && !pageText {
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
