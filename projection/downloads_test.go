package projection

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestProjectDownloadsFitsTheBudget: the session's whole list of 100
// downloads with the longest names, and 5 more not listed, fits the
// smallest budget with as many entries as it holds, counting the ones
// past the budget and past the list; a larger budget shows more.
func TestProjectDownloadsFitsTheBudget(t *testing.T) {
	list := make([]Download, 100)
	for i := range list {
		list[i] = Download{Name: fmt.Sprintf("%03d-%s.bin", i, strings.Repeat("n", 112)), Bytes: 64 << 20,
			SHA256: strings.Repeat("ab", 32), State: "completed", Origin: "https://downloads.example-vendor.test:8443"}
	}
	shown := map[int]int{}
	for _, budget := range []int{MinBudget, DefaultBudget} {
		raw, err := ProjectDownloads(list, 5, "1.10.0", budget)
		if err != nil {
			t.Fatal(err)
		}
		var v DownloadsView
		if err := json.Unmarshal(raw, &v); err != nil || len(raw) > budget {
			t.Fatalf("budget %d: %d bytes, %v", budget, len(raw), err)
		}
		c := v.Coverage
		if c.Total != 105 || c.NotListed != 5 || c.Shown != len(v.Downloads) || c.Shown+c.ViewCut != 100 || c.Shown == 0 ||
			v.Downloads[0].Name != list[0].Name {
			t.Fatalf("budget %d: coverage %+v, %d shown", budget, c, len(v.Downloads))
		}
		shown[budget] = c.Shown
	}
	if shown[DefaultBudget] <= shown[MinBudget] {
		t.Fatalf("shown %v", shown)
	}
	if _, err := ProjectDownloads(nil, 0, "1.10.0", MinBudget-1); err == nil {
		t.Fatal("a budget below the minimum was taken")
	}
}
