// Package storetest is the conformance suite every artifact store passes,
// against a real database: round trip, write-ahead intents left by a
// killed process, concurrent writers in one and in two processes,
// concurrent opens, listing and retention, and leases, raced by two
// stores on one database, and blobs. It is for tests only.
package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
)

// Session is a session record that starts at start.
func Session(id string, start time.Time) store.Session {
	return store.Session{ID: id, StartedAt: start, Version: "1.5.0", Budget: 8192,
		Grant: json.RawMessage(`{"origins":["http://127.0.0.1:8080"],"classes":["navigate","click"]}`), Surface: "library"}
}

// Observation is a realistic canonical observation (≈ 60 KB) that differs
// with i.
func Observation(i int) json.RawMessage {
	obs := observation.Observation{Version: "1.5.0", Revision: fmt.Sprintf("r%06d", i), URL: "http://127.0.0.1:8080/feed",
		Origin: "http://127.0.0.1:8080", Title: fmt.Sprintf("Feed — page %d", i), Trust: observation.Trust,
		RegionCoverage: &observation.RegionCoverage{Version: 1, Scope: observation.RegionScope, ScannedNodes: 4000},
		TextCoverage:   &observation.TextCoverage{Version: 1, Scope: observation.TextScope, ScannedNodes: 3000, InspectedUnits: 20000}}
	for c := range 200 {
		obs.Controls = append(obs.Controls, observation.Control{Ref: fmt.Sprintf("e%05d%08d", c, i), Role: "button",
			Name: fmt.Sprintf("Like post %d from the timeline of someone", c)})
	}
	obs.ControlCoverage = observation.ControlCoverage{Scanned: 200}
	for r := range 8 {
		obs.Regions = append(obs.Regions, observation.Region{Ref: fmt.Sprintf("g%d", r), Kind: "heading", Level: 2, Summary: fmt.Sprintf("Section %d", r)})
	}
	for p := range 120 {
		obs.Text = append(obs.Text, observation.TextPart{Text: fmt.Sprintf("Post %d of page %d: a paragraph of readable text, as a feed shows it.", p, i), Source: "page"})
	}
	b, err := json.Marshal(obs)
	if err != nil {
		panic(err)
	}
	return b
}

// Call is a whole observe call whose contents follow from i.
func Call(sessionID string, i int) store.Call {
	obs := Observation(i)
	var o observation.Observation
	json.Unmarshal(obs, &o)
	view, err := projection.Project(&o, projection.Options{Budget: 8192, Coverage: true, Regions: true, TextCoverage: true})
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(view)
	return store.Call{SessionID: sessionID, Tool: "browser_observe", Arguments: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i)),
		StartedAt: time.Now(), Result: store.Result{Duration: time.Duration(i) * time.Millisecond, Outcome: store.OutcomeOK,
			Observation: obs, View: &store.View{SHA256: sum[:], Bytes: len(view)},
			Projection: &store.Projection{Version: "1.5.0", Budget: 8192}}}
}

// index is the i a call made by Call was made from.
func index(t testing.TB, c store.Call) int {
	t.Helper()
	var a struct{ I *int }
	if err := json.Unmarshal(c.Arguments, &a); err != nil || a.I == nil {
		t.Fatalf("call %d: arguments %s", c.Seq, c.Arguments)
	}
	return *a.I
}

// checkWhole fails unless c is exactly what Call(…, i) recorded.
func checkWhole(t testing.TB, c store.Call) int {
	t.Helper()
	i := index(t, c)
	want := Call(c.SessionID, i)
	if c.Status != store.StatusComplete || c.Outcome != store.OutcomeOK || !bytes.Equal(c.Observation, want.Observation) ||
		c.View == nil || !bytes.Equal(c.View.SHA256, want.View.SHA256) || c.View.Bytes != want.View.Bytes ||
		c.Projection == nil || !reflect.DeepEqual(*c.Projection, *want.Projection) || c.Duration != want.Duration {
		t.Fatalf("call %d (i=%d) is not the record written: status %q outcome %q, %d observation bytes", c.Seq, i, c.Status, c.Outcome, len(c.Observation))
	}
	return i
}

func calls(t testing.TB, st store.Store, id string) []store.Call {
	t.Helper()
	var list []store.Call
	if err := st.Calls(context.Background(), id, func(c store.Call) error {
		list = append(list, c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return list
}

// checkSequence fails unless the calls are numbered 1, 2, … n.
func checkSequence(t testing.TB, list []store.Call) {
	t.Helper()
	for k, c := range list {
		if c.Seq != int64(k+1) {
			t.Fatalf("call %d has sequence number %d", k+1, c.Seq)
		}
	}
}

// Suite runs the conformance tests on one implementation.
type Suite struct {
	// Fresh returns the spec (a file path or a DSN) of a new, empty store.
	Fresh func(t testing.TB) string
}

func (s Suite) open(t testing.TB, spec string) store.Store {
	t.Helper()
	st, err := storespec.Open(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// withSession opens a fresh store holding one session, id, started now;
// spec names the store for other openers.
func (s Suite) withSession(t testing.TB, id string) (spec string, st store.Store) {
	t.Helper()
	spec = s.Fresh(t)
	st = s.open(t, spec)
	if err := st.CreateSession(context.Background(), Session(id, time.Now())); err != nil {
		t.Fatal(err)
	}
	return spec, st
}

// Run runs every test of the suite.
func (s Suite) Run(t *testing.T) {
	t.Run("RoundTrip", s.RoundTrip)
	t.Run("BadInput", s.BadInput)
	t.Run("Concurrent", s.Concurrent)
	t.Run("OpenTogether", s.OpenTogether)
	t.Run("Listing", s.Listing)
	t.Run("Prune", s.Prune)
	t.Run("KilledWriter", s.KilledWriter)
	t.Run("TwoProcesses", s.TwoProcesses)
	t.Run("Leases", s.Leases)
	t.Run("LeaseBadInput", s.LeaseBadInput)
	t.Run("LeaseRace", s.LeaseRace)
	t.Run("Blobs", s.Blobs)
}

// RoundTrip: what is written is read back exactly, intents included.
func (s Suite) RoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := s.open(t, s.Fresh(t))
	start := time.Date(2026, 5, 1, 12, 0, 0, 123456789, time.FixedZone("CEST", 2*3600))
	sess := Session("s1", start)
	if err := st.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	got, err := st.Session(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if !got.StartedAt.Equal(start.Truncate(time.Microsecond)) || got.StartedAt.Location() != time.UTC ||
		got.Version != sess.Version || got.Budget != sess.Budget || string(got.Grant) != string(sess.Grant) || got.Surface != sess.Surface {
		t.Fatalf("session read back as %+v", got)
	}

	observe := Call("s1", 7)
	if seq, err := st.Record(ctx, observe); err != nil || seq != 1 {
		t.Fatalf("Record = %d, %v", seq, err)
	}
	click := store.Call{SessionID: "s1", Tool: "browser_act", StartedAt: start.Add(time.Second),
		Arguments: json.RawMessage(`{"kind":"type","ref":"e1","text":{"length":5,"digest":"hmac-sha256:00"}}`)}
	seq, err := st.Intent(ctx, click)
	if err != nil || seq != 2 {
		t.Fatalf("Intent = %d, %v", seq, err)
	}
	open := calls(t, st, "s1")[1]
	if open.Status != store.StatusIntent || open.Outcome != "" || open.Observation != nil || open.View != nil {
		t.Fatalf("an intent reads back as %+v", open)
	}
	offset := 3
	result := store.Result{Duration: 1500 * time.Millisecond, Outcome: store.OutcomeOK, Observation: Observation(8),
		Action:     json.RawMessage(`{"facts":{"origin":"http://127.0.0.1:8080","role":"button","name":"Send"},"approval":"approved","postconditions":{"dispatched":true}}`),
		View:       &store.View{SHA256: bytes.Repeat([]byte{7}, 32), Bytes: 900},
		Projection: &store.Projection{Version: "1.1.0", Budget: 1024, ElementOffset: &offset, Action: &projection.Outcome{Dispatched: true, NavigationStarted: true}}}
	if err := st.Complete(ctx, "s1", seq, result); err != nil {
		t.Fatal(err)
	}
	if err := st.Complete(ctx, "s1", seq, result); errcode.Of(err) != errcode.InvalidArgument {
		t.Fatalf("a second Complete: %v, want invalid_argument", err)
	}
	failedCall := store.Call{SessionID: "s1", Tool: "browser_navigate", StartedAt: start.Add(2 * time.Second),
		Arguments: json.RawMessage(`{"url":"http://127.0.0.1:8080/x"}`), Result: store.Result{Outcome: "foreign_origin"}}
	if _, err := st.Record(ctx, failedCall); err != nil {
		t.Fatal(err)
	}

	list := calls(t, st, "s1")
	checkSequence(t, list)
	if len(list) != 3 {
		t.Fatalf("%d calls, want 3", len(list))
	}
	if checkWhole(t, list[0]) != 7 {
		t.Fatal("the first call is not the one recorded")
	}
	c := list[1]
	if c.Status != store.StatusComplete || c.Tool != "browser_act" || string(c.Arguments) != string(click.Arguments) ||
		!c.StartedAt.Equal(click.StartedAt.Truncate(time.Microsecond)) || c.Duration != result.Duration ||
		string(c.Observation) != string(result.Observation) || string(c.Action) != string(result.Action) ||
		!bytes.Equal(c.View.SHA256, result.View.SHA256) || c.View.Bytes != 900 ||
		c.Projection.Version != "1.1.0" || c.Projection.Budget != 1024 || *c.Projection.ElementOffset != 3 ||
		c.Projection.TextOffset != nil || *c.Projection.Action != *result.Projection.Action {
		t.Fatalf("the completed intent reads back as %+v", c)
	}
	if c := list[2]; c.Outcome != "foreign_origin" || c.Observation != nil || c.Action != nil || c.View != nil || c.Projection != nil {
		t.Fatalf("a failed call reads back as %+v", c)
	}
	if _, err := st.Session(ctx, "nope"); errcode.Of(err) != errcode.InvalidArgument {
		t.Fatalf("an unknown session: %v", err)
	}
	if err := st.Calls(ctx, "nope", func(store.Call) error { return nil }); errcode.Of(err) != errcode.InvalidArgument {
		t.Fatalf("the calls of an unknown session: %v", err)
	}
}

// BadInput is refused with invalid_argument before anything is written.
func (s Suite) BadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := s.open(t, s.Fresh(t))
	now := time.Now()
	if err := st.CreateSession(ctx, Session("s", now)); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"duplicate session": st.CreateSession(ctx, Session("s", now)),
		"empty id":          st.CreateSession(ctx, Session("", now)),
		"long id":           st.CreateSession(ctx, Session(strings.Repeat("x", 129), now)),
		"grant not JSON":    st.CreateSession(ctx, store.Session{ID: "g", StartedAt: now, Version: "1.5.0", Budget: 1, Grant: json.RawMessage(`{`), Surface: "cli"}),
		"unknown session":   first(st.Intent(ctx, store.Call{SessionID: "zz", Tool: "browser_act", Arguments: json.RawMessage(`{}`), StartedAt: now})),
		"no tool":           first(st.Intent(ctx, store.Call{SessionID: "s", Arguments: json.RawMessage(`{}`), StartedAt: now})),
		"arguments not UTF-8": first(st.Intent(ctx, store.Call{SessionID: "s", Tool: "browser_act",
			Arguments: json.RawMessage("{\"a\":\"\xff\"}"), StartedAt: now})),
		"observation with half a surrogate pair": first(st.Record(ctx, store.Call{SessionID: "s", Tool: "t", Arguments: json.RawMessage(`{}`), StartedAt: now,
			Result: store.Result{Outcome: "ok", Observation: json.RawMessage(`{"text":"\ud800"}`)}})),
		"observation not JSON": first(st.Record(ctx, store.Call{SessionID: "s", Tool: "t", Arguments: json.RawMessage(`{}`), StartedAt: now,
			Result: store.Result{Outcome: "ok", Observation: json.RawMessage(`{"a":1,}`)}})),
		"no outcome":      first(st.Record(ctx, store.Call{SessionID: "s", Tool: "t", Arguments: json.RawMessage(`{}`), StartedAt: now})),
		"view w/o inputs": first(st.Record(ctx, store.Call{SessionID: "s", Tool: "t", Arguments: json.RawMessage(`{}`), StartedAt: now, Result: store.Result{Outcome: "ok", Observation: json.RawMessage(`{}`), View: &store.View{SHA256: make([]byte, 32), Bytes: 1}}})),
		"unknown intent":  st.Complete(ctx, "s", 99, store.Result{Outcome: "ok"}),
		"negative prune":  second(st.Prune(ctx, -1, 0)),
		"listing limit":   second(st.Sessions(ctx, store.ListOptions{Limit: -1})),
	} {
		if errcode.Of(err) != errcode.InvalidArgument {
			t.Errorf("%s: %v, want invalid_argument", name, err)
		}
	}
	if list := calls(t, st, "s"); len(list) != 0 {
		t.Fatalf("refused writes left %d calls", len(list))
	}
	// A bound at the bound is taken.
	if err := st.CreateSession(ctx, Session(strings.Repeat("x", 128), now)); err != nil {
		t.Fatalf("a 128-byte id: %v", err)
	}
}

func first[T any](_ T, err error) error { return err }

func second[T any](_ T, err error) error { return err }
