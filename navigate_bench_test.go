package veetbrowser_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/internal/benchpages"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
)

// navStore times each kind of write a call makes: the intent before a
// navigation is dispatched, its completion, and a read's whole record.
type navStore struct {
	store.Store
	mu                       sync.Mutex
	intent, complete, record []time.Duration
}

func (s *navStore) timed(d *[]time.Duration, start time.Time) {
	s.mu.Lock()
	*d = append(*d, time.Since(start))
	s.mu.Unlock()
}

func (s *navStore) Intent(ctx context.Context, c store.Call) (int64, error) {
	defer s.timed(&s.intent, time.Now())
	return s.Store.Intent(ctx, c)
}

func (s *navStore) Complete(ctx context.Context, id string, seq int64, r store.Result) error {
	defer s.timed(&s.complete, time.Now())
	return s.Store.Complete(ctx, id, seq, r)
}

func (s *navStore) Record(ctx context.Context, c store.Call) (int64, error) {
	defer s.timed(&s.record, time.Now())
	return s.Store.Record(ctx, c)
}

// BenchmarkNavigate navigates to a small page and returns its first view,
// recorded in a SQLite store: a plain page, one that reaches it through a
// meta refresh, one through an HTTP Refresh header, and one through a
// script redirect in its load handler. It
// reports the call's median and each store write on its path (the
// navigation's intent and completion).
func BenchmarkNavigate(b *testing.B) {
	base := benchpages.ServeNavigation(b)
	for _, page := range benchpages.Navigation {
		b.Run(page, func(b *testing.B) {
			s, timed := timedSession(b)
			ctx := context.Background()
			var total []time.Duration
			timed.intent, timed.complete = nil, nil
			for b.Loop() {
				start := time.Now()
				res, err := s.Navigate(ctx, base+page)
				if err != nil {
					b.Fatal(err)
				}
				total = append(total, time.Since(start))
				if !strings.HasSuffix(res.Observation.URL, "/plain") {
					b.Fatalf("ended at %s", res.Observation.URL)
				}
			}
			b.ReportMetric(float64(quantile(total, 0.5).Microseconds()), "call-µs")
			b.ReportMetric(float64(quantile(timed.intent, 0.5).Microseconds()), "intent-µs")
			b.ReportMetric(float64(quantile(timed.complete, 0.5).Microseconds()), "complete-µs")
		})
	}
}

// timedSession is a session on the shared browser recording into a fresh
// SQLite store whose writes are timed; both close with b.
func timedSession(b *testing.B) (*veetbrowser.Session, *navStore) {
	st, err := storespec.Open(context.Background(), b.TempDir()+"/artifacts.db")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	timed := &navStore{Store: st}
	rt, err := veetbrowser.New(veetbrowser.SharedProvider(b), veetbrowser.Options{Store: timed})
	if err != nil {
		b.Fatal(err)
	}
	s, err := rt.NewSession(context.Background(), veetbrowser.SessionOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close(context.Background()) })
	return s, timed
}

// BenchmarkCallWrites times the store's writes of an observe (one whole
// record) and of an act (an intent before the click is dispatched, and its
// completion) on the small page, with the SQLite store.
func BenchmarkCallWrites(b *testing.B) {
	base := browsertest.Serve(b, benchpages.Article+
		`<button aria-pressed=false onclick="this.ariaPressed = this.ariaPressed !== 'true'">Like</button>`)
	for _, call := range []string{"observe", "act"} {
		b.Run(call, func(b *testing.B) {
			s, timed := timedSession(b)
			ctx := context.Background()
			res, err := s.Navigate(ctx, base)
			if err != nil {
				b.Fatal(err)
			}
			var total []time.Duration
			timed.intent, timed.complete, timed.record = nil, nil, nil
			for b.Loop() {
				start := time.Now()
				if call == "observe" {
					res, err = s.Observe(ctx, veetbrowser.ObserveOptions{})
				} else {
					res, err = s.Act(ctx, veetbrowser.Action{Kind: veetbrowser.Click, Ref: veetbrowser.RefOf(b, res, "Like")})
				}
				if err != nil {
					b.Fatal(err)
				}
				total = append(total, time.Since(start))
			}
			b.ReportMetric(float64(quantile(total, 0.5).Microseconds()), "call-µs")
			if call == "observe" {
				b.ReportMetric(float64(quantile(timed.record, 0.5).Microseconds()), "record-µs")
				return
			}
			b.ReportMetric(float64(quantile(timed.intent, 0.5).Microseconds()), "intent-µs")
			b.ReportMetric(float64(quantile(timed.complete, 0.5).Microseconds()), "complete-µs")
		})
	}
}
