package projection

import (
	"encoding/json"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// A find's view (browser tools ≥ 1.6.0, docs/reading.md): the matching
// controls, with refs, and the text matches, each a snippet with the
// reading continuation that resumes browser_observe at its paragraph.
// Admission: the essentials with the widest continuation; the first
// control and the first match; the context; controls up to half of what is
// left when there are text matches; then matches; then what is left to
// controls. Records are whole, in order; a snippet too large to show even
// alone is cut to fit and flagged. next continues the find after the last
// control and the last match shown.

// Match is a text match as the model sees it.
type Match struct {
	Text      string `json:"text"`
	CutBefore bool   `json:"cut_before,omitempty"`
	CutAfter  bool   `json:"cut_after,omitempty"`
	Next      *Next  `json:"next"`
}

// FindCoverage is a find's coverage in lossless compact form.
type FindCoverage struct {
	ScannedNodes       int  `json:"scanned_nodes,omitempty"`
	Candidates         int  `json:"candidates,omitempty"`
	InspectedUnits     int  `json:"inspected_units,omitempty"`
	NodeLimitReached   bool `json:"node_limit_reached,omitempty"`
	UnitLimitReached   bool `json:"unit_limit_reached,omitempty"`
	OffsetLimitReached bool `json:"offset_limit_reached,omitempty"`
}

// queryCap bounds the query echoed in the view, in encoded bytes.
const queryCap = 160

// findCursor is the widest find continuation the essentials reserve room for.
var findCursor = observation.NextKey{Revision: 1 << 62}.MintFind(observation.FindFrom{
	Controls: observation.FindMatches, Text: observation.FindMatches, Query: 1<<32 - 1})

// finder is the state of one find admission.
type finder struct {
	a       *admission
	key     observation.NextKey
	matches []Match
	msize   []int
	ctrls   int // controls shown, in order
	shown   int // matches shown, in order
}

// ProjectFind returns the model view of a find's observation within
// opts.Budget bytes.
func ProjectFind(obs *observation.Observation, opts Options) ([]byte, error) {
	if obs.Find == nil {
		return nil, errcode.New(errcode.Internal, "the observation is not a find's")
	}
	budget := opts.Budget
	if budget == 0 {
		budget = DefaultBudget
	}
	a := &admission{obs: obs, opts: opts, budget: budget}
	a.v = View{Version: obs.Version, Revision: obs.Revision, Trust: trustMark(opts.Lean)}
	setTabs(&a.v, obs, opts.Tabs, a.budget)
	setBlocked(&a.v, obs, opts.Blocked, a.budget)
	a.v.Query, _ = clip(obs.Find.Query, queryCap)
	c := obs.Find.Coverage
	a.v.FindCoverage = &FindCoverage{ScannedNodes: c.ScannedNodes, Candidates: c.Candidates, InspectedUnits: c.InspectedUnits,
		NodeLimitReached: c.NodeLimitReached, UnitLimitReached: c.UnitLimitReached, OffsetLimitReached: c.OffsetLimitReached}
	a.controls = make([]Control, len(obs.Controls))
	a.encoded = make([]int, len(obs.Controls))
	for i, ctl := range obs.Controls {
		a.controls[i] = modelControl(ctl, opts.Compact)
		a.encoded[i] = size(&a.controls[i]) // a pointer: no copy of the record to encode it
	}
	f := &finder{a: a}
	if opts.Next != nil {
		f.key = *opts.Next
	}
	for i, m := range obs.Find.Matches {
		next := f.key.MintStreams(observation.Streams{Controls: observation.ControlsEnded, Region: -1, Text: i})
		f.matches = append(f.matches, Match{Text: m.Snippet, CutBefore: m.CutBefore, CutAfter: m.CutAfter, Next: &Next{Cursor: next}})
		f.msize = append(f.msize, size(f.matches[i]))
	}

	ess := a.v
	ess.ControlsOmitted, ess.MatchesOmitted = len(a.controls), len(f.matches)
	ess.Next = &Next{Cursor: findCursor}
	ess.ContextOmitted = true
	if size(ess)-len("null")+len("[]") > budget {
		return nil, errcode.New(errcode.ObservationTooLarge, "the find's essential coverage does not fit the %d-byte budget", budget)
	}
	a.v.ContextOmitted = true // room for the flag, until the context fits
	f.addControls(budget, 1)
	f.addMatches(budget, 1)
	plain := a.v
	if a.v = contextOf(a.v, obs); f.size() > budget {
		a.v = plain
	}
	limit := budget
	if f.shown < len(f.matches) {
		limit = budget - (budget-f.size())/2
	}
	f.addControls(limit, len(a.controls))
	f.addMatches(budget, len(f.matches))
	f.addControls(budget, len(a.controls))

	if len(a.controls) > 0 && f.ctrls == 0 {
		// A next that shows nothing would repeat itself.
		return nil, errcode.New(errcode.ObservationTooLarge, "the first matching control does not fit the %d-byte budget", budget)
	}
	v := f.header()
	v.Controls = append([]Control{}, a.controls[:f.ctrls]...)
	v.Matches = f.matches[:f.shown]
	out, err := json.Marshal(v)
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "the find could not be encoded")
	}
	if len(out) > budget {
		return nil, errcode.New(errcode.ObservationTooLarge, "the find does not fit the %d-byte budget", budget)
	}
	return out, nil
}

func (f *finder) addControls(limit, most int) {
	for f.ctrls < len(f.a.controls) && f.ctrls < most {
		f.ctrls++
		if f.size() > limit {
			f.ctrls--
			return
		}
	}
}

// addMatches shows whole matches in order within limit; the first, if it
// cannot fit whole even alone, is cut to fit.
func (f *finder) addMatches(limit, most int) {
	for f.shown < len(f.matches) && f.shown < most {
		f.shown++
		if f.size() <= limit {
			continue
		}
		f.shown--
		if f.shown > 0 {
			return
		}
		m := &f.matches[0]
		full, cutAfter := m.Text, m.CutAfter
		for room := len(full); room > 0; {
			m.Text, _ = clip(full, room)
			m.CutAfter = cutAfter || m.Text != full
			f.msize[0] = size(*m)
			f.shown = 1
			over := f.size() - limit
			if over <= 0 {
				return
			}
			f.shown = 0
			room -= over
		}
		m.Text, m.CutAfter = full, cutAfter
		f.msize[0] = size(*m)
		return
	}
}

// size is the exact size of the view as it stands.
func (f *finder) size() int {
	v := f.header()
	v.Controls, v.Matches = nil, nil
	total := size(v) - len("null") + len("[]")
	for i := range f.ctrls {
		total += f.a.encoded[i]
	}
	total += max(f.ctrls-1, 0)
	if f.shown > 0 {
		total += len(`,"matches":[]`) + f.shown - 1
		for _, n := range f.msize[:f.shown] {
			total += n
		}
	}
	return total
}

// header is the view without its arrays: the counts and the continuation
// they imply.
func (f *finder) header() View {
	v := f.a.v
	v.ControlsOmitted = len(f.a.controls) - f.ctrls
	v.MatchesOmitted = len(f.matches) - f.shown
	c := f.a.obs.Find.Coverage
	from := observation.FindFrom{Controls: -1, Text: -1, Query: observation.QueryHash(f.a.obs.Find.Query)}
	if f.ctrls < len(f.a.controls) || c.MoreControls {
		from.Controls = f.ctrls
	}
	if f.shown < len(f.matches) || c.MoreText {
		from.Text = f.shown
	}
	v.Next = nil
	if from.Controls >= 0 || from.Text >= 0 {
		v.Next = &Next{Cursor: f.key.MintFind(from)}
	}
	return v
}
