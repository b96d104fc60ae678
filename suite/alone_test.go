package suite

import (
	"context"
	"testing"
	"time"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// runAlone runs the scenarios ids alone at 1 KiB and 8 KiB (TestSuite runs
// them with the rest), fails the test for any that does not pass, and
// hands each result to check, if given, for what a scenario's own test
// asserts beyond passing.
func runAlone(t *testing.T, check func(budget int, r Result), ids ...string) {
	t.Helper()
	ctx := browsertest.Context(t, 3*time.Minute)
	for _, budget := range []int{1024, 8192} {
		rt, err := veetbrowser.New(shared.Get(t), veetbrowser.Options{Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rt.Close(context.Background()) })
		report, err := Run(ctx, rt, budget, ids...)
		if err != nil {
			t.Fatal(err)
		}
		if len(report.Scenarios) != len(ids) {
			t.Fatalf("%d scenarios, want %d", len(report.Scenarios), len(ids))
		}
		for _, r := range report.Scenarios {
			t.Logf("budget %d %-14s %s %5d ms ops %v", budget, r.ID, r.Outcome, r.DurationMS, r.Operations)
			if r.Outcome != "pass" {
				t.Errorf("budget %d %s failed: %s (%s); expected %q, observed %q", budget, r.ID, r.Error, r.Detail, r.Expected, r.Observed)
			}
			if check != nil {
				check(budget, r)
			}
		}
	}
}

// TestScrollScenarios: the server must record the vote on the eighth post
// and the archived ninth mail.
func TestScrollScenarios(t *testing.T) {
	t.Parallel()
	runAlone(t, nil, "scroll-feed", "scroll-inbox")
}

// TestStepsScenario: the server must record the whole order, posted once,
// and at 8 KiB the agent fills and submits it in one browser_act call.
func TestStepsScenario(t *testing.T) {
	t.Parallel()
	runAlone(t, func(budget int, r Result) {
		if budget == 8192 && r.Operations["act"] != 1 {
			t.Errorf("at 8 KiB the agent acted in %d calls", r.Operations["act"])
		}
	}, "checkout-steps")
}

// TestDebuggingScenario: the server must record the refused sign-up, the
// fixed one, and the report of the console's error text, which the page
// itself never shows.
func TestDebuggingScenario(t *testing.T) {
	t.Parallel()
	runAlone(t, nil, "debug-failing-submit")
}

// TestDownloadScenario: the agent downloads a 1 MB installer and reports
// the digest its act's view gives, at 1 KiB and 8 KiB.
func TestDownloadScenario(t *testing.T) {
	t.Parallel()
	runAlone(t, nil, "download-checksum")
}
