package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
)

// Concurrent: 16 goroutines record into one session and each into its
// own: every record is there once, numbered without gaps.
func (s Suite) Concurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, st := s.withSession(t, "shared")
	const writers, each = 16, 8
	var wg sync.WaitGroup
	errs := make(chan error, writers*each*2)
	for w := range writers {
		wg.Go(func() {
			own := fmt.Sprintf("own%d", w)
			if err := st.CreateSession(ctx, Session(own, time.Now())); err != nil {
				errs <- err
				return
			}
			for i := range each {
				if _, err := st.Record(ctx, Call("shared", w*each+i)); err != nil {
					errs <- err
				}
				seq, err := st.Intent(ctx, store.Call{SessionID: own, Tool: "browser_act", Arguments: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i)), StartedAt: time.Now()})
				if err == nil {
					err = st.Complete(ctx, own, seq, Call(own, i).Result)
				}
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	list := calls(t, st, "shared")
	checkSequence(t, list)
	seen := map[int]bool{}
	for _, c := range list {
		seen[checkWhole(t, c)] = true
	}
	if len(list) != writers*each || len(seen) != writers*each {
		t.Fatalf("%d calls, %d distinct, want %d", len(list), len(seen), writers*each)
	}
	for w := range writers {
		own := calls(t, st, fmt.Sprintf("own%d", w))
		checkSequence(t, own)
		if len(own) != each {
			t.Fatalf("writer %d: %d calls", w, len(own))
		}
		for i, c := range own {
			if checkWhole(t, c) != i {
				t.Fatalf("writer %d: call %d out of order", w, i)
			}
		}
	}
}

// OpenTogether: stores opened at once on a new database, each with its own
// connections, migrate it once and all work.
func (s Suite) OpenTogether(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	spec := s.Fresh(t)
	const openers = 6
	stores := make([]store.Store, openers)
	errs := make([]error, openers)
	var wg sync.WaitGroup
	for k := range openers {
		wg.Go(func() { stores[k], errs[k] = storespec.Open(ctx, spec) })
	}
	wg.Wait()
	for k := range openers {
		if errs[k] != nil {
			t.Fatalf("opener %d: %v (%v)", k, errs[k], errors.Unwrap(errs[k]))
		}
		defer stores[k].Close()
	}
	for k, st := range stores {
		id := fmt.Sprintf("s%d", k)
		if err := st.CreateSession(ctx, Session(id, time.Now())); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Record(ctx, Call(id, k)); err != nil {
			t.Fatal(err)
		}
	}
	if list, err := stores[0].Sessions(ctx, store.ListOptions{}); err != nil || len(list) != openers {
		t.Fatalf("listing after concurrent opens: %d sessions, %v", len(list), err)
	}
}
