package projection_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/tools"
)

// The projection modes of tool versions 1.6.0 (reading, find), 1.7.0
// (frames), 1.8.0 (tabs) and 1.9.0 (lean essentials), fuzzed over generated admitted observations
// at every budget. FuzzProjection (projection_test.go) covers 1.1.0–1.5.0.

// readingVersions are the versions whose views share the budget between
// streams.
var readingVersions = []string{"1.6.0", "1.7.0", "1.8.0", "1.9.0"}

// genPage builds an admitted observation of version v from a seed, as a
// session of v would get from the collector: n controls, regions and text
// parts whose names mix scripts, escapes, emoji and very long runs; from
// 1.7.0 on child frames, collected or not, holding some of each; from
// 1.8.0 on a tabs record, sometimes with the list. A find's observation
// holds matching controls and text matches instead of regions and text.
func genPage(seed uint64, n int, v tools.Version, find bool) (*observation.Observation, *observation.Keys) {
	r := rand.New(rand.NewPCG(seed, 16))
	pieces := []string{"Publish", "Weiter", `"quoted"`, `back\slash`, "tab\tnew\nline", "\x01ctl", "😀👩‍👩‍👧", "مرحبا",
		"你好世界", "हिन्दी", "<&>", " ", "\u2028", "e\u0301"}
	words := func(most int, long int) string {
		var b strings.Builder
		for range r.IntN(most + 1) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		if r.IntN(12) == 0 {
			b.WriteString(strings.Repeat("x", r.IntN(long+1)))
		}
		return b.String()
	}
	cut := func(s string, units int) string {
		s, _ = observation.CutUTF16(s, units)
		return s
	}
	keys := observation.NewKeys()
	rev := 1 + r.Uint64N(1<<20)
	nk := keys.NextKey(rev)
	obs := &observation.Observation{Version: v.Name, Revision: keys.Mint(observation.KindRevision, rev, 0),
		URL: "http://127.0.0.1:1/" + strings.Repeat("p", r.IntN(400)), Origin: "http://127.0.0.1:1",
		Title: cut(words(8, 200), observation.MaxTitleUnits), Trust: observation.Trust, Loading: r.IntN(9) == 0, NextKey: &nk}

	// Frames: each under an earlier one or the top document; collected
	// only inside a collected document and within the depth bound.
	collected := []int{0}
	if v.Frames {
		for i := 1; i <= r.IntN(8); i++ {
			f := observation.Frame{Index: i, Parent: r.IntN(i), Origin: []string{"http://127.0.0.1:2", "null",
				"http://" + strings.Repeat("a", r.IntN(300)) + ".localhost:3"}[r.IntN(3)]}
			parent := observation.Frame{Status: observation.FrameCollected}
			if f.Parent > 0 {
				parent = obs.Frames[f.Parent-1]
			}
			f.Depth = parent.Depth + 1
			f.Status = observation.FrameStatuses[1+r.IntN(len(observation.FrameStatuses)-1)]
			if parent.Status == observation.FrameCollected && f.Depth <= observation.MaxFrameDepth && r.IntN(3) > 0 {
				f.Status = observation.FrameCollected
				collected = append(collected, i)
				if r.IntN(4) == 0 {
					f.Limit = observation.LimitWindow
				}
			}
			obs.Frames = append(obs.Frames, f)
		}
		obs.FramesOmitted = r.IntN(3)
	}
	frameOf := func() int { return collected[r.IntN(len(collected))] }
	count := func(f int, controls, parts int) {
		if f > 0 {
			obs.Frames[f-1].Controls += controls
			obs.Frames[f-1].Scanned += controls
			obs.Frames[f-1].TextParts += parts
		}
	}

	if find {
		n = min(n, observation.FindMatches)
	}
	roles := []string{"button", "link", "textbox", "checkbox", "combobox"}
	for i := range n {
		c := observation.Control{Ref: keys.Mint(observation.KindControl, rev, uint64(i)), Role: roles[r.IntN(len(roles))],
			Name: cut(words(12, 1200), observation.MaxNameUnits), Frame: frameOf(),
			States: observation.States{Disabled: r.IntN(5) == 0, Focused: r.IntN(50) == 0}}
		count(c.Frame, 1, 0)
		obs.Controls = append(obs.Controls, c)
	}
	obs.ControlCoverage = observation.ControlCoverage{Offset: r.IntN(3) * observation.WindowSize, Scanned: n}
	switch r.IntN(4) {
	case 0:
		obs.ControlCoverage.Cursor = keys.Mint(observation.KindCursor, rev, 1)
		obs.ControlCoverage.ScanLimitReached = true
		obs.ControlCoverage.Limit = observation.LimitWindow
	case 1:
		obs.ControlCoverage.Ended = n == 0
	}

	if find {
		obs.Find = &observation.Find{Query: cut(words(4, 100), observation.MaxQueryUnits),
			Coverage: observation.FindCoverage{ScannedNodes: r.IntN(observation.TextNodes + 1), Candidates: r.IntN(100),
				InspectedUnits: r.IntN(observation.FindUnits + 1), NodeLimitReached: r.IntN(4) == 0,
				MoreControls: r.IntN(3) == 0, MoreText: r.IntN(3) == 0}}
		for range r.IntN(observation.FindMatches + 1) {
			obs.Find.Matches = append(obs.Find.Matches, observation.TextMatch{Snippet: cut(words(10, 300), observation.SnippetUnits),
				CutBefore: r.IntN(2) == 0, CutAfter: r.IntN(2) == 0})
		}
	} else {
		kinds := []string{"heading", "navigation", "main", "form", "dialog"}
		obs.RegionCoverage = &observation.RegionCoverage{Version: observation.RegionCoverageV1, Scope: observation.ReadingScope,
			ScannedNodes: r.IntN(observation.RegionScanNodes + 1), NodeLimitReached: r.IntN(4) == 0, Omitted: r.IntN(3),
			Ended: r.IntN(8) == 0}
		if !obs.RegionCoverage.Ended {
			for i := range r.IntN(observation.MaxRegions + 1) {
				g := observation.Region{Ref: keys.Mint(observation.KindRegion, rev, uint64(i)), Kind: kinds[r.IntN(len(kinds))],
					Name: cut(words(3, 1200), observation.MaxNameUnits), Summary: cut(words(10, 600), observation.SummaryUnits),
					SummaryTruncated: r.IntN(3) == 0, Frame: frameOf()}
				if g.Kind == "heading" {
					g.Level = 1 + r.IntN(6)
				}
				obs.Regions = append(obs.Regions, g)
			}
		}
		obs.TextCoverage = &observation.TextCoverage{Version: observation.TextCoverageV1, Scope: observation.TextScope,
			ScannedNodes: r.IntN(observation.TextNodes + 1), InspectedUnits: r.IntN(observation.TextUnits + 1),
			NodeLimitReached: r.IntN(4) == 0, OmittedBytes: r.IntN(100), Ended: r.IntN(8) == 0}
		if !obs.TextCoverage.Ended {
			obs.TextCoverage.FirstContinues = r.IntN(4) == 0
			for range r.IntN(300) {
				p := observation.TextPart{Text: words(6, 2000), Source: observation.TextSourcePage, Frame: frameOf()}
				if p.Text == "" {
					p.Text = "t"
				}
				count(p.Frame, 0, 1)
				obs.Text = append(obs.Text, p)
			}
		}
	}

	if v.Interactions && r.IntN(3) > 0 {
		tabs := &observation.Tabs{TabsSummary: observation.TabsSummary{Active: "t1", Count: 1 + r.IntN(browserTabs)}}
		for i := 2; i <= tabs.Count; i++ {
			if r.IntN(2) == 0 {
				tabs.Opened = append(tabs.Opened, fmt.Sprintf("t%d", i))
			}
		}
		tabs.Closed, tabs.Refused = r.IntN(3), r.IntN(3)
		if r.IntN(3) == 0 {
			for i := 1; i <= tabs.Count; i++ {
				tabs.List = append(tabs.List, observation.Tab{ID: fmt.Sprintf("t%d", i), URL: "http://127.0.0.1:1/" + strings.Repeat("q", r.IntN(400)),
					Title: cut(words(8, 300), observation.MaxTitleUnits), Active: i == 1})
			}
		}
		obs.Tabs = tabs
	}
	if v.RealPages && !find && r.IntN(2) == 0 {
		readWhole(obs, r.IntN(8))
	}
	return obs, keys
}

// readWhole makes obs a page read whole from its start, with at most most
// regions and text parts, so that its 1.9.0 view can be whole (lean.go).
func readWhole(obs *observation.Observation, most int) {
	cc, rc, tc := &obs.ControlCoverage, obs.RegionCoverage, obs.TextCoverage
	*cc = observation.ControlCoverage{Scanned: cc.Scanned}
	*rc = observation.RegionCoverage{Version: rc.Version, Scope: rc.Scope, ScannedNodes: rc.ScannedNodes}
	*tc = observation.TextCoverage{Version: tc.Version, Scope: tc.Scope, ScannedNodes: tc.ScannedNodes, InspectedUnits: tc.InspectedUnits}
	obs.Regions = obs.Regions[:min(len(obs.Regions), most)]
	for _, p := range obs.Text[min(len(obs.Text), most):] {
		if p.Frame > 0 {
			obs.Frames[p.Frame-1].TextParts--
		}
	}
	obs.Text = obs.Text[:min(len(obs.Text), most)]
	obs.FramesOmitted = 0
}

// browserTabs is the tab bound (browser.MaxTabs): a generated tabs record
// holds no more.
const browserTabs = 8

func FuzzReadingViews(f *testing.F) {
	for i := range readingVersions {
		version := uint8(i)
		f.Add(uint64(i+1), 10, 1024, version, false)
		f.Add(uint64(i+11), observation.MaxControls, 8192, version, false)
		f.Add(uint64(i+21), 0, 4096, version, false)
		f.Add(uint64(i+31), 3, 65535, version, false)
		f.Add(uint64(i+41), 12, 1024, version, true)
		f.Add(uint64(i+51), observation.FindMatches, 8192, version, true)
		for seed := range uint64(8) { // small pages: 1.9.0 shows some whole
			f.Add(seed*10+uint64(i+61), int(seed%5), 1024+int(seed)*1024, version, false)
		}
	}
	f.Fuzz(func(t *testing.T, seed uint64, n, budget int, version uint8, find bool) {
		v, err := tools.Lookup(readingVersions[int(version)%len(readingVersions)])
		if err != nil {
			t.Fatal(err)
		}
		n = abs(n) % (observation.MaxControls + 1)
		budget = projection.MinBudget + abs(budget)%(64*1024)
		obs, keys := genPage(seed, n, v, find)
		if err := observation.Validate(obs); err != nil {
			t.Fatalf("the generated observation fails admission: %v", err)
		}
		opts := tools.ViewOptions(v, budget, 0, 0)
		opts.Next = obs.NextKey
		project := projection.Project
		check := checkReading
		if find {
			project, check = projection.ProjectFind, checkFind
		}
		out, err := project(obs, opts)
		if err != nil {
			// Only essentials too large for the budget may refuse a view.
			if errcode.Of(err) != errcode.ObservationTooLarge {
				t.Fatalf("%s at %d: %v", v.Name, budget, err)
			}
			return
		}
		view := check(t, obs, keys, budget, out)
		if v.Frames && !find {
			checkFrames(t, obs, budget, out)
		}
		checkTabs(t, obs, view)
		again, _ := project(obs, opts)
		if !bytes.Equal(out, again) {
			t.Fatalf("%s at %d: the view is not deterministic", v.Name, budget)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// decodeView checks that out is a view within budget: valid UTF-8 JSON
// of exactly View's fields, of obs's version and revision.
func decodeView(t *testing.T, obs *observation.Observation, budget int, out []byte) projection.View {
	t.Helper()
	if len(out) > budget {
		t.Fatalf("view of %d bytes, budget %d", len(out), budget)
	}
	if !utf8.Valid(out) || !json.Valid(out) {
		t.Fatalf("view is not valid UTF-8 JSON: %q", out)
	}
	var v projection.View
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	trust := observation.Trust
	if obs.Version == "1.9.0" {
		trust = "" // lean: the version's mark
	}
	if v.Version != obs.Version || v.Revision != obs.Revision || v.Trust != trust {
		t.Fatalf("version, revision or trust lost: %s", out)
	}
	if obs.Version == "1.9.0" {
		expandCompact(obs, &v)
	}
	return v
}

// expandCompact writes the compact references of a 1.9.0 view in full
// (observation.CompactRef), and a link's left-out role back, so that the
// checks compare them with the observation's.
func expandCompact(obs *observation.Observation, v *projection.View) {
	full := map[string]string{}
	role := map[string]string{}
	for _, c := range obs.Controls {
		full[observation.CompactRef(c.Ref)] = c.Ref
		role[c.Ref] = c.Role
	}
	for _, g := range obs.Regions {
		full[observation.CompactRef(g.Ref)] = g.Ref
	}
	expand := func(ref *string) {
		if f, ok := full[*ref]; ok {
			*ref = f
		}
	}
	for i := range v.Controls {
		expand(&v.Controls[i].Ref)
		if v.Controls[i].Role == "" {
			v.Controls[i].Role = role[v.Controls[i].Ref]
		}
	}
	for i := range v.Regions {
		expand(&v.Regions[i].Ref)
		if v.Regions[i].Kind == "" && v.Regions[i].Level > 0 {
			v.Regions[i].Kind = "heading"
		}
	}
	for i := range v.Skipped {
		expand(&v.Skipped[i].Ref)
	}
	for i := range v.RegionsSkipped {
		expand(&v.RegionsSkipped[i].Ref)
	}
}

// passed checks that the records a view shows and skips are, in order, the
// first of the observation's, and returns how many.
func passed(t *testing.T, what string, refs []string, shown, skipped []string) int {
	t.Helper()
	index := map[string]int{}
	for i, ref := range refs {
		index[ref] = i
	}
	seen := map[int]bool{}
	for _, ref := range append(append([]string{}, shown...), skipped...) {
		i, ok := index[ref]
		if !ok || seen[i] {
			t.Fatalf("%s %s is not the observation's, or shown twice", what, ref)
		}
		seen[i] = true
	}
	last := -1
	for _, ref := range shown {
		if index[ref] < last {
			t.Fatalf("%s shown out of order", what)
		}
		last = index[ref]
	}
	for i := range len(seen) {
		if !seen[i] {
			t.Fatalf("%s %d was passed over silently (%d shown or skipped)", what, i, len(seen))
		}
	}
	return len(seen)
}

// checkReading checks a reading view: the controls and regions it shows or
// skips are the first of each stream, in order; its text is the first
// parts, whole but the last, which may be cut; and its next resumes every
// stream right after what it showed, or is absent when every stream ended.
func checkReading(t *testing.T, obs *observation.Observation, keys *observation.Keys, budget int, out []byte) projection.View {
	t.Helper()
	v := decodeView(t, obs, budget, out)
	var ctrlRefs, shown, skipped []string
	for _, c := range obs.Controls {
		ctrlRefs = append(ctrlRefs, c.Ref)
	}
	for _, c := range v.Controls {
		shown = append(shown, c.Ref)
	}
	for _, s := range v.Skipped {
		skipped = append(skipped, s.Ref)
	}
	controls := passed(t, "control", ctrlRefs, shown, skipped)
	var regRefs []string
	shown, skipped = nil, nil
	for _, g := range obs.Regions {
		regRefs = append(regRefs, g.Ref)
	}
	for i, g := range v.Regions {
		if v.Complete {
			g = checkWholeRegion(t, obs, v, i)
		}
		shown = append(shown, g.Ref)
	}
	for _, s := range v.RegionsSkipped {
		skipped = append(skipped, s.Ref)
	}
	regions := passed(t, "region", regRefs, shown, skipped)

	whole, cutUnits := len(v.Text), 0
	if v.TextTruncated {
		whole--
	}
	if whole < 0 || len(v.Text) > len(obs.Text) {
		t.Fatalf("%d text parts shown of %d, truncated %v", len(v.Text), len(obs.Text), v.TextTruncated)
	}
	for i, s := range v.Text {
		if i < whole && s != obs.Text[i].Text {
			t.Fatalf("text part %d is not the observation's", i)
		}
		if i == whole {
			if s == "" || !strings.HasPrefix(obs.Text[i].Text, s) || s == obs.Text[i].Text {
				t.Fatalf("cut text part %d is not a proper prefix of the observation's", i)
			}
			cutUnits = observation.UTF16Len(s)
		}
	}
	if v.TextContinues != (len(v.Text) > 0 && obs.TextCoverage.FirstContinues) {
		t.Fatalf("text_continues %v, first part continues %v", v.TextContinues, obs.TextCoverage.FirstContinues)
	}

	if v.Complete {
		checkComplete(t, obs, v)
	}
	if v.Next == nil {
		if !obs.ControlCoverage.Ended && (controls < len(obs.Controls) || obs.ControlCoverage.Cursor != "") ||
			!obs.RegionCoverage.Ended && regions < len(obs.Regions) || !obs.TextCoverage.Ended && len(v.Text) < len(obs.Text) {
			t.Fatalf("no next, yet %d of %d controls, %d of %d regions and %d of %d text parts were shown",
				controls, len(obs.Controls), regions, len(obs.Regions), len(v.Text), len(obs.Text))
		}
		return v
	}
	rev, s, err := keys.ParseStreamsNewest(v.Next.Cursor, obs.NextKey.Revision)
	if err != nil || rev != obs.NextKey.Revision || v.Next.After != "" {
		t.Fatalf("next %+v: revision %d, %v", v.Next, rev, err)
	}
	switch {
	case obs.ControlCoverage.Ended:
		if s.Controls != observation.ControlsEnded {
			t.Fatalf("next continues ended controls: %+v", s)
		}
	case controls < len(obs.Controls):
		if s.Controls != observation.ControlsAfter || s.Control != controls-1 {
			t.Fatalf("next %+v, want after control %d", s, controls-1)
		}
	case obs.ControlCoverage.Cursor != "":
		if s.Controls != observation.ControlsCursor {
			t.Fatalf("next %+v, want the control cursor", s)
		}
	}
	if !obs.RegionCoverage.Ended && regions < len(obs.Regions) && s.Region != regions {
		t.Fatalf("next %+v, want region %d", s, regions)
	}
	if !obs.TextCoverage.Ended && len(v.Text) < len(obs.Text) || v.TextTruncated {
		if s.Text != whole || s.TextUnits != cutUnits {
			t.Fatalf("next %+v, want text part %d after %d units", s, whole, cutUnits)
		}
	}
	return v
}

// checkFind checks a find's view: the controls and matches it shows are
// the first of each, in order, each match with the continuation that reads
// on at it; its next continues the find after them, or is absent when both
// streams ended.
func checkFind(t *testing.T, obs *observation.Observation, keys *observation.Keys, budget int, out []byte) projection.View {
	t.Helper()
	v := decodeView(t, obs, budget, out)
	for i, c := range v.Controls {
		if c.Ref != obs.Controls[i].Ref {
			t.Fatalf("control %d shown is %s, want %s", i, c.Ref, obs.Controls[i].Ref)
		}
	}
	if len(v.Controls)+v.ControlsOmitted != len(obs.Controls) || len(v.Matches)+v.MatchesOmitted != len(obs.Find.Matches) {
		t.Fatalf("%d+%d controls of %d, %d+%d matches of %d", len(v.Controls), v.ControlsOmitted, len(obs.Controls),
			len(v.Matches), v.MatchesOmitted, len(obs.Find.Matches))
	}
	for i, m := range v.Matches {
		if !strings.HasPrefix(obs.Find.Matches[i].Snippet, m.Text) {
			t.Fatalf("match %d is not the observation's snippet", i)
		}
		rev, s, err := keys.ParseStreamsNewest(m.Next.Cursor, obs.NextKey.Revision)
		if err != nil || rev != obs.NextKey.Revision || s.Text != i || s.Controls != observation.ControlsEnded || s.Region != -1 {
			t.Fatalf("match %d's next: %+v, revision %d, %v", i, s, rev, err)
		}
	}
	more := v.ControlsOmitted > 0 || v.MatchesOmitted > 0 || obs.Find.Coverage.MoreControls || obs.Find.Coverage.MoreText
	if (v.Next != nil) != more {
		t.Fatalf("next %+v, yet more to find is %v", v.Next, more)
	}
	if v.Next != nil {
		rev, from, err := keys.ParseFind(v.Next.Cursor)
		if err != nil || rev != obs.NextKey.Revision || from.Query != observation.QueryHash(obs.Find.Query) {
			t.Fatalf("next %+v: revision %d, %+v, %v", v.Next, rev, from, err)
		}
		if want := len(v.Controls); (v.ControlsOmitted > 0 || obs.Find.Coverage.MoreControls) && from.Controls != want {
			t.Fatalf("next continues controls at %d, want %d", from.Controls, want)
		}
		if want := len(v.Matches); (v.MatchesOmitted > 0 || obs.Find.Coverage.MoreText) && from.Text != want {
			t.Fatalf("next continues matches at %d, want %d", from.Text, want)
		}
	}
	return v
}

// checkTabs checks the tabs record of a view: the observation's summary as
// it is, and listed tabs in order with list_omitted counting the rest.
func checkTabs(t *testing.T, obs *observation.Observation, v projection.View) {
	t.Helper()
	if obs.Tabs == nil {
		if v.Tabs != nil {
			t.Fatalf("tabs %+v without a tabs record", v.Tabs)
		}
		return
	}
	if v.Tabs == nil {
		return // a lone tab with nothing to report
	}
	got, want := v.Tabs.TabsSummary, obs.Tabs.TabsSummary
	if got.Active != want.Active || got.Count != want.Count || got.Closed != want.Closed || got.Refused != want.Refused ||
		strings.Join(got.Opened, ",") != strings.Join(want.Opened, ",") {
		t.Fatalf("tabs %+v, want %+v", got, want)
	}
	if len(v.Tabs.List)+v.Tabs.ListOmitted != len(obs.Tabs.List) {
		t.Fatalf("%d tabs listed and %d omitted of %d", len(v.Tabs.List), v.Tabs.ListOmitted, len(obs.Tabs.List))
	}
	for i, tab := range v.Tabs.List {
		if tab.ID != obs.Tabs.List[i].ID {
			t.Fatalf("tab %d listed is %s, want %s", i, tab.ID, obs.Tabs.List[i].ID)
		}
	}
}
