package veetbrowser_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/tools"
)

// memRecorder is a store.Recorder and nothing more: no reads, no
// retention, no leases, no Close. It keeps what it is handed in memory.
type memRecorder struct {
	mu       sync.Mutex
	sessions []store.Session
	calls    []store.Call // in the order they were written; an intent is completed in place
	blobs    []store.Blob
}

var _ store.Recorder = (*memRecorder)(nil)

func (m *memRecorder) CreateSession(_ context.Context, s store.Session) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sessions = append(m.sessions, s)
	return nil
}

func (m *memRecorder) Intent(_ context.Context, c store.Call) (int64, error) {
	c.Status = store.StatusIntent
	return m.add(c), nil
}

func (m *memRecorder) Record(_ context.Context, c store.Call) (int64, error) {
	c.Status = store.StatusComplete
	return m.add(c), nil
}

func (m *memRecorder) add(c store.Call) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	c.Seq = int64(len(m.calls) + 1)
	m.calls = append(m.calls, c)
	return c.Seq
}

func (m *memRecorder) Complete(_ context.Context, sessionID string, seq int64, r store.Result) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := &m.calls[seq-1]
	c.Result, c.Status = r, store.StatusComplete
	return nil
}

func (m *memRecorder) PutBlob(_ context.Context, b store.Blob) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.blobs = append(m.blobs, b)
	return int64(len(m.blobs)), nil
}

// TestRuntimeRecordsToARecorder: a runtime needs only a store.Recorder. A
// recorder without reads, retention or leases receives the session, each
// call (a navigation's intent completed, an observation recorded whole)
// and a screenshot's blob.
func TestRuntimeRecordsToARecorder(t *testing.T) {
	t.Parallel()
	rec := &memRecorder{}
	rt, err := veetbrowser.New(veetbrowser.SharedProvider(t), veetbrowser.Options{Store: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	base := browsertest.Serve(t, `<title>Recorder</title><button>Send</button>`)
	ctx := browsertest.Context(t, time.Minute)
	s, err := rt.NewSession(ctx, veetbrowser.SessionOptions{Grant: policy.Grant{Origins: []string{strings.TrimSuffix(base, "/")}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	if _, err := s.Navigate(ctx, base); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Observe(ctx, veetbrowser.ObserveOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Call(ctx, tools.Screenshot, json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.sessions) != 1 || rec.sessions[0].ID != s.ID() {
		t.Fatalf("sessions %+v, want the one of %s", rec.sessions, s.ID())
	}
	var got []string
	for _, c := range rec.calls {
		// A screenshot's view is a summary of its blob: no view is recorded.
		if c.SessionID != s.ID() || c.Outcome != store.OutcomeOK || (c.View == nil) != (c.Tool == tools.Screenshot) {
			t.Errorf("call %d: %+v", c.Seq, c)
		}
		got = append(got, c.Tool+":"+c.Status)
	}
	want := []string{tools.Navigate + ":complete", tools.Observe + ":complete", tools.Screenshot + ":complete"}
	if !slices.Equal(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
	if len(rec.blobs) != 1 || rec.blobs[0].Seq != 3 || rec.blobs[0].MediaType != store.MediaJPEG {
		t.Errorf("blobs %d, want the screenshot of call 3", len(rec.blobs))
	}
}
