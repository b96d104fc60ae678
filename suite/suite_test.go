package suite

import (
	"context"
	"testing"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/internal/browsertest"
)

var shared = browsertest.Shared[*chromium.Provider]{Launch: func() (*chromium.Provider, error) {
	return chromium.Launch(context.Background(), chromium.Options{})
}}

func TestMain(m *testing.M) { browsertest.Main(m, &shared) }

// TestSuite runs every scenario at 1 KiB and 8 KiB and fails on any failed
// scenario: the server's record is the judge.
func TestSuite(t *testing.T) {
	for _, budget := range []int{1024, 8192} {
		rt, err := veetbrowser.New(shared.Get(t), veetbrowser.Options{Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		report, err := Run(context.Background(), rt, budget)
		if err != nil {
			t.Fatal(err)
		}
		if len(report.Scenarios) < 12 {
			t.Fatalf("%d scenarios", len(report.Scenarios))
		}
		for _, r := range report.Scenarios {
			t.Logf("budget %d %-22s %s %5d ms ops %v", budget, r.ID, r.Outcome, r.DurationMS, r.Operations)
			if r.Outcome != "pass" {
				t.Errorf("budget %d %s failed: %s (%s); expected %q, observed %q", budget, r.ID, r.Error, r.Detail, r.Expected, r.Observed)
			}
		}
	}
}
