package projection_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/tools"
)

// framesFixture is a checkout page with a same-origin reviews frame that
// holds a cross-origin payment frame, an ad frame of an origin outside the
// grant and a hidden sandboxed frame.
func framesFixture(t testing.TB) *observation.Observation {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "frames-observation.json"))
	if err != nil {
		t.Fatal(err)
	}
	var obs observation.Observation
	if err := json.Unmarshal(raw, &obs); err != nil {
		t.Fatal(err)
	}
	if err := observation.Validate(&obs); err != nil {
		t.Fatalf("the fixture fails admission: %v", err)
	}
	return &obs
}

func frameOptions(t testing.TB, name string, budget int) projection.Options {
	t.Helper()
	v, err := tools.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return tools.ViewOptions(v, budget, 0, 0)
}

// TestFrameGoldenViews pins 1.7.0's view of the frames fixture at the
// budgets TestGoldenViews uses.
func TestFrameGoldenViews(t *testing.T) {
	for _, budget := range []int{1024, 4096, 8192} {
		obs := framesFixture(t)
		out, err := projection.Project(obs, frameOptions(t, "1.7.0", budget))
		if err != nil {
			t.Fatalf("at %d: %v", budget, err)
		}
		checkFrames(t, obs, budget, out)
		checkGolden(t, fmt.Sprintf("frames-1.7.0-%d.json", budget), out)
	}
}

// checkFrames checks a 1.7.0 view of obs: it fits; every frame index it
// shows (of a control, region, text part or a record's parent) has its
// record; records are in order, once each, as the observation has them;
// frames_omitted counts the rest.
func checkFrames(t *testing.T, obs *observation.Observation, budget int, out []byte) projection.View {
	t.Helper()
	if len(out) > budget || !json.Valid(out) {
		t.Fatalf("a view of %d bytes at budget %d", len(out), budget)
	}
	var v projection.View
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	records := map[int]bool{}
	last := 0
	for _, f := range v.Frames {
		if f.Frame <= last || f.Frame > len(obs.Frames) {
			t.Fatalf("budget %d: frame records out of order: %+v", budget, v.Frames)
		}
		last = f.Frame
		records[f.Frame] = true
		o := obs.Frames[f.Frame-1]
		// An origin is shown whole, or cut and flagged.
		origin := f.Origin == o.Origin && !f.OriginTruncated || f.OriginTruncated && f.Origin != o.Origin && strings.HasPrefix(o.Origin, f.Origin)
		if !origin || f.Status != o.Status || f.Depth != o.Depth || f.Parent != o.Parent || f.Limit != o.Limit {
			t.Fatalf("budget %d: record %+v of frame %+v", budget, f, o)
		}
	}
	need := func(what string, f int) {
		if f != 0 && !records[f] {
			t.Fatalf("budget %d: %s names frame %d, which has no record in %s", budget, what, f, out)
		}
	}
	frameOf := map[string]int{}
	for _, c := range obs.Controls {
		frameOf[c.Ref] = c.Frame
		frameOf[observation.CompactRef(c.Ref)] = c.Frame // 1.9.0 writes refs compact
	}
	for _, g := range obs.Regions {
		frameOf[observation.CompactRef(g.Ref)] = g.Frame
		frameOf[g.Ref] = g.Frame
	}
	for _, c := range v.Controls {
		if c.Frame != frameOf[c.Ref] {
			t.Fatalf("budget %d: control %s in frame %d, want %d", budget, c.Ref, c.Frame, frameOf[c.Ref])
		}
		need("control "+c.Ref, c.Frame)
	}
	for i, g := range v.Regions {
		if v.Complete {
			g.Ref = obs.Regions[i].Ref // a whole view's regions are the observation's, in order
		}
		if g.Frame != frameOf[g.Ref] {
			t.Fatalf("budget %d: region %s in frame %d, want %d", budget, g.Ref, g.Frame, frameOf[g.Ref])
		}
		need("region "+g.Ref, g.Frame)
	}
	if v.TextFrames != nil && len(v.TextFrames) != len(v.Text) {
		t.Fatalf("budget %d: %d text_frames for %d text parts", budget, len(v.TextFrames), len(v.Text))
	}
	framed := false
	for i, f := range v.TextFrames {
		need(fmt.Sprintf("text part %d", i), f)
		framed = framed || f != 0
	}
	if v.TextFrames != nil && !framed {
		t.Fatalf("budget %d: text_frames without a framed part", budget)
	}
	for _, f := range v.Frames {
		need(fmt.Sprintf("frame %d's parent", f.Frame), f.Parent)
	}
	if want := len(obs.Frames) + obs.FramesOmitted - len(v.Frames); v.FramesOmitted != want {
		t.Fatalf("budget %d: frames_omitted %d, want %d", budget, v.FramesOmitted, want)
	}
	return v
}

func TestFramesViewFitsAtMinBudget(t *testing.T) {
	obs := framesFixture(t)
	out, err := projection.Project(obs, frameOptions(t, "1.7.0", projection.MinBudget))
	if err != nil {
		t.Fatal(err)
	}
	v := checkFrames(t, obs, projection.MinBudget, out)
	if len(v.Controls) == 0 || len(v.Text) == 0 {
		t.Fatalf("the 1 KiB view starves a stream: %s", out)
	}
}

// TestShownControlBringsItsFrameRecords: a control in a nested frame,
// shown first, brings its frame's record and its parent's, even at the
// smallest budget.
func TestShownControlBringsItsFrameRecords(t *testing.T) {
	obs := framesFixture(t)
	first := 0
	for i, c := range obs.Controls {
		if c.Frame == 2 {
			first = i
			break
		}
	}
	// The view of a continuation that starts at the payment frame's first
	// control.
	obs.Controls = obs.Controls[first:]
	for _, budget := range []int{projection.MinBudget, projection.DefaultBudget} {
		out, err := projection.Project(obs, frameOptions(t, "1.7.0", budget))
		if err != nil {
			t.Fatal(err)
		}
		v := checkFrames(t, obs, budget, out)
		if len(v.Controls) == 0 || v.Controls[0].Frame != 2 {
			t.Fatalf("budget %d: the payment frame's control is not shown first: %s", budget, out)
		}
		if len(v.Frames) < 2 || v.Frames[0].Frame != 1 || v.Frames[1].Frame != 2 {
			t.Fatalf("budget %d: frame records %+v, want frames 1 and 2", budget, v.Frames)
		}
	}
}

// TestFrameRecordIsChargedToItsControl: a control whose frame record does
// not fit is not shown, and the continuation resumes at it, at a budget
// where the control alone, without a record, would be shown.
func TestFrameRecordIsChargedToItsControl(t *testing.T) {
	obs := &observation.Observation{Version: "1.7.0", Revision: "v1", Trust: observation.Trust,
		URL: "http://127.0.0.1:1/", Origin: "http://127.0.0.1:1",
		ControlCoverage: observation.ControlCoverage{Scanned: 7},
		Frames: []observation.Frame{{Index: 1, Depth: 1, Origin: "http://" + strings.Repeat("a", 200) + ".localhost:2",
			Status: observation.FrameCollected, Controls: 1, Scanned: 1}},
	}
	for i := range 6 {
		obs.Controls = append(obs.Controls, observation.Control{Ref: fmt.Sprintf("e%d", i), Role: "link", Name: strings.Repeat("Home ", 30)})
	}
	obs.Controls = append(obs.Controls, observation.Control{Ref: "e6", Role: "button", Name: "Pay", Frame: 1})
	if err := observation.Validate(obs); err != nil {
		t.Fatal(err)
	}
	shown := func(o *observation.Observation, budget int) (projection.View, bool) {
		out, err := projection.Project(o, frameOptions(t, "1.7.0", budget))
		if err != nil {
			t.Fatal(err)
		}
		var v projection.View
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatal(err)
		}
		return v, len(v.Controls) == 7
	}
	budget := projection.MinBudget
	for ; budget < 4096; budget++ {
		if _, ok := shown(obs, budget); ok {
			break
		}
	}
	if budget == projection.MinBudget || budget == 4096 {
		t.Fatalf("the framed control shows first at %d", budget)
	}
	budget-- // one byte short of the control with its record
	v, _ := shown(obs, budget)
	if len(v.Controls) != 6 || v.ControlsOmitted != 1 || v.Next == nil || v.Next.Cursor == "" {
		t.Fatalf("at %d: %+v, want six controls shown and a next that resumes at the seventh", budget, v)
	}
	top := *obs
	top.Controls = slices.Clone(obs.Controls)
	top.Controls[6].Frame = 0
	top.Frames = nil
	if _, ok := shown(&top, budget); !ok {
		t.Fatalf("at %d the control is not shown even without its record", budget)
	}
}

// TestFramesViewsFitEveryBudget: at every budget from 1 to 16 KiB the
// fixture's view, and a larger generated page's, fit and resolve every
// frame index they show.
func TestFramesViewsFitEveryBudget(t *testing.T) {
	fixture := framesFixture(t)
	large := largeFramed()
	if err := observation.Validate(large); err != nil {
		t.Fatal(err)
	}
	for budget := projection.MinBudget; budget <= 16384; budget++ {
		obs := fixture
		if budget%17 == 0 {
			obs = large
		} else if budget%5 != 0 {
			continue // the fixture at every fifth byte keeps the test fast
		}
		out, err := projection.Project(obs, frameOptions(t, "1.7.0", budget))
		if err != nil {
			t.Fatalf("budget %d: %v", budget, err)
		}
		checkFrames(t, obs, budget, out)
	}
}

// largeFramed is a page of 16 collected frames, nested up to depth 4, with
// the rest of the 32 records not collected and more frames omitted.
func largeFramed() *observation.Observation {
	obs := &observation.Observation{Version: "1.7.0", Revision: "v1", Trust: observation.Trust,
		URL: "http://127.0.0.1:1/", Origin: "http://127.0.0.1:1", Title: "Frames",
		RegionCoverage: &observation.RegionCoverage{Version: 1, Scope: observation.RegionScope},
		TextCoverage:   &observation.TextCoverage{Version: 1, Scope: observation.TextScope},
		FramesOmitted:  5,
	}
	statuses := []string{observation.FrameNotGranted, observation.FrameNotVisible, observation.FrameLimit,
		observation.FrameDetached, observation.FrameCrashed, observation.FrameNotReached}
	for i := range observation.MaxFrameRecords {
		f := observation.Frame{Index: i + 1, Depth: 1, Origin: fmt.Sprintf("http://127.0.0.%d:%d", 1+i%3, 2000+i), Status: observation.FrameCollected}
		if i%4 != 0 && i < observation.MaxFrames {
			f.Parent, f.Depth = i, obs.Frames[i-1].Depth+1 // inside the frame before it
		}
		if i >= observation.MaxFrames {
			f.Status = statuses[i%len(statuses)]
		}
		obs.Frames = append(obs.Frames, f)
	}
	for i := range 200 {
		frame := (i / 8) % (observation.MaxFrames + 1) // runs of eight in the top document or a frame
		obs.Controls = append(obs.Controls, observation.Control{Ref: fmt.Sprintf("e%03dqf7kz3hm2w", i), Role: "link",
			Name: fmt.Sprintf("Item %d «%s»", i, strings.Repeat("ü", i%40)), Frame: frame})
		obs.Text = append(obs.Text, observation.TextPart{Text: fmt.Sprintf("Paragraph %d: %s", i, strings.Repeat("text ", i%60)),
			Source: observation.TextSourcePage, Frame: frame})
		if frame > 0 {
			obs.Frames[frame-1].Controls++
			obs.Frames[frame-1].Scanned++
			obs.Frames[frame-1].TextParts++
		}
		if i%10 == 0 {
			obs.Regions = append(obs.Regions, observation.Region{Ref: fmt.Sprintf("g%03dqf7kz3hm2w", i), Kind: "heading", Level: 2,
				Summary: fmt.Sprintf("Section %d", i), Frame: frame})
		}
	}
	obs.ControlCoverage = observation.ControlCoverage{Scanned: 200}
	return obs
}

// TestOlderVersionsShowNoFrames: a view of an older version never names
// frames, whatever the observation holds.
func TestOlderVersionsShowNoFrames(t *testing.T) {
	obs := framesFixture(t)
	out, err := projection.Project(obs, frameOptions(t, "1.6.0", projection.DefaultBudget))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"frame"`, `"frames"`, `"text_frames"`, `"frames_omitted"`} {
		if bytes.Contains(out, []byte(key)) {
			t.Fatalf("the 1.6.0 view has %s: %s", key, out)
		}
	}
}
