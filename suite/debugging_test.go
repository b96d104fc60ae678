package suite

import (
	"context"
	"testing"
	"time"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// TestDebuggingScenario runs the failing-submit scenario alone at both
// budgets (TestSuite runs it with the rest): the server must record the
// refused sign-up, the fixed one, and the report of the console's error
// text, which the page itself never shows.
func TestDebuggingScenario(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, 3*time.Minute)
	for _, budget := range []int{1024, 8192} {
		rt, err := veetbrowser.New(shared.Get(t), veetbrowser.Options{Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rt.Close(context.Background()) })
		report, err := Run(ctx, rt, budget, "debug-failing-submit")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range report.Scenarios {
			t.Logf("budget %d %s %s %5d ms ops %v", budget, r.ID, r.Outcome, r.DurationMS, r.Operations)
			if r.Outcome != "pass" {
				t.Errorf("budget %d %s failed: %s (%s); expected %q, observed %q", budget, r.ID, r.Error, r.Detail, r.Expected, r.Observed)
			}
		}
	}
}
