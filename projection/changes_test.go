package projection

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/veetbot/veetbrowser/observation"
)

// listPage is a canned 1.9.0 observation of a list of n tasks of revision
// rev: every control a checkbox with its node key, refs of that revision.
func listPage(rev string, n int) *observation.Observation {
	obs := &observation.Observation{Version: "1.9.0", Revision: "v" + rev, URL: "http://127.0.0.1:1/tasks", Title: "Tasks",
		Trust: observation.Trust, Document: "doc1",
		RegionCoverage: &observation.RegionCoverage{Version: 1, Scope: observation.ReadingScope},
		TextCoverage:   &observation.TextCoverage{Version: 1, Scope: observation.TextScope}}
	for i := 1; i <= n; i++ {
		obs.Controls = append(obs.Controls, observation.Control{Ref: fmt.Sprintf("e%s%04d", rev, i), Role: "checkbox",
			Name: fmt.Sprintf("Task %d: read chapter %d notes", i, i), Key: i})
		obs.Text = append(obs.Text, observation.TextPart{Text: fmt.Sprintf("Task %d: read chapter %d notes", i, i), Source: observation.TextSourcePage})
	}
	obs.ControlCoverage = observation.ControlCoverage{Scanned: n}
	return obs
}

func changesOpts(budget int, base *observation.Observation, when string) Options {
	return Options{Budget: budget, Coverage: true, Regions: true, TextCoverage: true, Reading: true, Frames: true, Tabs: true, Values: true,
		Base: base, Changes: when}
}

func projectChanges(t *testing.T, obs *observation.Observation, opts Options) (*Changes, []byte) {
	t.Helper()
	out, err := Project(obs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > opts.Budget {
		t.Fatalf("%d bytes over the %d-byte budget", len(out), opts.Budget)
	}
	var v View
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	return v.Changes, out
}

// TestChangesMatchByIdentity: controls are matched by node key, never by
// ref (every ref differs between the revisions), a state change is
// listed with the new ref, and the delta is the same bytes every time.
func TestChangesMatchByIdentity(t *testing.T) {
	base, obs := listPage("a", 200), listPage("b", 200)
	obs.Controls[6].Checked = true
	obs.Controls = append(obs.Controls, observation.Control{Ref: "eb9999", Role: "checkbox", Name: "Return library books", Key: 500})
	c, out := projectChanges(t, obs, changesOpts(DefaultBudget, base, ChangesAsked))
	if c == nil || c.Since != "va" || c.Unchanged != 199 || len(c.Changed) != 1 || c.Changed[0].Ref != "eb0007" || !c.Changed[0].Checked ||
		len(c.Added) != 1 || c.Added[0].Ref != "eb9999" || len(c.Removed) != 0 {
		t.Fatalf("changes: %s", out)
	}
	again, _ := Project(obs, changesOpts(DefaultBudget, base, ChangesAsked))
	if !bytes.Equal(out, again) {
		t.Fatalf("not deterministic:\n%s\n%s", out, again)
	}
	// The same observations matched by position instead: a node the page
	// replaced is removed and added, not unchanged.
	obs.Controls[0].Key = 777
	if c, out := projectChanges(t, obs, changesOpts(DefaultBudget, base, ChangesAsked)); c == nil || len(c.Removed) != 1 || len(c.Added) != 2 {
		t.Fatalf("a replaced node: %s", out)
	}
}

// TestChangesFallBack: a new document, a continuation, a control without
// identity or sharing one, most controls changed, and (for an action) a
// page whose full view holds it whole each give the full view.
func TestChangesFallBack(t *testing.T) {
	cases := map[string]func(base, obs *observation.Observation) string{
		"new document": func(_, obs *observation.Observation) string { obs.Document = "doc2"; return ChangesAsked },
		"continuation": func(_, obs *observation.Observation) string { obs.ControlCoverage.Offset = 256; return ChangesAsked },
		"no identity":  func(_, obs *observation.Observation) string { obs.Controls[3].Key = 0; return ChangesAsked },
		"shared key":   func(_, obs *observation.Observation) string { obs.Controls[3].Key = 5; return ChangesAsked },
		"most changed": func(_, obs *observation.Observation) string {
			for i := range obs.Controls[:101] {
				obs.Controls[i].Key += 1000
			}
			return ChangesAsked
		},
		"whole page, an action": func(base, obs *observation.Observation) string {
			base.Controls, obs.Controls, base.Text, obs.Text = base.Controls[:3], obs.Controls[:3], nil, nil
			obs.Controls[0].Checked = true
			return ChangesLong
		},
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			base, obs := listPage("a", 200), listPage("b", 200)
			when := change(base, obs)
			if c, out := projectChanges(t, obs, changesOpts(DefaultBudget, base, when)); c != nil {
				t.Fatalf("a delta: %s", out)
			}
		})
	}
	// Half the controls changed is still a delta; asked on the small page too.
	base, obs := listPage("a", 200), listPage("b", 200)
	for i := range obs.Controls[:100] {
		obs.Controls[i].Checked = true
	}
	if c, out := projectChanges(t, obs, changesOpts(DefaultBudget, base, ChangesAsked)); c == nil || len(c.Changed) != ChangeControls || c.ChangedOmitted != 100-ChangeControls {
		t.Fatalf("half changed: %s", out)
	}
	base, obs = listPage("a", 3), listPage("b", 3)
	obs.Controls[0].Checked = true
	if c, out := projectChanges(t, obs, changesOpts(DefaultBudget, base, ChangesAsked)); c == nil || len(c.Changed) != 1 {
		t.Fatalf("asked on a small page: %s", out)
	}
}

// TestChangesBudget: at the smallest budget a delta fits, and the
// entries that do not are counted, never cut.
func TestChangesBudget(t *testing.T) {
	base, obs := listPage("a", 200), listPage("b", 200)
	for i := range 40 {
		obs.Controls = append(obs.Controls, observation.Control{Ref: fmt.Sprintf("eb%d", 9000+i), Role: "checkbox",
			Name: fmt.Sprintf("Imported task %d with a longer name to fill the view", i), Key: 1000 + i})
	}
	c, out := projectChanges(t, obs, changesOpts(MinBudget, base, ChangesAsked))
	if c == nil || len(c.Added) == 0 || len(c.Added)+c.AddedOmitted != 40 || c.AddedOmitted <= 40-ChangeControls {
		t.Fatalf("at %d bytes: %s", MinBudget, out)
	}
}

// TestChangesGenerated: on generated observations (names of every script,
// very long ones) and random changes, at budgets from the smallest up,
// every view fits, is JSON, and its delta accounts for every change it
// leaves out.
func TestChangesGenerated(t *testing.T) {
	deltas := 0
	for seed := range uint64(60) {
		base := genObservation(seed, int(20+seed*4))
		base.Version, base.Document = "1.9.0", "doc1"
		for i := range base.Controls {
			base.Controls[i].Key = i + 1
		}
		obs := *base
		obs.Revision = base.Revision + "n"
		obs.Controls = nil
		for i, c := range base.Controls {
			switch i % 9 {
			case 3:
				continue // removed
			case 5:
				c.Disabled = !c.Disabled
			}
			c.Ref = fmt.Sprintf("n%018d", i)
			obs.Controls = append(obs.Controls, c)
		}
		added := int(seed % 40)
		for i := range added {
			obs.Controls = append(obs.Controls, observation.Control{Ref: fmt.Sprintf("a%018d", i), Role: "link", Name: fmt.Sprintf("added %d", i), Key: 10000 + i})
		}
		for _, budget := range []int{MinBudget, MinBudget + 1, 1500, 4096, DefaultBudget} {
			out, err := Project(&obs, changesOpts(budget, base, ChangesAsked))
			if err != nil {
				continue // the full view's own refusal: not the delta's
			}
			if len(out) > budget || !json.Valid(out) {
				t.Fatalf("seed %d budget %d: %d bytes: %s", seed, budget, len(out), out)
			}
			var v View
			json.Unmarshal(out, &v)
			if c := v.Changes; c != nil {
				deltas++
				if len(c.Added)+c.AddedOmitted != added {
					t.Fatalf("seed %d budget %d: %d added + %d omitted, want %d", seed, budget, len(c.Added), c.AddedOmitted, added)
				}
			}
		}
	}
	if deltas < 100 {
		t.Fatalf("only %d of 300 views are deltas", deltas)
	}
	t.Logf("%d of 300 views are deltas", deltas)
}
