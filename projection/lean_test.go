package projection_test

import (
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
)

// checkWholeRegion checks region i of a view that says it is complete:
// the observation's region i, its ref left out, its summary shown or
// named as the run of the view's text parts it equals.
func checkWholeRegion(t *testing.T, obs *observation.Observation, v projection.View, i int) projection.Region {
	t.Helper()
	g, o := v.Regions[i], obs.Regions[i]
	if g.Ref != "" {
		t.Fatalf("region %d of a whole view keeps its ref", i)
	}
	summary := g.Summary
	if g.SummaryText != nil {
		if len(g.SummaryText) != 2 || g.Summary != "" || g.SummaryText[0] > g.SummaryText[1] || g.SummaryText[1] >= len(v.Text) {
			t.Fatalf("region %d: summary %q, text %v of %d parts", i, g.Summary, g.SummaryText, len(v.Text))
		}
		summary = strings.Join(v.Text[g.SummaryText[0]:g.SummaryText[1]+1], " ")
	}
	if g.Kind != o.Kind || g.Level != o.Level || summary != o.Summary || g.SummaryTruncated != o.SummaryTruncated || g.Frame != o.Frame {
		t.Fatalf("region %d is %+v (summary %q), want %+v", i, g, summary, o)
	}
	g.Ref = o.Ref
	return g
}

// checkComplete checks that a view that says it is complete shows the
// whole of a page whose coverage is complete, without the records.
func checkComplete(t *testing.T, obs *observation.Observation, v projection.View) {
	t.Helper()
	cc, rc, tc := obs.ControlCoverage, obs.RegionCoverage, obs.TextCoverage
	coverage := cc.Offset == 0 && cc.Cursor == "" && !cc.ScanLimitReached && !cc.Ended && cc.InScrollContainers == 0 &&
		!rc.NodeLimitReached && rc.Omitted == 0 && !rc.Resumed && !rc.Ended &&
		!tc.NodeLimitReached && !tc.TextLimitReached && !tc.ByteLimitReached && tc.OmittedBytes == 0 &&
		!tc.Resumed && !tc.Ended && !tc.FirstContinues && !tc.LastCut && tc.InScrollContainers == 0
	pageText := 0
	for _, p := range obs.Text {
		if p.Source == observation.TextSourcePage {
			pageText++
		}
	}
	shown := len(v.Controls) == len(obs.Controls) && len(v.Regions) == len(obs.Regions) && len(v.Text) == pageText &&
		!v.TextTruncated && v.Skipped == nil && v.RegionsSkipped == nil && v.FramesOmitted == 0 && !v.ContextOmitted
	if !coverage || !shown || v.Next != nil || v.ControlCoverage != nil || v.RegionCoverage != nil || v.TextCoverage != nil {
		t.Fatalf("complete, yet the coverage is %+v %+v %+v and the view %d/%d controls, %d/%d regions, %d/%d text parts, next %v",
			cc, rc, tc, len(v.Controls), len(obs.Controls), len(v.Regions), len(obs.Regions), len(v.Text), pageText, v.Next)
	}
}

// smallPage is a sign-in page as a 1.9.0 session observes it: every
// stream read whole, a form, a heading and a main landmark whose summaries
// are runs of the text parts, and a region whose summary is no such run.
func smallPage() *observation.Observation {
	ctl := func(ref, role, name string) observation.Control {
		return observation.Control{Ref: ref, Role: role, Name: name}
	}
	text := func(s string) observation.TextPart {
		return observation.TextPart{Text: s, Source: observation.TextSourcePage}
	}
	return &observation.Observation{Version: "1.9.0", Revision: "vaeaqrev", Trust: observation.Trust,
		URL: "http://127.0.0.1:8080/login", Origin: "http://127.0.0.1:8080", Title: "Sign in · Acme",
		Controls: []observation.Control{ctl("eaea1", "link", "Acme"), ctl("eaea2", "textbox", "Email"), ctl("eaea3", "textbox", "Password"),
			ctl("eaea4", "checkbox", "Keep me signed in"), ctl("eaea5", "button", "Sign in"), ctl("eaea6", "link", "Forgot your password?")},
		ControlCoverage: observation.ControlCoverage{Scanned: 6},
		Regions: []observation.Region{{Ref: "gaea1", Kind: "form", Name: "Sign in", Summary: "Email Password Keep me signed in Sign in"},
			{Ref: "gaea2", Kind: "heading", Level: 1, Summary: "Sign in"},
			{Ref: "gaea3", Kind: "main", Summary: "Sign in Email Password Keep me signed in Sign in Forgot your password?"},
			{Ref: "gaea4", Kind: "status", Summary: "Signed out"}},
		RegionCoverage: &observation.RegionCoverage{Version: observation.RegionCoverageV1, Scope: observation.ReadingScope, ScannedNodes: 31},
		Text:           []observation.TextPart{text("Acme"), text("Sign in"), text("Email Password Keep me signed in Sign in"), text("Forgot your password?"), text("Signed out now")},
		TextCoverage: &observation.TextCoverage{Version: observation.TextCoverageV1, Scope: observation.ReadingScope, ScannedNodes: 31,
			InspectedUnits: 96, ByteBound: observation.ReadingWindow(8192)},
	}
}

func leanOptions(budget int) projection.Options {
	return projection.Options{Budget: budget, Coverage: true, Regions: true, TextCoverage: true, Reading: true,
		Frames: true, Tabs: true, Values: true, Lean: true}
}

// TestLeanWholeViewAtTheBound: a page read whole says so with one marker
// instead of its three coverage records, its regions point at the text
// they repeat, and nothing of the page is lost; at one byte less the view
// is no longer whole, and keeps its records, shortened to what the
// version does not imply.
func TestLeanWholeViewAtTheBound(t *testing.T) {
	obs := smallPage()
	whole, err := projection.Project(obs, leanOptions(projection.DefaultBudget))
	if err != nil {
		t.Fatal(err)
	}
	v := decodeView(t, obs, projection.DefaultBudget, whole)
	if !v.Complete || strings.Contains(string(whole), "coverage") || strings.Contains(string(whole), "trust") {
		t.Fatalf("not a whole view: %s", whole)
	}
	checkComplete(t, obs, v)
	for i := range v.Regions {
		checkWholeRegion(t, obs, v, i)
	}
	if got := v.Regions[3]; got.SummaryText != nil || got.Summary != "Signed out" {
		t.Fatalf("a summary that is no run of text parts is %+v", got)
	}
	if got := v.Regions[2].SummaryText; len(got) != 2 || got[0] != 1 || got[1] != 3 {
		t.Fatalf("the main landmark's summary is parts %v, want 1 to 3", got)
	}

	at, err := projection.Project(obs, leanOptions(len(whole)))
	if err != nil || string(at) != string(whole) {
		t.Fatalf("at %d bytes: %s, %v", len(whole), at, err)
	}
	past, err := projection.Project(obs, leanOptions(len(whole)-1))
	if err != nil {
		t.Fatal(err)
	}
	p := decodeView(t, obs, len(whole)-1, past)
	if p.Complete || p.ControlCoverage == nil || p.RegionCoverage == nil || p.TextCoverage == nil {
		t.Fatalf("one byte less is still whole: %s", past)
	}
	if rc, tc := p.RegionCoverage, p.TextCoverage; rc.Version != 0 || rc.Scope != "" || tc.Version != 0 || tc.Scope != "" || tc.ByteBound != 0 ||
		rc.ScannedNodes != 31 || tc.InspectedUnits != 96 || p.CoverageVersion != 0 {
		t.Fatalf("the records are not the lean ones: %s", past)
	}
}

// TestLeanKeepsWhatIsNotImplied: a coverage record that says anything but
// the default is shown, whole page or not: a hit bound, another scope, a
// byte bound the walk reached.
func TestLeanKeepsWhatIsNotImplied(t *testing.T) {
	obs := smallPage()
	obs.TextCoverage.ByteLimitReached = true
	obs.RegionCoverage.Scope = observation.RegionScope
	out, err := projection.Project(obs, leanOptions(projection.DefaultBudget))
	if err != nil {
		t.Fatal(err)
	}
	v := decodeView(t, obs, projection.DefaultBudget, out)
	if v.Complete || v.TextCoverage == nil || !v.TextCoverage.ByteLimitReached || v.TextCoverage.ByteBound != observation.ReadingWindow(8192) ||
		v.RegionCoverage == nil || v.RegionCoverage.Scope != observation.RegionScope || v.RegionCoverage.Version != 1 || v.Next == nil {
		t.Fatalf("what the version does not imply is lost: %s", out)
	}
	if v.Regions[0].Ref != "gaea1" || v.Regions[0].Summary == "" {
		t.Fatalf("a view that is not whole shortens its regions: %s", out)
	}
}
