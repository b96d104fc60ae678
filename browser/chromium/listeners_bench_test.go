package chromium

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/pages"
	"github.com/veetbot/veetbrowser/observation"
)

// largePages are the large benchmark pages: 12,000 and 300,000 buttons,
// the long article, and a feed of 4,000 listener spans.
var largePages = map[string]func() string{
	"buttons-12000":  func() string { return buttons(12000, "") },
	"buttons-300000": func() string { return buttons(300000, "") },
	"article":        func() string { return pages.NewArticle(pages.ArticleOptions{Paragraphs: 3000, NavLinks: 800}).HTML },
	"spans-4000":     func() string { return spansPage(4000) },
}

// BenchmarkMarkListeners times the listener marking alone (what every
// observation and find of a 1.9.0 session pays before its scan) on pages
// of each size, the page unchanged between calls, with the marks kept
// (1.10.0) and listed every time (1.9.0). cpu-ms is the CPU time of the
// test process and the browser's, which a loaded machine moves less than
// the wall time.
func BenchmarkMarkListeners(b *testing.B) {
	sizes := map[string]func() string{}
	for _, n := range []int{1000, 4000, 12000, 50000} {
		sizes[fmt.Sprintf("buttons-%d", n)] = func() string { return buttons(n, "") }
	}
	for name, page := range largePages {
		sizes[name] = page
	}
	for _, name := range []string{"buttons-1000", "buttons-4000", "buttons-12000", "buttons-50000", "buttons-300000", "spans-4000", "article"} {
		for _, kept := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/kept=%v", name, kept), func(b *testing.B) {
				s, _ := openKept(b, browsertest.Serve(b, sizes[name]()), kept)
				ctx := context.Background()
				timed(b, func() error {
					m, err := s.tab.MarkListeners(ctx, observation.WindowSize, kept)
					if err == nil {
						m.Released()
					}
					return err
				})
			})
		}
	}
}

// BenchmarkObserveLarge observes the large pages as tool versions 1.8.0
// (no pointer targets), 1.9.0 (listeners listed on every observation) and
// 1.10.0 (kept) do, one after the other under the same load.
func BenchmarkObserveLarge(b *testing.B) {
	for _, name := range []string{"buttons-12000", "buttons-300000", "article", "spans-4000"} {
		url := browsertest.Serve(b, largePages[name]())
		for _, v := range []struct {
			name       string
			real, kept bool
		}{{"1.8.0", false, false}, {"1.9.0", true, false}, {"1.10.0", true, true}} {
			b.Run(name+"/"+v.name, func(b *testing.B) {
				var s *Session
				if v.real {
					s, _ = openKept(b, url, v.kept)
				} else {
					s, _ = openReal(b, url, false)
				}
				ctx := context.Background()
				timed(b, func() error {
					_, err := s.Observe(ctx, observation.Request{})
					return err
				})
			})
		}
	}
}

// timed runs f b.N times and reports the median wall time and the CPU
// time per call.
func timed(b *testing.B, f func() error) {
	var took []time.Duration
	cpu := processCPU()
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/1000/float64(len(took)), "cpu-ms/op")
}

// processCPU is the CPU time (user and system) of this process and all
// its descendants that are alive: the browser and its renderers.
func processCPU() time.Duration {
	self := os.Getpid()
	parent := map[int]int{}
	ticks := map[int]int64{}
	paths, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(raw)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:]) // state ppid … utime(12) stime(13)
		if len(f) < 13 {
			continue
		}
		pid, _ := strconv.Atoi(strings.Fields(s)[0])
		ppid, _ := strconv.Atoi(f[1])
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		parent[pid], ticks[pid] = ppid, ut+st
	}
	var sum int64
	for pid, t := range ticks {
		for p := pid; p > 1; p = parent[p] {
			if p == self {
				sum += t
				break
			}
		}
	}
	return time.Duration(sum) * 10 * time.Millisecond // USER_HZ is 100
}
