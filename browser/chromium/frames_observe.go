package chromium

import (
	"context"
	"errors"
	"net/url"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/veetbot/veetbrowser/collect"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// Observing with frames (tool version 1.7.0, docs/frames.md). The top
// document is collected first; each frame owner its scan meets stands for
// the frame's content, which is collected in the frame's own world, with
// what the content before it left of the observation's bounds, and put in
// the owner's place, depth first. A frame's collector enforces those bounds
// in the frame; content of a document after one of its frames may have been
// collected within the document's own bounds and is then cut here, so at
// most MaxFrames+1 collectors' bounded answers ever cross.

// link is one step of a control's or text part's place: a frame (""
// for the top document) and an index in what that frame's collector
// retained for the revision.
type link struct {
	frame cdp.FrameID
	index int
}

// place is where a control of a frames-mode revision lives: the owners
// from the top document down, then the control itself.
type place []link

type framedControl struct {
	c     collect.Control
	frame int // record index; 0: top
	at    place
}

type framedText struct {
	text  string
	frame int
}

// framed is one document's content with its frames' in place.
type framed struct {
	controls []framedControl
	text     []framedText
	regions  []observation.Region
}

// frameMerge is one frames-mode observation under way.
type frameMerge struct {
	s         *Session
	params    collect.Params // the top document's
	records   []observation.Frame
	omitted   int
	collected int
	// what is left of the observation's bounds
	window, textNodes, textUnits, regionNodes, regions int
	textBytes                                          int // the whole text bound
	visited                                            map[string]*framed
}

// framesOut is what a frames-mode observation adds to the merged result:
// the frame records and which frame each control, text part and region is
// in.
type framesOut struct {
	records                              []observation.Frame
	omitted                              int
	ctrlFrames, textFrames, regionFrames []int
	places                               []place
}

// apply marks obs's controls, text parts and regions with their frames and
// adds the frame records; a nil framesOut leaves obs as it is.
func (fm *framesOut) apply(obs *observation.Observation) {
	if fm == nil {
		return
	}
	for i := range obs.Controls {
		obs.Controls[i].Frame = fm.ctrlFrames[i]
	}
	for i := range obs.Text {
		obs.Text[i].Frame = fm.textFrames[i]
	}
	for i := range obs.Regions {
		obs.Regions[i].Frame = fm.regionFrames[i]
	}
	obs.Frames, obs.FramesOmitted = fm.records, fm.omitted
}

func (fm *framesOut) placesOf() []place {
	if fm == nil {
		return nil
	}
	return fm.places
}

// topIndex is where the top document retained the control of a ref's
// index. In a frames-mode revision a control's index counts the controls
// of the frames before it; a control inside a frame is not acted on yet.
func (s *Session) topIndex(index uint64) (int, error) {
	if s.places == nil {
		return int(index), nil
	}
	if index >= uint64(len(s.places)) {
		return 0, errcode.New(errcode.UnknownReference, "the reference names no control of the newest observation")
	}
	at := s.places[index]
	if len(at) > 1 {
		return 0, errcode.New(errcode.NotActionable, "the control is inside a frame; actions inside frames are not supported yet")
	}
	return at[0].index, nil
}

// afterIndex is where the top document retained the anchor of an after
// continuation. An anchor inside a frame continues after the frame's
// element in the top document: continuation inside frames is not
// supported yet, so the rest of that frame waits for a fresh observation.
func (s *Session) afterIndex(index uint64) (int, error) {
	if s.places == nil {
		return int(index), nil
	}
	if index >= uint64(len(s.places)) {
		return 0, errcode.New(errcode.UnknownReference, "the reference names no control of the newest observation")
	}
	return s.places[index][0].index, nil
}

// nameMainFrames names the top document's frame owners.
func (t *tab) nameMainFrames(ctx context.Context) {
	t.mu.Lock()
	main, world, worldID := t.mainFrame, t.world, t.worldID
	t.mu.Unlock()
	if world != "" {
		t.nameFrames(ctx, t.target, main, world, worldID, observation.MaxFrameRecords*4)
	}
}

// withFrames puts the content of top's frames in place.
func (s *Session) withFrames(ctx context.Context, params collect.Params, top *collect.Result) (*collect.Result, *framesOut) {
	m := &frameMerge{s: s, params: params, visited: map[string]*framed{},
		window:      observation.WindowSize - top.ControlCoverage.Scanned,
		textNodes:   observation.TextNodes - top.TextCoverage.ScannedNodes,
		textUnits:   observation.TextUnits - top.TextCoverage.InspectedUnits,
		regionNodes: observation.RegionScanNodes - top.RegionCoverage.ScannedNodes,
		regions:     observation.MaxRegions - len(top.Regions),
		textBytes:   observation.TextBytes,
	}
	if params.TextBytes > 0 {
		m.textBytes = params.TextBytes
	}
	origin := top.Origin
	out := m.expand(ctx, "", 0, 0, origin, top, nil, 0, 0)
	res := *top
	res.Controls = make([]collect.Control, len(out.controls))
	ctrlFrames := make([]int, len(out.controls))
	places := make([]place, len(out.controls))
	for i, c := range out.controls {
		res.Controls[i], ctrlFrames[i], places[i] = c.c, c.frame, c.at
	}
	if len(out.controls) < countControls(top.Controls) || len(out.controls) == observation.MaxControls && top.ControlCoverage.Limit == "" {
		res.ControlCoverage.More = true
		res.ControlCoverage.Limit = observation.LimitControls
	}
	res.Text = make([]string, len(out.text))
	textFrames := make([]int, len(out.text))
	for i, t := range out.text {
		res.Text[i], textFrames[i] = t.text, t.frame
	}
	res.Regions = out.regions
	regionFrames := make([]int, len(out.regions))
	for i, g := range out.regions {
		regionFrames[i] = g.Frame
	}
	res.HiddenFrames, res.TextFrames = nil, nil
	return &res, &framesOut{records: m.records, omitted: m.omitted, ctrlFrames: ctrlFrames, textFrames: textFrames,
		regionFrames: regionFrames, places: places}
}

// countControls counts the controls of a collector's answer, owners not.
func countControls(cs []collect.Control) int {
	n := 0
	for _, c := range cs {
		if c.Role != collect.RoleFrame {
			n++
		}
	}
	return n
}

// expand returns doc's content (frame id, record index idx at depth, of
// origin, collected as res) with its frames' in place; before are the
// owners that lead to it, controlsBefore and textBefore what the
// observation holds ahead of it.
func (m *frameMerge) expand(ctx context.Context, id cdp.FrameID, idx, depth int, origin string, res *collect.Result, before place, controlsBefore, textBefore int) *framed {
	out := &framed{}
	hidden := res.HiddenFrames
	notVisible := func(before int) {
		for len(hidden) > 0 && hidden[0].Index <= before {
			m.record(observation.Frame{Parent: idx, Depth: depth + 1, Origin: m.frameOrigin(cdp.FrameID(hidden[0].Frame), origin),
				Status: observation.FrameNotVisible})
			hidden = hidden[1:]
		}
	}
	// Where each frame's text goes, and the text before it.
	textAt := map[string]int{}
	for _, mk := range res.TextFrames {
		cost := 0
		for _, t := range res.Text[:mk.Index] {
			cost += observation.TextPartCost(t)
		}
		textAt[mk.Frame] = cost
	}
	for i, c := range res.Controls {
		notVisible(i)
		if controlsBefore+len(out.controls) >= observation.MaxControls {
			break
		}
		at := append(append(place{}, before...), link{id, i})
		if c.Role != collect.RoleFrame {
			out.controls = append(out.controls, framedControl{c: c, frame: idx, at: at})
			continue
		}
		child := m.child(ctx, c.Frame, idx, depth, origin, at, controlsBefore+len(out.controls), textBefore+textAt[c.Frame])
		room := observation.MaxControls - controlsBefore - len(out.controls)
		out.controls = append(out.controls, child.controls[:min(len(child.controls), room)]...)
	}
	notVisible(len(res.Controls))
	used := textBefore
	next := 0
	for i := 0; i <= len(res.Text); i++ {
		for next < len(res.TextFrames) && res.TextFrames[next].Index == i {
			key := res.TextFrames[next].Frame
			next++
			child := m.child(ctx, key, idx, depth, origin, nil, observation.MaxControls, used)
			for _, t := range child.text {
				used += observation.TextPartCost(t.text)
				out.text = append(out.text, t)
			}
		}
		if i == len(res.Text) {
			break
		}
		cost := observation.TextPartCost(res.Text[i])
		if used+cost > m.textBytes {
			break // a frame before it took the room: the rest waits
		}
		used += cost
		out.text = append(out.text, framedText{text: res.Text[i], frame: idx})
	}
	for _, g := range res.Regions {
		g.Frame = idx
		out.regions = append(out.regions, g)
	}
	for _, key := range visitedOrder(res) {
		if ch := m.visited[key]; ch != nil {
			out.regions = append(out.regions, ch.regions...)
		}
	}
	return out
}

// visitedOrder is the keys of res's frames in the order they appear.
func visitedOrder(res *collect.Result) []string {
	var keys []string
	seen := map[string]bool{}
	for _, c := range res.Controls {
		if c.Role == collect.RoleFrame && !seen[c.Frame] {
			seen[c.Frame] = true
			keys = append(keys, c.Frame)
		}
	}
	for _, mk := range res.TextFrames {
		if !seen[mk.Frame] {
			seen[mk.Frame] = true
			keys = append(keys, mk.Frame)
		}
	}
	return keys
}

// record adds a frame record and returns its index, or 0 when the
// records are full (the frame is then counted as omitted).
func (m *frameMerge) record(f observation.Frame) int {
	if len(m.records) >= observation.MaxFrameRecords {
		m.omitted++
		return 0
	}
	f.Index = len(m.records) + 1
	m.records = append(m.records, f)
	return f.Index
}

// frameOrigin is the origin a frame is judged by: its own, or for a
// frame whose document comes from its parent (about:srcdoc, about:blank)
// the parent's.
func (m *frameMerge) frameOrigin(id cdp.FrameID, parentOrigin string) string {
	f, ok := m.s.tab.frameByID(id)
	if !ok {
		return ""
	}
	return effectiveOrigin(f.url, f.origin, parentOrigin)
}

func effectiveOrigin(rawURL, origin, parentOrigin string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "null"
	}
	switch u.Scheme {
	case "http", "https":
		// A sandboxed frame's own origin is opaque: the grant judges
		// where its document came from.
		return u.Scheme + "://" + u.Host
	case "about", "":
		return parentOrigin
	}
	if origin == "" || origin == "://" {
		return "null"
	}
	return origin
}

// child collects the frame of key (met in the document of record
// parentIdx at depth) once, and returns its content with its own frames'.
func (m *frameMerge) child(ctx context.Context, key string, parentIdx, depth int, parentOrigin string, owner place, controlsBefore, textBefore int) *framed {
	if done, ok := m.visited[key]; ok {
		if done == nil {
			return &framed{}
		}
		return done
	}
	m.visited[key] = nil
	rec := observation.Frame{Parent: parentIdx, Depth: depth + 1}
	id := cdp.FrameID(key)
	f, ok := m.s.tab.frameByID(id)
	if key != "" && ok {
		rec.Origin = effectiveOrigin(f.url, f.origin, parentOrigin)
	}
	controlsLeft := observation.MaxControls - controlsBefore
	textLeft := m.textBytes - textBefore
	switch {
	case key == "" || !ok:
		rec.Status = observation.FrameDetached
	case rec.Depth > observation.MaxFrameDepth:
		rec.Status = observation.FrameDepthLimit
	case m.collected >= observation.MaxFrames:
		rec.Status = observation.FrameLimit
	case m.s.frameAllowed != nil && !m.s.frameAllowed(rec.Origin):
		rec.Status = observation.FrameNotGranted
	case f.crashed:
		rec.Status = observation.FrameCrashed
	case (controlsLeft <= 0 || m.window <= 0) && textLeft <= observation.TextPartOverhead:
		rec.Status = observation.FrameNotReached
	}
	if rec.Status != "" {
		m.record(rec)
		return &framed{}
	}
	res, err := m.collectFrame(ctx, id, controlsLeft, textLeft)
	if err != nil {
		rec.Status = observation.FrameDetached
		if errcode.Of(err) == errcode.PageCrashed {
			rec.Status = observation.FrameCrashed
		}
		m.record(rec)
		return &framed{}
	}
	m.collected++
	rec.Status = observation.FrameCollected
	rec.Scanned = res.ControlCoverage.Scanned
	if res.ControlCoverage.More {
		rec.Limit = res.ControlCoverage.Limit
	}
	switch tc := res.TextCoverage; {
	case tc.NodeLimitReached:
		rec.TextLimit = "nodes"
	case tc.TextLimitReached:
		rec.TextLimit = "units"
	case tc.ByteLimitReached:
		rec.TextLimit = "bytes"
	}
	idx := m.record(rec)
	m.window -= res.ControlCoverage.Scanned
	m.textNodes -= res.TextCoverage.ScannedNodes
	m.textUnits -= res.TextCoverage.InspectedUnits
	m.regionNodes -= res.RegionCoverage.ScannedNodes
	m.regions -= len(res.Regions)
	out := m.expand(ctx, id, idx, depth+1, rec.Origin, res, owner, controlsBefore, textBefore)
	if idx > 0 {
		r := &m.records[idx-1]
		for _, c := range out.controls {
			if c.frame == idx {
				r.Controls++
			}
		}
		for _, t := range out.text {
			if t.frame == idx {
				r.TextParts++
			}
		}
	}
	m.visited[key] = out
	return out
}

// collectFrame runs the collector in frame id with what is left of the
// observation's bounds.
func (m *frameMerge) collectFrame(ctx context.Context, id cdp.FrameID, controlsLeft, textLeft int) (*collect.Result, error) {
	f, ok := m.s.tab.waitFrameWorld(ctx, id)
	if !ok {
		if f.crashed {
			return nil, errCrashed
		}
		return nil, errors.New("the frame has no document")
	}
	m.s.tab.nameFrames(ctx, f.target, id, f.world, f.worldID, observation.MaxFrameRecords*4)
	p := collect.Params{
		Revision:   m.params.Revision,
		MaxVisible: max(controlsLeft, 0),
		Window:     max(m.window, 0),
		MaxOffset:  m.params.MaxOffset,
		Reading:    m.params.Reading,
		Frames:     true,
		TextBytes:  textLeft,
		TextNodes:  m.textNodes,
		TextUnits:  m.textUnits,
		// Regions of frames do not continue (docs/frames.md).
		RegionNodes: m.regionNodes,
		MaxRegions:  ptr(max(m.regions, 0)),
	}
	p.ControlsEnded = controlsLeft <= 0 || m.window <= 0
	p.TextEnded = textLeft <= observation.TextPartOverhead || m.textNodes <= 0 || m.textUnits <= 0
	p.RegionsEnded = m.regions <= 0 || m.regionNodes <= 0
	raw, err := m.s.tab.evaluateIn(ctx, f.target, f.world, collect.Expression(p))
	if err != nil {
		return nil, err
	}
	res, err := collect.Decode(raw)
	if err != nil {
		return nil, errcode.Wrap(errcode.CaptureFailed, err, "a frame could not be observed")
	}
	if res.Error != "" {
		return nil, errors.New(string(res.Error))
	}
	return res, nil
}

// frameStepTimeout bounds one collector call in a frame: a frame whose
// renderer does not answer is reported, not waited on (the renderer guard
// watches the page's renderer, not a frame's).
const frameStepTimeout = hangBound

// evaluateIn runs expr in world on target (a frame's collector world) and
// returns its JSON value.
func (t *tab) evaluateIn(ctx context.Context, target *chromedp.Target, world, expr string) ([]byte, error) {
	octx, end, err := t.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	fctx, cancel := context.WithTimeout(octx, frameStepTimeout)
	defer cancel()
	res, err := cdp.Call(fctx, target, runtime.Evaluate, runtime.EvaluateParams{
		Expression:      expr,
		UniqueContextID: world,
		ReturnByValue:   ptr(true),
		Silent:          ptr(true),
	})
	if err != nil {
		return nil, classify(fctx, err, errcode.CaptureFailed, "a frame could not be observed")
	}
	if res.ExceptionDetails != nil {
		return nil, errcode.New(errcode.CaptureFailed, "a frame could not be observed")
	}
	return res.Result.Value, nil
}
