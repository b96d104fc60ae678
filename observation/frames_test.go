package observation

import (
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/errcode"
)

// withFrames is an observation of a page with a same-origin frame holding
// a cross-origin frame, a frame of an origin outside the grant and a
// hidden one.
func withFrames() *Observation {
	o := valid()
	o.Controls = append(o.Controls, Control{Ref: "e3", Frame: 1}, Control{Ref: "e4", Frame: 2}, Control{Ref: "e5", Frame: 2})
	o.Regions[1].Frame = 2
	o.Text = append(o.Text, TextPart{Text: "in the frame", Source: TextSourcePage, Frame: 1})
	o.Frames = []Frame{
		{Index: 1, Depth: 1, Origin: "http://127.0.0.1:1", Status: FrameCollected, Controls: 1, Scanned: 4, TextParts: 1},
		{Index: 2, Parent: 1, Depth: 2, Origin: "http://localhost:2", Status: FrameCollected, Controls: 2, Scanned: 2},
		{Index: 3, Depth: 1, Origin: "http://127.0.0.2:3", Status: FrameNotGranted},
		{Index: 4, Depth: 1, Origin: "null", Status: FrameNotVisible},
	}
	return o
}

func TestValidateFrames(t *testing.T) {
	if err := Validate(withFrames()); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(o *Observation){
		"index not its position":      func(o *Observation) { o.Frames[2].Index = 4 },
		"index from 0":                func(o *Observation) { o.Frames[0].Index = 0 },
		"parent is itself":            func(o *Observation) { o.Frames[1].Parent = 2 },
		"parent after it":             func(o *Observation) { o.Frames[0].Parent = 2 },
		"negative parent":             func(o *Observation) { o.Frames[2].Parent = -1 },
		"depth not parent's plus one": func(o *Observation) { o.Frames[1].Depth = 1 },
		"top-level child at depth 2":  func(o *Observation) { o.Frames[2].Depth = 2 },
		"depth 0":                     func(o *Observation) { o.Frames[3].Depth = 0 },
		"unknown status":              func(o *Observation) { o.Frames[3].Status = "hidden" },
		"empty status":                func(o *Observation) { o.Frames[3].Status = "" },
		"control in a frame not read": func(o *Observation) { o.Controls[0].Frame = 3; o.Frames[2].Controls = 1 },
		"control in no frame":         func(o *Observation) { o.Controls[0].Frame = 5 },
		"control in a negative frame": func(o *Observation) { o.Controls[0].Frame = -1 },
		"region in a frame not read":  func(o *Observation) { o.Regions[0].Frame = 4 },
		"region in no frame":          func(o *Observation) { o.Regions[0].Frame = 9 },
		"text in a frame not read":    func(o *Observation) { o.Text[0].Frame = 3 },
		"text in no frame":            func(o *Observation) { o.Text[0].Frame = 5 },
		"frames without a record":     func(o *Observation) { o.Frames = nil },
		"control count too high":      func(o *Observation) { o.Frames[0].Controls = 2 },
		"control count too low":       func(o *Observation) { o.Frames[1].Controls = 1 },
		"text count wrong":            func(o *Observation) { o.Frames[1].TextParts = 1 },
		"not granted but counted":     func(o *Observation) { o.Frames[2].Controls = 1 },
		"not visible but scanned":     func(o *Observation) { o.Frames[3].Scanned = 1 },
		"not granted with text":       func(o *Observation) { o.Frames[2].TextParts = 1 },
		"negative frames omitted":     func(o *Observation) { o.FramesOmitted = -1 },
		"collected inside a frame not read": func(o *Observation) {
			o.Frames[1].Parent, o.Frames[1].Depth = 1, 2
			o.Frames[0].Status, o.Frames[0].Controls, o.Frames[0].Scanned, o.Frames[0].TextParts = FrameNotGranted, 0, 0, 0
			o.Controls[2].Frame, o.Text[1].Frame = 0, 0
		},
		"origin over the bound": func(o *Observation) { o.Frames[3].Origin = strings.Repeat("a", MaxURLUnits+1) },
	} {
		o := withFrames()
		mutate(o)
		if errcode.Of(Validate(o)) != errcode.CaptureFailed {
			t.Errorf("%s: admitted", name)
		}
	}
	o := withFrames()
	o.Frames[3].Origin = strings.Repeat("a", MaxURLUnits)
	o.FramesOmitted = 3
	if err := Validate(o); err != nil {
		t.Errorf("origin at the bound: %v", err)
	}
}

// records is n frame records, all children of the top document, the
// first collected of them collected and the rest not reached.
func records(collected, n int) []Frame {
	fs := make([]Frame, n)
	for i := range fs {
		fs[i] = Frame{Index: i + 1, Depth: 1, Origin: "http://127.0.0.1:1", Status: FrameNotReached}
		if i < collected {
			fs[i].Status = FrameCollected
		}
	}
	return fs
}

// nested is a chain of frames, each inside the one before, n deep, the
// deepest with the given status.
func nested(n int, status string) []Frame {
	fs := make([]Frame, n)
	for i := range fs {
		fs[i] = Frame{Index: i + 1, Parent: i, Depth: i + 1, Origin: "http://127.0.0.1:1", Status: FrameCollected}
	}
	fs[n-1].Status = status
	return fs
}

func TestFrameBounds(t *testing.T) {
	for _, c := range []struct {
		name   string
		frames []Frame
		ok     bool
	}{
		{"MaxFrameRecords records", records(0, MaxFrameRecords), true},
		{"MaxFrameRecords+1 records", records(0, MaxFrameRecords+1), false},
		{"MaxFrames collected", records(MaxFrames, MaxFrames+1), true},
		{"MaxFrames+1 collected", records(MaxFrames+1, MaxFrames+1), false},
		{"MaxFrames collected among MaxFrameRecords", records(MaxFrames, MaxFrameRecords), true},
		{"collected at MaxFrameDepth", nested(MaxFrameDepth, FrameCollected), true},
		{"collected at MaxFrameDepth+1", nested(MaxFrameDepth+1, FrameCollected), false},
		{"depth_limit at MaxFrameDepth+1", nested(MaxFrameDepth+1, FrameDepthLimit), true},
	} {
		o := valid()
		o.Frames = c.frames
		err := Validate(o)
		if c.ok && err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if !c.ok && errcode.Of(err) != errcode.CaptureFailed {
			t.Errorf("%s: %v, want capture_failed", c.name, err)
		}
	}
}
