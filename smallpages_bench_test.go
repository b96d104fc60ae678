package veetbrowser

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/internal/benchpages"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/pages"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/tools"
)

// BenchmarkObserveSmallPages observes each small page of package
// benchpages (each well under 1,000 nodes) through the library,
// as an agent gets it (the collector, the projection at 8 KiB and the
// record in the default store), in a 1.10.0 and a 1.8.0 session: ms/op,
// the median in ms and allocs/op per page and version.
func BenchmarkObserveSmallPages(b *testing.B) {
	urls := benchpages.ServeSmall(b)
	ctx := browsertest.Context(b, 10*time.Minute)
	for _, version := range []string{"1.10.0", "1.8.0"} {
		for _, page := range benchpages.Small {
			b.Run(version+"/"+page, func(b *testing.B) {
				s := session(b, SessionOptions{Version: version, Budget: 8192})
				navigateView(b, ctx, s, urls[page])
				observeTimed(b, ctx, s)
			})
		}
	}
}

// BenchmarkObserveLargePages is BenchmarkObserveSmallPages on large
// pages, where the bounds set the cost: 12,000 buttons, 300,000 buttons,
// and the generated long article (3,000 paragraphs, 800 links).
func BenchmarkObserveLargePages(b *testing.B) {
	urls := map[string]string{
		"controls-12000":  browsertest.Serve(b, browsertest.Repeat(12000, "<button>Item %d</button>\n")),
		"controls-300000": browsertest.Serve(b, browsertest.Repeat(300000, "<button>Item %d</button>\n")),
		"article":         browsertest.Serve(b, pages.NewArticle(pages.ArticleOptions{Paragraphs: 3000, NavLinks: 800}).HTML),
	}
	ctx := browsertest.Context(b, 20*time.Minute)
	for _, version := range []string{"1.10.0", "1.8.0"} {
		for _, page := range []string{"controls-12000", "controls-300000", "article"} {
			b.Run(version+"/"+page, func(b *testing.B) {
				s := session(b, SessionOptions{Version: version, Budget: 8192})
				navigateView(b, ctx, s, urls[page])
				observeTimed(b, ctx, s)
			})
		}
	}
}

// observeTimed observes s b.N times and reports the median, and the CPU
// time this process (not the browser) spent per observe.
func observeTimed(b *testing.B, ctx context.Context, s *Session) {
	b.ReportAllocs()
	var took []time.Duration
	b.ResetTimer()
	cpu := processCPU(b)
	for b.Loop() {
		start := time.Now()
		if _, err := s.Call(ctx, tools.Observe, json.RawMessage(`{}`)); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	cpu = processCPU(b) - cpu
	// The median, which a loaded machine's spikes move least.
	b.ReportMetric(float64(median(took).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(took)), "go-cpu-ms/op")
}

// processCPU is the user and system CPU time of this process so far: its
// goroutines and the garbage collector's, without the browser's.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// median is the middle of d, which it sorts.
func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

// BenchmarkObserveSplit times the three parts of an observe on each small
// page at 1.10.0, as Session.observe runs them one after another: the
// collection (the page's observation), the projection (the view) and the
// record (its encoding and the default SQLite store's durable write), the
// median of each in ms.
func BenchmarkObserveSplit(b *testing.B) {
	urls := benchpages.ServeSmall(b)
	ctx := browsertest.Context(b, 10*time.Minute)
	for _, page := range benchpages.Small {
		b.Run(page, func(b *testing.B) {
			s := session(b, SessionOptions{Version: "1.10.0", Budget: 8192})
			navigateView(b, ctx, s, urls[page])
			var collect, project, record []time.Duration
			for b.Loop() {
				start := time.Now()
				rec := s.read(tools.Observe, tools.ObserveArgs{})
				obs, err := s.page.Observe(ctx, observation.Request{})
				if err != nil {
					b.Fatal(err)
				}
				collected := time.Now()
				res, err := s.project(obs, nil, ObserveOptions{})
				if err != nil {
					b.Fatal(err)
				}
				projected := time.Now()
				if _, err := rec.finish(ctx, res, nil); err != nil {
					b.Fatal(err)
				}
				collect = append(collect, collected.Sub(start))
				project = append(project, projected.Sub(collected))
				record = append(record, time.Since(projected))
			}
			b.ReportMetric(float64(median(collect).Microseconds())/1000, "collect-ms")
			b.ReportMetric(float64(median(project).Microseconds())/1000, "project-ms")
			b.ReportMetric(float64(median(record).Microseconds())/1000, "record-ms")
		})
	}
}

// BenchmarkObserveAfterNavigate times the first observes after each
// navigation to a small page at 1.10.0, the pattern of an agent and of the
// side-by-side benchmark (internal/peerbench): the median of the 1st to
// the 6th observe after the navigate's own view, in ms. The first ones cost
// more than the steady state BenchmarkObserveSmallPages measures.
func BenchmarkObserveAfterNavigate(b *testing.B) {
	urls := benchpages.ServeSmall(b)
	ctx := browsertest.Context(b, 10*time.Minute)
	for _, page := range benchpages.Small {
		b.Run(page, func(b *testing.B) {
			s := session(b, SessionOptions{Version: "1.10.0", Budget: 8192})
			const n = 6
			var took [n][]time.Duration
			for b.Loop() {
				navigateView(b, ctx, s, urls[page])
				for i := range n {
					start := time.Now()
					if _, err := s.Call(ctx, tools.Observe, json.RawMessage(`{}`)); err != nil {
						b.Fatal(err)
					}
					took[i] = append(took[i], time.Since(start))
				}
			}
			for i := range n {
				b.ReportMetric(float64(median(took[i]).Microseconds())/1000, fmt.Sprintf("obs%d-ms", i+1))
			}
		})
	}
}
