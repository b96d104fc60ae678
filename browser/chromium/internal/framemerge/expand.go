package framemerge

import (
	"context"
	"net/url"

	"github.com/chromedp/cdproto/cdp"

	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// A document's content with its frames' in place (framemerge.go), and the
// frame records of the observation.

// expand returns doc's content (frame id, record index idx at depth, of
// origin, collected as res) with its frames' in place; before is its own
// place (the owners down to it), controlsBefore and textBefore what the
// observation holds ahead of it.
func (m *frameMerge) expand(ctx context.Context, id cdp.FrameID, idx, depth int, origin string, res *collect.Result, before Place, controlsBefore, textBefore int) *framed {
	// Sized for the document's own content, which a page without frames
	// holds alone: growing them cost more than the rest of the merge.
	out := &framed{controls: withRoom[framedControl](len(res.Controls)), text: withRoom[framedText](len(res.Text)),
		regions: withRoom[observation.Region](len(res.Regions))}
	own := before[:len(before)-1] // the owners down to this document's
	here := func(i int) Place {
		return append(append(Place{}, own...), Link{Frame: id, Index: i, Doc: res.Doc})
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
	childPlace := func(key string) Place {
		return append(append(Place{}, own...), Link{Frame: id, Index: markAt[key], Doc: res.Doc}, Link{Frame: cdp.FrameID(key)})
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
			out.controls = append(out.controls, framedControl{c: c, record: idx, at: here(i)})
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
		if child.starved {
			// The window was spent before the frame: its scan is the next
			// window's, from its start.
			out.controlsMore, out.controlsLimit = true, observation.LimitWindow
			out.stop = &Cursor{At: childPlace(c.Frame), Window: &Window{From: collect.ResumeStart}}
			break
		}
		room := observation.MaxControls - controlsBefore - len(out.controls)
		if len(child.controls) > room {
			m.controlsCut = true
		}
		out.controls = append(out.controls, child.controls[:min(len(child.controls), room)]...)
		if child.controlsMore {
			// The rest of the frame comes first: nothing after it now. The
			// stream stops where this content is placed (stopAt).
			out.controlsMore, out.controlsLimit, out.stop = true, child.controlsLimit, child.stop
			break
		}
	}
	if cov := res.ControlCoverage; cov.More && cov.Limit != observation.LimitNone && id != "" && !out.controlsMore {
		out.controlsMore, out.controlsLimit = true, cov.Limit
		if cov.Limit != observation.LimitOffset {
			// The stream continues inside this frame, at its next window
			// (the offset bound is terminal, as in the top document).
			out.stop = &Cursor{At: here(0), Window: &Window{Offset: cov.Offset + cov.Scanned, From: cov.From}}
		}
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
		out.text = append(out.text, framedText{text: res.Text[i], record: idx, at: here(i)})
	}
	if tc := res.TextCoverage; id != "" && out.textStop == nil && (tc.ByteLimitReached || tc.NodeLimitReached || tc.TextLimitReached) {
		out.textStop = here(len(res.Text)) // its walk stopped at a bound
	}
	for _, g := range res.Regions {
		g.Frame = idx
		out.regions = append(out.regions, g)
	}
	for _, key := range visitedOrder(res) {
		if ch := m.visited[key]; ch != nil && !ch.regionsPlaced {
			out.regions = append(out.regions, ch.regions...)
		}
	}
	return out
}

// withRoom is an empty slice with room for n, nil for none: what a merge
// of nothing leaves stays nil, as append leaves it.
func withRoom[T any](n int) []T {
	if n == 0 {
		return nil
	}
	return make([]T, 0, n)
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
	f, ok := m.frames.Frame(id)
	if !ok {
		return ""
	}
	return effectiveOrigin(f.URL, f.Origin, parentOrigin)
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
func (m *frameMerge) child(ctx context.Context, key string, parentIdx, depth int, parentOrigin string, at Place, controlsBefore, textBefore int) *framed {
	if done, ok := m.visited[key]; ok {
		if done == nil {
			return &framed{}
		}
		return done
	}
	m.visited[key] = nil
	rec := observation.Frame{Parent: parentIdx, Depth: depth + 1}
	id := cdp.FrameID(key)
	f, ok := m.frames.Frame(id)
	if key != "" && ok {
		rec.Origin = effectiveOrigin(f.URL, f.Origin, parentOrigin)
	}
	p := m.frameParams(controlsBefore, textBefore)
	switch {
	case key == "" || !ok:
		rec.Status = observation.FrameDetached
	case rec.Depth > observation.MaxFrameDepth:
		rec.Status = observation.FrameDepthLimit
	case m.collected >= observation.MaxFrames:
		rec.Status = observation.FrameLimit
	case m.allowed != nil && !m.allowed(rec.Origin):
		rec.Status = observation.FrameNotGranted
	case f.Crashed:
		rec.Status = observation.FrameCrashed
	case f.World == "" && f.URL == "":
		rec.Status = observation.FrameNotLoaded // it never had a document
	case p.ControlsEnded && p.TextEnded:
		rec.Status = observation.FrameNotReached
	}
	// A frame the window was spent before, which would be collected
	// otherwise, is where the control stream continues (expand).
	starved := p.ControlsEnded && !m.noControls && (rec.Status == "" || rec.Status == observation.FrameNotReached)
	if rec.Status != "" {
		m.record(rec)
		return &framed{starved: starved}
	}
	rec.Status = observation.FrameCollected
	idx := m.record(rec)
	res, err := m.frames.Collect(ctx, id, p)
	if err != nil {
		m.setStatus(idx, err)
		return &framed{}
	}
	m.collected++
	m.account(res)
	out := m.expand(ctx, id, idx, depth+1, rec.Origin, res, at, controlsBefore, textBefore)
	out.starved = starved
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
		Values:    m.params.Values, // a frame's fields as the page's
		Frames:    true,
		RealPages: m.params.RealPages,
		TextBytes: max(textLeft, 0),
		TextNodes: m.textNodes,
		TextUnits: m.textUnits,
		// A frame's regions do not continue (docs/frames.md).
		RegionNodes: m.regionNodes,
		MaxRegions:  ptr(max(m.regions, 0)),
	}
	p.ControlsEnded = controlsLeft <= 0 || m.window <= 1 || m.noControls
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
	m.scrollControls += res.ControlCoverage.InScrollContainers
	m.scrollText += res.TextCoverage.InScrollContainers
	m.scrollRegions += res.RegionCoverage.InScrollContainers
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

func ptr[T any](v T) *T { return &v }
