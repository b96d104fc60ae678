package projection_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
)

// TestCompactReadingChain reads the same synthetic article (800 links, 70
// headings, 3,000 paragraphs) by following next with and without 1.9.0's
// compact form: the compact chain shows the same controls, regions and
// text, every reference in it verifies as the newest revision's control or
// region of that index, the continuation is compact too, a heading's kind
// and a link's role are left out, a stream's record that says only
// "ended" is left out, and the chain costs less by at least the saving
// stated (bytes per text byte, compact against full).
func TestCompactReadingChain(t *testing.T) {
	for _, tc := range []struct {
		budget int
		most   float64 // compact bytes / full bytes
	}{{1024, 0.75}, {8192, 0.94}} {
		t.Run(fmt.Sprint(tc.budget), func(t *testing.T) {
			var total [2]int
			var seen [2]string
			for k, compact := range []bool{false, true} {
				p := newPage(800, 70, 3000)
				r := &reader{keys: observation.NewKeys(), page: p}
				var b, regions, text strings.Builder
				cursor := ""
				for views := 0; ; views++ {
					if views > 20000 {
						t.Fatal("the chain does not end")
					}
					obs := r.observe(t, cursor)
					out, err := projection.Project(obs, projection.Options{Budget: tc.budget, Coverage: true, Regions: true, TextCoverage: true,
						Reading: true, Next: obs.NextKey, Compact: compact})
					if err != nil {
						t.Fatal(err)
					}
					total[k] += len(out)
					var v projection.View
					if err := json.Unmarshal(out, &v); err != nil {
						t.Fatal(err)
					}
					for _, c := range v.Controls {
						fmt.Fprintf(&b, "c%s|", c.Name)
						if compact {
							checkCompact(t, r, observation.KindControl, c.Ref, c.Role, "", obs)
						}
					}
					for _, g := range v.Regions {
						fmt.Fprintf(&regions, "g%d%s|", g.Level, g.Summary)
						if compact {
							checkCompact(t, r, observation.KindRegion, g.Ref, "", g.Kind, obs)
						}
					}
					for i, s := range v.Text {
						if i > 0 || !v.TextContinues {
							text.WriteString("\n")
						}
						text.WriteString(s)
					}
					if compact {
						if r.ctrlEnded && (v.ControlCoverage != nil || v.CoverageVersion != 0) {
							t.Fatalf("an ended control stream's record is repeated: %s", out)
						}
						if r.regEnded && v.RegionCoverage != nil {
							t.Fatalf("an ended region stream's record is repeated: %s", out)
						}
						if v.Next != nil && len(v.Next.Cursor) > 21 {
							t.Fatalf("the continuation %q is not compact", v.Next.Cursor)
						}
					} else if v.ControlCoverage == nil || v.RegionCoverage == nil {
						t.Fatalf("the full form leaves out a record: %s", out)
					}
					if v.Next == nil {
						break
					}
					cursor = v.Next.Cursor
				}
				seen[k] = b.String() + regions.String() + text.String()
			}
			if seen[0] != seen[1] {
				t.Fatal("the compact chain shows other controls, regions or text than the full one")
			}
			ratio := float64(total[1]) / float64(total[0])
			t.Logf("budget %d: %d bytes compact, %d full (%.3f)", tc.budget, total[1], total[0], ratio)
			if ratio > tc.most {
				t.Fatalf("compact costs %.3f of full, want at most %.2f", ratio, tc.most)
			}
		})
	}
}

// checkCompact verifies that a view's compact reference is the newest
// revision's record of the same index, with the role or kind the compact
// form leaves out only where it says so.
func checkCompact(t *testing.T, r *reader, kind observation.Kind, ref, role, regionKind string, obs *observation.Observation) {
	t.Helper()
	if len(ref) != 13 && len(ref) != 14 {
		t.Fatalf("reference %q is not compact", ref)
	}
	rev, i, err := r.keys.ParseNewest(kind, ref, r.rev)
	if err != nil || rev != r.rev {
		t.Fatalf("compact %q: revision %d, %v", ref, rev, err)
	}
	if kind == observation.KindControl {
		if full := obs.Controls[i].Ref; observation.CompactRef(full) != ref || role != "" || obs.Controls[i].Role != "link" {
			t.Fatalf("%q names %q (role %q, shown %q)", ref, full, obs.Controls[i].Role, role)
		}
	} else if full := obs.Regions[i]; observation.CompactRef(full.Ref) != ref || regionKind != "" || full.Kind != "heading" {
		t.Fatalf("%q names %q (kind %q, shown %q)", ref, full.Ref, full.Kind, regionKind)
	}
}
