// Package storetest is the conformance suite every artifact store passes,
// against a real database: round trip, write-ahead intents left by a
// killed process, concurrent writers in one and in two processes,
// concurrent opens, listing and retention, and leases, raced by two
// stores on one database, and blobs. It is for tests only.
package storetest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
)

// Environment of a child process: its role and its store.
const (
	envRole    = "VEETBROWSER_STORETEST_ROLE"
	envSpec    = "VEETBROWSER_STORETEST_SPEC"
	envSession = "VEETBROWSER_STORETEST_SESSION"
	envWriter  = "VEETBROWSER_STORETEST_WRITER"
)

// Child runs the child role this process was started for, if any, and
// exits; the test binary's TestMain calls it first.
func Child() {
	role := os.Getenv(envRole)
	if role == "" {
		return
	}
	ctx := context.Background()
	st, err := storespec.Open(ctx, os.Getenv(envSpec))
	if err != nil {
		fmt.Println("open-error", errcode.Of(err), err, errors.Unwrap(err))
		os.Exit(2)
	}
	id := os.Getenv(envSession)
	switch role {
	case "crash":
		crashChild(ctx, st, id)
	case "writer":
		writer, _ := strconv.Atoi(os.Getenv(envWriter))
		for i := range ChildCalls {
			if _, err := st.Record(ctx, Call(id, writer*ChildCalls+i)); err != nil {
				fmt.Println("error", err)
				os.Exit(2)
			}
		}
		fmt.Println("done")
	case "write-once":
		_, err := st.Record(ctx, Call(id, 1))
		fmt.Println("code", errcode.Of(err))
	}
	os.Exit(0)
}

// ChildCalls is how many calls each writer process records.
const ChildCalls = 40

// crashChild records calls in a loop until it is killed: one goroutine
// writes whole records, the main one leaves an intent open, as a process
// killed between Intent and Complete would.
func crashChild(ctx context.Context, st store.Store, id string) {
	var out sync.Mutex
	say := func(format string, args ...any) {
		out.Lock()
		fmt.Printf(format+"\n", args...)
		out.Unlock()
	}
	go func() {
		for i := 0; ; i++ {
			seq, err := st.Record(ctx, Call(id, i))
			if err != nil {
				say("error %v", err)
				os.Exit(2)
			}
			say("record %d", seq)
		}
	}()
	seq, err := st.Intent(ctx, store.Call{SessionID: id, Tool: "browser_act", Arguments: json.RawMessage(`{"kind":"click","ref":"open"}`),
		StartedAt: time.Now()})
	if err != nil {
		say("error %v", err)
		os.Exit(2)
	}
	say("intent %d", seq)
	select {} // "dispatching" until killed
}

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
		c.Projection == nil || *c.Projection != *want.Projection || c.Duration != want.Duration {
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

func first[T any](_ T, err error) error  { return err }
func second[T any](_ T, err error) error { return err }

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

// KilledWriter: a process killed (SIGKILL) while it writes leaves whole
// records only, and its open intent stays an intent; the store opens and
// takes writes again.
func (s Suite) KilledWriter(t *testing.T) {
	t.Parallel()
	spec, st := s.withSession(t, "crash")
	st.Close()

	cmd := child(t, "crash", spec, "crash")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	recorded := map[int64]bool{}
	var intent int64
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		f := strings.Fields(lines.Text())
		if len(f) == 2 && f[0] == "record" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			recorded[n] = true
		} else if len(f) == 2 && f[0] == "intent" {
			intent, _ = strconv.ParseInt(f[1], 10, 64)
		} else {
			t.Fatalf("child: %s", lines.Text())
		}
		if intent != 0 && len(recorded) >= 30 {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if intent == 0 || len(recorded) < 30 {
		t.Fatalf("the child stopped early: intent %d, %d records", intent, len(recorded))
	}

	st = s.open(t, spec)
	list := calls(t, st, "crash")
	checkSequence(t, list)
	for _, c := range list {
		if c.Seq == intent {
			if c.Status != store.StatusIntent || c.Outcome != "" || c.Observation != nil || c.View != nil {
				t.Fatalf("the open intent reads back as %+v", c)
			}
			continue
		}
		checkWhole(t, c)
		delete(recorded, c.Seq)
	}
	if len(recorded) != 0 {
		t.Fatalf("records the child saw committed are missing: %v", recorded)
	}
	t.Logf("%d calls recorded before the kill", len(list))
	if seq, err := st.Record(context.Background(), Call("crash", 1000)); err != nil || seq != int64(len(list)+1) {
		t.Fatalf("writing after the crash: %d, %v", seq, err)
	}
}

// TwoProcesses: two processes record into one session at once; every
// record is there once.
func (s Suite) TwoProcesses(t *testing.T) {
	t.Parallel()
	spec, st := s.withSession(t, "both")
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for w := range 2 {
		cmd := child(t, "writer", spec, "both")
		cmd.Env = append(cmd.Env, envWriter+"="+strconv.Itoa(w))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &out)
	}
	for w, cmd := range cmds {
		if err := cmd.Wait(); err != nil || strings.TrimSpace(outs[w].String()) != "done" {
			t.Fatalf("writer %d: %v: %s", w, err, outs[w])
		}
	}
	list := calls(t, st, "both")
	checkSequence(t, list)
	seen := map[int]bool{}
	for _, c := range list {
		seen[checkWhole(t, c)] = true
	}
	if len(list) != 2*ChildCalls || len(seen) != 2*ChildCalls {
		t.Fatalf("%d calls, %d distinct, want %d", len(list), len(seen), 2*ChildCalls)
	}
}

// Leases: acquire, held, takeover after expiry, renew, release, read and
// reaping; a tenant's lease does not hold another tenant's profile of the
// same name. Expired leases are made with an expiry in the past, so that
// nothing waits on the clock.
func (s Suite) Leases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := s.open(t, s.Fresh(t))
	now := time.Now()
	hour, past := now.Add(time.Hour), now.Add(-time.Hour)
	acquire := func(id, tenant, profile string, expires time.Time) (store.Lease, error) {
		return st.AcquireLease(ctx, store.Lease{ID: id, Tenant: tenant, Profile: profile, Holder: "h-" + id, Expires: expires})
	}
	want := func(id, tenant, profile string, expires time.Time) store.Lease {
		return store.Lease{ID: id, Tenant: tenant, Profile: profile, Holder: "h-" + id, Expires: expires.UTC().Truncate(time.Microsecond)}
	}
	same := func(what string, got store.Lease, err error, w store.Lease) {
		t.Helper()
		if err != nil || got != w || got.Expires.Location() != time.UTC {
			t.Fatalf("%s: %+v, %v; want %+v", what, got, err, w)
		}
	}
	code := func(what string, err error, c errcode.Code) {
		t.Helper()
		if errcode.Of(err) != c {
			t.Fatalf("%s: %v, want %s", what, err, c)
		}
	}

	expires := time.Date(2100, 1, 2, 3, 4, 5, 123456789, time.FixedZone("CEST", 2*3600))
	l, err := acquire("l1", "t1", "p", expires)
	same("acquire", l, err, want("l1", "t1", "p", expires))
	l, err = st.Lease(ctx, "l1")
	same("read", l, err, want("l1", "t1", "p", expires))
	code("a held profile", second(acquire("l2", "t1", "p", hour)), errcode.LeaseHeld)
	code("the refused lease", second(st.Lease(ctx, "l2")), errcode.LeaseExpired)
	l, err = acquire("l3", "t2", "p", hour)
	same("another tenant's profile of the same name", l, err, want("l3", "t2", "p", hour))

	l, err = st.RenewLease(ctx, "l1", hour)
	same("renew", l, err, want("l1", "t1", "p", hour))
	l, err = st.Lease(ctx, "l1")
	same("read after renew", l, err, want("l1", "t1", "p", hour))

	// An expired lease: not live, not renewable, taken over.
	if _, err := acquire("old", "t1", "q", past); err != nil {
		t.Fatal(err)
	}
	code("an expired lease", second(st.Lease(ctx, "old")), errcode.LeaseExpired)
	code("renewing an expired lease", second(st.RenewLease(ctx, "old", hour)), errcode.LeaseExpired)
	l, err = acquire("new", "t1", "q", hour)
	same("acquire after expiry", l, err, want("new", "t1", "q", hour))
	code("renewing a lease taken over", second(st.RenewLease(ctx, "old", hour)), errcode.LeaseExpired)
	code("a lease taken over", second(st.Lease(ctx, "old")), errcode.LeaseExpired)
	code("an unknown lease", second(st.RenewLease(ctx, "never", hour)), errcode.LeaseExpired)

	// Release is idempotent and frees the profile.
	for range 2 {
		if err := st.ReleaseLease(ctx, "l3"); err != nil {
			t.Fatalf("release: %v", err)
		}
	}
	if err := st.ReleaseLease(ctx, "never"); err != nil {
		t.Fatalf("releasing an unknown id: %v", err)
	}
	code("a released lease", second(st.Lease(ctx, "l3")), errcode.LeaseExpired)
	code("renewing a released lease", second(st.RenewLease(ctx, "l3", hour)), errcode.LeaseExpired)
	if _, err := acquire("l4", "t2", "p", hour); err != nil {
		t.Fatalf("acquire after release: %v", err)
	}

	// Reaping at a time: at the bound (expired at it) and one microsecond
	// past it.
	at := now.Add(10 * time.Minute).Truncate(time.Microsecond)
	for _, x := range []struct {
		id      string
		expires time.Time
	}{{"e1", past}, {"e2", at}, {"e3", at.Add(time.Microsecond)}} {
		if _, err := acquire(x.id, "t3", x.id, x.expires); err != nil {
			t.Fatal(err)
		}
	}
	gone, err := st.ExpiredLeases(ctx, at)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(gone, func(a, b store.Lease) int { return strings.Compare(a.ID, b.ID) })
	if !slices.Equal(gone, []store.Lease{want("e1", "t3", "e1", past), want("e2", "t3", "e2", at)}) {
		t.Fatalf("reaped %+v, want e1 and e2", gone)
	}
	for _, id := range []string{"l1", "new", "l4", "e3"} {
		if _, err := st.Lease(ctx, id); err != nil {
			t.Fatalf("the live lease %s after reaping: %v", id, err)
		}
	}
	code("a reaped lease", second(st.Lease(ctx, "e2")), errcode.LeaseExpired)
	if gone, err := st.ExpiredLeases(ctx, at); err != nil || len(gone) != 0 {
		t.Fatalf("reaping again: %+v, %v", gone, err)
	}
	if _, err := acquire("e4", "t3", "e2", hour); err != nil {
		t.Fatalf("acquiring a reaped lease's profile: %v", err)
	}
}

// LeaseBadInput is refused with invalid_argument and writes nothing; the
// bounds are tested at and one past them.
func (s Suite) LeaseBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := s.open(t, s.Fresh(t))
	hour := time.Now().Add(time.Hour)
	at128 := strings.Repeat("x", 128)
	ok := store.Lease{ID: "id", Tenant: "tenant", Profile: "profile", Holder: "holder", Expires: hour}
	if _, err := st.AcquireLease(ctx, ok); err != nil {
		t.Fatal(err)
	}
	// with is a lease of its own profile with one field (by its index in
	// fields) set to v.
	fields := []string{"id", "tenant", "profile", "holder"}
	with := func(field int, v string) store.Lease {
		l := store.Lease{ID: fmt.Sprintf("id%d", field), Tenant: "tenant", Profile: fmt.Sprintf("profile%d", field),
			Holder: "holder", Expires: hour}
		switch fields[field] {
		case "id":
			l.ID = v
		case "tenant":
			l.Tenant = v
		case "profile":
			l.Profile = v
		case "holder":
			l.Holder = v
		}
		return l
	}
	errs := map[string]error{
		"no expiry":        second(st.AcquireLease(ctx, store.Lease{ID: "a", Tenant: "t", Profile: "p", Holder: "h"})),
		"a taken id":       second(st.AcquireLease(ctx, store.Lease{ID: "id", Tenant: "t", Profile: "another", Holder: "h", Expires: hour})),
		"renew: no id":     second(st.RenewLease(ctx, "", hour)),
		"renew: long id":   second(st.RenewLease(ctx, at128+"x", hour)),
		"renew: no expiry": second(st.RenewLease(ctx, "id", time.Time{})),
		"release: no id":   st.ReleaseLease(ctx, ""),
		"read: no id":      second(st.Lease(ctx, "")),
		"reap: no time":    second(st.ExpiredLeases(ctx, time.Time{})),
	}
	for field, name := range fields {
		for what, v := range map[string]string{"empty": "", "129 bytes": at128 + "x", "not UTF-8": "a\xffb", "NUL": "a\x00b"} {
			errs[name+" "+what] = second(st.AcquireLease(ctx, with(field, v)))
		}
	}
	for name, err := range errs {
		if errcode.Of(err) != errcode.InvalidArgument {
			t.Errorf("%s: %v, want invalid_argument", name, err)
		}
	}
	if l, err := st.Lease(ctx, "id"); err != nil || l.Profile != "profile" || !l.Expires.Equal(hour.Truncate(time.Microsecond)) {
		t.Fatalf("refused writes changed the lease: %+v, %v", l, err)
	}
	for field, name := range fields {
		if _, err := st.AcquireLease(ctx, with(field, at128)); err != nil {
			t.Fatalf("a 128-byte %s: %v", name, err)
		}
	}
	gone, err := st.ExpiredLeases(ctx, hour.Add(time.Hour))
	if err != nil || len(gone) != 5 {
		t.Fatalf("%d leases stored, want 5 (%v)", len(gone), err)
	}
}

// LeaseRace: in each of 100 rounds, 8 goroutines, half on each of two
// stores opened on one database, acquire one profile at once: exactly one
// wins, the others get lease_held. Odd rounds race to take over an
// expired lease, even rounds to create the first.
func (s Suite) LeaseRace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	spec := s.Fresh(t)
	stores := []store.Store{s.open(t, spec), s.open(t, spec)}
	const rounds, racers = 100, 8
	for round := range rounds {
		profile := fmt.Sprintf("p%d", round)
		if round%2 == 1 {
			if _, err := stores[0].AcquireLease(ctx, store.Lease{ID: profile + "-expired", Tenant: "t", Profile: profile,
				Holder: "h", Expires: time.Now().Add(-time.Minute)}); err != nil {
				t.Fatal(err)
			}
		}
		start := make(chan struct{})
		errs := make([]error, racers)
		var wg sync.WaitGroup
		for r := range racers {
			st := stores[r%2]
			wg.Go(func() {
				<-start
				_, errs[r] = st.AcquireLease(ctx, store.Lease{ID: fmt.Sprintf("%s-%d", profile, r), Tenant: "t", Profile: profile,
					Holder: fmt.Sprintf("store%d", r%2), Expires: time.Now().Add(time.Hour)})
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for r, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("round %d: racers %d and %d both acquired the lease", round, winner, r)
			case err == nil:
				winner = r
			case errcode.Of(err) != errcode.LeaseHeld:
				t.Fatalf("round %d: racer %d: %v, want %s", round, r, err, errcode.LeaseHeld)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no racer acquired the lease", round)
		}
		// Both stores see the winner's lease.
		for k, st := range stores {
			l, err := st.Lease(ctx, fmt.Sprintf("%s-%d", profile, winner))
			if err != nil || l.Holder != fmt.Sprintf("store%d", winner%2) {
				t.Fatalf("round %d: store %d reads the winner's lease as %+v, %v", round, k, l, err)
			}
		}
	}
}

// child is this test binary started in a child role.
func child(t testing.TB, role, spec, session string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envRole+"="+role, envSpec+"="+spec, envSession+"="+session)
	return cmd
}

// WriteOnce is this test binary started in the role that writes one
// record and prints its outcome's code: a test runs it as another user.
func WriteOnce(t testing.TB, spec, session string) *exec.Cmd {
	return child(t, "write-once", spec, session)
}

// BenchRecord measures recording one observe call with a ≈ 60 KB canonical
// observation, and reports the bytes the database grew by per call as
// stored measures it after the run.
func BenchRecord(b *testing.B, st store.Store, stored func() int64) {
	ctx := context.Background()
	if err := st.CreateSession(ctx, Session("bench", time.Now())); err != nil {
		b.Fatal(err)
	}
	c := Call("bench", 1)
	before := stored()
	n := 0
	for b.Loop() {
		if _, err := st.Record(ctx, c); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(len(c.Observation)), "observation-bytes")
	b.ReportMetric(float64(stored()-before)/float64(n), "stored-bytes/call")
}

// Image is n bytes that begin as mediaType's files do and differ with i.
func Image(mediaType string, n, i int) []byte {
	head := map[string]string{store.MediaPNG: "\x89PNG\r\n\x1a\n", store.MediaJPEG: "\xff\xd8\xff"}[mediaType]
	b := make([]byte, n)
	for k := range b {
		b[k] = byte(k*7 + i)
	}
	copy(b, head)
	return b
}

// Blobs: blobs are stored with their call and read back exactly, listed
// without data; the data bound holds at MaxBlobBytes and refuses one byte
// more; another session's blob, an unknown session or call is not_found;
// a refused write leaves nothing; a blob's bytes count toward its session's
// and a prune removes them with it.
func (s Suite) Blobs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := s.open(t, s.Fresh(t))
	now := time.Now()
	for k, id := range []string{"shots", "other"} {
		start := now.Add(time.Duration(k-2) * time.Minute)
		if err := st.CreateSession(ctx, Session(id, start)); err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			c := Call(id, i)
			c.StartedAt = start
			if _, err := st.Record(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
	}
	bytesOf := func(id string) int64 {
		t.Helper()
		list, err := st.Sessions(ctx, store.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range list {
			if x.ID == id {
				return x.Bytes
			}
		}
		t.Fatalf("no session %q", id)
		return 0
	}
	before := bytesOf("shots")

	small := store.Blob{SessionID: "shots", Seq: 1, Kind: "screenshot", Revision: "r000001", MediaType: store.MediaPNG,
		Data: Image(store.MediaPNG, 5000, 1), Meta: json.RawMessage(`{"masked":["password","card number"]}`)}
	full := store.Blob{SessionID: "shots", Seq: 2, Kind: "screenshot", MediaType: store.MediaJPEG,
		Data: Image(store.MediaJPEG, store.MaxBlobBytes, 2)}
	smallID, err := st.PutBlob(ctx, small)
	if err != nil {
		t.Fatal(err)
	}
	fullID, err := st.PutBlob(ctx, full)
	if err != nil {
		t.Fatalf("a blob of MaxBlobBytes: %v", err)
	}
	if smallID == fullID {
		t.Fatalf("two blobs have the id %d", smallID)
	}
	if got, want := bytesOf("shots"), before+small.Size()+full.Size(); got != want {
		t.Fatalf("the session holds %d bytes after its blobs, want %d", got, want)
	}

	over := full
	over.Data = Image(store.MediaJPEG, store.MaxBlobBytes+1, 3)
	// {"m":"…"} of n bytes.
	meta := func(n int) json.RawMessage { return json.RawMessage(`{"m":"` + strings.Repeat("x", n-8) + `"}`) }
	longMeta := with(small, func(b *store.Blob) { b.Meta = meta(store.MaxBlobMetaBytes + 1) })
	for name, c := range map[string]struct {
		b    store.Blob
		code errcode.Code
	}{
		"data over the bound":   {over, errcode.TooLarge},
		"meta over the bound":   {longMeta, errcode.TooLarge},
		"unknown session":       {with(small, func(b *store.Blob) { b.SessionID = "nope" }), errcode.NotFound},
		"unknown call":          {with(small, func(b *store.Blob) { b.Seq = 3 }), errcode.NotFound},
		"no call":               {with(small, func(b *store.Blob) { b.Seq = 0 }), errcode.InvalidArgument},
		"no kind":               {with(small, func(b *store.Blob) { b.Kind = "" }), errcode.InvalidArgument},
		"no data":               {with(small, func(b *store.Blob) { b.Data = nil }), errcode.InvalidArgument},
		"other media type":      {with(small, func(b *store.Blob) { b.MediaType = "image/gif" }), errcode.InvalidArgument},
		"data not of its type":  {with(small, func(b *store.Blob) { b.MediaType = store.MediaJPEG }), errcode.InvalidArgument},
		"meta not an object":    {with(small, func(b *store.Blob) { b.Meta = json.RawMessage(`["password"]`) }), errcode.InvalidArgument},
		"revision not UTF-8":    {with(small, func(b *store.Blob) { b.Revision = "r\xff" }), errcode.InvalidArgument},
		"revision with a NUL":   {with(small, func(b *store.Blob) { b.Revision = "r\x00" }), errcode.InvalidArgument},
		"meta not JSON (UTF-8)": {with(small, func(b *store.Blob) { b.Meta = json.RawMessage("{\"a\":\"\xff\"}") }), errcode.InvalidArgument},
	} {
		if _, err := st.PutBlob(ctx, c.b); errcode.Of(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
	// The meta bound at the bound is taken.
	atBound := with(small, func(b *store.Blob) { b.Meta = meta(store.MaxBlobMetaBytes) })
	metaID, err := st.PutBlob(ctx, atBound)
	if err != nil {
		t.Fatalf("meta of %d bytes: %v", store.MaxBlobMetaBytes, err)
	}
	if got, want := bytesOf("shots"), before+small.Size()+full.Size()+atBound.Size(); got != want {
		t.Fatalf("refused blobs changed the session's bytes: %d, want %d", got, want)
	}

	list, err := st.Blobs(ctx, "shots")
	if err != nil {
		t.Fatal(err)
	}
	want := []store.BlobInfo{
		{ID: smallID, SessionID: "shots", Seq: 1, Kind: "screenshot", Revision: "r000001", MediaType: store.MediaPNG, Bytes: 5000, Meta: small.Meta},
		{ID: metaID, SessionID: "shots", Seq: 1, Kind: "screenshot", Revision: "r000001", MediaType: store.MediaPNG, Bytes: 5000, Meta: atBound.Meta},
		{ID: fullID, SessionID: "shots", Seq: 2, Kind: "screenshot", MediaType: store.MediaJPEG, Bytes: store.MaxBlobBytes},
	}
	if len(list) != len(want) {
		t.Fatalf("%d blobs listed, want %d: %+v", len(list), len(want), list)
	}
	for k := range want {
		g, w := list[k], want[k]
		if g.ID != w.ID || g.SessionID != w.SessionID || g.Seq != w.Seq || g.Kind != w.Kind || g.Revision != w.Revision ||
			g.MediaType != w.MediaType || g.Bytes != w.Bytes || !bytes.Equal(g.Meta, w.Meta) || (g.Meta == nil) != (w.Meta == nil) {
			t.Fatalf("blob %d listed as %+v, want %+v", k, g, w)
		}
	}
	for id, b := range map[int64]store.Blob{smallID: small, fullID: full, metaID: atBound} {
		got, err := st.Blob(ctx, "shots", id)
		if err != nil {
			t.Fatal(err)
		}
		if got.SessionID != b.SessionID || got.Seq != b.Seq || got.Kind != b.Kind || got.Revision != b.Revision ||
			got.MediaType != b.MediaType || !bytes.Equal(got.Data, b.Data) || !bytes.Equal(got.Meta, b.Meta) || (got.Meta == nil) != (b.Meta == nil) {
			t.Fatalf("blob %d read back as %s %d/%q %d bytes, meta %s", id, got.SessionID, got.Seq, got.Kind, len(got.Data), got.Meta)
		}
	}

	if list, err := st.Blobs(ctx, "other"); err != nil || len(list) != 0 {
		t.Fatalf("a session without blobs lists %+v, %v", list, err)
	}
	for name, err := range map[string]error{
		"another session's blob": second(st.Blob(ctx, "other", smallID)),
		"a missing blob":         second(st.Blob(ctx, "shots", fullID+1000)),
		"an unknown session":     second(st.Blob(ctx, "nope", smallID)),
		"blobs of no session":    second(st.Blobs(ctx, "nope")),
	} {
		if errcode.Of(err) != errcode.NotFound {
			t.Errorf("%s: %v, want not_found", name, err)
		}
	}

	// "shots" is older: keeping "other"'s bytes prunes it, blobs and all.
	shotsBytes := bytesOf("shots")
	p, err := st.Prune(ctx, 0, bytesOf("other"))
	if err != nil || p.Sessions != 1 || p.Calls != 2 || p.Blobs != 3 || p.Bytes != shotsBytes {
		t.Fatalf("pruning the session with blobs (%d bytes): %+v, %v", shotsBytes, p, err)
	}
	for _, id := range []int64{smallID, fullID, metaID} {
		if _, err := st.Blob(ctx, "shots", id); errcode.Of(err) != errcode.NotFound {
			t.Fatalf("blob %d outlived its session: %v", id, err)
		}
	}
	// Ids are not reused after a prune.
	again := small
	again.SessionID = "other"
	id, err := st.PutBlob(ctx, again)
	if err != nil {
		t.Fatal(err)
	}
	if id <= max(smallID, fullID, metaID) {
		t.Fatalf("a new blob took the id %d of a pruned one", id)
	}
}

// with is b changed by change.
func with(b store.Blob, change func(*store.Blob)) store.Blob {
	change(&b)
	return b
}
