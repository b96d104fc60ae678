package replay_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/replay"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
	"github.com/veetbot/veetbrowser/tools"
)

// demo is the demo page's canonical observation (≈ 60 KB), whose views the
// root package pins as golden files.
func demo(t testing.TB) json.RawMessage {
	raw, err := os.ReadFile("../projection/testdata/demo-observation.json")
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// golden is the view a session of version v returned at budget, as the
// golden file pins it.
func golden(t testing.TB, v string, budget int) []byte {
	raw, err := os.ReadFile(filepath.Join("..", "projection", "testdata", "golden", fmt.Sprintf("%s-%d.json", v, budget)))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(raw, []byte("\n"))
}

func openStore(t testing.TB) store.Store {
	st, err := storespec.Open(context.Background(), filepath.Join(t.TempDir(), "artifacts.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// observeCall records the demo observation with view as the view returned.
func observeCall(id, version string, budget int, obs json.RawMessage, view []byte) store.Call {
	sum := sha256.Sum256(view)
	return store.Call{SessionID: id, Tool: tools.Observe, Arguments: json.RawMessage(`{}`), StartedAt: time.Now(),
		Result: store.Result{Outcome: store.OutcomeOK, Observation: obs, View: &store.View{SHA256: sum[:], Bytes: len(view)},
			Projection: &store.Projection{Version: version, Budget: budget}}}
}

func session(t testing.TB, st store.Store, id, version string, budget int) {
	if err := st.CreateSession(context.Background(), store.Session{ID: id, StartedAt: time.Now(), Version: version,
		Budget: budget, Grant: json.RawMessage(`{}`), Surface: "library"}); err != nil {
		t.Fatal(err)
	}
}

// The recorded views of every version at 1, 4 and 8 KiB are re-derived
// byte-identical to the golden views.
func TestReplayIsByteIdentical(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	obs := demo(t)
	for _, v := range tools.Versions {
		id := "s-" + v.Name
		session(t, st, id, v.Name, 8192)
		for _, budget := range []int{1024, 4096, 8192} {
			if _, err := st.Record(ctx, observeCall(id, v.Name, budget, obs, golden(t, v.Name, budget))); err != nil {
				t.Fatal(err)
			}
		}
		// An error and an open intent have no view.
		if _, err := st.Record(ctx, store.Call{SessionID: id, Tool: tools.Act, Arguments: json.RawMessage(`{}`), StartedAt: time.Now(),
			Result: store.Result{Outcome: string(errcode.StaleReference)}}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Intent(ctx, store.Call{SessionID: id, Tool: tools.Act, Arguments: json.RawMessage(`{}`), StartedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		rep, err := replay.Session(ctx, st, id, replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Identical() || len(rep.Views) != 3 || rep.Skipped != 2 || !rep.AllFit {
			t.Fatalf("%s: %+v, first difference %+v", v.Name, rep, rep.First)
		}
		for _, view := range rep.Views {
			if !view.Matches || view.Bytes != len(golden(t, v.Name, view.Budget)) {
				t.Fatalf("%s: %+v", v.Name, view)
			}
		}
	}
}

// An act's postconditions are part of its view and of what is recorded.
func TestReplayActionView(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	session(t, st, "act", "1.5.0", 4096)
	v, _ := tools.Lookup("1.5.0")
	var obs observation.Observation
	json.Unmarshal(demo(t), &obs)
	opts := tools.ViewOptions(v, 4096, 0, 0)
	plain, err := projection.Project(&obs, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Action = &projection.Outcome{Dispatched: true, NavigationStarted: true, DialogOpened: true}
	view, err := projection.Project(&obs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(plain, view) {
		t.Fatal("the postconditions do not change the view: this test would not see them lost")
	}
	c := observeCall("act", "1.5.0", 4096, demo(t), view)
	c.Tool, c.Projection.Action = tools.Act, opts.Action
	c.Action = json.RawMessage(`{"facts":{"role":"button","name":"Like"},"approval":"not_needed","postconditions":{"dispatched":true}}`)
	if _, err := st.Record(ctx, c); err != nil {
		t.Fatal(err)
	}
	rep, err := replay.Session(ctx, st, "act", replay.Options{})
	if err != nil || !rep.Identical() {
		t.Fatalf("%+v %v", rep, err)
	}
}

// A recorded digest that the observation does not give back is reported as
// the first difference.
func TestReplayReportsFirstDifference(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	session(t, st, "bad", "1.5.0", 8192)
	obs := demo(t)
	for _, budget := range []int{8192, 1024, 4096} {
		view := golden(t, "1.5.0", budget)
		if budget != 8192 {
			view = golden(t, "1.3.0", budget) // not what 1.5.0 returns
		}
		if _, err := st.Record(ctx, observeCall("bad", "1.5.0", budget, obs, view)); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := replay.Session(ctx, st, "bad", replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := rep.First
	if rep.Identical() || d == nil || d.Seq != 2 || d.RecordedBytes != len(golden(t, "1.3.0", 1024)) ||
		d.Bytes != len(golden(t, "1.5.0", 1024)) || d.SHA256 == d.RecordedSHA256 {
		t.Fatalf("first difference %+v", d)
	}
	if !rep.Views[0].Matches || rep.Views[1].Matches || rep.Views[2].Matches {
		t.Fatalf("views %+v", rep.Views)
	}
}

// Re-projection under another budget or version reports each view's size
// and that it fits; under another version it gives that version's views.
func TestReplayUnderOtherInputs(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	session(t, st, "s", "1.5.0", 8192)
	obs := demo(t)
	for range 3 {
		if _, err := st.Record(ctx, observeCall("s", "1.5.0", 8192, obs, golden(t, "1.5.0", 8192))); err != nil {
			t.Fatal(err)
		}
	}
	for _, budget := range []int{projection.MinBudget, 2000, projection.MaxBudget} {
		rep, err := replay.Session(ctx, st, "s", replay.Options{Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		if rep.AsRecorded || !rep.AllFit || len(rep.Views) != 3 {
			t.Fatalf("at %d: %+v", budget, rep)
		}
		for _, v := range rep.Views {
			if v.Budget != budget || !v.Fits || v.Bytes > budget || v.Bytes == 0 {
				t.Fatalf("at %d: %+v", budget, v)
			}
		}
	}
	rep, err := replay.Session(ctx, st, "s", replay.Options{Version: "1.0.0", Budget: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if v := rep.Views[0]; v.Version != "1.0.0" || v.Bytes != len(golden(t, "1.0.0", 4096)) {
		t.Fatalf("as 1.0.0 at 4096: %+v", v)
	}
	for name, opts := range map[string]replay.Options{
		"budget under the minimum": {Budget: projection.MinBudget - 1},
		"budget over the maximum":  {Budget: projection.MaxBudget + 1},
		"unregistered version":     {Version: "1.4.0"},
	} {
		if _, err := replay.Session(ctx, st, "s", opts); errcode.Of(err) != errcode.InvalidArgument {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := replay.Session(ctx, st, "missing", replay.Options{}); errcode.Of(err) != errcode.InvalidArgument {
		t.Errorf("an unknown session: %v", err)
	}
}

// BenchmarkReplay re-derives a session of 50 observation views.
func BenchmarkReplay(b *testing.B) {
	ctx := context.Background()
	st := openStore(b)
	session(b, st, "s", "1.5.0", 8192)
	obs := demo(b)
	const views = 50
	for range views {
		if _, err := st.Record(ctx, observeCall("s", "1.5.0", 8192, obs, golden(b, "1.5.0", 8192))); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		rep, err := replay.Session(ctx, st, "s", replay.Options{})
		if err != nil || !rep.Identical() {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*views)/time.Since(start).Seconds(), "views/s")
}
