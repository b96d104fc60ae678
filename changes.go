package veetbrowser

import (
	"encoding/json"
	"sync"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
)

// maxGiven bounds the refs one control keeps valid through delta views:
// the newest it was given.
const maxGiven = 4

// shownView is the session's previous view (tool version 1.9.0,
// docs/changes.md): the observation a delta is computed since, and the
// refs earlier views gave the model that a delta keeps valid. A delta does
// not repeat unchanged controls, so the refs the model holds for them must
// still act on them: each is carried to the newest revision's ref of the
// same node.
type shownView struct {
	mu    sync.Mutex
	obs   *observation.Observation
	given map[string][]string // a full ref of the newest revision → the (full) refs the model was given for its control, oldest first
	alias map[string]string   // the inverse: a ref given, full or compact → the newest revision's ref
}

// view projects obs with opts, as a delta since the previous view when
// the session's version has changes and the call may have one: an action's
// view (projection.ChangesLong) or browser_observe {changes: true}
// (projection.ChangesAsked). opts keeps the base, which the record stores.
func (s *Session) view(obs *observation.Observation, opts *projection.Options, action, asked bool) ([]byte, error) {
	if !s.version.RealPages {
		return projection.Project(obs, *opts)
	}
	s.shown.mu.Lock()
	defer s.shown.mu.Unlock()
	if base := s.shown.obs; base != nil && (action || asked) {
		opts.Base, opts.Changes = base, projection.ChangesLong
		if asked {
			opts.Changes = projection.ChangesAsked
		}
	}
	view, err := projection.Project(obs, *opts)
	if err != nil {
		return nil, err // the previous view stays the base
	}
	s.shown.update(opts.Base, obs, view)
	return view, nil
}

// update makes obs, whose view is view, the previous view: the refs the
// view gives are valid, and after a delta so are the refs given before
// for every control of base still on the page.
func (v *shownView) update(base, obs *observation.Observation, view []byte) {
	// Only the refs are read: decoding whole control records took twice as
	// long, on every view.
	type shownRef struct {
		Ref string `json:"ref"`
	}
	var shown struct {
		Controls []shownRef `json:"controls"`
		Changes  *struct {
			Added   []shownRef `json:"added"`
			Changed []shownRef `json:"changed"`
		} `json:"changes"`
	}
	json.Unmarshal(view, &shown) // the projection's own output
	// The maps are sized for the refs of this view: growing them was most
	// of an update's allocations.
	given := make(map[string][]string, len(shown.Controls))
	refs := shown.Controls
	if d := shown.Changes; d != nil && base != nil {
		was := map[[2]int]string{}
		for _, c := range base.Controls {
			was[[2]int{c.Frame, c.Key}] = c.Ref
		}
		for _, c := range obs.Controls {
			if old, ok := was[[2]int{c.Frame, c.Key}]; ok && len(v.given[old]) > 0 {
				given[c.Ref] = v.given[old]
			}
		}
		refs = append(append(refs, d.Added...), d.Changed...)
	}
	// A 1.9.0 view writes refs compact (observation.CompactRef); the refs
	// given are kept full, and either spelling of one is carried.
	full := make(map[string]string, len(obs.Controls))
	for _, c := range obs.Controls {
		full[observation.CompactRef(c.Ref)] = c.Ref
	}
	for _, c := range refs {
		now, ok := full[c.Ref]
		if !ok {
			now = c.Ref
		}
		g := append(given[now], now)
		given[now] = g[max(0, len(g)-maxGiven):]
	}
	alias := make(map[string]string, 2*len(given))
	for now, g := range given {
		for _, r := range g {
			alias[r], alias[observation.CompactRef(r)] = now, now
		}
	}
	v.obs, v.given, v.alias = obs, given, alias
}

// carry is the newest revision's ref for ref, one an earlier view gave
// and a delta kept valid; any other ref is passed on as it is, to be
// verified (and refused when stale) as always.
func (s *Session) carry(ref string) string {
	s.shown.mu.Lock()
	defer s.shown.mu.Unlock()
	if now, ok := s.shown.alias[ref]; ok {
		return now
	}
	return ref
}

// carryAction carries an action's refs: its control and a drag's target.
func (s *Session) carryAction(a Action) Action {
	a.Ref, a.To = s.carry(a.Ref), s.carry(a.To)
	return a
}

// carryWait carries a wait's ref_gone.
func (s *Session) carryWait(w browser.WaitRequest) browser.WaitRequest {
	w.RefGone = s.carry(w.RefGone)
	return w
}
