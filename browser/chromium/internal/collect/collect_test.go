package collect

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/observation"
)

// valid is a small result within every bound.
func valid() Result {
	return Result{
		Page:            Page{Doc: "d1", URL: "http://127.0.0.1/", Origin: "http://127.0.0.1"},
		Controls:        []Control{{Role: "button", Name: "OK"}},
		ControlCoverage: ControlCoverage{Scanned: 1, Acquired: 1},
		Regions:         []observation.Region{{Kind: "heading", Summary: "Title"}},
		RegionCoverage:  observation.RegionCoverage{Version: observation.RegionCoverageV1, Scope: observation.RegionScope, ScannedNodes: 10},
		Text:            []string{"hello"},
		TextCoverage:    observation.TextCoverage{Version: observation.TextCoverageV1, Scope: observation.TextScope, ScannedNodes: 10, InspectedUnits: 5},
	}
}

func decode(t *testing.T, r Result) error {
	t.Helper()
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Decode(raw)
	return err
}

// TestDecodeBounds checks every bound Decode enforces at the bound (accepted)
// and one past it (rejected).
func TestDecodeBounds(t *testing.T) {
	controls := func(n int) func(*Result) {
		return func(r *Result) { r.Controls = make([]Control, n) }
	}
	regions := func(n int) func(*Result) {
		return func(r *Result) { r.Regions = make([]observation.Region, n) }
	}
	// text returns parts whose cost, with omitted bytes, is total.
	text := func(total, omitted int) func(*Result) {
		return func(r *Result) {
			r.TextCoverage.OmittedBytes = omitted
			n := total - omitted - observation.TextPartCost("")
			r.Text = []string{strings.Repeat("a", n)}
		}
	}
	for _, tc := range []struct {
		name     string
		at, past func(*Result)
	}{
		{"controls", controls(observation.MaxControls), controls(observation.MaxControls + 1)},
		{"acquired",
			func(r *Result) { r.ControlCoverage.Acquired = observation.MaxAcquired },
			func(r *Result) { r.ControlCoverage.Acquired = observation.MaxAcquired + 1 }},
		{"scanned candidates",
			func(r *Result) { r.ControlCoverage.Scanned = observation.WindowSize },
			func(r *Result) { r.ControlCoverage.Scanned = observation.WindowSize + 1 }},
		{"name units",
			func(r *Result) { r.Controls[0].Name = strings.Repeat("😀", observation.MaxNameUnits/2) },
			func(r *Result) { r.Controls[0].Name = strings.Repeat("😀", observation.MaxNameUnits/2) + "a" }},
		{"title units",
			func(r *Result) { r.Title = strings.Repeat("😀", observation.MaxTitleUnits/2) },
			func(r *Result) { r.Title = strings.Repeat("😀", observation.MaxTitleUnits/2) + "a" }},
		{"URL units",
			func(r *Result) { r.URL = "http://127.0.0.1/" + strings.Repeat("a", observation.MaxURLUnits-17) },
			func(r *Result) { r.URL = "http://127.0.0.1/" + strings.Repeat("a", observation.MaxURLUnits-16) }},
		{"regions", regions(observation.MaxRegions), regions(observation.MaxRegions + 1)},
		{"summary units",
			func(r *Result) { r.Regions[0].Summary = strings.Repeat("é", observation.SummaryUnits) },
			func(r *Result) { r.Regions[0].Summary = strings.Repeat("é", observation.SummaryUnits+1) }},
		{"region nodes",
			func(r *Result) { r.RegionCoverage.ScannedNodes = observation.RegionScanNodes },
			func(r *Result) { r.RegionCoverage.ScannedNodes = observation.RegionScanNodes + 1 }},
		{"text nodes",
			func(r *Result) { r.TextCoverage.ScannedNodes = observation.TextNodes },
			func(r *Result) { r.TextCoverage.ScannedNodes = observation.TextNodes + 1 }},
		{"text units",
			func(r *Result) { r.TextCoverage.InspectedUnits = observation.TextUnits },
			func(r *Result) { r.TextCoverage.InspectedUnits = observation.TextUnits + 1 }},
		{"text bytes", text(observation.TextBytes, 0), text(observation.TextBytes+1, 0)},
		{"text bytes with omissions", text(observation.TextBytes, 1000), text(observation.TextBytes+1, 1000)},
		{"text bytes within a reading window",
			func(r *Result) { text(16384, 0)(r); r.TextCoverage.ByteBound = 16384 },
			func(r *Result) { text(16385, 0)(r); r.TextCoverage.ByteBound = 16384 }},
		{"reading window",
			func(r *Result) { r.TextCoverage.ByteBound = observation.TextBytes },
			func(r *Result) { r.TextCoverage.ByteBound = observation.TextBytes + 1 }},
		// Scroll container counts (1.9.0) never exceed what was kept.
		{"controls in scroll containers",
			func(r *Result) { r.ControlCoverage.InScrollContainers = len(r.Controls) },
			func(r *Result) { r.ControlCoverage.InScrollContainers = len(r.Controls) + 1 }},
		{"text parts in scroll containers",
			func(r *Result) { r.TextCoverage.InScrollContainers = len(r.Text) },
			func(r *Result) { r.TextCoverage.InScrollContainers = len(r.Text) + 1 }},
		{"regions in scroll containers",
			func(r *Result) { r.RegionCoverage.InScrollContainers = len(r.Regions) },
			func(r *Result) { r.RegionCoverage.InScrollContainers = len(r.Regions) + 1 }},
	} {
		r := valid()
		tc.at(&r)
		if err := decode(t, r); err != nil {
			t.Errorf("%s at the bound: %v", tc.name, err)
		}
		r = valid()
		tc.past(&r)
		if err := decode(t, r); err == nil {
			t.Errorf("%s one past the bound: accepted", tc.name)
		}
	}
}

// TestDecodeRejectsNegativeCounts: a negative omission would let text past
// the byte bound.
func TestDecodeRejectsNegativeCounts(t *testing.T) {
	for name, mutate := range map[string]func(*Result){
		"omitted bytes": func(r *Result) {
			r.TextCoverage.OmittedBytes = -observation.TextBytes
			r.Text = []string{strings.Repeat("a", observation.TextBytes)}
		},
		"text nodes":        func(r *Result) { r.TextCoverage.ScannedNodes = -1 },
		"text units":        func(r *Result) { r.TextCoverage.InspectedUnits = -1 },
		"region nodes":      func(r *Result) { r.RegionCoverage.ScannedNodes = -1 },
		"omitted regions":   func(r *Result) { r.RegionCoverage.Omitted = -1 },
		"scanned candidate": func(r *Result) { r.ControlCoverage.Scanned = -1 },
		"scroll controls":   func(r *Result) { r.ControlCoverage.InScrollContainers = -1 },
		"scroll text parts": func(r *Result) { r.TextCoverage.InScrollContainers = -1 },
	} {
		r := valid()
		mutate(&r)
		if err := decode(t, r); err == nil {
			t.Errorf("negative %s: accepted", name)
		}
	}
}

func TestDecodeCoverageVersionsAndCollectorErrors(t *testing.T) {
	r := valid()
	if err := decode(t, r); err != nil {
		t.Fatalf("valid result: %v", err)
	}
	r.TextCoverage.Version = 2
	if err := decode(t, r); err == nil {
		t.Error("text coverage version 2 accepted")
	}
	r = valid()
	r.RegionCoverage.Version = 0
	if err := decode(t, r); err == nil {
		t.Error("region coverage version 0 accepted")
	}
	res, err := Decode([]byte(`{"error":"anchor_moved"}`))
	if err != nil || res.Error != AnchorMoved {
		t.Errorf("collector error: %+v %v", res, err)
	}
	if _, err := Decode([]byte(`{"controls":`)); err == nil {
		t.Error("truncated JSON accepted")
	}
}

// TestDecodeIsStrict: a field the contract does not have, or data after the
// answer, is refused, as in every other in-page answer.
func TestDecodeIsStrict(t *testing.T) {
	raw, err := json.Marshal(valid())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(raw); err != nil {
		t.Fatalf("valid result: %v", err)
	}
	unknown := append([]byte(`{"unexpected":1,`), raw[1:]...)
	if _, err := Decode(unknown); err == nil {
		t.Error("unknown top-level field accepted")
	}
	nested := strings.Replace(string(raw), `"text_coverage":{`, `"text_coverage":{"unexpected":true,`, 1)
	if nested == string(raw) {
		t.Fatal("text_coverage not found in the encoded result")
	}
	if _, err := Decode([]byte(nested)); err == nil {
		t.Error("unknown text coverage field accepted")
	}
	if _, err := Decode(append(raw, []byte(` {}`)...)); err == nil {
		t.Error("trailing data accepted")
	}
	if _, err := Decode([]byte(`{"error":"anchor_moved","doc":"d1","unexpected":1}`)); err == nil {
		t.Error("unknown field in a refusal accepted")
	}
}

// TestDecodeNamesAndStrings: a name given twice or in another case is
// refused; a string with bytes that are not UTF-8, or with half of a
// surrogate pair, decodes with the replacement character in their place.
func TestDecodeNamesAndStrings(t *testing.T) {
	raw, err := json.Marshal(valid())
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{`{"doc":"d1",`, `{"Doc":"d1",`} {
		if _, err := Decode(append([]byte(bad), raw[1:]...)); err == nil {
			t.Errorf("%s… accepted", bad)
		}
	}
	r := valid()
	r.Title = "T"
	if raw, err = json.Marshal(r); err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{"A\xffB", `A\ud800B`} {
		got, err := Decode(bytes.Replace(raw, []byte(`"title":"T"`), []byte(`"title":"`+title+`"`), 1))
		if err != nil || got.Title != "A\uFFFDB" {
			t.Errorf("title %q: %+v %v", title, got, err)
		}
	}
}
