package chromium

import (
	"context"
	"errors"
	"net/url"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
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
	doc   string // the collector's id of the frame's document
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
	at    place
}

// framed is one document's content with its frames' in place; placed
// says which of its streams a continuation already put ahead of the
// observation's other content.
type framed struct {
	controls []framedControl
	text     []framedText
	regions  []observation.Region
	// Where a stream stopped inside it at a bound: nothing after it may
	// be shown in this observation, and the stream continues there.
	controlsMore  bool
	controlsLimit string
	textStop      place
	// A continuation put this stream of the frame ahead of the rest: it
	// is not put again where the frame's element is met.
	controlsPlaced, textPlaced bool
}

// frameResume is where a continuation of a frames-mode revision resumes a
// stream that stopped inside a frame: the place of the control anchor, and
// of the text part (units of it already shown); nil when it stopped in the
// top document.
type frameResume struct {
	old      string // the revision the places belong to
	controls place
	text     place
	units    int
}

// frameMerge is one frames-mode observation under way.
type frameMerge struct {
	s         *Session
	params    collect.Params // the top document's
	resume    *frameResume
	records   []observation.Frame
	omitted   int
	collected int
	// what is left of the observation's bounds
	window, textNodes, textUnits, regionNodes, regions int
	textBytes                                          int // the whole text bound
	visited                                            map[string]*framed
	// cut: content was collected and left out for the bounds; textNext
	// is then where the text stream continues.
	controlsCut bool
	textNext    place
	limit       string // the control bound a frame's scan stopped at; nothing after it is shown
	// firstContinues: the first text part continues a part a view cut,
	// inside the frame the text resumed in.
	firstContinues bool
}

// framesOut is what a frames-mode observation adds to the merged result:
// the frame records and which frame each control, text part and region is
// in.
type framesOut struct {
	records                              []observation.Frame
	omitted                              int
	ctrlFrames, textFrames, regionFrames []int
	places                               []place
	// textPlaces has one place per text part, and one more: where the
	// stream continues after the last.
	textPlaces []place
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

// afterIn sets params to continue the controls after the control of index
// (of revision rev): in the top document, or, when it is in a frame, after
// the top-level frame's owner, the frames on the way resuming in rs.
func (s *Session) afterIn(params *collect.Params, rs **frameResume, rev, index uint64) error {
	token := s.revisionToken(rev)
	if s.places == nil {
		params.After = &collect.Anchor{Revision: token, Index: int(index)}
		return nil
	}
	if index >= uint64(len(s.places)) {
		return errcode.New(errcode.UnknownReference, "the reference names no control of the newest observation")
	}
	at := s.places[index]
	if len(at) == 1 {
		params.After = &collect.Anchor{Revision: token, Index: at[0].index}
		return nil
	}
	params.AfterFrame = string(at[1].frame)
	r := resumeOf(rs, token)
	r.controls = at
	return nil
}

// textFrom sets params to continue the text at part index of revision rev
// with units of it shown, inside frames as afterIn does.
func (s *Session) textFrom(params *collect.Params, rs **frameResume, rev uint64, index, units int) error {
	token := s.revisionToken(rev)
	if s.textPlaces == nil {
		params.Text = &collect.From{Revision: token, Index: index, Units: units}
		return nil
	}
	if index < 0 || index >= len(s.textPlaces) {
		return errcode.New(errcode.UnknownReference, "the cursor names no text of the newest observation")
	}
	at := s.textPlaces[index]
	if len(at) == 1 {
		params.Text = &collect.From{Revision: token, Index: at[0].index, Units: units}
		return nil
	}
	params.Text = &collect.From{Revision: token, Frame: string(at[1].frame)}
	r := resumeOf(rs, token)
	r.text, r.units = at, units
	return nil
}

func resumeOf(rs **frameResume, token string) *frameResume {
	if *rs == nil {
		*rs = &frameResume{old: token}
	}
	return *rs
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

// withFrames puts the content of top's frames in place; rs, if set, is
// where streams that stopped inside frames resume.
func (s *Session) withFrames(ctx context.Context, params collect.Params, top *collect.Result, rs *frameResume) (*collect.Result, *framesOut) {
	m := &frameMerge{s: s, params: params, resume: rs, visited: map[string]*framed{},
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
	topLink := place{{frame: "", doc: top.Doc}}
	out := &framed{}
	if rs != nil {
		m.resumeChains(ctx, top, out)
	}
	if out.textStop != nil {
		m.textNext = out.textStop // a continued frame's text stopped again
	}
	rest := m.expand(ctx, "", 0, 0, top.Origin, top, topLink, len(out.controls), textCost(out.text))
	out.controls = append(out.controls, rest.controls...)
	if m.textNext == nil {
		out.text = append(out.text, rest.text...)
		m.textNext = rest.textStop
	}
	out.regions = append(out.regions, rest.regions...)
	if len(out.controls) > observation.MaxControls {
		out.controls, m.controlsCut = out.controls[:observation.MaxControls], true
	}
	// Text a continuation's frames gave ahead of their place may pass the
	// bound: the stream then continues at the first part left out.
	for used, i := 0, 0; i < len(out.text); i++ {
		if used += observation.TextPartCost(out.text[i].text); used > m.textBytes {
			m.textNext, out.text = out.text[i].at, out.text[:i]
			break
		}
	}
	// A frame's counts are of what the observation holds of it.
	for _, c := range out.controls {
		if c.frame > 0 {
			m.records[c.frame-1].Controls++
		}
	}
	for _, t := range out.text {
		if t.frame > 0 {
			m.records[t.frame-1].TextParts++
		}
	}
	res := *top
	res.Controls = make([]collect.Control, len(out.controls))
	ctrlFrames := make([]int, len(out.controls))
	places := make([]place, len(out.controls))
	for i, c := range out.controls {
		res.Controls[i], ctrlFrames[i], places[i] = c.c, c.frame, c.at
	}
	switch {
	case m.controlsCut:
		res.ControlCoverage.More, res.ControlCoverage.Limit = true, observation.LimitControls
	case m.limit != "":
		res.ControlCoverage.More, res.ControlCoverage.Limit = true, m.limit
	}
	res.Text = make([]string, len(out.text))
	textFrames := make([]int, len(out.text))
	textPlaces := make([]place, len(out.text)+1)
	for i, t := range out.text {
		res.Text[i], textFrames[i], textPlaces[i] = t.text, t.frame, t.at
	}
	textPlaces[len(out.text)] = place{{frame: "", index: len(top.Text), doc: top.Doc}}
	if m.textNext != nil {
		textPlaces[len(out.text)] = m.textNext
		res.TextCoverage.ByteLimitReached = true
	}
	if rs != nil && rs.text != nil {
		res.TextCoverage.FirstContinues = m.firstContinues
	}
	res.Regions = out.regions
	regionFrames := make([]int, len(out.regions))
	for i, g := range out.regions {
		regionFrames[i] = g.Frame
	}
	res.HiddenFrames, res.TextFrames = nil, nil
	return &res, &framesOut{records: m.records, omitted: m.omitted, ctrlFrames: ctrlFrames, textFrames: textFrames,
		regionFrames: regionFrames, places: places, textPlaces: textPlaces}
}

func textCost(ts []framedText) int {
	n := 0
	for _, t := range ts {
		n += observation.TextPartCost(t.text)
	}
	return n
}

// resumeChains collects the frames a continuation resumes inside, the
// innermost first, and puts what each stream continues with ahead of the
// top document's content: the rest of the innermost frame, then of each
// frame around it after the frame it holds.
func (m *frameMerge) resumeChains(ctx context.Context, top *collect.Result, out *framed) {
	rs := m.resume
	// The frames on either chain, outermost first, with their records.
	type level struct {
		id    cdp.FrameID
		depth int
		at    place // its place: the documents down to it, then itself
	}
	var levels []level
	seen := map[cdp.FrameID]int{}
	for _, chain := range []place{rs.controls, rs.text} {
		for k := 1; k < len(chain); k++ {
			if _, ok := seen[chain[k].frame]; !ok {
				seen[chain[k].frame] = len(levels)
				// In this revision each document on the way continues
				// right after the frame it holds, which is found by its
				// key: the links keep only the frames and documents.
				at := make(place, k+1)
				for j, l := range chain[:k] {
					at[j] = link{frame: l.frame, doc: l.doc}
				}
				at[k] = link{frame: chain[k].frame}
				levels = append(levels, level{id: chain[k].frame, depth: k, at: at})
			}
		}
	}
	records := make(map[cdp.FrameID]int, len(levels))
	parentOrigin := map[cdp.FrameID]string{"": top.Origin}
	for _, l := range levels {
		up := l.at[len(l.at)-2].frame
		parent := records[up]
		origin := m.frameOrigin(l.id, parentOrigin[up])
		parentOrigin[l.id] = origin
		records[l.id] = m.record(observation.Frame{Parent: parent, Depth: l.depth, Origin: origin, Status: observation.FrameDetached})
	}
	// Innermost first: what the stream shows next is the rest of it.
	for i := len(levels) - 1; i >= 0; i-- {
		l := levels[i]
		p := m.frameParams(len(out.controls), textCost(out.text))
		inC, inT := onChain(rs.controls, l.id), onChain(rs.text, l.id)
		switch k := l.depth; {
		case inC && k == len(rs.controls)-1:
			p.After = &collect.Anchor{Revision: rs.old, Index: rs.controls[k].index}
		case inC:
			p.AfterFrame = string(rs.controls[k+1].frame)
		}
		switch k := l.depth; {
		case inT && k == len(rs.text)-1:
			p.Text = &collect.From{Revision: rs.old, Index: rs.text[k].index, Units: rs.units}
		case inT:
			p.Text = &collect.From{Revision: rs.old, Frame: string(rs.text[k+1].frame)}
		}
		idx := records[l.id]
		res, err := m.collectIn(ctx, l.id, p)
		if err != nil {
			m.setStatus(idx, err)
			continue
		}
		m.collected++
		m.account(res)
		content := m.expand(ctx, l.id, idx, l.depth, parentOrigin[l.id], res, l.at, len(out.controls), textCost(out.text))
		m.fill(idx, res, content)
		m.visited[string(l.id)] = content
		// The stream that continues inside the frame goes first; the
		// other goes where the frame's element is met, as for any frame.
		if inC {
			out.controls = append(out.controls, content.controls...)
			content.controlsPlaced = true
		}
		if inT && out.textStop == nil {
			if len(out.text) == 0 && len(content.text) > 0 && res.TextCoverage.FirstContinues {
				m.firstContinues = true // the view's first part continues one a view cut
			}
			out.text = append(out.text, content.text...)
			out.textStop = content.textStop
		}
		content.textPlaced = inT
		out.regions = append(out.regions, content.regions...)
	}
}

func onChain(chain place, id cdp.FrameID) bool {
	for _, l := range chain[min(1, len(chain)):] {
		if l.frame == id {
			return true
		}
	}
	return false
}

// expand returns doc's content (frame id, record index idx at depth, of
// origin, collected as res) with its frames' in place; before is its own
// place (the owners down to it), controlsBefore and textBefore what the
// observation holds ahead of it.
func (m *frameMerge) expand(ctx context.Context, id cdp.FrameID, idx, depth int, origin string, res *collect.Result, before place, controlsBefore, textBefore int) *framed {
	out := &framed{}
	own := before[:len(before)-1] // the owners down to this document's
	here := func(i int) place {
		return append(append(place{}, own...), link{frame: id, index: i, doc: res.Doc})
	}
	hidden := res.HiddenFrames
	notVisible := func(before int) {
		for len(hidden) > 0 && hidden[0].Index <= before {
			m.record(observation.Frame{Parent: idx, Depth: depth + 1, Origin: m.frameOrigin(cdp.FrameID(hidden[0].Frame), origin),
				Status: observation.FrameNotVisible})
			hidden = hidden[1:]
		}
	}
	// Where each frame's text goes, and the text before it.
	markAt, textAt := map[string]int{}, map[string]int{}
	for _, mk := range res.TextFrames {
		cost := 0
		for _, t := range res.Text[:mk.Index] {
			cost += observation.TextPartCost(t)
		}
		markAt[mk.Frame], textAt[mk.Frame] = mk.Index, cost
	}
	childPlace := func(key string) place {
		return append(append(place{}, own...), link{frame: id, index: markAt[key], doc: res.Doc}, link{frame: cdp.FrameID(key)})
	}
	for i, c := range res.Controls {
		notVisible(i)
		if m.controlsCut || m.limit != "" {
			break // a frame before it stopped the stream
		}
		if controlsBefore+len(out.controls) >= observation.MaxControls {
			m.controlsCut = true
			break
		}
		if c.Role != collect.RoleFrame {
			out.controls = append(out.controls, framedControl{c: c, frame: idx, at: here(i)})
			continue
		}
		// A frame the text walk did not reach gives no text here.
		textAhead, marked := textAt[c.Frame]
		if !marked {
			textAhead = m.textBytes
		}
		child := m.child(ctx, c.Frame, idx, depth, origin, childPlace(c.Frame), controlsBefore+len(out.controls), textBefore+textAhead)
		if child.controlsPlaced {
			continue
		}
		room := observation.MaxControls - controlsBefore - len(out.controls)
		if len(child.controls) > room {
			m.controlsCut = true
		}
		out.controls = append(out.controls, child.controls[:min(len(child.controls), room)]...)
		if child.controlsMore && m.limit == "" {
			m.limit = child.controlsLimit // the rest of the frame comes first
		}
	}
	if cov := res.ControlCoverage; cov.More && cov.Limit != observation.LimitNone && id != "" {
		out.controlsMore, out.controlsLimit = true, cov.Limit
	}
	notVisible(len(res.Controls))
	used := textBefore
	next := 0
	for i := 0; i <= len(res.Text) && out.textStop == nil; i++ {
		for next < len(res.TextFrames) && res.TextFrames[next].Index == i && out.textStop == nil {
			key := res.TextFrames[next].Frame
			next++
			child := m.child(ctx, key, idx, depth, origin, childPlace(key), observation.MaxControls, used)
			if child.textPlaced {
				continue
			}
			for _, t := range child.text {
				used += observation.TextPartCost(t.text)
				out.text = append(out.text, t)
			}
			// The rest of the frame comes first: nothing after it now.
			out.textStop = child.textStop
		}
		if i == len(res.Text) || out.textStop != nil {
			break
		}
		cost := observation.TextPartCost(res.Text[i])
		if used+cost > m.textBytes {
			out.textStop = here(i) // a frame before it took the room: the rest waits
			break
		}
		used += cost
		out.text = append(out.text, framedText{text: res.Text[i], frame: idx, at: here(i)})
	}
	if tc := res.TextCoverage; id != "" && out.textStop == nil && (tc.ByteLimitReached || tc.NodeLimitReached || tc.TextLimitReached) {
		out.textStop = here(len(res.Text)) // its walk stopped at a bound
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
// parentIdx at depth; at is the frame's place) once, and returns its
// content with its own frames'.
func (m *frameMerge) child(ctx context.Context, key string, parentIdx, depth int, parentOrigin string, at place, controlsBefore, textBefore int) *framed {
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
	p := m.frameParams(controlsBefore, textBefore)
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
	case f.world == "" && f.url == "":
		rec.Status = observation.FrameNotLoaded // it never had a document
	case p.ControlsEnded && p.TextEnded:
		rec.Status = observation.FrameNotReached
	}
	if rec.Status != "" {
		m.record(rec)
		return &framed{}
	}
	rec.Status = observation.FrameCollected
	idx := m.record(rec)
	res, err := m.collectIn(ctx, id, p)
	if err != nil {
		m.setStatus(idx, err)
		return &framed{}
	}
	m.collected++
	m.account(res)
	out := m.expand(ctx, id, idx, depth+1, rec.Origin, res, at, controlsBefore, textBefore)
	m.fill(idx, res, out)
	m.visited[key] = out
	return out
}

// frameParams are a frame collector's parameters: what the content ahead
// of it left of the observation's bounds.
func (m *frameMerge) frameParams(controlsBefore, textBefore int) collect.Params {
	controlsLeft := observation.MaxControls - controlsBefore
	textLeft := m.textBytes - textBefore
	p := collect.Params{
		Revision:   m.params.Revision,
		MaxVisible: max(controlsLeft, 0),
		// The collector acquires one candidate past its window: that one
		// comes out of the window too, so that the handles of the page
		// and its frames stay within MaxAcquired together.
		Window:    max(m.window-1, 0),
		MaxOffset: m.params.MaxOffset,
		Reading:   m.params.Reading,
		Frames:    true,
		TextBytes: max(textLeft, 0),
		TextNodes: m.textNodes,
		TextUnits: m.textUnits,
		// A frame's regions do not continue (docs/frames.md).
		RegionNodes: m.regionNodes,
		MaxRegions:  ptr(max(m.regions, 0)),
	}
	p.ControlsEnded = controlsLeft <= 0 || m.window <= 1
	p.TextEnded = textLeft <= observation.TextPartOverhead || m.textNodes <= 0 || m.textUnits <= 0
	p.RegionsEnded = m.regions <= 0 || m.regionNodes <= 0
	return p
}

// account takes what a frame's collector used from the observation's
// bounds.
func (m *frameMerge) account(res *collect.Result) {
	m.window -= res.ControlCoverage.Scanned
	m.textNodes -= res.TextCoverage.ScannedNodes
	m.textUnits -= res.TextCoverage.InspectedUnits
	m.regionNodes -= res.RegionCoverage.ScannedNodes
	m.regions -= len(res.Regions)
}

// fill completes the record of a collected frame.
func (m *frameMerge) fill(idx int, res *collect.Result, out *framed) {
	if idx == 0 {
		return
	}
	r := &m.records[idx-1]
	r.Status = observation.FrameCollected
	r.Scanned = res.ControlCoverage.Scanned
	if res.ControlCoverage.More {
		r.Limit = res.ControlCoverage.Limit
	}
	switch tc := res.TextCoverage; {
	case tc.NodeLimitReached:
		r.TextLimit = "nodes"
	case tc.TextLimitReached:
		r.TextLimit = "units"
	case tc.ByteLimitReached:
		r.TextLimit = "bytes"
	}
}

// setStatus records why a frame could not be collected.
func (m *frameMerge) setStatus(idx int, err error) {
	if idx == 0 {
		return
	}
	r := &m.records[idx-1]
	r.Status = observation.FrameDetached
	if errcode.Of(err) == errcode.PageCrashed {
		r.Status = observation.FrameCrashed
	}
}

// collectIn runs the collector in frame id with p.
func (m *frameMerge) collectIn(ctx context.Context, id cdp.FrameID, p collect.Params) (*collect.Result, error) {
	f, ok := m.s.tab.waitFrameWorld(ctx, id)
	if !ok {
		if f.crashed {
			return nil, errCrashed
		}
		return nil, errors.New("the frame has no document")
	}
	m.s.tab.nameFrames(ctx, f.target, id, f.world, f.worldID, observation.MaxFrameRecords*4)
	res, err := collectIn(ctx, m.s.tab.evaluatorIn(f.target, f.world), collect.Expression(p), collect.Decode, "a frame could not be observed")
	if err != nil {
		return nil, err
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

// evaluatorIn is evaluateIn bound to one world of one target.
func (t *tab) evaluatorIn(target *chromedp.Target, world string) evaluator {
	return func(ctx context.Context, expr string) ([]byte, error) { return t.evaluateIn(ctx, target, world, expr) }
}
