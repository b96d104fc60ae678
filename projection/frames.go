package projection

import (
	"strconv"

	"github.com/veetbot/veetbrowser/observation"
)

// Frames in the view (browser tools ≥ 1.7.0, docs/frames.md). A control,
// region or text part from a child frame names it ("frame" on controls and
// regions; text_frames, parallel to text, for text parts), and the view
// lists the frame records it names, each with its ancestors, so that every
// frame index in the view resolves. A record is charged to the first item
// that needs it: an item whose records do not fit is not shown, as any item
// that does not fit. The other records (frames not collected, or collected
// with nothing shown) follow the controls as room allows; frames_omitted
// counts the records left out and the frames beyond the observation's
// records.

// Frame is a frame record as the model sees it.
type Frame struct {
	Frame           int    `json:"frame"`
	Origin          string `json:"origin"`
	OriginTruncated bool   `json:"origin_truncated,omitempty"`
	Depth           int    `json:"depth"`
	Parent          int    `json:"parent,omitempty"`
	Status          string `json:"status"`
	Limit           string `json:"limit,omitempty"`
	TextLimit       string `json:"text_limit,omitempty"`
}

func modelFrame(f observation.Frame) Frame {
	origin, cut := clip(f.Origin, urlCap)
	return Frame{Frame: f.Index, Origin: origin, OriginTruncated: cut, Depth: f.Depth, Parent: f.Parent,
		Status: f.Status, Limit: f.Limit, TextLimit: f.TextLimit}
}

// frameView is the frame state of one reading admission.
type frameView struct {
	records []Frame
	sizes   []int  // JSON size of each record
	extra   []bool // by frame index: shown although nothing shown names it
	omitted int    // frames beyond the observation's records
}

func newFrameView(obs *observation.Observation, on bool) frameView {
	if !on {
		return frameView{}
	}
	fv := frameView{records: make([]Frame, len(obs.Frames)), sizes: make([]int, len(obs.Frames)),
		extra: make([]bool, len(obs.Frames)+1), omitted: obs.FramesOmitted}
	for i, f := range obs.Frames {
		fv.records[i] = modelFrame(f)
		fv.sizes[i] = size(fv.records[i])
	}
	return fv
}

// mark adds frame f and its ancestors to shown (indexed by frame index).
func (fv *frameView) mark(shown []bool, f int) {
	for f > 0 && f <= len(fv.records) && !shown[f] {
		shown[f] = true
		f = fv.records[f-1].Parent
	}
}

// chainCost is the most the records of an item in frame f add to a view:
// its frame's and its ancestors', with the array around them.
func (fv *frameView) chainCost(f int) int {
	cost := 0
	for f > 0 && f <= len(fv.records) {
		cost += fv.sizes[f-1] + 1
		f = fv.records[f-1].Parent
	}
	if cost > 0 {
		cost += len(`,"frames":[]`)
	}
	return cost
}

// shown is the set of frames the reader's view shows, by frame index, with
// one more text part in frame extra (0: none).
func (r *reader) shownFrames(extra int) []bool {
	fv := &r.frames
	if len(fv.records) == 0 {
		return nil
	}
	shown := make([]bool, len(fv.records)+1)
	for _, i := range r.ctl.shown {
		fv.mark(shown, r.a.controls[i].Frame)
	}
	for _, i := range r.reg.shown {
		fv.mark(shown, r.regions[i].Frame)
	}
	for _, i := range r.parts {
		fv.mark(shown, r.a.textFrames[i])
	}
	if r.cut != "" {
		fv.mark(shown, r.a.textFrames[r.partsPassed])
	}
	fv.mark(shown, extra)
	for f, on := range fv.extra {
		if on {
			fv.mark(shown, f)
		}
	}
	return shown
}

// framesSize is the size of the frames array (with its key and comma) of
// the frames shown.
func (r *reader) framesSize(shown []bool) int {
	total, n := 0, 0
	for f, on := range shown {
		if on {
			total += r.frames.sizes[f-1]
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return total + len(`,"frames":[]`) + n - 1
}

// textFramesSize is the size of the text_frames array (with its key and
// comma) of text parts in the given frames; 0 when all are in the top
// document, as the array is then left out.
func textFramesSize(frames []int) int {
	total, framed := 0, false
	for _, f := range frames {
		total += len(strconv.Itoa(f))
		framed = framed || f != 0
	}
	if !framed {
		return 0
	}
	return total + len(`,"text_frames":[]`) + len(frames) - 1
}

// shownTextFrames is the frame of each text part shown, with extra's last.
func (r *reader) shownTextFrames(extra string, extraFrame int) []int {
	if len(r.frames.records) == 0 {
		return nil
	}
	out := make([]int, 0, len(r.parts)+2)
	for _, i := range r.parts {
		out = append(out, r.a.textFrames[i])
	}
	if r.cut != "" {
		out = append(out, r.a.textFrames[r.partsPassed])
	}
	if extra != "" {
		out = append(out, extraFrame)
	}
	return out
}

// addFrames shows, in order, the records nothing shown names, each that
// fits within limit.
func (r *reader) addFrames(limit int) {
	shown := r.shownFrames(0)
	for f := 1; f < len(shown); f++ {
		if shown[f] {
			continue
		}
		r.frames.extra[f] = true
		if r.size() > limit {
			r.frames.extra[f] = false
			continue
		}
		shown = r.shownFrames(0)
	}
}
