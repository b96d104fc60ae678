package projection

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/observation"
)

// valuesObservation has a textarea holding a long value with escapes and
// a field without one.
func valuesObservation() *observation.Observation {
	long := strings.Repeat(`é"`, 128) // 256 units, 514 bytes encoded
	obs := genObservation(3, 0)
	obs.Version = "1.9.0"
	obs.Text, obs.Regions, obs.Draft = nil, nil, nil
	obs.Controls = []observation.Control{
		{Ref: "e000000000000000001", Role: "textbox", Name: "Notes", Value: &long},
		{Ref: "e000000000000000002", Role: "button", Name: "Save"},
	}
	obs.ControlCoverage = observation.ControlCoverage{Scanned: 2}
	return obs
}

// TestViewsShowValuesOnlyFor190: a view of tool version 1.9.0 shows a
// control's value within valueCap bytes (cut flagged), as part of the one
// control record, at 1 KiB too; without Options.Values (an older version
// re-projecting the record) no value is shown.
func TestViewsShowValuesOnlyFor190(t *testing.T) {
	obs := valuesObservation()
	for _, budget := range []int{MinBudget, DefaultBudget} {
		opts := Options{Budget: budget, Coverage: true, Regions: true, TextCoverage: true, Reading: true, Frames: true, Tabs: true}
		for _, values := range []bool{false, true} {
			opts.Values = values
			raw, err := Project(obs, opts)
			if err != nil {
				t.Fatal(err)
			}
			var v View
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			if len(v.Controls) == 0 || len(raw) > budget {
				t.Fatalf("budget %d: %d controls in %d bytes: %s", budget, len(v.Controls), len(raw), raw)
			}
			c := v.Controls[0]
			if !values {
				if c.Value != nil || strings.Contains(string(raw), "value") {
					t.Errorf("a view without Values shows one: %s", raw)
				}
				continue
			}
			enc, _ := json.Marshal(*c.Value)
			if c.Value == nil || !strings.HasPrefix(*obs.Controls[0].Value, *c.Value) || len(enc) > valueCap || !c.ValueTruncated {
				t.Errorf("value %q (%d bytes encoded), cut %v", *c.Value, len(enc), c.ValueTruncated)
			}
			if len(v.Controls) > 1 && v.Controls[1].Value != nil {
				t.Errorf("a control without a value shows one")
			}
		}
	}
	short := "ok"
	obs.Controls[0].Value = &short
	raw, _ := Project(obs, Options{Budget: MinBudget, Coverage: true, Values: true})
	if !strings.Contains(string(raw), `"value":"ok"}`) {
		t.Errorf("a short value is not shown whole and uncut: %s", raw)
	}
}
