package suite

import (
	"context"
	"fmt"
	"slices"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/tools"
)

// Scenarios of several steps in one browser_act call (tool version 1.9.0,
// docs/actions.md): the agent fills a form with as few calls as the views
// it gets allow.

func stepsScenarios() []scenario {
	return []scenario{
		{
			// A shop's checkout: five fields of five kinds, then the
			// submit, which needs the user's approval.
			id: "checkout-steps",
			pages: map[string]func() string{"": static(`<title>Checkout · Lumen Home</title>
<header><nav aria-label="Shop"><a href="#">Home</a> · <a href="#">Deals</a></nav></header>
<main><h1>Shipping details</h1>
<form method="post" action="placed" aria-label="Shipping">
<label>Full name <input name="name"></label>
<label>Email <input name="email" type="email"></label>
<label>Country <select name="country"><option>Austria</option><option>Germany</option></select></label>
<label><input name="gift" type="checkbox"> Gift wrap</label>
<label>Delivery date <input name="date" type="date"></label>
<button>Place order</button></form></main>
<aside><h2>Order summary</h2><p>Walnut desk lamp × 1 — €89.00</p></aside>
<footer><p>© Lumen Home · <a href="#">Privacy</a></p></footer>`)},
			expected: []string{"post:country=Germany&date=2026-12-24&email=ada@example.test&gift=on&name=Ada Lovelace"},
			approve:  []string{"Place order"},
			run: func(ctx context.Context, a *agent, _ string) error {
				return a.steps(ctx, []step{
					{"Full name", map[string]any{"kind": "type", "text": "Ada Lovelace"}},
					{"Email", map[string]any{"kind": "type", "text": "ada@example.test"}},
					{"Country", map[string]any{"kind": "select", "option": "Germany"}},
					{"Gift wrap", map[string]any{"kind": "check"}},
					{"Delivery date", map[string]any{"kind": "type", "text": "2026-12-24"}},
					{"Place order", map[string]any{"kind": "click"}},
				})
			},
		},
	}
}

// step is one action on the control of a name.
type step struct {
	name string
	args map[string]any
}

// steps performs the steps in order, as few calls as the views allow: from
// the view that shows the next step's control, every following step whose
// control that same view shows goes into one browser_act call (a step's
// ref must be of the revision the call is given). A call that stopped
// early is looked at again from the step that stopped it.
func (a *agent) steps(ctx context.Context, todo []step) error {
	for tries := 0; len(todo) > 0; tries++ {
		if tries == 2*tools.MaxSteps {
			return fmt.Errorf("%d steps still to do", len(todo))
		}
		if _, err := a.find(ctx, todo[0].name); err != nil {
			return err
		}
		var batch []map[string]any
		for _, s := range todo[:min(len(todo), tools.MaxSteps)] {
			i := slices.IndexFunc(a.view.Controls, func(c projection.Control) bool { return c.Name == s.name })
			if i < 0 {
				break
			}
			args := map[string]any{"ref": a.view.Controls[i].Ref}
			for k, v := range s.args {
				args[k] = v
			}
			batch = append(batch, args)
		}
		v, err := a.call(ctx, tools.Act, map[string]any{"steps": batch})
		switch c := errcode.Of(err); {
		case err == nil:
			todo = todo[len(v.Steps):]
			if v.Stopped != nil && v.Stopped.Code != string(errcode.StaleReference) && v.Stopped.Code != string(errcode.DocumentChanged) {
				return fmt.Errorf("step %d stopped: %s", v.Stopped.Step, v.Stopped.Message)
			}
		case c != errcode.StaleReference && c != errcode.NotActionable:
			return err
		}
	}
	return nil
}
