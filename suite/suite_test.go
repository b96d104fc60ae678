package suite

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/pgtest"
	"github.com/veetbot/veetbrowser/replay"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
	"github.com/veetbot/veetbrowser/tools"
)

var shared = browsertest.Shared[*chromium.Provider]{Launch: func() (*chromium.Provider, error) {
	return chromium.Launch(context.Background(), chromium.Options{})
}}

func TestMain(m *testing.M) { browsertest.Main(m, &shared, browsertest.Cleanup(pgtest.Stop)) }

// TestSuite runs every scenario at 1 KiB and 8 KiB and fails on any failed
// scenario: the server's record is the judge. Every call is recorded in
// SQLite and in PostgreSQL at once, and every session replays from both,
// byte-identical; the 8 KiB sessions re-projected at 1 KiB fit; a record
// altered in either store is found.
func TestSuite(t *testing.T) {
	ctx := context.Background()
	sqlitePath := filepath.Join(t.TempDir(), "artifacts.db")
	lite, err := storespec.Open(ctx, sqlitePath)
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	dsn := pgtest.Database(t)
	pg, err := storespec.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	both := &tee{a: lite, b: pg, seqs: map[teeKey]int64{}}
	stores := map[string]store.Store{"sqlite": lite, "postgres": pg}

	// The two budgets run side by side on the shared browser, as two
	// agents would: each scenario's server state is its own run's.
	budgets := []int{1024, 8192}
	reports := make([]*Report, len(budgets))
	errs := make([]error, len(budgets))
	runtimes := make([]*veetbrowser.Runtime, len(budgets))
	for i, budget := range budgets { // every runtime before any run: a failure here leaves no run behind
		rt, err := veetbrowser.New(shared.Get(t), veetbrowser.Options{Budget: budget, Store: both})
		if err != nil {
			t.Fatal(err)
		}
		runtimes[i] = rt
	}
	var wg sync.WaitGroup
	for i, budget := range budgets {
		wg.Go(func() { reports[i], errs[i] = Run(ctx, runtimes[i], budget) })
	}
	wg.Wait()

	var large []string // sessions recorded at 8 KiB
	var all []string
	for i, budget := range budgets {
		report, err := reports[i], errs[i]
		if err != nil {
			t.Fatal(err)
		}
		if len(report.Scenarios) != 30 {
			t.Fatalf("%d scenarios", len(report.Scenarios))
		}
		if report.Version != tools.Newest().Name {
			t.Fatalf("report of version %q", report.Version)
		}
		calls, viewBytes := 0, 0
		for _, r := range report.Scenarios {
			t.Logf("budget %d %-22s %s %5d ms %3d calls %7d view bytes ops %v", budget, r.ID, r.Outcome, r.DurationMS, r.Calls, r.ViewBytes, r.Operations)
			ops := 0
			for _, n := range r.Operations {
				ops += n
			}
			// Every call is an operation (errors are counted twice), and
			// each view is within the budget.
			if r.Calls == 0 || r.ViewBytes == 0 || r.Calls > ops || r.ViewBytes > r.Calls*budget {
				t.Errorf("budget %d %s: %d calls and %d view bytes for operations %v", budget, r.ID, r.Calls, r.ViewBytes, r.Operations)
			}
			calls += r.Calls
			viewBytes += r.ViewBytes
			if r.Outcome != "pass" {
				t.Errorf("budget %d %s failed: %s (%s); expected %q, observed %q", budget, r.ID, r.Error, r.Detail, r.Expected, r.Observed)
			}
			if r.Session == "" {
				t.Fatalf("budget %d %s: no recorded session", budget, r.ID)
			}
			all = append(all, r.Session)
			if budget == 8192 {
				large = append(large, r.Session)
			}
		}
		t.Logf("budget %d: %d calls, %d view bytes in all", budget, calls, viewBytes)
	}

	for name, st := range stores {
		views := 0
		for _, id := range all {
			rep, err := replay.Session(ctx, st, id, replay.Options{})
			if err != nil {
				t.Fatalf("%s: replaying %s: %v", name, id, err)
			}
			if !rep.Identical() || len(rep.Views) == 0 {
				t.Errorf("%s: session %s: %d views, first difference %+v", name, id, len(rep.Views), rep.First)
			}
			views += len(rep.Views)
		}
		t.Logf("%s: %d sessions, %d views replayed byte-identical", name, len(all), views)
		for _, id := range large {
			rep, err := replay.Session(ctx, st, id, replay.Options{Budget: 1024})
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range rep.Views {
				if !v.Fits || v.Bytes > 1024 {
					t.Errorf("%s: session %s call %d at 1 KiB: %d bytes, fits %v, %s", name, id, v.Seq, v.Bytes, v.Fits, v.Code)
				}
			}
		}
	}

	// Alter one record in each store: replay finds it.
	target := large[0]
	db, err := sql.Open("sqlite", "file:"+sqlitePath+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE calls SET view_sha256 = zeroblob(32) WHERE session_id = ? AND seq = 1`, target); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE veetbrowser_calls SET observation = replace(observation::text, '"title":"', '"title":"x')::json
		WHERE session_id = $1 AND seq = 1`, target); err != nil {
		t.Fatal(err)
	}
	for name, st := range stores {
		rep, err := replay.Session(ctx, st, target, replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Identical() || rep.First == nil || rep.First.Seq != 1 {
			t.Errorf("%s: an altered record replays as identical: %+v", name, rep.First)
		}
	}
}

// tee records into two stores at once, so that one suite run fills both.
// It reads from the first.
type tee struct {
	a, b store.Store
	mu   sync.Mutex
	seqs map[teeKey]int64 // the first store's intent → the second's
}

type teeKey struct {
	session string
	seq     int64
}

func (t *tee) CreateSession(ctx context.Context, s store.Session) error {
	if err := t.a.CreateSession(ctx, s); err != nil {
		return err
	}
	return t.b.CreateSession(ctx, s)
}

func (t *tee) Intent(ctx context.Context, c store.Call) (int64, error) {
	seq, err := t.a.Intent(ctx, c)
	if err != nil {
		return 0, err
	}
	other, err := t.b.Intent(ctx, c)
	if err != nil {
		return 0, err
	}
	t.mu.Lock()
	t.seqs[teeKey{c.SessionID, seq}] = other
	t.mu.Unlock()
	return seq, nil
}

func (t *tee) Complete(ctx context.Context, id string, seq int64, r store.Result) error {
	if err := t.a.Complete(ctx, id, seq, r); err != nil {
		return err
	}
	t.mu.Lock()
	other := t.seqs[teeKey{id, seq}]
	t.mu.Unlock()
	return t.b.Complete(ctx, id, other, r)
}

func (t *tee) Record(ctx context.Context, c store.Call) (int64, error) {
	seq, err := t.a.Record(ctx, c)
	if err != nil {
		return 0, err
	}
	_, err = t.b.Record(ctx, c)
	return seq, err
}

func (t *tee) Session(ctx context.Context, id string) (store.Session, error) {
	return t.a.Session(ctx, id)
}
func (t *tee) Calls(ctx context.Context, id string, fn func(store.Call) error) error {
	return t.a.Calls(ctx, id, fn)
}
func (t *tee) Sessions(ctx context.Context, o store.ListOptions) ([]store.Summary, error) {
	return t.a.Sessions(ctx, o)
}
func (t *tee) Prune(ctx context.Context, d time.Duration, n int64) (store.Pruned, error) {
	return t.a.Prune(ctx, d, n)
}
func (t *tee) Close() error { return nil }

// Leases are the first store's.
func (t *tee) AcquireLease(ctx context.Context, l store.Lease) (store.Lease, error) {
	return t.a.AcquireLease(ctx, l)
}
func (t *tee) RenewLease(ctx context.Context, id string, exp time.Time) (store.Lease, error) {
	return t.a.RenewLease(ctx, id, exp)
}
func (t *tee) ReleaseLease(ctx context.Context, id string) error { return t.a.ReleaseLease(ctx, id) }
func (t *tee) Lease(ctx context.Context, id string) (store.Lease, error) {
	return t.a.Lease(ctx, id)
}
func (t *tee) ExpiredLeases(ctx context.Context, now time.Time) ([]store.Lease, error) {
	return t.a.ExpiredLeases(ctx, now)
}

func (t *tee) PutBlob(ctx context.Context, b store.Blob) (int64, error) { return t.a.PutBlob(ctx, b) }
func (t *tee) Blobs(ctx context.Context, id string) ([]store.BlobInfo, error) {
	return t.a.Blobs(ctx, id)
}
func (t *tee) Blob(ctx context.Context, id string, n int64) (store.Blob, error) {
	return t.a.Blob(ctx, id, n)
}
