package chromium

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/internal/benchpages"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// sizedPage returns a page of about n DOM nodes. With controls, one node in
// ten is a button; without, the page is prose only.
func sizedPage(n int, controls bool) string {
	var b strings.Builder
	for i := 0; i < n/2; i++ {
		if controls && i%5 == 0 {
			fmt.Fprintf(&b, "<button>b%d</button>", i)
		} else {
			b.WriteString("<p>text</p>")
		}
	}
	return b.String()
}

// BenchmarkObserveBySize: the bounds make cost stop growing with page size.
func BenchmarkObserveBySize(b *testing.B) {
	for _, kind := range []string{"mixed", "prose"} {
		for _, n := range []int{1000, 10000, 100000, 1000000} {
			b.Run(fmt.Sprintf("%s/nodes=%d", kind, n), func(b *testing.B) {
				s, _ := openPage(b, sizedPage(n, kind == "mixed"))
				ctx := context.Background()
				b.ResetTimer()
				for b.Loop() {
					if _, err := s.Observe(ctx, observation.Request{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkCDPFloor is one trivial evaluate in the collector's world: the
// round-trip cost every observation pays at least.
func BenchmarkCDPFloor(b *testing.B) {
	s, _ := openPage(b, "<p>x</p>")
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.tab.Evaluate(ctx, "1"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCollectInPage times the collector's call alone, inside the page
// (performance.now around the observe expression, so neither CDP nor Go
// counts), on each small page of package benchpages, in a session as tool
// version 1.10.0 opens it and in one as 1.8.0 does: the median in ms. The
// page's clock is coarse (0.1 ms in an isolated world): compare medians of
// many calls, never one.
func BenchmarkCollectInPage(b *testing.B) {
	urls := benchpages.ServeSmall(b)
	ctx := browsertest.Context(b, 10*time.Minute)
	versions := map[string]browser.SessionOptions{
		"1.10.0": {Reading: true, ReadingBytes: observation.ReadingWindow(8192), Frames: true, Interactions: true, RealPages: true, KeptListeners: true},
		"1.8.0":  {Interactions: true},
	}
	for _, version := range []string{"1.10.0", "1.8.0"} {
		for _, page := range benchpages.Small {
			b.Run(version+"/"+page, func(b *testing.B) {
				s, _ := openOn(b, ctx, versions[version], urls[page])
				// The parameters of a first observation (Session.observe).
				p := collect.Params{Revision: "bench", MaxVisible: observation.MaxControls, Window: observation.WindowSize,
					MaxOffset: observation.MaxOffset, Reading: s.reading, RealPages: s.realPages, Frames: s.frames}
				if s.reading && s.window < observation.TextBytes {
					p.TextBytes = s.window
				}
				expr := "(() => { const t = performance.now(); " + collect.Expression(p) + "; return performance.now() - t; })()"
				var took []float64
				for b.Loop() {
					raw, err := s.tab.Evaluate(ctx, expr)
					if err != nil {
						b.Fatal(err)
					}
					var ms float64
					if err := json.Unmarshal(raw, &ms); err != nil {
						b.Fatal(err)
					}
					took = append(took, ms)
				}
				slices.Sort(took)
				b.ReportMetric(took[len(took)/2], "inpage-ms")
			})
		}
	}
}

// BenchmarkObserveAhead times an observation asked for again with the
// collector's call sent beside the listener marking (Observe) and one
// without (the view an action ends with), alternately on one session, on
// each small page of package benchpages in a session as tool version
// 1.10.0 opens it: the medians in ms of each, and their ratio. Steady
// observes the same document again and again; fresh observes right after
// a navigation to it, as an agent's first look after a navigate does.
func BenchmarkObserveAhead(b *testing.B) {
	urls := benchpages.ServeSmall(b)
	ctx := browsertest.Context(b, 10*time.Minute)
	opts := browser.SessionOptions{Reading: true, ReadingBytes: observation.ReadingWindow(8192), Frames: true, Interactions: true, RealPages: true, KeptListeners: true}
	for _, fresh := range []bool{false, true} {
		for _, page := range benchpages.Small {
			b.Run(fmt.Sprintf("fresh=%v/%s", fresh, page), func(b *testing.B) {
				s, _ := openOn(b, ctx, opts, urls[page])
				var took [2][]time.Duration // without, with the call ahead
				i := 0
				for b.Loop() {
					b.StopTimer()
					if fresh {
						if _, err := s.Navigate(ctx, urls[page]); err != nil {
							b.Fatal(err)
						}
					}
					ahead := i % 2
					i++
					b.StartTimer()
					start := time.Now()
					if err := s.acquire(ctx); err != nil {
						b.Fatal(err)
					}
					_, err := s.observeWith(ctx, observation.Request{}, ahead == 1)
					s.lock.Release(1)
					if err != nil {
						b.Fatal(err)
					}
					took[ahead] = append(took[ahead], time.Since(start))
				}
				if len(took[1]) == 0 {
					return
				}
				var p50 [2]float64
				for m := range took {
					slices.Sort(took[m])
					p50[m] = float64(took[m][len(took[m])/2].Microseconds()) / 1000
				}
				b.ReportMetric(p50[0], "without-p50-ms")
				b.ReportMetric(p50[1], "ahead-p50-ms")
				b.ReportMetric(p50[1]/p50[0], "ahead/without")
			})
		}
	}
}
