package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/store"
)

// The statements a record's write runs are prepared once, after their
// first run, and every later write runs those same statements: the calls
// written before and after are whole and in order.
func TestWritesArePreparedOnce(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "artifacts.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.CreateSession(ctx, store.Session{ID: "s", StartedAt: time.Now(), Version: "1.10.0", Budget: 8192,
		Grant: json.RawMessage(`{}`), Surface: "library"}); err != nil {
		t.Fatal(err)
	}
	var first map[string]*sql.Stmt
	for i := range 3 {
		seq, err := st.Record(ctx, store.Call{SessionID: "s", Tool: "browser_observe", Arguments: json.RawMessage(`{}`),
			StartedAt: time.Now(), Result: store.Result{Outcome: store.OutcomeOK, Observation: json.RawMessage(fmt.Sprintf(`{"revision":"r%d"}`, i))}})
		if err != nil || seq != int64(i+1) {
			t.Fatalf("record %d: sequence number %d, %v", i, seq, err)
		}
		st.writer.mu.Lock()
		now := map[string]*sql.Stmt{}
		for q, s := range st.writer.prepared {
			if s == nil {
				t.Errorf("after record %d, a statement is not prepared: %s", i, q)
			}
			now[q] = s
		}
		st.writer.mu.Unlock()
		if len(now) != 2 { // the session's next sequence number, the call's insert
			t.Fatalf("after record %d, %d statements prepared, want 2", i, len(now))
		}
		if first == nil {
			first = now
		}
		for q, s := range now {
			if first[q] != s {
				t.Fatalf("after record %d, a statement was prepared again: %s", i, q)
			}
		}
	}
	var got []int64
	err = st.Calls(ctx, "s", func(c store.Call) error {
		if want := fmt.Sprintf(`{"revision":"r%d"}`, len(got)); c.Status != store.StatusComplete || string(c.Observation) != want {
			t.Errorf("call %d: %q %s, want complete %s", c.Seq, c.Status, c.Observation, want)
		}
		got = append(got, c.Seq)
		return nil
	})
	if err != nil || len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Fatalf("calls %v, %v", got, err)
	}
}
