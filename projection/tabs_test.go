package projection

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/observation"
)

// TestTabsInTheView: a lone tab with nothing to report adds nothing; a
// list is cut to half the budget, and list_omitted counts the rest.
func TestTabsInTheView(t *testing.T) {
	base := func() *observation.Observation {
		return &observation.Observation{Version: "1.8.0", Revision: "v1", URL: "http://127.0.0.1/", Trust: observation.Trust,
			RegionCoverage: &observation.RegionCoverage{Version: 1}, TextCoverage: &observation.TextCoverage{Version: 1}}
	}
	view := func(obs *observation.Observation, budget int) View {
		t.Helper()
		raw, err := Project(obs, Options{Budget: budget, Coverage: true, Regions: true, TextCoverage: true, Reading: true, Frames: true, Tabs: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(raw) > budget {
			t.Fatalf("view of %d bytes over %d", len(raw), budget)
		}
		var v View
		json.Unmarshal(raw, &v)
		return v
	}
	lone := base()
	lone.Tabs = &observation.Tabs{TabsSummary: observation.TabsSummary{Active: "t1", Count: 1}}
	if v := view(lone, 1024); v.Tabs != nil {
		t.Errorf("a lone tab: %+v", v.Tabs)
	}
	opened := base()
	opened.Tabs = &observation.Tabs{TabsSummary: observation.TabsSummary{Active: "t1", Count: 2, Opened: []string{"t2"}}}
	if v := view(opened, 1024); v.Tabs == nil || v.Tabs.Count != 2 || v.Tabs.Opened[0] != "t2" {
		t.Errorf("an opened tab: %+v", v.Tabs)
	}
	listed := base()
	listed.Tabs = &observation.Tabs{TabsSummary: observation.TabsSummary{Active: "t0", Count: 8}}
	for i := range 8 {
		listed.Tabs.List = append(listed.Tabs.List, observation.Tab{ID: fmt.Sprintf("t%d", i), URL: "http://127.0.0.1/" + strings.Repeat("p", 300),
			Title: strings.Repeat("Title ", 40), Active: i == 0})
	}
	small, large := view(listed, 1024), view(listed, 8192)
	if small.Tabs == nil || len(small.Tabs.List) == 0 || len(small.Tabs.List)+small.Tabs.ListOmitted != 8 || small.Tabs.ListOmitted == 0 {
		t.Fatalf("list at 1 KiB: %+v", small.Tabs)
	}
	if len(large.Tabs.List) != 8 || large.Tabs.ListOmitted != 0 || !large.Tabs.List[0].TitleTruncated || !large.Tabs.List[0].URLTruncated {
		t.Fatalf("list at 8 KiB: %+v", large.Tabs)
	}
}
