package suite

import (
	"context"
	"testing"
	"time"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// TestStepsScenario runs the checkout-steps scenario alone at both budgets
// (TestSuite runs it with the rest): the server must record the whole
// order, posted once, and at 8 KiB the agent fills and submits it in one
// browser_act call.
func TestStepsScenario(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, 3*time.Minute)
	for _, budget := range []int{1024, 8192} {
		rt, err := veetbrowser.New(shared.Get(t), veetbrowser.Options{Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rt.Close(context.Background()) })
		report, err := Run(ctx, rt, budget, "checkout-steps")
		if err != nil {
			t.Fatal(err)
		}
		r := report.Scenarios[0]
		t.Logf("budget %d %s %s %5d ms ops %v", budget, r.ID, r.Outcome, r.DurationMS, r.Operations)
		if r.Outcome != "pass" {
			t.Errorf("budget %d failed: %s (%s); expected %q, observed %q", budget, r.Error, r.Detail, r.Expected, r.Observed)
		}
		if budget == 8192 && r.Operations["act"] != 1 {
			t.Errorf("at 8 KiB the agent acted in %d calls", r.Operations["act"])
		}
	}
}
