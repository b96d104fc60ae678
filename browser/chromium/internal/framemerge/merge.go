// Package framemerge owns the frame merge of an observation with frames
// (tool version 1.7.0, docs/frames.md): the content of each frame, as its
// own collector gave it, put in its owner's place within the observation's
// bounds, the frame records, and the places (the chain of frames down to a
// control or text part) that continuations and actions resolve. It reads
// the page only through a Source, so its rules are tested on canned
// collector results.
package framemerge

import (
	"context"

	"github.com/chromedp/cdproto/cdp"

	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// The frame merge (tool version 1.7.0, docs/frames.md). The top document is
// collected first; each frame owner its scan meets stands for the frame's
// content, which is collected in the frame's own world, with what the
// content before it left of the observation's bounds, and put in the
// owner's place, depth first. A frame's collector enforces those bounds in
// the frame; content of a document after one of its frames may have been
// collected within the document's own bounds and is then cut here, so at
// most MaxFrames+1 collectors' bounded answers ever cross.

// Source is what the merge needs of the page: the frames the tab knows,
// and one collector run in a frame.
type Source interface {
	// Frame returns the frame of id as it is now.
	Frame(id cdp.FrameID) (tab.FrameView, bool)
	// Collect runs the collector with p in frame id; an error of code
	// page_crashed records the frame as crashed, any other as detached.
	Collect(ctx context.Context, id cdp.FrameID, p collect.Params) (*collect.Result, error)
}

// Link is one step of a control's or text part's place: a frame (""
// for the top document) and an index in what that frame's collector
// retained for the revision.
type Link struct {
	Frame cdp.FrameID
	Index int
	Doc   string // the collector's id of the frame's document
}

// Place is where a control of a frames-mode revision lives: the owners
// from the top document down, then the control itself.
type Place []Link

type framedControl struct {
	c      collect.Control
	record int // frame record index; 0: top
	at     Place
}

type framedText struct {
	text   string
	record int
	at     Place
}

// framed is one document's content with its frames' in place; placed
// says which of its streams a continuation already put ahead of the
// observation's other content.
type framed struct {
	controls []framedControl
	text     []framedText
	regions  []observation.Region
	// Where a stream stopped inside it at a bound: nothing after it may
	// be shown in this observation, and the stream continues there (stop:
	// the control cursor; nil at the terminal offset bound).
	controlsMore  bool
	controlsLimit string
	stop          *Cursor
	textStop      Place
	// A continuation put this stream of the frame ahead of the rest: it
	// is not put again where the frame's element is met.
	controlsPlaced, textPlaced, regionsPlaced bool
	// starved: the observation's window was spent before the frame's
	// control scan could start.
	starved bool
}

// Resume is where a continuation of a frames-mode revision resumes a
// stream that stopped inside a frame: the place of the control anchor, and
// of the text part (units of it already shown); nil when it stopped in the
// top document.
type Resume struct {
	Old      string // the revision the places belong to
	Controls Place
	// Window or AfterFrame, when set, say where the document Controls
	// ends in resumes instead of after a control: at its next window, or
	// right after the owner of that frame (a control cursor, Cursor).
	Window     *Window
	AfterFrame cdp.FrameID
	Text       Place
	Units      int
}

// Window is where a document's control scan resumes: its candidate offset
// and where its walk starts (collect.Resume*), as a top-document cursor.
type Window struct {
	Offset int
	From   string
}

// Cursor is where a control cursor of a frames-mode revision resumes when
// the top document's own window cannot say: At is the documents from the
// top down to the one the stream continues in, which resumes at Window, or
// right after the owner of frame AfterFrame, or, with neither, right after
// the control whose place At is (as after does).
type Cursor struct {
	At         Place
	Window     *Window
	AfterFrame cdp.FrameID
}

// ResumeOf returns *rs, making it a Resume of revision token if nil.
func ResumeOf(rs **Resume, token string) *Resume {
	if *rs == nil {
		*rs = &Resume{Old: token}
	}
	return *rs
}

// frameMerge is one frames-mode observation under way.
type frameMerge struct {
	frames    Source
	allowed   func(origin string) bool // judges a frame's origin; nil allows every one
	params    collect.Params           // the top document's
	resume    *Resume
	records   []observation.Frame
	omitted   int
	collected int
	// what is left of the observation's bounds
	window, textNodes, textUnits, regionNodes, regions int
	// controls, text parts and regions the frames' collectors read in scroll
	// containers (tool version 1.9.0)
	scrollControls, scrollText, scrollRegions int
	textBytes                                 int // the whole text bound
	visited                                   map[string]*framed
	// cut: content was collected and left out for the bounds; textNext
	// is then where the text stream continues.
	controlsCut bool
	textNext    Place
	limit       string // the control bound a frame's scan stopped at; nothing after it is shown
	// stop: where the control stream continues when a frame's scan
	// stopped it; noControls: the controls of frames collected now are
	// not shown (the stream resumed inside a frame, and only the frames
	// it resumed in are scanned), so they are not scanned.
	stop       *Cursor
	noControls bool
	// firstContinues: the first text part continues a part a view cut,
	// inside the frame the text resumed in.
	firstContinues bool
}

// Out is what a frames-mode observation adds to the merged result: the
// frame records and which frame each control, text part and region is in.
type Out struct {
	records                              []observation.Frame
	omitted                              int
	ctrlFrames, textFrames, regionFrames []int
	// Places has the place of each control; TextPlaces one per text part,
	// and one more: where the stream continues after the last.
	Places, TextPlaces []Place
	// Cursor, if set, is where the control cursor resumes instead of the
	// top document's window.
	Cursor *Cursor
}

// Apply marks obs's controls, text parts and regions with their frames and
// adds the frame records; a nil Out leaves obs as it is.
func (fm *Out) Apply(obs *observation.Observation) {
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

// RegionFrames is the frame of each region (0: the top document).
func (fm *Out) RegionFrames() []int { return fm.regionFrames }

// Merge puts the content of top's frames, as frames gives it, in place;
// allowed judges a frame's origin (nil allows every one); rs, if set, is
// where streams that stopped inside frames resume. When the controls
// resume inside a frame, top was collected without its control scan: the
// frames they resume in have the whole window, and the top document's scan
// is the next window's (docs/frames.md). A frame the controls resume in
// that is gone, or no longer holds the point they resume from, fails the
// merge with stale_reference or document_changed.
func Merge(ctx context.Context, frames Source, allowed func(string) bool, params collect.Params, top *collect.Result, rs *Resume) (*collect.Result, *Out, error) {
	inFrame := rs != nil && len(rs.Controls) > 1
	m := &frameMerge{frames: frames, allowed: allowed, params: params, resume: rs, visited: map[string]*framed{}, noControls: inFrame,
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
	topLink := Place{{Frame: "", Doc: top.Doc}}
	out := &framed{}
	if rs != nil {
		if err := m.resumeChains(ctx, top, out); err != nil {
			return nil, nil, err
		}
	}
	if out.textStop != nil {
		m.textNext = out.textStop // a continued frame's text stopped again
	}
	rest := m.expand(ctx, "", 0, 0, top.Origin, top, topLink, len(out.controls), textCost(out.text))
	out.controls = appendOwn(out.controls, rest.controls)
	m.stopAt(rest)
	if m.textNext == nil {
		out.text = appendOwn(out.text, rest.text)
		m.textNext = rest.textStop
	}
	out.regions = appendOwn(out.regions, rest.regions)
	if len(out.controls) > observation.MaxControls {
		out.controls, m.controlsCut = out.controls[:observation.MaxControls], true
	}
	cursor := m.stop
	switch {
	case m.controlsCut && len(out.controls) > 0:
		// The top document's window went past what the bound left out:
		// the cursor continues after the last control kept, as after does.
		cursor = &Cursor{At: out.controls[len(out.controls)-1].at}
	case inFrame && m.stop == nil && m.limit == "":
		// The frames the controls resumed in ended: the top document's
		// scan goes on after the outermost one's owner.
		cursor, m.limit = &Cursor{At: topLink, AfterFrame: rs.Controls[1].Frame}, observation.LimitWindow
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
		if c.record > 0 {
			m.records[c.record-1].Controls++
		}
	}
	for _, t := range out.text {
		if t.record > 0 {
			m.records[t.record-1].TextParts++
		}
	}
	res := *top
	res.Controls = make([]collect.Control, len(out.controls))
	ctrlFrames := make([]int, len(out.controls))
	places := make([]Place, len(out.controls))
	for i, c := range out.controls {
		res.Controls[i], ctrlFrames[i], places[i] = c.c, c.record, c.at
	}
	if inFrame {
		res.ControlCoverage = collect.ControlCoverage{} // the top document scanned nothing
	}
	switch {
	case m.controlsCut:
		res.ControlCoverage.More, res.ControlCoverage.Limit = true, observation.LimitControls
	case m.limit != "":
		res.ControlCoverage.More, res.ControlCoverage.Limit = true, m.limit
	}
	res.Text = make([]string, len(out.text))
	textFrames := make([]int, len(out.text))
	textPlaces := make([]Place, len(out.text)+1)
	for i, t := range out.text {
		res.Text[i], textFrames[i], textPlaces[i] = t.text, t.record, t.at
	}
	textPlaces[len(out.text)] = Place{{Frame: "", Index: len(top.Text), Doc: top.Doc}}
	if m.textNext != nil {
		textPlaces[len(out.text)] = m.textNext
		res.TextCoverage.ByteLimitReached = true
	}
	if rs != nil && rs.Text != nil {
		res.TextCoverage.FirstContinues = m.firstContinues
	}
	// The counts of what came from scroll containers add the frames'; the
	// merge may leave some of it out for the bounds, never more than it kept.
	res.ControlCoverage.InScrollContainers = min(top.ControlCoverage.InScrollContainers+m.scrollControls, len(res.Controls))
	res.TextCoverage.InScrollContainers = min(top.TextCoverage.InScrollContainers+m.scrollText, len(res.Text))
	res.Regions = out.regions
	res.RegionCoverage.InScrollContainers = min(top.RegionCoverage.InScrollContainers+m.scrollRegions, len(res.Regions))
	regionFrames := make([]int, len(out.regions))
	for i, g := range out.regions {
		regionFrames[i] = g.Frame
	}
	res.HiddenFrames, res.TextFrames = nil, nil
	return &res, &Out{records: m.records, omitted: m.omitted, ctrlFrames: ctrlFrames, textFrames: textFrames,
		regionFrames: regionFrames, Places: places, TextPlaces: textPlaces, Cursor: cursor}, nil
}

// appendOwn is append(to, rest...), but rest itself, not a copy, when to is
// empty (no continuation put content ahead): rest is the top document's
// content, which nothing else holds.
func appendOwn[T any](to, rest []T) []T {
	if len(to) == 0 && len(rest) > 0 {
		return rest
	}
	return append(to, rest...)
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
func (m *frameMerge) resumeChains(ctx context.Context, top *collect.Result, out *framed) error {
	rs := m.resume
	// The frames on either chain, outermost first, with their records.
	type level struct {
		id    cdp.FrameID
		depth int
		at    Place // its place: the documents down to it, then itself
	}
	var levels []level
	seen := map[cdp.FrameID]int{}
	for _, chain := range []Place{rs.Controls, rs.Text} {
		for k := 1; k < len(chain); k++ {
			if _, ok := seen[chain[k].Frame]; !ok {
				seen[chain[k].Frame] = len(levels)
				// In this revision each document on the way continues
				// right after the frame it holds, which is found by its
				// key: the links keep only the frames and documents.
				at := make(Place, k+1)
				for j, l := range chain[:k] {
					at[j] = Link{Frame: l.Frame, Doc: l.Doc}
				}
				at[k] = Link{Frame: chain[k].Frame}
				levels = append(levels, level{id: chain[k].Frame, depth: k, at: at})
			}
		}
	}
	records := make(map[cdp.FrameID]int, len(levels))
	parentOrigin := map[cdp.FrameID]string{"": top.Origin}
	for _, l := range levels {
		up := l.at[len(l.at)-2].Frame
		parent := records[up]
		origin := m.frameOrigin(l.id, parentOrigin[up])
		parentOrigin[l.id] = origin
		records[l.id] = m.record(observation.Frame{Parent: parent, Depth: l.depth, Origin: origin, Status: observation.FrameDetached})
	}
	// Innermost first: what the stream shows next is the rest of it.
	for i := len(levels) - 1; i >= 0; i-- {
		l := levels[i]
		inC, inT := onChain(rs.Controls, l.id), onChain(rs.Text, l.id)
		if inC {
			// A frame's rest is scanned unless the stream stopped inside it.
			m.noControls = m.limit != "" || m.controlsCut
		}
		p := m.frameParams(len(out.controls), textCost(out.text))
		k := l.depth
		switch w := rs.Window; {
		case inC && k == len(rs.Controls)-1 && w != nil:
			p.Offset = w.Offset
			if w.From != collect.ResumeStart {
				p.Resume = &collect.Resume{Revision: rs.Old, From: w.From}
			}
		case inC && k == len(rs.Controls)-1 && rs.AfterFrame != "":
			p.AfterFrame = string(rs.AfterFrame)
		case inC && k == len(rs.Controls)-1:
			p.After = &collect.Anchor{Revision: rs.Old, Index: rs.Controls[k].Index}
		case inC:
			p.AfterFrame = string(rs.Controls[k+1].Frame)
		}
		if inC {
			p.Doc = rs.Controls[k].Doc // a frame that navigated does not continue
		}
		if inC && p.ControlsEnded && !m.noControls {
			// The window (or the control bound) is spent before this
			// frame's rest: it is where the stream continues.
			m.limit, m.stop = observation.LimitWindow, &Cursor{At: rs.Controls[:k+1], Window: rs.Window, AfterFrame: rs.AfterFrame}
			if len(out.controls) >= observation.MaxControls {
				m.limit = observation.LimitControls
			}
			if k < len(rs.Controls)-1 {
				m.stop.Window, m.stop.AfterFrame = nil, rs.Controls[k+1].Frame
			}
		}
		switch k := l.depth; {
		case inT && k == len(rs.Text)-1:
			p.Text = &collect.From{Revision: rs.Old, Index: rs.Text[k].Index, Units: rs.Units}
		case inT:
			p.Text = &collect.From{Revision: rs.Old, Frame: string(rs.Text[k+1].Frame)}
		}
		idx := records[l.id]
		res, err := m.frames.Collect(ctx, l.id, p)
		if err != nil && inC {
			return goneFrame(err)
		}
		if err != nil {
			m.setStatus(idx, err)
			continue
		}
		m.collected++
		m.account(res)
		content := m.expand(ctx, l.id, idx, l.depth, parentOrigin[l.id], res, l.at, len(out.controls), textCost(out.text))
		m.noControls = len(rs.Controls) > 1 // as before: only these frames' controls are shown
		m.fill(idx, res, content)
		m.visited[string(l.id)] = content
		// The stream that continues inside the frame goes first; the
		// other goes where the frame's element is met, as for any frame.
		if inC {
			out.controls = append(out.controls, content.controls...)
			content.controlsPlaced = true
			m.stopAt(content)
		}
		if inT && out.textStop == nil {
			if len(out.text) == 0 && len(content.text) > 0 && res.TextCoverage.FirstContinues {
				m.firstContinues = true // the view's first part continues one a view cut
			}
			out.text = append(out.text, content.text...)
			out.textStop = content.textStop
		}
		content.textPlaced, content.regionsPlaced = inT, true
		out.regions = append(out.regions, content.regions...)
	}
	return nil
}

// goneFrame is the refusal of a continuation whose controls resume in a
// frame that could not be collected: the frame was removed or replaced (a
// new frame is a new identity), or its document no longer holds the point.
func goneFrame(err error) error {
	if c := errcode.Of(err); c == errcode.StaleReference || c == errcode.DocumentChanged {
		return err
	}
	return errcode.Wrap(errcode.StaleReference, err, "the frame the controls continue in is gone; observe again")
}

// stopAt records where the control stream stops when content placed in it
// stopped inside a frame: the first such place is where it continues.
func (m *frameMerge) stopAt(content *framed) {
	if content.controlsMore && m.limit == "" {
		m.limit, m.stop = content.controlsLimit, content.stop
	}
}

func onChain(chain Place, id cdp.FrameID) bool {
	for _, l := range chain[min(1, len(chain)):] {
		if l.Frame == id {
			return true
		}
	}
	return false
}
