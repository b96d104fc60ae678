package suite

import (
	"context"
	"testing"
	"time"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// TestScrollScenarios runs the scroll container scenarios alone at both
// budgets (TestSuite runs them with the rest): the server must record the
// vote on the eighth post and the archived ninth mail.
func TestScrollScenarios(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, 3*time.Minute)
	for _, budget := range []int{1024, 8192} {
		rt, err := veetbrowser.New(shared.Get(t), veetbrowser.Options{Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rt.Close(context.Background()) })
		report, err := Run(ctx, rt, budget, "scroll-feed", "scroll-inbox")
		if err != nil {
			t.Fatal(err)
		}
		if len(report.Scenarios) != 2 {
			t.Fatalf("%d scenarios", len(report.Scenarios))
		}
		for _, r := range report.Scenarios {
			t.Logf("budget %d %-14s %s %5d ms ops %v", budget, r.ID, r.Outcome, r.DurationMS, r.Operations)
			if r.Outcome != "pass" {
				t.Errorf("budget %d %s failed: %s (%s); expected %q, observed %q", budget, r.ID, r.Error, r.Detail, r.Expected, r.Observed)
			}
		}
	}
}
