package veetbrowser

import (
	"context"
	"encoding/json"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/tools"
)

// Action is one guarded action for Session.Act: Kind says what it does, Ref
// names the control from a model view, and the other fields apply to some
// kinds only (see browser.Action). It is an alias, so that the runtime and
// every browser share one definition.
type Action = browser.Action

// ActionKind names what an Action does; its values are browser_act's kind
// strings.
type ActionKind = browser.ActionKind

// Action kinds.
const (
	Click   ActionKind = browser.ActClick   // click the control
	Type    ActionKind = browser.ActType    // insert Text into an editable control; Submit presses Enter after it
	Press   ActionKind = browser.ActPress   // press Key on the focused control
	Select  ActionKind = browser.ActSelect  // choose the Option with this visible label
	Check   ActionKind = browser.ActCheck   // make a checkbox checked; nothing is dispatched if it already is
	Uncheck ActionKind = browser.ActUncheck // make a checkbox unchecked
	Dialog  ActionKind = browser.ActDialog  // answer the open dialog: Accept, with Text for a prompt
	// Tool version 1.8.0.
	Hover  ActionKind = browser.ActHover  // move the pointer over the control: menus that open on hover
	Scroll ActionKind = browser.ActScroll // scroll the page by Viewports (0: one, negative: up), or the container under Ref
	Drag   ActionKind = browser.ActDrag   // drag the control onto the control of To
)

// HistoryStep is what Session.History does to the active tab; its values
// are browser_navigate's history strings.
type HistoryStep = browser.HistoryStep

// History steps.
const (
	Back    HistoryStep = browser.HistoryBack    // go back one entry
	Forward HistoryStep = browser.HistoryForward // go forward one entry
	Reload  HistoryStep = browser.HistoryReload  // load the current entry again
)

// WaitOptions say what Session.Wait waits for: exactly one condition,
// within Timeout (1 ms to browser.MaxWait).
type WaitOptions struct {
	// Text: the page's readable text holds every word of it (as Find
	// matches), never a value, hidden text or editable content.
	Text string
	// RefGone: the control of this ref (of the newest revision) is no
	// longer on the page or no longer visible.
	RefGone string
	// NetworkIdle: no request of the tab in flight for
	// browser.NetworkIdleQuiet.
	NetworkIdle bool
	Timeout     time.Duration
}

func (o WaitOptions) request() browser.WaitRequest {
	return browser.WaitRequest{Text: o.Text, RefGone: o.RefGone, NetworkIdle: o.NetworkIdle, Timeout: o.Timeout}
}

// ScreenshotOptions say what Session.Screenshot captures: the viewport by
// default, the control of Ref, or with FullPage the whole document.
type ScreenshotOptions struct {
	Ref      string
	FullPage bool
}

// TabsAction is what Session.Tabs does; its values are browser_tabs'
// action strings.
type TabsAction = browser.TabsAction

// Tab actions.
const (
	ListTabs  TabsAction = browser.TabsList   // list the tabs
	SelectTab TabsAction = browser.TabsSelect // make the tab of TabsOptions.Tab active
	CloseTab  TabsAction = browser.TabsClose  // close the tab of TabsOptions.Tab
)

// TabsOptions are one Session.Tabs call: the action, and for select and
// close the id of one of the session's tabs.
type TabsOptions struct {
	Action TabsAction
	Tab    string
}

// ObserveOptions say where Session.Observe continues. The zero value
// observes the page from the top.
type ObserveOptions struct {
	// After continues after this ref, Cursor at this cursor: pass the
	// After or Cursor of the previous view's next, at most one of them.
	// Tool versions 1.2.0 and later.
	After  string
	Cursor string
	// ElementOffset and TextOffset are where the element list and the text
	// (in Unicode characters) start in the fresh observation. Tool version
	// 1.1.0 only; 0 is the start.
	ElementOffset int
	TextOffset    int
	// Focus "main" (tool version 1.9.0) reads the main content first.
	Focus string
	// Changes (tool version 1.9.0): the view shows only what changed since
	// the previous view, when a delta may stand for it (docs/changes.md).
	Changes bool

	steps *stepsOutcome // a browser_act call's steps, for its view
}

// The tools package parses browser_observe's JSON arguments into its own
// wire type, whose pointer offsets tell an absent offset from 0 on the wire.
// These two functions are the one place the two forms meet.

// wire is o as browser_observe's arguments: an offset of 0 is left out.
func (o ObserveOptions) wire() tools.ObserveArgs {
	a := tools.ObserveArgs{After: o.After, Cursor: o.Cursor, Focus: o.Focus, Changes: o.Changes}
	if o.ElementOffset != 0 {
		a.ElementOffset = &o.ElementOffset
	}
	if o.TextOffset != 0 {
		a.TextOffset = &o.TextOffset
	}
	return a
}

// observeOptions are the options parsed browser_observe arguments ask for.
func observeOptions(a tools.ObserveArgs) ObserveOptions {
	o := ObserveOptions{After: a.After, Cursor: a.Cursor, Focus: a.Focus, Changes: a.Changes}
	if a.ElementOffset != nil {
		o.ElementOffset = *a.ElementOffset
	}
	if a.TextOffset != nil {
		o.TextOffset = *a.TextOffset
	}
	return o
}

// DecodeView decodes the model view into v, usually a *projection.View.
// View itself stays the exact bytes the model is given, so that a surface
// passes them on unchanged; this is for a Go program that reads them. A v
// the view does not decode into is invalid_argument.
func (r *Result) DecodeView(v any) error {
	if err := json.Unmarshal(r.View, v); err != nil {
		return errcode.Wrap(errcode.InvalidArgument, err, "the model view does not decode into %T", v)
	}
	return nil
}

// toolArgs are a tool's arguments as its parser returned them.
type toolArgs[A any] struct {
	args A
	err  error
}

func parsed[A any](args A, err error) toolArgs[A] { return toolArgs[A]{args, err} }

// run runs tool on the arguments, unless they did not parse.
func (a toolArgs[A]) run(ctx context.Context, tool func(context.Context, A) (*Result, error)) (*Result, error) {
	if a.err != nil {
		return nil, a.err
	}
	return tool(ctx, a.args)
}
