package chromium

import (
	"context"
	"fmt"
	"strings"
	"testing"

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
