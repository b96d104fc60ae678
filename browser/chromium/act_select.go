package chromium

import (
	"context"

	"github.com/chromedp/cdproto/cdp"

	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/keys"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// Choosing an option. Trusted keys on the focused select choose it: the
// page plans them, the keyboard guard watches them (dispatch), and the
// choice is verified afterwards.

// selectSteps are the key events that choose option in its select, as the
// page plans them.
func (s *Session) selectSteps(octx context.Context, tgt cdp.Session, option collect.OptionRequest) ([]func() error, error) {
	var steps []func() error
	plan, err := collectIn(octx, s.eval, collect.SelectPlan(option), collect.DecodeSelectPlan, "the option could not be looked up")
	if err != nil {
		return nil, err
	}
	switch plan.Error {
	case "":
	case collect.Detached:
		return nil, errcode.New(errcode.StaleReference, "the control is no longer on the page; observe again")
	case collect.Multiple:
		return nil, errcode.New(errcode.NotActionable, "choosing in a multiple-choice list is not supported: the runtime sets choices only with trusted keys, and a multiple list needs modifier clicks")
	case collect.Disabled:
		return nil, errcode.New(errcode.NotActionable, "the option labelled %s is disabled", errcode.Quote(option.Label))
	case collect.TooFar:
		return nil, errcode.New(errcode.NotActionable, "the option labelled %s is more than %d keys away and its label is not unique to type; the runtime chooses only with trusted keys", errcode.Quote(option.Label), observation.MaxSelectKeys)
	case collect.NotSelect:
		return nil, errcode.New(errcode.NotActionable, "the control is not a list of options")
	default: // collect.NoOption
		return nil, errcode.New(errcode.NotActionable, "no enabled option labelled %s", errcode.Quote(option.Label))
	}
	for _, k := range plan.Keys {
		steps = append(steps, keys.Steps(octx, tgt, k)...)
	}
	for _, r := range plan.Type {
		steps = append(steps, keys.Steps(octx, tgt, string(r))...)
	}
	return steps, nil
}

// selectedStep verifies, after the keys, that option is the one chosen.
// A choice whose change handler navigates was delivered: the check does
// not wait behind that navigation, as the input guard's does not.
func (s *Session) selectedStep(octx context.Context, option collect.OptionRequest) func() error {
	return func() error {
		raw, navigating, err := s.evalUnlessNavigating(octx, collect.SelectedIs(option))
		if navigating {
			return nil
		}
		chosen := false
		if err == nil {
			chosen, err = collect.DecodeSelectedIs(raw)
		}
		if err != nil || !chosen {
			return errcode.New(errcode.ActionUncertain, "the option could not be confirmed as chosen; observe before trying again")
		}
		return nil
	}
}
