package chromium

import (
	"context"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/policy"
)

// BenchmarkWorkerStart: how long a dedicated worker takes from `new
// Worker` to its first message, held until its guard is in (a 1.9.0
// session without the egress proxy) and not held (no request check), the
// two sessions taking turns so that the machine's load falls on each
// alike. Reported as held-ms and free-ms per start, measured in the page.
func BenchmarkWorkerStart(b *testing.B) {
	base := browsertest.ServePages(b, map[string]string{
		"/": `<title>Worker</title><p id="t">waiting</p>
<script>const t0 = performance.now(); new Worker("/w.js").onmessage = () => { t.textContent = String(performance.now() - t0); };</script>`,
		"/w.js": `postMessage(1);`,
	})
	ctx := browsertest.Context(b, 10*time.Minute)
	open := func(opts browser.SessionOptions) *Session {
		bs, err := shared.Get(b).NewSession(ctx, opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { bs.Close(context.Background()) })
		return bs.(*Session)
	}
	held := open(browser.SessionOptions{Reading: true, Interactions: true, RealPages: true,
		CheckRequest: func(context.Context, *url.URL) error { return nil }, RefusedHosts: policy.Destinations{}.HostRules()})
	free := open(browser.SessionOptions{Reading: true, Interactions: true, RealPages: true})
	start := func(s *Session) float64 {
		if _, err := s.Navigate(ctx, base); err != nil {
			b.Fatal(err)
		}
		for range 500 {
			raw, err := s.tab.Evaluate(ctx, `document.getElementById("t").textContent`)
			if err != nil {
				b.Fatal(err)
			}
			v, _ := strconv.Unquote(string(raw))
			if ms, err := strconv.ParseFloat(v, 64); err == nil {
				return ms
			}
			time.Sleep(5 * time.Millisecond)
		}
		b.Fatal("the worker never answered")
		return 0
	}
	var heldMS, freeMS float64
	n := 0
	for b.Loop() {
		heldMS += start(held)
		freeMS += start(free)
		n++
	}
	b.ReportMetric(heldMS/float64(n), "held-ms")
	b.ReportMetric(freeMS/float64(n), "free-ms")
}
