package veetbrowser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/store"
)

// lastRecord keeps the observation of the newest call recorded.
type lastRecord struct {
	store.Store
	mu  sync.Mutex
	obs json.RawMessage
}

func (s *lastRecord) Record(ctx context.Context, c store.Call) (int64, error) {
	s.mu.Lock()
	s.obs = c.Result.Observation
	s.mu.Unlock()
	return s.Store.Record(ctx, c)
}

func (s *lastRecord) Complete(ctx context.Context, session string, seq int64, r store.Result) error {
	s.mu.Lock()
	s.obs = r.Observation
	s.mu.Unlock()
	return s.Store.Complete(ctx, session, seq, r)
}

// TestObservationJSONIsTheRecords: a result's ObservationJSON is its
// observation as encoding/json writes it; when nothing was withheld from
// the record it is the record's own bytes, not a second encoding. With a
// read_values grant the record withholds the values, and ObservationJSON
// still holds them, as the observation does.
func TestObservationJSONIsTheRecords(t *testing.T) {
	t.Parallel()
	st := &lastRecord{Store: store.Discard}
	rt := newRuntime(t, st)
	ctx := browsertest.Context(t, time.Minute)
	url := browsertest.Serve(t, valuesDeskPage)
	origin := strings.TrimSuffix(url, "/")
	for _, readValues := range []bool{false, true} {
		s := openSession(t, rt, veetbrowser.SessionOptions{Grant: policy.Grant{Origins: []string{origin}, ReadValues: readValues}})
		res, err := s.Navigate(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		got, err := res.ObservationJSON()
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(res.Observation)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("read_values %v: ObservationJSON is not the observation's encoding:\n%s\n%s", readValues, got, want)
		}
		st.mu.Lock()
		recorded := st.obs
		st.mu.Unlock()
		shared := len(got) > 0 && len(recorded) > 0 && &got[0] == &recorded[0]
		if shared == readValues {
			t.Errorf("read_values %v: ObservationJSON shares the record's bytes: %v", readValues, shared)
		}
		if readValues != bytes.Contains(got, []byte("CANARY-GRANTED")) || bytes.Contains(recorded, []byte("CANARY-GRANTED")) {
			t.Errorf("read_values %v: the value in ObservationJSON %v, in the record %v", readValues,
				bytes.Contains(got, []byte("CANARY-GRANTED")), bytes.Contains(recorded, []byte("CANARY-GRANTED")))
		}
	}
}
