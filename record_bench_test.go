package veetbrowser_test

import (
	"context"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/demo"
	"github.com/veetbot/veetbrowser/replay"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
)

// timedStore measures how long each Record takes: the cost recording adds
// to an observe.
type timedStore struct {
	store.Store
	mu    sync.Mutex
	spent []time.Duration
}

func (s *timedStore) Record(ctx context.Context, c store.Call) (int64, error) {
	start := time.Now()
	seq, err := s.Store.Record(ctx, c)
	s.mu.Lock()
	s.spent = append(s.spent, time.Since(start))
	s.mu.Unlock()
	return seq, err
}

func quantile(d []time.Duration, q float64) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	return d[int(float64(len(d)-1)*q)]
}

// BenchmarkObserveRecording observes the demo page (a ≈ 60 KB canonical
// observation) and reports what the store's write adds to each observe
// (median and p95, and their ratio to the observe without it), the bytes
// stored per observation, and how fast replay re-derives the views. The
// none store is the baseline of a whole observe that records nothing
// (encoding the record and its digest included in the others).
func BenchmarkObserveRecording(b *testing.B) {
	for _, name := range []string{"none", "sqlite", "postgres"} {
		b.Run(name, func(b *testing.B) {
			var st store.Store
			var size func() int64
			switch name {
			case "none":
				st = store.Discard
				size = func() int64 { return 0 }
			case "sqlite":
				dir := b.TempDir()
				s, err := storespec.Open(context.Background(), dir+"/artifacts.db")
				if err != nil {
					b.Fatal(err)
				}
				st = s
				size = func() int64 {
					var n int64
					for _, p := range []string{"/artifacts.db", "/artifacts.db-wal"} {
						if fi, err := os.Stat(dir + p); err == nil {
							n += fi.Size()
						}
					}
					return n
				}
			case "postgres":
				s, fn := pgBench(b)
				st, size = s, fn
			}
			defer st.Close()
			timed := &timedStore{Store: st}
			rt, err := veetbrowser.New(veetbrowser.SharedProvider(b), veetbrowser.Options{Store: timed})
			if err != nil {
				b.Fatal(err)
			}
			url, stop, err := demo.Serve(&demo.Site{})
			if err != nil {
				b.Fatal(err)
			}
			defer stop()
			ctx := context.Background()
			s, err := rt.NewSession(ctx, veetbrowser.SessionOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close(ctx)
			if _, err := s.Navigate(ctx, url); err != nil {
				b.Fatal(err)
			}
			before := size()
			var total []time.Duration
			timed.spent = nil
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				if _, err := s.Observe(ctx, veetbrowser.ObserveOptions{}); err != nil {
					b.Fatal(err)
				}
				total = append(total, time.Since(start))
			}
			b.StopTimer()
			b.ReportMetric(float64(quantile(total, 0.5).Microseconds()), "call-µs")
			if name == "none" {
				return
			}
			observe := make([]time.Duration, len(total))
			for i := range total {
				observe[i] = total[i] - timed.spent[i]
			}
			med, p95 := quantile(timed.spent, 0.5), quantile(timed.spent, 0.95)
			b.ReportMetric(float64(med.Microseconds()), "record-µs/op")
			b.ReportMetric(float64(p95.Microseconds()), "record-p95-µs")
			b.ReportMetric(float64(quantile(observe, 0.5).Microseconds()), "observe-µs")
			b.ReportMetric(float64(med)/float64(quantile(observe, 0.5)), "record/observe")
			b.ReportMetric(float64(p95)/float64(quantile(observe, 0.5)), "p95-record/observe")
			b.ReportMetric(float64(size()-before)/float64(b.N), "stored-B/obs")

			start := time.Now()
			rep, err := replay.Session(ctx, st, s.ID(), replay.Options{})
			if err != nil || !rep.Identical() {
				b.Fatalf("replay: %v", err)
			}
			b.ReportMetric(float64(len(rep.Views))/time.Since(start).Seconds(), "replay-views/s")
		})
	}
}
