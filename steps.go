package veetbrowser

import (
	"context"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/tools"
)

// Several steps in one browser_act call (tool version 1.9.0,
// docs/actions.md). Each step is a single action and passes every guard of
// one, in order, against the refs of the revision the call was given: the
// page is not observed between steps, so that revision stays the newest.
// A step's own guards refuse a ref whose node a re-render removed
// (stale_reference) or whose document was replaced (document_changed).
// The first refusal stops the sequence; a step that loads a new document
// ends it too, since no ref of the old document holds in the new one. Each
// step is recorded as a single act is, its intent written before anything
// of it is dispatched; the one observation at the end is recorded as the
// call's view.

// Steps performs the steps in order and observes the page once at the end.
// The result's view lists each dispatched step's outcome (steps) and, when
// a step stopped the sequence, which one and why (stopped). An error means
// no step was dispatched, the page could not be observed afterwards, or
// the call could not be recorded.
func (s *Session) Steps(ctx context.Context, steps []Action) (*Result, error) {
	if !s.version.RealPages {
		return nil, errcode.New(errcode.InvalidArgument, "steps need tool version 1.9.0; this session has %s", s.version.Name)
	}
	if len(steps) == 0 || len(steps) > tools.MaxSteps {
		return nil, errcode.New(errcode.InvalidArgument, "steps must hold 1 to %d actions; this call has %d", tools.MaxSteps, len(steps))
	}
	var out stepsOutcome
	for i, a := range steps {
		res, err := s.step(ctx, a, i, len(steps))
		if err != nil {
			code, msg := errcode.Public(err)
			if len(out.words) == 0 || code == errcode.BrowserUnavailable {
				// Nothing was dispatched, or nothing is left to observe.
				return nil, errcode.Wrap(code, err, "step %d: %s", i+1, msg)
			}
			out.stop = &projection.Stopped{Step: i + 1, Code: string(code), Message: msg}
			break
		}
		out.words = append(out.words, projection.StepWord(outcome(res)))
		if res.NavigationStarted && !res.NavigationCancelled && i+1 < len(steps) {
			out.stop = &projection.Stopped{Step: i + 2, Code: string(errcode.DocumentChanged),
				Message: "the step before loaded a new document, which holds no ref of the old one; this step and those after it were not run"}
			break
		}
	}
	rec := s.read(tools.Act, s.stepsArgs(steps))
	obs, err := s.page.Observe(ctx, observation.Request{})
	if err != nil {
		err = errcode.Wrap(errcode.ActionUncertain, err, "the steps were dispatched but the page could not be observed afterwards; observe again")
		return rec.finish(ctx, nil, err)
	}
	res, err := s.project(obs, nil, ObserveOptions{steps: &out})
	return rec.finish(ctx, res, err)
}

// step performs step i of n as one recorded action with no observation.
func (s *Session) step(ctx context.Context, a Action, i, n int) (*browser.ActResult, error) {
	rec, err := s.intent(ctx, tools.Act, stepRecord{Step: i + 1, Of: n, actRecord: s.actArgs(a)})
	if err != nil {
		return nil, err
	}
	act, err := s.page.Step(ctx, s.carryAction(a), s.authorize(rec)) // a ref a delta kept valid is carried (changes.go)
	var res *Result
	if err == nil {
		res = &Result{Action: act}
	}
	if _, err := rec.finish(ctx, res, err); err != nil {
		return nil, err
	}
	return act, nil
}

// actCall runs browser_act's parsed arguments: one action or its steps.
func (s *Session) actCall(ctx context.Context, a tools.ActArgs) (*Result, error) {
	if a.Steps != nil {
		return s.Steps(ctx, a.Steps)
	}
	return s.Act(ctx, a.Action)
}

// stepsOutcome is what the view of a call with steps adds.
type stepsOutcome struct {
	words []string
	stop  *projection.Stopped
}

// outcomes and stopped are what the view shows: nil for a call without
// steps.
func (o *stepsOutcome) outcomes() []string {
	if o == nil {
		return nil
	}
	return o.words
}

func (o *stepsOutcome) stopped() *projection.Stopped {
	if o == nil {
		return nil
	}
	return o.stop
}

func outcome(a *browser.ActResult) projection.Outcome {
	return projection.Outcome{Dispatched: a.Dispatched, NavigationStarted: a.NavigationStarted,
		NavigationDone: a.NavigationDone, NavigationCancelled: a.NavigationCancelled, DialogOpened: a.DialogOpened}
}

// stepRecord is one step's arguments as recorded: the action's, redacted
// as a single act's are, and where it stands in its call.
type stepRecord struct {
	Step int `json:"step"`
	Of   int `json:"of"`
	actRecord
}

// stepsRecord is a call with steps as recorded with its view.
type stepsRecord struct {
	Steps []actRecord `json:"steps"`
}

func (s *Session) stepsArgs(steps []Action) stepsRecord {
	r := stepsRecord{Steps: make([]actRecord, len(steps))}
	for i, a := range steps {
		r.Steps[i] = s.actArgs(a)
	}
	return r
}
