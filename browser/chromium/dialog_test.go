package chromium

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// Accepting a dialog is judged on its whole message, as a control on its
// whole name: words past what the observation shows (MaxDialogMessage)
// count, up to policy.MaxFactName units, cut and flagged one past it.
func TestDialogFactsAreTheWholeMessage(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	for _, c := range []struct {
		units int // of the message
		cut   bool
	}{{policy.MaxFactName, false}, {policy.MaxFactName + 1, true}} {
		const tail = " Delete everything?"
		msg := fmt.Sprintf(`'x'.repeat(%d) + '%s'`, c.units-len(tail), tail)
		s, obs := openPage(t, `<button onclick="confirm(`+msg+`)">Ask</button>`)
		if _, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Ask").Ref}, allowAll); err != nil {
			t.Fatal(err)
		}
		var judged policy.Facts
		judge := func(ctx context.Context, _ string, f policy.Facts) (policy.Permit, error) {
			judged = f
			return policy.Authorize(ctx, f, nil, nil)
		}
		_, err := s.Act(ctx, browser.Action{Kind: browser.ActDialog, Accept: true}, judge)
		n := observation.UTF16Len(judged.Name)
		if c.cut {
			// The consequential words were cut away with the rest.
			if n != policy.MaxFactName || !judged.NameCut {
				t.Fatalf("%d units: facts keep %d (cut %v)", c.units, n, judged.NameCut)
			}
			continue
		}
		wantCode(t, err, errcode.ApprovalRequired)
		if n != c.units || judged.NameCut {
			t.Fatalf("%d units: facts keep %d (cut %v)", c.units, n, judged.NameCut)
		}
	}
}
