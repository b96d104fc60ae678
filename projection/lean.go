package projection

import (
	"encoding/json"
	"strings"

	"github.com/veetbot/veetbrowser/observation"
)

// Lean essentials (browser tools ≥ 1.9.0, docs/admission.md). The trust
// mark is the version's (every view's page content is untrusted, as the
// tool descriptions say), not repeated in each view. The coverage
// records of a view say only what the tool version does not already imply:
// their version (1) and scope (the main document and its open shadow
// roots) are left out when they are those, and the reading window's byte
// bound when the walk did not reach it. A view that shows every control,
// region, text part and frame of a page whose coverage is complete says so
// with one "complete": true instead of the three records: nothing was left
// unread, nothing is omitted, nothing continues. The scan statistics the
// records would have carried stay in the canonical observation.

// trustMark is the view's trust field: 1.9.0 leaves the mark to the
// version.
func trustMark(lean bool) string {
	if lean {
		return ""
	}
	return observation.Trust
}

// leanEssentials drops from v's coverage records what the version implies.
func leanEssentials(v *View) {
	v.CoverageVersion = 0
	if c := v.RegionCoverage; c != nil {
		c.Version, c.Scope = implied(c.Version, observation.RegionCoverageV1, c.Scope)
	}
	if c := v.TextCoverage; c != nil {
		c.Version, c.Scope = implied(c.Version, observation.TextCoverageV1, c.Scope)
		if !c.ByteLimitReached {
			c.ByteBound = 0
		}
	}
}

// implied leaves out a record's version and scope when both are the ones a
// lean view implies; any other pair is shown whole.
func implied(version, want int, scope string) (int, string) {
	if version == want && scope == observation.ReadingScope {
		return 0, ""
	}
	return version, scope
}

// completeCoverage reports whether the observation's coverage says the
// page was read whole from its start: a view that shows all it holds is
// then the whole page.
func completeCoverage(obs *observation.Observation) bool {
	cc, rc, tc := obs.ControlCoverage, obs.RegionCoverage, obs.TextCoverage
	if rc == nil || tc == nil || obs.FramesOmitted > 0 {
		return false
	}
	controls := cc.Offset == 0 && cc.Cursor == "" && !cc.ScanLimitReached && cc.Limit == "" && !cc.Ended && cc.InScrollContainers == 0
	regions := rc.Version == observation.RegionCoverageV1 && rc.Scope == observation.ReadingScope &&
		!rc.NodeLimitReached && rc.Omitted == 0 && !rc.Resumed && !rc.Ended
	text := tc.Version == observation.TextCoverageV1 && tc.Scope == observation.ReadingScope &&
		!tc.NodeLimitReached && !tc.TextLimitReached && !tc.ByteLimitReached && tc.OmittedBytes == 0 &&
		!tc.Resumed && !tc.Ended && !tc.FirstContinues && !tc.LastCut && tc.InScrollContainers == 0
	return controls && regions && text
}

// whole is the view that shows every control, region, text part and frame
// with its context, and the marker instead of the records, when it fits
// the budget; a whole view needs no room for a continuation or a skip.
func (r *reader) whole() ([]byte, bool) {
	a := r.a
	total := 0
	for _, sizes := range [][]int{a.encoded, r.frames.sizes} {
		for _, n := range sizes {
			total += n
		}
	}
	for i := 0; i < len(a.text) && total <= a.budget; i++ {
		total += r.partSize(i)
	}
	if total > a.budget {
		return nil, false // a cheap bound: the records alone do not fit
	}
	v := a.v
	a.v = contextOf(a.v, a.obs)
	a.v.ControlCoverage, a.v.RegionCoverage, a.v.TextCoverage, a.v.Complete = nil, nil, nil, true
	defer func() { a.v = v }()
	r.wholeRegions()
	r.ctl.shown, r.ctl.passed = indexes(len(a.controls)), len(a.controls)
	r.reg.shown, r.reg.passed = indexes(len(r.regions)), len(r.regions)
	r.parts, r.partsPassed, r.textDone = indexes(len(a.text)), len(a.text), true
	for f := range r.frames.extra {
		r.frames.extra[f] = f > 0
	}
	if r.size() > a.budget {
		return nil, false
	}
	out, err := json.Marshal(a.addDraft(r.view()))
	if err != nil || len(out) > a.budget {
		return nil, false // the size above is exact; this guards it
	}
	return out, true
}

func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// wholeRegions shortens the region records of a view that shows the whole
// page: no region is skipped, so no evidence ref is needed to disclose
// one, and a summary that is a run of the page's text parts, all of which
// the view shows, points at that run instead of repeating it.
func (r *reader) wholeRegions() {
	for i, g := range r.regions {
		g.whole = true
		if first, last, ok := textRun(r.a.text, g.Summary); ok {
			g.SummaryText, g.Summary = []int{first, last}, ""
		}
		r.regions[i] = g
		r.reg.sizes[i] = size(&r.regions[i])
	}
}

// textRun finds the first run of parts that, joined by spaces, is summary.
func textRun(parts []string, summary string) (first, last int, ok bool) {
	if summary == "" {
		return 0, 0, false
	}
	for first = range parts {
		rest := summary
		for last = first; last < len(parts); last++ {
			p := parts[last]
			if last > first {
				if !strings.HasPrefix(rest, " ") {
					break
				}
				rest = rest[1:]
			}
			if !strings.HasPrefix(rest, p) {
				break
			}
			if rest = rest[len(p):]; rest == "" {
				return first, last, true
			}
		}
	}
	return 0, 0, false
}

// MarshalJSON encodes a region of a whole view in its short form (an
// absent summary is empty unless text names it); any other region
// field by field.
func (g Region) MarshalJSON() ([]byte, error) {
	type plain Region
	if !g.whole {
		return json.Marshal(plain(g))
	}
	return json.Marshal(struct {
		Kind             string `json:"kind"`
		Level            int    `json:"level,omitempty"`
		Name             string `json:"name,omitempty"`
		NameTruncated    bool   `json:"name_truncated,omitempty"`
		Summary          string `json:"summary,omitempty"`
		SummaryText      []int  `json:"text,omitempty"`
		SummaryTruncated bool   `json:"summary_truncated,omitempty"`
		Frame            int    `json:"frame,omitempty"`
	}{g.Kind, g.Level, g.Name, g.NameTruncated, g.Summary, g.SummaryText, g.SummaryTruncated, g.Frame})
}
