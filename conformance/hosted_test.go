package conformance

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/sidecar/sidecartest"
)

// TestHosted runs the suite on sessions hosted by a real sidecar on
// loopback, over HTTP: each session leases a profile of its own. The
// sidecar's leases share one launched browser (a tab each), so that the
// suite's parallel scenarios do not start a browser each.
func TestHosted(t *testing.T) {
	t.Parallel()
	b, err := chromium.Launch(context.Background(), chromium.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close(context.Background()) })
	sc := sidecartest.Start(t, &browsertest.Tabs{Browser: b}, 64)
	var profiles atomic.Int64
	Run(t, Provider{Name: "hosted", Open: func(t *testing.T, opts veetbrowser.SessionOptions) veetbrowser.Caller {
		return sc.Open(t, fmt.Sprintf("p%d", profiles.Add(1)), opts)
	}})
}
