package projection

import (
	"encoding/json"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// Reading admission (browser tools ≥ 1.6.0, docs/reading.md). The budget is
// shared between the streams so that none starves:
//
//  1. the essentials, with the widest continuation they may need, must fit;
//  2. the first control that fits is reserved, then the location and title;
//  3. of the room R then left, text is reserved a third when the page has
//     text, and regions a sixth when it has regions (or the first region,
//     when that is more but no more than a third);
//  4. controls fill what the reservations leave, in order; regions fill
//     what the text reservation leaves, in order; text takes the rest;
//  5. whatever a stream did not use goes to the others, in the same order.
//
// Controls and regions are whole records; one too large to show even
// alone is skipped and listed, never passed silently. Text parts are whole
// but the last, which may be cut between runes and is flagged. The view's
// next resumes every stream right after what the view showed of it, so
// following next until it is absent shows every control, region and text
// part of the page once.

// streamCursor is the widest continuation the essentials reserve room for.
var streamCursor = observation.NextKey{Revision: 1 << 62}.MintStreams(observation.Streams{
	Controls: observation.ControlsCursor, Control: observation.MaxControls,
	Region: observation.RegionScanNodes, Text: observation.TextBytes, TextUnits: observation.TextUnits,
})

// widestNext is a continuation no view's is longer than: every field at
// its widest (-1 is minted as the largest uint64, ten varint bytes), the
// focus included.
var widestNext = &Next{Cursor: observation.NextKey{Revision: 1<<64 - 1}.MintStreams(observation.Streams{
	Controls: 1<<64 - 1, Control: -1, Region: -2, Text: -2, TextUnits: -1, Focus: 1<<64 - 1})}

// reader is the state of one reading admission.
type reader struct {
	a       *admission
	regions []Region
	ctl     records
	reg     records
	tsize   []int // JSON size of each text part; 0 until partSize encodes it

	parts       []int // text parts shown whole
	partsPassed int
	cut         string
	cutUnits    int // UTF-16 units of the cut part shown
	textDone    bool

	frames frameView // 1.7.0 (frames.go)

	// bound is the size of the header at its widest (widestHeader); 0
	// when not known since the view's fixed part or a skip list changed.
	bound int
}

func (a *admission) reading() ([]byte, error) {
	a.v.TextContinues = a.obs.TextCoverage != nil && a.obs.TextCoverage.FirstContinues
	a.v.Loading = a.obs.Loading
	if a.opts.Compact {
		a.leaveOutEnded() // compact.go
	}
	a.focus()
	if !a.opts.Lean {
		return newReader(a).admit()
	}
	// 1.9.0 (lean.go): a page read whole says so with one marker; any other
	// keeps its records, without what the version implies.
	leanEssentials(&a.v)
	if a.obs.Focus == "" && completeCoverage(a.obs) {
		if out, ok := newReader(a).whole(); ok {
			return out, nil
		}
	}
	return newReader(a).admit()
}

func newReader(a *admission) *reader {
	r := &reader{a: a, regions: make([]Region, len(a.obs.Regions)), tsize: make([]int, len(a.text))}
	r.ctl = records{ref: func(i int) string { return a.controls[i].Ref }, sizes: a.encoded,
		frame: func(i int) int { return a.controls[i].Frame }}
	r.reg = records{ref: func(i int) string { return r.regions[i].Ref }, sizes: make([]int, len(r.regions)),
		frame: func(i int) int { return r.regions[i].Frame }}
	for i, g := range a.obs.Regions {
		r.regions[i] = modelRegion(g, a.opts.Compact)
		if a.opts.Frames {
			r.regions[i].Frame = g.Frame
		}
		r.reg.sizes[i] = size(&r.regions[i])
	}
	r.frames = newFrameView(a.obs, a.opts.Frames)
	return r
}

// admit runs the admission on the view's essentials as a.v holds them.
func (r *reader) admit() ([]byte, error) {
	a := r.a
	// 1. The essentials.
	ess := a.v
	ess.ControlsOmitted, ess.RegionsOmitted, ess.TextOmitted = len(a.controls), len(r.regions), len(a.text)
	ess.Next = &Next{Cursor: streamCursor}
	ess.TextTruncated = true
	ess.ContextOmitted = true
	// A record too large to show alone is passed with a skip entry, which
	// must always fit.
	if len(a.controls) > 0 {
		ess.Skipped = []Skipped{{Ref: longestRef(a.obs), Reason: "oversized"}}
	}
	if len(r.regions) > 0 {
		ess.RegionsSkipped = []Skipped{{Ref: longestRegionRef(a.obs), Reason: "oversized"}}
	}
	if len(r.frames.records) > 0 || r.frames.omitted > 0 {
		ess.FramesOmitted = len(r.frames.records) + r.frames.omitted
	}
	essentials := size(ess) - len("null") + len("[]")
	if essentials > a.budget {
		return nil, errcode.New(errcode.ObservationTooLarge, "the observation's essential coverage does not fit the %d-byte budget", a.budget)
	}
	oversized := func(item int) bool { return essentials+item > a.budget }

	// 2. The first control, with room for the flag that says the context
	// was left out, then the context.
	a.v.ContextOmitted = true
	r.pass(&r.ctl, a.budget, 1, oversized)
	plain := a.v
	if a.v = contextOf(a.v, a.obs); r.size() > a.budget {
		a.v = plain
	}
	r.bound = 0 // the header's fixed part changed

	// 3. and 4. The reservations, then each stream in order.
	room := a.budget - r.size()
	textReserve, regionReserve := 0, 0
	if len(a.text) > 0 {
		textReserve = room / 3
	}
	if len(r.regions) > 0 {
		// A sixth, but room for the first region when a third holds it.
		regionReserve = room / 6
		if first := r.reg.sizes[0] + len(`,"regions":[]`); first > regionReserve && first <= room/3 {
			regionReserve = first
		}
	}
	r.pass(&r.ctl, a.budget-textReserve-regionReserve, len(a.controls), oversized)
	r.addFrames(a.budget - textReserve - regionReserve)
	r.pass(&r.reg, a.budget-textReserve, len(r.regions), oversized)
	r.addText()
	// 5. What text left over.
	r.pass(&r.ctl, a.budget, len(a.controls), oversized)
	r.addFrames(a.budget)
	r.pass(&r.reg, a.budget, len(r.regions), oversized)
	r.addText()

	if len(a.controls) > 0 && r.ctl.passed == 0 {
		// Cannot happen with the skip entry in the essentials; a next that
		// passes nothing would repeat itself.
		return nil, errcode.New(errcode.ObservationTooLarge, "the first control does not fit the %d-byte budget", a.budget)
	}
	v := a.addDraft(r.view())
	out, err := json.Marshal(v)
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "the observation could not be encoded")
	}
	if len(out) > a.budget {
		return nil, errcode.New(errcode.ObservationTooLarge, "the observation does not fit the %d-byte budget", a.budget)
	}
	return out, nil
}

// records is a stream of whole records, controls or regions, passed in
// order: each shown, or skipped and listed when too large to show even
// alone.
type records struct {
	ref    func(i int) string
	sizes  []int           // JSON size of each record
	frame  func(i int) int // the frame of each record (1.7.0)
	shown  []int           // indexes shown
	skips  []Skipped
	passed int // records shown or skipped
}

// pass passes records in order while the view stays within limit, until
// at most most are shown.
func (r *reader) pass(s *records, limit, most int, oversized func(int) bool) {
	for s.passed < len(s.sizes) && len(s.shown) < most {
		i := s.passed
		s.shown = append(s.shown, i)
		s.passed++
		if r.within(limit) {
			continue
		}
		s.shown = s.shown[:len(s.shown)-1]
		s.passed--
		if !oversized(s.sizes[i] + r.frames.chainCost(s.frame(i))) {
			return
		}
		s.skips = append(s.skips, Skipped{Ref: s.ref(i), Reason: "oversized"})
		s.passed++
		r.bound = 0 // the header holds the skips
		if r.size() > limit {
			s.skips = s.skips[:len(s.skips)-1]
			s.passed--
			return
		}
	}
}

// addText admits whole parts in order within the budget, then as much of
// the next part as fits, which ends the text of this view.
func (r *reader) addText() {
	for !r.textDone && r.partsPassed < len(r.a.text) {
		r.parts = append(r.parts, r.partsPassed)
		r.partsPassed++
		if r.within(r.a.budget) {
			continue
		}
		r.parts = r.parts[:len(r.parts)-1]
		r.partsPassed--
		r.textDone = true // a part that does not fit whole ends the text
		r.cutPart(r.a.text[r.partsPassed])
	}
}

// cutPart shows as much of part as fits. The flags and the continuation
// the cut implies change the view's size too, so the cut shrinks by what
// it overflows until it fits.
func (r *reader) cutPart(part string) {
	room := r.a.budget - r.sizeWith(`""`, r.a.textFrames[r.partsPassed]) + len(`""`)
	for room > len(`""`) {
		r.cut, _ = clip(part, room)
		r.cutUnits = observation.UTF16Len(r.cut)
		if r.cut == "" {
			break
		}
		over := r.size() - r.a.budget
		if over <= 0 {
			return
		}
		room -= over
	}
	r.cut, r.cutUnits = "", 0
}

// size is the exact size of the view as it stands.
func (r *reader) size() int { return r.sizeWith("", 0) }

// within reports whether the view as it stands is at most limit bytes, as
// size would. It asks the bound first: the header at its widest, encoded
// once, plus the arrays, which need no encoding; only a view the bound
// does not clear is sized exactly. So a record passed far from the limit
// costs no encoding of the header.
func (r *reader) within(limit int) bool {
	if r.bound == 0 {
		r.bound = r.widestHeader()
	}
	if r.bound+r.arrays(r.shownFrames(0), "", 0) <= limit {
		return true
	}
	return r.size() <= limit
}

// sizeWith is the size of the view with one more text part, extra, already
// JSON-encoded, in frame extraFrame, after the shown ones (none when extra
// is "").
func (r *reader) sizeWith(extra string, extraFrame int) int {
	frames := r.shownFrames(extraFrame)
	v := r.header(frames)
	v.Controls, v.Regions, v.Text = nil, nil, nil
	return size(v) - len("null") + len("[]") + r.arrays(frames, extra, extraFrame)
}

// widestHeader is the size sizeWith counts for the header with every
// field the records shown change at its widest: every count as if
// nothing were shown, the text cut, the widest continuation. The header
// with any records shown is no larger.
func (r *reader) widestHeader() int {
	a := r.a
	v := a.v
	if n := len(r.frames.records) + r.frames.omitted; n > 0 {
		v.FramesOmitted = n
	}
	v.ControlsOmitted, v.Skipped = len(a.controls), r.ctl.skips
	v.RegionsOmitted, v.RegionsSkipped = len(r.regions), r.reg.skips
	v.TextOmitted, v.TextTruncated = len(a.text), true
	v.Next = widestNext
	v.Controls, v.Regions, v.Text = nil, nil, nil
	return size(v) - len("null") + len("[]")
}

// arrays is the size of the view's arrays, each with its key and comma:
// the frames shown, the text parts' frames, the controls, regions and text
// parts shown, and extra as sizeWith has it.
func (r *reader) arrays(frames []bool, extra string, extraFrame int) int {
	total := r.framesSize(frames) + textFramesSize(r.shownTextFrames(extra, extraFrame))
	for k, i := range r.ctl.shown {
		total += r.ctl.sizes[i]
		if k > 0 {
			total++
		}
	}
	if n := len(r.reg.shown); n > 0 {
		total += len(`,"regions":[]`) + n - 1
		for _, i := range r.reg.shown {
			total += r.reg.sizes[i]
		}
	}
	n := len(r.parts)
	if r.cut != "" {
		n++
		total += size(r.cut)
	}
	if extra != "" {
		n++
		total += len(extra)
	}
	if n > 0 {
		total += len(`,"text":[]`) + n - 1
		for _, i := range r.parts {
			total += r.partSize(i)
		}
	}
	return total
}

// partSize is the JSON size of text part i, encoded when first asked: a
// view shows few of a long page's parts.
func (r *reader) partSize(i int) int {
	if r.tsize[i] == 0 { // a JSON string has at least its quotes
		r.tsize[i] = size(r.a.text[i])
	}
	return r.tsize[i]
}

// header is the view without its controls, regions, text and frames
// arrays: the counts, skips, truncation flag and continuation they imply,
// with the given frames shown.
func (r *reader) header(frames []bool) View {
	a := r.a
	v := a.v
	if n := len(r.frames.records) + r.frames.omitted; n > 0 {
		for _, on := range frames {
			if on {
				n--
			}
		}
		v.FramesOmitted = n
	}
	v.ControlsOmitted = len(a.controls) - r.ctl.passed
	v.Skipped = r.ctl.skips
	v.RegionsOmitted = len(r.regions) - r.reg.passed
	v.RegionsSkipped = r.reg.skips
	shownText := len(r.parts)
	if r.cut != "" {
		shownText++
	}
	v.TextOmitted = len(a.text) - shownText
	lastCut := a.obs.TextCoverage != nil && a.obs.TextCoverage.LastCut
	v.TextTruncated = r.cut != "" || (lastCut && len(a.text) > 0 && r.partsPassed == len(a.text))
	if shownText == 0 {
		v.TextContinues = false
	}
	v.Next = r.next()
	return v
}

// next is the continuation of every stream right after what the view shows
// of it; nil when every stream ended.
func (r *reader) next() *Next {
	a := r.a
	s := observation.Streams{Region: -1, Text: -1}
	more := false
	switch a.obs.Focus {
	case observation.FocusMain:
		// The main content's text, then the rest of the page: there is
		// always more.
		s = observation.Streams{Focus: observation.FocusRestStart, Region: -1, Text: -1}
		if tc := a.obs.TextCoverage; r.partsPassed < len(a.text) || tc.NodeLimitReached || tc.TextLimitReached || tc.ByteLimitReached {
			s = observation.Streams{Focus: observation.FocusMainText, Region: -1, Text: r.partsPassed, TextUnits: r.cutUnits}
		}
		return r.mint(s)
	case observation.FocusRest:
		s.Focus = observation.FocusRestOn
	}
	cc := a.obs.ControlCoverage
	switch {
	case cc.Ended:
	case r.ctl.passed < len(a.controls):
		s.Controls, s.Control, more = observation.ControlsAfter, r.ctl.passed-1, true
	case cc.Cursor != "":
		s.Controls, more = observation.ControlsCursor, true
	}
	if rc := a.obs.RegionCoverage; rc != nil && !rc.Ended {
		if r.reg.passed < len(r.regions) || rc.Omitted > 0 || rc.NodeLimitReached {
			s.Region, more = r.reg.passed, true
		}
	}
	if tc := a.obs.TextCoverage; tc != nil && !tc.Ended {
		switch {
		case r.partsPassed < len(a.text):
			s.Text, s.TextUnits, more = r.partsPassed, r.cutUnits, true
		case tc.NodeLimitReached || tc.TextLimitReached || tc.ByteLimitReached:
			s.Text, more = len(a.text), true
		}
	}
	if !more {
		return nil
	}
	return r.mint(s)
}

// mint is the continuation of s, under the revision's key.
func (r *reader) mint(s observation.Streams) *Next {
	a := r.a
	key := observation.NextKey{}
	if a.opts.Next != nil {
		key = *a.opts.Next
	}
	return &Next{Cursor: viewRef(key.MintStreams(s), a.opts.Compact)}
}

// view is the finished view.
func (r *reader) view() View {
	frames := r.shownFrames(0)
	v := r.header(frames)
	for f, on := range frames {
		if on {
			v.Frames = append(v.Frames, r.frames.records[f-1])
		}
	}
	if textFramesSize(r.shownTextFrames("", 0)) > 0 {
		v.TextFrames = r.shownTextFrames("", 0)
	}
	v.Controls = make([]Control, len(r.ctl.shown))
	for k, i := range r.ctl.shown {
		v.Controls[k] = r.a.controls[i]
	}
	for _, i := range r.reg.shown {
		v.Regions = append(v.Regions, r.regions[i])
	}
	for _, i := range r.parts {
		v.Text = append(v.Text, r.a.text[i])
	}
	if r.cut != "" {
		v.Text = append(v.Text, r.cut)
	}
	return v
}
