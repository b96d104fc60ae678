package projection

import "github.com/veetbot/veetbrowser/observation"

// The compact form of tool version 1.9.0's views (docs/reading.md): what a
// reading chain repeats in every view costs less.
//
//   - references and the reading continuation are written compact
//     (viewRef, observation.CompactRef) and a control's role is left out
//     when it is link (modelControl), a region's kind when it is a heading
//     with a level (only headings have one: modelRegion);
//   - a stream's coverage record that says only that the stream ended,
//     nothing scanned (a reading continuation's stream that an earlier view
//     ended, or a page without controls), is left out: the empty stream
//     and a next that does not continue it say the same. In a long reading
//     these records are most of the later views' essentials.

// leaveOutEnded drops the coverage records that say only "ended".
func (a *admission) leaveOutEnded() {
	if c := a.v.ControlCoverage; c != nil && *c == (Coverage{Ended: true}) {
		a.v.ControlCoverage, a.v.CoverageVersion = nil, 0 // the version is that record's
	}
	if c := a.v.RegionCoverage; c != nil && *c == (RegionCoverage{Version: c.Version, Scope: c.Scope, Ended: true}) {
		a.v.RegionCoverage = nil
	}
	if c := a.v.TextCoverage; c != nil && a.v.Draft == nil && *c == (TextCoverage{Version: c.Version, Scope: c.Scope, Ended: true}) {
		a.v.TextCoverage = nil
	}
}

// focus shows a main-first reading (observation.FocusMain, FocusRest;
// docs/reading.md). The main content's views hold its text alone: the
// controls and regions were not collected, they come with the rest, so
// their records, which would say "ended", are left out; focus says why.
func (a *admission) focus() {
	a.v.Focus = a.obs.Focus
	if a.obs.Focus == observation.FocusMain {
		a.v.ControlCoverage, a.v.CoverageVersion, a.v.RegionCoverage = nil, 0, nil
	}
}
