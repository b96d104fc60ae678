package tools

import (
	"bytes"
	"encoding/json"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
)

// Several steps in one browser_act call (tool version 1.9.0,
// docs/actions.md): steps is a list of single actions' arguments, run in
// order under every guard of a single action.

// MaxSteps bounds the steps of one browser_act call.
const MaxSteps = 16

// ActArgs are browser_act's parsed arguments: one action, or from 1.9.0
// its Steps (then Action is zero).
type ActArgs struct {
	Action browser.Action
	Steps  []browser.Action
}

// ParseActArgs parses browser_act's arguments as version v defines them:
// a single action (ParseAct), or from 1.9.0 steps, 1 to MaxSteps of them,
// each parsed as a single action's arguments. steps together with any
// other argument is refused: a call is one action or a list of steps.
func ParseActArgs(v Version, raw json.RawMessage) (ActArgs, error) {
	if !v.RealPages || !hasSteps(raw) {
		a, err := ParseAct(v, raw)
		return ActArgs{Action: a}, err
	}
	var fields map[string]json.RawMessage
	if err := strict(raw, &fields); err != nil {
		return ActArgs{}, err
	}
	if len(fields) != 1 {
		return ActArgs{}, errcode.New(errcode.InvalidArgument, "give steps, or one action's kind and ref, not both")
	}
	var steps []json.RawMessage
	if err := json.Unmarshal(fields["steps"], &steps); err != nil {
		return ActArgs{}, errcode.New(errcode.InvalidArgument, "steps must be an array of actions")
	}
	if len(steps) == 0 || len(steps) > MaxSteps {
		return ActArgs{}, errcode.New(errcode.InvalidArgument, "steps must hold 1 to %d actions; this call has %d", MaxSteps, len(steps))
	}
	out := ActArgs{Steps: make([]browser.Action, len(steps))}
	for i, s := range steps {
		a, err := ParseAct(v, s)
		if err != nil {
			code, msg := errcode.Public(err)
			return ActArgs{}, errcode.Wrap(code, err, "step %d: %s", i+1, msg)
		}
		out.Steps[i] = a
	}
	return out, nil
}

// hasSteps reports whether raw is an object with a steps member; anything
// else is left to ParseAct, whose errors it keeps.
func hasSteps(raw json.RawMessage) bool {
	if len(raw) > MaxArgumentBytes || !bytes.Contains(raw, []byte(`"steps"`)) {
		return false
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(raw, &probe) != nil {
		return false
	}
	_, ok := probe["steps"]
	return ok
}

// stepsNote and stepsSchema are what steps adds to browser_act in 1.9.0.
const (
	stepsNote = "steps (instead of kind and ref): up to 16 actions run in order with one observation at the end; the " +
		"first refused step stops the rest, and \"stopped\" says which and why."
	stepsSchema = `"steps":{"type":"array","minItems":1,"maxItems":16,"items":{"type":"object"},"description":"actions in order, each with one action's arguments"}`
)
