package chromium

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

func TestRegionsPriorityOrderAndBounds(t *testing.T) {
	t.Parallel()
	_, obs := openPage(t, `
<h1>Title</h1>
<form aria-label="Search"><input name="q" value="CANARY-Q"><button>Go</button></form>
<div role="status">Saved 2 minutes ago</div>
<div role="alert">Connection lost</div>
<dialog open><p>Discard draft?</p><button>Discard</button></dialog>
<h2 hidden>Hidden heading</h2>
<div role="alert" style="display:none">Hidden alert</div>
<h2>Second <span contenteditable>CANARY-EDIT</span></h2>`)
	var kinds []string
	for _, g := range obs.Regions {
		kinds = append(kinds, g.Kind+":"+g.Summary)
	}
	want := []string{"dialog:Discard draft? Discard", "alert:Connection lost", "status:Saved 2 minutes ago", "form:Go", "heading:Title", "heading:Second"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("regions:\n got %q\nwant %q", kinds, want)
	}
	if obs.Regions[4].Level != 1 || obs.Regions[5].Level != 2 {
		t.Fatal("heading levels lost")
	}
	b, _ := json.Marshal(obs.Regions)
	if strings.Contains(string(b), "CANARY") {
		t.Fatalf("a canary leaked into a summary: %s", b)
	}

	// 32 regions at the bound, 33 one past; summaries at 512 characters.
	for _, n := range []int{observation.MaxRegions, observation.MaxRegions + 1} {
		_, obs := openPage(t, browsertest.Repeat(n, "<h3>heading %d</h3>"))
		if len(obs.Regions) != observation.MaxRegions || obs.RegionCoverage.Omitted != n-observation.MaxRegions {
			t.Fatalf("%d headings: %d regions, coverage %+v", n, len(obs.Regions), obs.RegionCoverage)
		}
	}
	for _, n := range []int{observation.SummaryUnits, observation.SummaryUnits + 1} {
		_, obs := openPage(t, "<h1>"+strings.Repeat("w", n)+"</h1>")
		g := obs.Regions[0]
		if len(g.Summary) != observation.SummaryUnits || g.SummaryTruncated != (n > observation.SummaryUnits) {
			t.Fatalf("%d-char heading: summary %d chars, truncated %v", n, len(g.Summary), g.SummaryTruncated)
		}
	}
	for _, n := range []int{100, 300} { // descendant nodes: each span holds an element and a text node
		_, obs := openPage(t, `<div role="status">`+strings.Repeat("<span>.</span>", n)+`</div>`)
		if g := obs.Regions[0]; g.SummaryTruncated != (2*n > observation.SummaryNodes) {
			t.Fatalf("%d spans: truncated %v", n, g.SummaryTruncated)
		}
	}
	// The region scan stops at 8,192 nodes and says so.
	for _, n := range []int{1000, 5000} {
		_, obs := openPage(t, browsertest.Repeat(n, "<p>%d</p>")+"<h1>late</h1>")
		c := obs.RegionCoverage
		if c.NodeLimitReached != (n == 5000) || c.ScannedNodes > observation.RegionScanNodes || (n == 5000) == (len(obs.Regions) == 1) {
			t.Fatalf("%d paragraphs: %d regions, coverage %+v", n, len(obs.Regions), c)
		}
	}
}

func TestRegionRefsAreEvidenceOnly(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, obs := openPage(t, `<h1>Heading</h1><button>Go</button>`)
	region := obs.Regions[0].Ref
	if region == obs.Controls[0].Ref || region == obs.Revision {
		t.Fatal("a region ref aliases another ref")
	}
	_, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: region}, allowAll)
	wantCode(t, err, errcode.InvalidArgument)
	_, err = s.Observe(ctx, observation.Request{After: region})
	wantCode(t, err, errcode.InvalidArgument)
}
