package chromium

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/policy"
)

// BenchmarkRemoteSession: a 1.9.0 session of a browser attached as
// remote, opened, navigated to a page of 50 uncached images and closed,
// behind its keyed egress proxy (on 127.0.0.2: a 407 and the session's
// answer, then every connection through the proxy) and with the guards
// alone, the two taking turns so that the machine's load falls on each
// alike. Reported as egress-ms and guards-ms per round.
func BenchmarkRemoteSession(b *testing.B) {
	base := browsertest.ServeHandler(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if r.URL.Path != "/" {
			w.Header().Set("Content-Type", "image/gif")
			w.Write([]byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"))
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Gallery</title><main><h1>Gallery</h1>`)
		for i := range 50 {
			fmt.Fprintf(w, `<img src="/i%d.gif?%s" alt="">`, i, r.URL.RawQuery)
		}
		fmt.Fprint(w, `</main>`)
	}))
	e, err := ListenEgress("127.0.0.2:0")
	if err != nil {
		b.Skip(err)
	}
	b.Cleanup(func() { e.Close() })
	attach := func(opts Options) *Provider {
		ws, _ := browsertest.DevTools(b)
		p, err := Attach(context.Background(), ws, opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { p.Close(context.Background()) })
		return p
	}
	egress, guards := attach(Options{Remote: true, Egress: e}), attach(Options{Remote: true})
	ctx := browsertest.Context(b, 10*time.Minute)
	round := 0
	run := func(p *Provider) time.Duration {
		round++
		start := time.Now()
		s, err := p.NewSession(ctx, browser.SessionOptions{Reading: true, Interactions: true, RealPages: true,
			CheckRequest: policy.Destinations{}.Check, RefusedHosts: policy.Destinations{}.HostRules()})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Navigate(ctx, fmt.Sprintf("%s?r=%d", base, round)); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(ctx); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var egressT, guardsT time.Duration
	n := 0
	for b.Loop() {
		egressT += run(egress)
		guardsT += run(guards)
		n++
	}
	b.ReportMetric(float64(egressT.Milliseconds())/float64(n), "egress-ms")
	b.ReportMetric(float64(guardsT.Milliseconds())/float64(n), "guards-ms")
}
