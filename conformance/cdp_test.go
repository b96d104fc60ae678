package conformance

import (
	"context"
	"testing"

	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// TestCDP runs the suite on the local runtime attached over CDP to a
// browser that runs on its own, as one of a fleet would.
func TestCDP(t *testing.T) {
	t.Parallel()
	ws, _ := browsertest.DevTools(t)
	b, err := chromium.Attach(context.Background(), ws, chromium.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(context.Background()); err != nil {
			t.Errorf("closing the connection: %v", err)
		}
	})
	Run(t, runtimeProvider(t, "cdp", b))
}
