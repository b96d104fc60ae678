package veetbrowser_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/pgtest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/replay"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
	"github.com/veetbot/veetbrowser/tools"
)

// A store under test, and every byte it holds, for the privacy scan.
type testStore struct {
	name string
	open func(t *testing.T) (st store.Store, dump func() []byte)
}

var testStores = []testStore{
	{"sqlite", openSQLite},
	{"postgres", openPostgres},
}

// openSQLite opens a store in a fresh file; dump reads the database, its
// WAL and its shared-memory file.
func openSQLite(t *testing.T) (store.Store, func() []byte) {
	path := filepath.Join(t.TempDir(), "artifacts.db")
	st, err := storespec.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, func() []byte {
		var all []byte
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			b, err := os.ReadFile(p)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			all = append(all, b...)
		}
		return all
	}
}

// openPostgres opens a store in a fresh database; dump selects every row of
// every veetbrowser_ table as text.
func openPostgres(t *testing.T) (store.Store, func() []byte) {
	dsn := pgtest.Database(t)
	ctx := context.Background()
	st, err := storespec.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, func() []byte {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		rows, err := conn.Query(ctx, `SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'veetbrowser\_%'`)
		if err != nil {
			t.Fatal(err)
		}
		tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil || len(tables) < 3 {
			t.Fatalf("tables %q: %v", tables, err)
		}
		var all []byte
		for _, table := range tables {
			rows, err := conn.Query(ctx, fmt.Sprintf(`SELECT t::text FROM %s t`, pgx.Identifier{table}.Sanitize()))
			if err != nil {
				t.Fatal(err)
			}
			texts, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range texts {
				all = append(all, s...)
			}
		}
		return all
	}
}

func newRuntime(t testing.TB, st store.Store) *veetbrowser.Runtime {
	rt, err := veetbrowser.New(veetbrowser.SharedProvider(t), veetbrowser.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	return rt
}

// grantedSession opens a runtime on st and a session of it with opts,
// granted the origin of base (a URL browsertest serves).
func grantedSession(t testing.TB, st store.Store, base string, opts veetbrowser.SessionOptions) (*veetbrowser.Runtime, *veetbrowser.Session) {
	rt := newRuntime(t, st)
	opts.Grant = policy.Grant{Origins: []string{strings.TrimSuffix(base, "/")}}
	return rt, openSession(t, rt, opts)
}

func openSession(t testing.TB, rt *veetbrowser.Runtime, opts veetbrowser.SessionOptions) *veetbrowser.Session {
	s, err := rt.NewSession(browsertest.Context(t, time.Minute), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

// canarySite holds canaries where observations must never take them from
// (input values, a password, hidden text), and counts the clicks and
// publishes that reach its server.
type canarySite struct {
	clicks, publishes atomic.Int64
}

const canaryPage = `<!doctype html><title>Canary form</title>
<h1>Canaries</h1>
<label>Email <input value="CANARY-INPUT"></label>
<label>Password <input type="password" value="CANARY-PASSWORD"></label>
<label>Search <input></label>
<div hidden>CANARY-HIDDEN</div><p style="display:none">CANARY-HIDDEN-STYLE</p>
<div contenteditable="true" aria-label="Composer"></div>
<button onclick="prompt('Your name?'); document.title = 'asked'">Ask name</button>
<button onclick="fetch('/click', {method: 'POST'})">Count</button>
<button onclick="fetch('/publish', {method: 'POST'})">Publish</button>
<label>Attachment <input type="file"></label>
<p>Readable text of the page.</p>`

func (c *canarySite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/click":
		c.clicks.Add(1)
	case "/publish":
		c.publishes.Add(1)
	default:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, canaryPage)
	}
}

// settled waits a little for a fetch in flight, then reads n.
func settled(n *atomic.Int64) int64 {
	time.Sleep(300 * time.Millisecond)
	return n.Load()
}

// canaries are what no record may hold: page values, hidden text, and
// what the agent typed (into an input, as a draft, as a prompt's answer)
// and uploaded.
var canaries = []string{"CANARY-INPUT", "CANARY-PASSWORD", "CANARY-HIDDEN", "CANARY-TYPED", "CANARY-DRAFT", "CANARY-PROMPT",
	"CANARY-FILE", "CANARY-DIR", "CANARY-USER", "CANARY-SECRET"}

// TestEveryCallIsRecordedPrivatelyAndReplays drives a session through every
// tool, refusals and errors included, on a page holding canaries; every
// call is recorded (complete, in order, with its outcome, action record and
// sanitized arguments), replay re-derives every view byte-identical, and
// no canary is anywhere in the store's bytes.
func TestEveryCallIsRecordedPrivatelyAndReplays(t *testing.T) {
	for _, ts := range testStores {
		t.Run(ts.name, func(t *testing.T) {
			t.Parallel()
			st, dump := ts.open(t)
			site := &canarySite{}
			base := browsertest.ServeHandler(t, site)
			root := t.TempDir()
			dir := filepath.Join(root, "CANARY-DIR")
			os.Mkdir(dir, 0o700)
			if err := os.WriteFile(filepath.Join(dir, "report.txt"), []byte("CANARY-FILE contents"), 0o600); err != nil {
				t.Fatal(err)
			}
			_, s := grantedSession(t, st, base, veetbrowser.SessionOptions{UploadRoot: root, Surface: "test"})
			ctx := browsertest.Context(t, 2*time.Minute)

			type step struct {
				tool, outcome string
				call          func() (*veetbrowser.Result, error)
			}
			var last *veetbrowser.Result
			act := func(a browser.Action) func() (*veetbrowser.Result, error) {
				return func() (*veetbrowser.Result, error) { return s.Act(ctx, a) }
			}
			named := func(name string, a browser.Action) func() (*veetbrowser.Result, error) {
				return func() (*veetbrowser.Result, error) {
					a.Ref = veetbrowser.RefOf(t, last, name)
					return s.Act(ctx, a)
				}
			}
			// A URL with credentials: they are never recorded.
			withUser := strings.Replace(base, "http://", "http://CANARY-USER:CANARY-SECRET@", 1)
			steps := []step{
				{tools.Navigate, "ok", func() (*veetbrowser.Result, error) { return s.Navigate(ctx, base) }},
				{tools.Observe, "ok", func() (*veetbrowser.Result, error) { return s.Observe(ctx, veetbrowser.ObserveOptions{}) }},
				{tools.Act, "ok", named("Search", browser.Action{Kind: browser.ActType, Text: "CANARY-TYPED"})},
				{tools.Act, "ok", named("Composer", browser.Action{Kind: browser.ActType, Text: "CANARY-DRAFT"})},
				{tools.Observe, "ok", func() (*veetbrowser.Result, error) { return s.Observe(ctx, veetbrowser.ObserveOptions{}) }},
				{tools.Act, "ok", named("Count", browser.Action{Kind: browser.ActClick})},
				{tools.Act, "approval_required", named("Publish", browser.Action{Kind: browser.ActClick})},
				{tools.Upload, "ok", func() (*veetbrowser.Result, error) {
					return s.Upload(ctx, veetbrowser.RefOf(t, last, "Attachment"), []string{"CANARY-DIR/report.txt"})
				}},
				{tools.Act, "ok", named("Ask name", browser.Action{Kind: browser.ActClick})},
				{tools.Act, "ok", act(browser.Action{Kind: browser.ActDialog, Accept: true, Text: "CANARY-PROMPT"})},
				{tools.Act, "unknown_reference", act(browser.Action{Kind: browser.ActClick, Ref: "not-a-ref"})},
				{tools.Navigate, "ok", func() (*veetbrowser.Result, error) { return s.Navigate(ctx, withUser) }},
				{tools.Navigate, "foreign_origin", func() (*veetbrowser.Result, error) { return s.Navigate(ctx, "http://127.0.0.2:1/") }},
			}
			echoed := false
			for i, st := range steps {
				res, err := st.call()
				if got := string(errcode.Of(err)); err == nil && st.outcome != "ok" || err != nil && got != st.outcome {
					t.Fatalf("step %d (%s): %v, want %s", i+1, st.tool, err, st.outcome)
				}
				if res != nil {
					last = res
					echoed = echoed || strings.Contains(string(res.View), "CANARY-DRAFT")
				}
			}
			// The draft receipt echoes the agent's draft in its views: the
			// store must withhold it and still replay them.
			if !echoed {
				t.Fatal("no view echoed the draft")
			}
			if n := settled(&site.clicks); n != 1 {
				t.Fatalf("%d clicks reached the server, want 1", n)
			}
			if n := settled(&site.publishes); n != 0 {
				t.Fatalf("%d unapproved publishes", n)
			}

			sess, err := st.Session(ctx, s.ID())
			if err != nil || sess.Surface != "test" || sess.Version != s.Version().Name || sess.Budget != 8192 ||
				!strings.Contains(string(sess.Grant), "127.0.0.1") {
				t.Fatalf("session record %+v: %v", sess, err)
			}
			var calls []store.Call
			if err := st.Calls(ctx, s.ID(), func(c store.Call) error { calls = append(calls, c); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(calls) != len(steps) {
				t.Fatalf("%d calls recorded, want %d", len(calls), len(steps))
			}
			for i, c := range calls {
				if c.Seq != int64(i+1) || c.Tool != steps[i].tool || c.Outcome != steps[i].outcome || c.Status != store.StatusComplete {
					t.Errorf("call %d: seq %d tool %s outcome %s status %s", i+1, c.Seq, c.Tool, c.Outcome, c.Status)
				}
				if (c.Outcome == "ok") != (c.View != nil && c.Observation != nil) {
					t.Errorf("call %d (%s): a view is recorded exactly when it returned one", i+1, c.Outcome)
				}
			}
			var typed struct {
				Text store.Redacted `json:"text"`
			}
			if err := json.Unmarshal(calls[2].Arguments, &typed); err != nil || typed.Text.Length != len("CANARY-TYPED") ||
				!strings.HasPrefix(typed.Text.Digest, "hmac-sha256:") {
				t.Errorf("typed text recorded as %s", calls[2].Arguments)
			}
			if got := string(calls[7].Arguments); !strings.Contains(got, `"files":1`) || !strings.Contains(got, `"names":["report.txt"]`) {
				t.Errorf("upload recorded as %s", got)
			}
			var count, publish struct {
				Authorization struct {
					Facts          policy.Facts `json:"facts"`
					ApprovalNeeded bool         `json:"approval_needed"`
					Refused        string       `json:"refused"`
				} `json:"authorization"`
				Postconditions *struct {
					Dispatched bool `json:"dispatched"`
				} `json:"postconditions"`
			}
			json.Unmarshal(calls[5].Action, &count)
			json.Unmarshal(calls[6].Action, &publish)
			if count.Authorization.Facts.Name != "Count" || count.Authorization.ApprovalNeeded || count.Postconditions == nil || !count.Postconditions.Dispatched {
				t.Errorf("click recorded as %s", calls[5].Action)
			}
			if publish.Authorization.Facts.Name != "Publish" || !publish.Authorization.ApprovalNeeded ||
				publish.Authorization.Refused != "approval_required" || publish.Postconditions != nil {
				t.Errorf("refused publish recorded as %s", calls[6].Action)
			}

			rep, err := replay.Session(ctx, st, s.ID(), replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Identical() || len(rep.Views) != 10 || rep.Skipped != 3 {
				t.Fatalf("replay: identical %v, %d views, %d skipped, first difference %+v", rep.Identical(), len(rep.Views), rep.Skipped, rep.First)
			}

			all := dump()
			if !bytes.Contains(all, []byte("Readable text of the page.")) {
				t.Fatal("the dump does not hold the recorded observations")
			}
			for _, c := range canaries {
				if bytes.Contains(all, []byte(c)) {
					t.Errorf("%s is in the store", c)
				}
			}
		})
	}
}

// refuseWrites makes the SQLite store at path refuse what stmt's trigger
// names, from another connection, as a store that turned read-only would.
func refuseWrites(t *testing.T, path, trigger string) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DROP TRIGGER IF EXISTS refuse; CREATE TRIGGER refuse ` + trigger + ` ON calls BEGIN SELECT RAISE(ABORT, 'read-only'); END`); err != nil {
		t.Fatal(err)
	}
}

// TestStoreFailuresFailTheCall: a store that refuses to record the intent
// makes the call fail with artifact_unavailable before anything is
// dispatched (the server counts no click); one that refuses the result
// fails the call too, after the dispatch; a read whose record fails
// returns no result.
func TestStoreFailuresFailTheCall(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "artifacts.db")
	st, err := storespec.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	site := &canarySite{}
	base := browsertest.ServeHandler(t, site)
	s := openSession(t, newRuntime(t, st), veetbrowser.SessionOptions{})
	ctx := browsertest.Context(t, 2*time.Minute)
	res, err := s.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	count := browser.Action{Kind: browser.ActClick, Ref: veetbrowser.RefOf(t, res, "Count")}

	refuseWrites(t, path, "BEFORE INSERT")
	_, err = s.Act(ctx, count)
	if errcode.Of(err) != errcode.ArtifactUnavailable {
		t.Fatalf("act without its intent recorded: %v", err)
	}
	if n := settled(&site.clicks); n != 0 {
		t.Fatalf("%d clicks dispatched without a recorded intent", n)
	}
	if _, err := s.Observe(ctx, veetbrowser.ObserveOptions{}); errcode.Of(err) != errcode.ArtifactUnavailable {
		t.Fatalf("observe without its record: %v", err)
	}

	refuseWrites(t, path, "BEFORE UPDATE")
	res, err = s.Observe(ctx, veetbrowser.ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: veetbrowser.RefOf(t, res, "Count")})
	if errcode.Of(err) != errcode.ArtifactUnavailable {
		t.Fatalf("act without its result recorded: %v", err)
	}
	if n := settled(&site.clicks); n != 1 {
		t.Fatalf("%d clicks, want the one whose intent was recorded", n)
	}
	var statuses []string
	st.Calls(ctx, s.ID(), func(c store.Call) error { statuses = append(statuses, c.Tool+":"+c.Status); return nil })
	want := []string{"browser_navigate:complete", "browser_observe:complete", "browser_act:intent"}
	if !slices.Equal(statuses, want) {
		t.Fatalf("recorded %q, want %q", statuses, want)
	}
}

// TestConcurrentSessionsRecordEveryCall: 16 sessions of one runtime record
// at once; every call of every session is there, numbered 1…n.
func TestConcurrentSessionsRecordEveryCall(t *testing.T) {
	for _, ts := range testStores {
		t.Run(ts.name, func(t *testing.T) {
			t.Parallel()
			const sessions, observes = 16, 3
			st, _ := ts.open(t)
			rt := newRuntime(t, st)
			site := &canarySite{}
			base := browsertest.ServeHandler(t, site)
			ctx := browsertest.Context(t, 5*time.Minute)
			ids := make([]string, sessions)
			var wg sync.WaitGroup
			errs := make(chan error, sessions)
			for i := range sessions {
				s := openSession(t, rt, veetbrowser.SessionOptions{})
				ids[i] = s.ID()
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := s.Navigate(ctx, base)
					for range observes {
						if err == nil {
							res, err = s.Observe(ctx, veetbrowser.ObserveOptions{})
						}
					}
					if err == nil {
						i := slices.IndexFunc(res.Observation.Controls, func(c observation.Control) bool { return c.Name == "Count" })
						_, err = s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: res.Observation.Controls[i].Ref})
					}
					errs <- err
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			if n := settled(&site.clicks); n != sessions {
				t.Fatalf("%d clicks, want %d", n, sessions)
			}
			list, err := st.Sessions(ctx, store.ListOptions{})
			if err != nil || len(list) != sessions {
				t.Fatalf("%d sessions listed: %v", len(list), err)
			}
			for _, id := range ids {
				var seqs []int64
				if err := st.Calls(ctx, id, func(c store.Call) error {
					if c.Status != store.StatusComplete || c.Outcome != store.OutcomeOK {
						t.Errorf("session %s call %d: %s %s", id, c.Seq, c.Status, c.Outcome)
					}
					seqs = append(seqs, c.Seq)
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(seqs, []int64{1, 2, 3, 4, 5}) {
					t.Errorf("session %s: calls %v", id, seqs)
				}
			}
		})
	}
}

// pgBench opens a store in a fresh PostgreSQL database and measures the
// size of its tables.
func pgBench(b *testing.B) (store.Store, func() int64) {
	dsn := pgtest.Database(b)
	ctx := context.Background()
	st, err := storespec.Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close(ctx) })
	return st, func() int64 {
		var n int64
		if err := conn.QueryRow(ctx, `SELECT pg_total_relation_size('veetbrowser_calls') + pg_total_relation_size('veetbrowser_sessions')`).Scan(&n); err != nil {
			b.Fatal(err)
		}
		return n
	}
}
