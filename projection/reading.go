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

// reader is the state of one reading admission.
type reader struct {
	a       *admission
	regions []Region
	rsize   []int // JSON size of each region
	tsize   []int // JSON size of each text part

	ctrls, regs, parts    []int // indexes shown, per stream
	ctrlSkips, regSkips   []Skipped
	ctrlPassed, regPassed int // records shown or skipped
	partsPassed           int // text parts shown whole
	cut                   string
	cutUnits              int // UTF-16 units of the cut part shown
	textDone              bool
}

func (a *admission) reading() ([]byte, error) {
	r := &reader{a: a, regions: make([]Region, len(a.obs.Regions)), rsize: make([]int, len(a.obs.Regions)), tsize: make([]int, len(a.text))}
	for i, g := range a.obs.Regions {
		r.regions[i] = modelRegion(g)
		r.rsize[i] = size(r.regions[i])
	}
	for i, t := range a.text {
		r.tsize[i] = size(t)
	}
	a.v.TextContinues = a.obs.TextCoverage != nil && a.obs.TextCoverage.FirstContinues
	a.v.Loading = a.obs.Loading

	// 1. The essentials.
	ess := a.v
	ess.ControlsOmitted, ess.RegionsOmitted, ess.TextOmitted = len(a.controls), len(r.regions), len(a.text)
	ess.Next = &Next{Cursor: streamCursor}
	ess.TextTruncated = true
	essentials := size(ess) - len("null") + len("[]")
	if essentials > a.budget {
		return nil, errcode.New(errcode.ObservationTooLarge, "the observation's essential coverage does not fit the %d-byte budget", a.budget)
	}
	oversized := func(item int) bool { return essentials+item > a.budget }

	// 2. The first control, then the context.
	r.addControls(a.budget, 1, oversized)
	withContext := a.v
	withContext.URL, withContext.URLTruncated = clip(a.obs.URL, urlCap)
	withContext.URLTruncated = withContext.URLTruncated || a.obs.URLTruncated
	withContext.Title, withContext.TitleTruncated = clip(a.obs.Title, titleCap)
	withContext.TitleTruncated = withContext.TitleTruncated || a.obs.TitleTruncated
	plain := a.v
	a.v = withContext
	if r.size() > a.budget {
		a.v = plain
		a.v.ContextOmitted = true
	}

	// 3. and 4. The reservations, then each stream in order.
	room := a.budget - r.size()
	textReserve, regionReserve := 0, 0
	if len(a.text) > 0 {
		textReserve = room / 3
	}
	if len(r.regions) > 0 {
		// A sixth, but room for the first region when a third holds it.
		regionReserve = room / 6
		if first := r.rsize[0] + len(`,"regions":[]`); first > regionReserve && first <= room/3 {
			regionReserve = first
		}
	}
	r.addControls(a.budget-textReserve-regionReserve, len(a.controls), oversized)
	r.addRegions(a.budget-textReserve, oversized)
	r.addText()
	// 5. What text left over.
	r.addControls(a.budget, len(a.controls), oversized)
	r.addRegions(a.budget, oversized)
	r.addText()

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

// addControls passes controls in order while the view stays within limit,
// until shown controls number at most most; a control too large to show
// even alone is skipped and listed.
func (r *reader) addControls(limit, most int, oversized func(int) bool) {
	for r.ctrlPassed < len(r.a.controls) && len(r.ctrls) < most {
		i := r.ctrlPassed
		r.ctrls = append(r.ctrls, i)
		r.ctrlPassed++
		if r.size() <= limit {
			continue
		}
		r.ctrls = r.ctrls[:len(r.ctrls)-1]
		r.ctrlPassed--
		if !oversized(r.a.encoded[i]) {
			return
		}
		r.ctrlSkips = append(r.ctrlSkips, Skipped{Ref: r.a.controls[i].Ref, Reason: "oversized"})
		r.ctrlPassed++
		if r.size() > limit {
			r.ctrlSkips = r.ctrlSkips[:len(r.ctrlSkips)-1]
			r.ctrlPassed--
			return
		}
	}
}

// addRegions passes whole regions in order while the view stays within
// limit; a region too large to show even alone is skipped and listed.
func (r *reader) addRegions(limit int, oversized func(int) bool) {
	for r.regPassed < len(r.regions) {
		i := r.regPassed
		r.regs = append(r.regs, i)
		r.regPassed++
		if r.size() <= limit {
			continue
		}
		r.regs = r.regs[:len(r.regs)-1]
		r.regPassed--
		if !oversized(r.rsize[i]) {
			return
		}
		r.regSkips = append(r.regSkips, Skipped{Ref: r.regions[i].Ref, Reason: "oversized"})
		r.regPassed++
		if r.size() > limit {
			r.regSkips = r.regSkips[:len(r.regSkips)-1]
			r.regPassed--
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
		if r.size() <= r.a.budget {
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
	room := r.a.budget - r.sizeWith(`""`) + len(`""`)
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
func (r *reader) size() int { return r.sizeWith("") }

// sizeWith is the size of the view with one more text part, extra, already
// JSON-encoded, after the shown ones (none when extra is "").
func (r *reader) sizeWith(extra string) int {
	v := r.header()
	v.Controls, v.Regions, v.Text = nil, nil, nil
	total := size(v) - len("null") + len("[]")
	for k, i := range r.ctrls {
		total += r.a.encoded[i]
		if k > 0 {
			total++
		}
	}
	if n := len(r.regs); n > 0 {
		total += len(`,"regions":[]`) + n - 1
		for _, i := range r.regs {
			total += r.rsize[i]
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
			total += r.tsize[i]
		}
	}
	return total
}

// header is the view without its controls, regions and text arrays: the
// counts, skips, truncation flag and continuation they imply.
func (r *reader) header() View {
	a := r.a
	v := a.v
	v.ControlsOmitted = len(a.controls) - r.ctrlPassed
	v.Skipped = r.ctrlSkips
	v.RegionsOmitted = len(r.regions) - r.regPassed
	v.RegionsSkipped = r.regSkips
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
	cc := a.obs.ControlCoverage
	switch {
	case cc.Ended:
	case r.ctrlPassed < len(a.controls):
		s.Controls, s.Control, more = observation.ControlsAfter, r.ctrlPassed-1, true
	case cc.Cursor != "":
		s.Controls, more = observation.ControlsCursor, true
	}
	if rc := a.obs.RegionCoverage; rc != nil && !rc.Ended {
		if r.regPassed < len(r.regions) || rc.Omitted > 0 || rc.NodeLimitReached {
			s.Region, more = r.regPassed, true
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
	key := observation.NextKey{}
	if a.opts.Next != nil {
		key = *a.opts.Next
	}
	return &Next{Cursor: key.MintStreams(s)}
}

// view is the finished view.
func (r *reader) view() View {
	v := r.header()
	v.Controls = make([]Control, len(r.ctrls))
	for k, i := range r.ctrls {
		v.Controls[k] = r.a.controls[i]
	}
	for _, i := range r.regs {
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
