package chromium

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// The hosted sidecar's destination rules (private and loopback addresses
// denied, no --allow-private) hold for a page's subresources too: its
// image, fetch and frame towards a private address are refused before they
// leave the browser, and counted. The page itself stands for a public one:
// the test's checks let its own origin in.
func TestSubresourceToPrivateDestinationRefused(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	l, lerr := net.Listen("tcp", "127.0.0.2:0")
	if lerr != nil {
		t.Skipf("no second loopback address: %v", lerr)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	private := srv.URL
	base := browsertest.Serve(t, fmt.Sprintf(`<title>Status</title><main><h1>Service status</h1>
<img src="%[1]s/internal/graph.png" alt="graph"><iframe src="%[1]s/admin" title="admin"></iframe>
<p id="s">checking</p></main>
<script>fetch("%[1]s/metrics").then(() => s.textContent = "reached", () => s.textContent = "refused");</script>`, private))
	dest := policy.Destinations{DenyPrivate: true}
	check := func(ctx context.Context, u *url.URL) error {
		if u.Scheme+"://"+u.Host+"/" == base {
			return nil
		}
		return dest.Check(ctx, u)
	}
	s := openTabsAt(t, browser.SessionOptions{Reading: true, Frames: true, Interactions: true, RealPages: true,
		CheckRequest: check, NoServiceWorkers: true}, base)
	ctx := browsertest.Context(t, time.Minute)
	// openTabsAt's navigation reported the first load: load it again.
	obs, err := s.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	var blocked int // towards the private destination
	count := func(b *observation.Blocked) {
		if b == nil {
			return
		}
		for _, o := range b.Origins {
			if o.Origin == private {
				blocked += o.Count
			}
		}
	}
	count(obs.Blocked)
	for range 50 {
		if blocked >= 3 {
			break
		}
		if obs, err = s.Observe(ctx, observation.Request{}); err != nil {
			t.Fatal(err)
		}
		count(obs.Blocked)
		time.Sleep(100 * time.Millisecond)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the private destination got %d requests", n)
	}
	if blocked != 3 {
		t.Errorf("blocked %d requests, want 3 (image, frame, fetch)", blocked)
	}
}
