package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/store"
)

// Listing: newest first, with call counts by outcome; open intents count
// as "intent".
func (s Suite) Listing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := s.open(t, s.Fresh(t))
	base := time.Now().Add(-time.Hour)
	for k := range 3 {
		if err := st.CreateSession(ctx, Session(fmt.Sprintf("s%d", k), base.Add(time.Duration(k)*time.Minute))); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		if _, err := st.Record(ctx, Call("s1", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Record(ctx, store.Call{SessionID: "s1", Tool: "browser_act", Arguments: json.RawMessage(`{}`), StartedAt: time.Now(),
		Result: store.Result{Outcome: "stale_reference"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Intent(ctx, store.Call{SessionID: "s1", Tool: "browser_act", Arguments: json.RawMessage(`{}`), StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	list, err := st.Sessions(ctx, store.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, x := range list {
		ids = append(ids, x.ID)
	}
	if !slices.Equal(ids, []string{"s2", "s1", "s0"}) {
		t.Fatalf("listing order %v", ids)
	}
	s1 := list[1]
	if s1.Calls != 5 || s1.Outcomes["ok"] != 3 || s1.Outcomes["stale_reference"] != 1 || s1.Outcomes["intent"] != 1 ||
		s1.Version != "1.5.0" || s1.Bytes <= 3*40000 {
		t.Fatalf("summary %+v", s1)
	}
	if list[0].Calls != 0 || len(list[0].Outcomes) != 0 {
		t.Fatalf("an empty session lists as %+v", list[0])
	}
	if list, err := st.Sessions(ctx, store.ListOptions{Limit: 1}); err != nil || len(list) != 1 || list[0].ID != "s2" {
		t.Fatalf("limit 1: %+v, %v", list, err)
	}
}

// Prune removes whole sessions, by age and then by size, oldest first;
// the byte bound is tested at the bound and one below.
func (s Suite) Prune(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := s.open(t, s.Fresh(t))
	now := time.Now()
	// old: its last record two hours ago; mid and new: recent.
	for k, id := range []string{"old", "mid", "new"} {
		start := now.Add(-2 * time.Hour)
		if k > 0 {
			start = now.Add(time.Duration(k-3) * time.Minute)
		}
		if err := st.CreateSession(ctx, Session(id, start)); err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			c := Call(id, i)
			c.StartedAt = start.Add(time.Duration(i) * time.Second)
			if _, err := st.Record(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
	}
	sizes := map[string]int64{}
	var total int64
	list, _ := st.Sessions(ctx, store.ListOptions{})
	for _, x := range list {
		sizes[x.ID] = x.Bytes
		total += x.Bytes
	}
	if p, err := st.Prune(ctx, 0, 0); err != nil || p.Sessions != 0 {
		t.Fatalf("no limits pruned %+v, %v", p, err)
	}
	if p, err := st.Prune(ctx, 3*time.Hour, total); err != nil || p.Sessions != 0 {
		t.Fatalf("limits that hold pruned %+v, %v", p, err)
	}
	p, err := st.Prune(ctx, time.Hour, 0)
	if err != nil || p.Sessions != 1 || p.Calls != 2 || p.Bytes != sizes["old"] {
		t.Fatalf("pruning by age: %+v, %v", p, err)
	}
	if _, err := st.Session(ctx, "old"); errcode.Of(err) != errcode.InvalidArgument {
		t.Fatalf("the old session is still there: %v", err)
	}
	rest := sizes["mid"] + sizes["new"]
	if p, err := st.Prune(ctx, 0, rest); err != nil || p.Sessions != 0 {
		t.Fatalf("at the byte bound: pruned %+v, %v", p, err)
	}
	p, err = st.Prune(ctx, 0, rest-1)
	if err != nil || p.Sessions != 1 || p.Bytes != sizes["mid"] {
		t.Fatalf("one byte under the bound: pruned %+v, %v", p, err)
	}
	list, _ = st.Sessions(ctx, store.ListOptions{})
	if len(list) != 1 || list[0].ID != "new" || list[0].Calls != 2 {
		t.Fatalf("after pruning: %+v", list)
	}
	if n := len(calls(t, st, "new")); n != 2 {
		t.Fatalf("the kept session has %d calls", n)
	}
}
