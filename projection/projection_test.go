package projection

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
)

// genObservation builds a canonical observation from a seed: names mix
// ASCII, escapes, emoji, RTL and CJK; some are very long.
func genObservation(seed uint64, n int) *observation.Observation {
	r := rand.New(rand.NewPCG(seed, 7))
	pieces := []string{"Publish", "Like", `"quoted"`, `back\slash`, "tab\tnew\nline", "\x01ctl", "😀👩‍👩‍👧", "مرحبا", "你好世界", "हिन्दी", "<&>", " "}
	obs := &observation.Observation{
		Version: "1.5.0", Revision: fmt.Sprintf("v%016x", r.Uint64()), URL: "http://127.0.0.1:1/" + strings.Repeat("p", r.IntN(400)),
		Origin: "http://127.0.0.1:1", Title: strings.Repeat("Title ", r.IntN(60)), Trust: observation.Trust,
	}
	for i := range n {
		var name strings.Builder
		for range r.IntN(12) {
			name.WriteString(pieces[r.IntN(len(pieces))])
		}
		if r.IntN(20) == 0 {
			name.WriteString(strings.Repeat("x", 900))
		}
		obs.Controls = append(obs.Controls, observation.Control{
			Ref: fmt.Sprintf("e%018d", i), Role: "button", Name: name.String(),
			States: observation.States{Disabled: r.IntN(5) == 0, Focused: r.IntN(50) == 0},
		})
	}
	obs.ControlCoverage = observation.ControlCoverage{Offset: 0, Scanned: n}
	for i := range r.IntN(40) {
		obs.Regions = append(obs.Regions, observation.Region{Ref: fmt.Sprintf("g%018d", i), Kind: "heading", Level: 1 + r.IntN(6),
			Summary: pieces[r.IntN(len(pieces))] + strings.Repeat("s", r.IntN(500)), SummaryTruncated: r.IntN(3) == 0})
	}
	obs.RegionCoverage = &observation.RegionCoverage{Version: 1, Scope: observation.RegionScope, ScannedNodes: r.IntN(8193), NodeLimitReached: r.IntN(2) == 0, Omitted: r.IntN(3)}
	for range r.IntN(300) {
		obs.Text = append(obs.Text, observation.TextPart{Text: pieces[r.IntN(len(pieces))] + strings.Repeat("t", r.IntN(300)), Source: observation.TextSourcePage})
	}
	obs.TextCoverage = &observation.TextCoverage{Version: 1, Scope: observation.TextScope, ScannedNodes: r.IntN(8193), InspectedUnits: r.IntN(262145), OmittedBytes: r.IntN(100)}
	if r.IntN(4) == 0 {
		obs.Draft = &observation.Draft{State: "match"}
		obs.Text = append(obs.Text, observation.TextPart{Text: "my draft " + pieces[r.IntN(len(pieces))], Source: observation.TextSourceDraft})
	}
	if r.IntN(2) == 0 {
		obs.ControlCoverage.Cursor = "k0123456789abcdefghi"
		obs.ControlCoverage.ScanLimitReached = true
		obs.ControlCoverage.Limit = observation.LimitWindow
	}
	return obs
}

// checkView verifies the invariants of one projection.
func checkView(t *testing.T, obs *observation.Observation, budget int, out []byte) View {
	t.Helper()
	if len(out) > budget {
		t.Fatalf("view is %d bytes, budget %d", len(out), budget)
	}
	if !utf8.Valid(out) || !json.Valid(out) {
		t.Fatalf("view is not valid UTF-8 JSON: %q", out)
	}
	var v View
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	if v.Revision != obs.Revision || v.Version != obs.Version {
		t.Fatalf("revision/version lost: %+v", v)
	}
	// Shown and skipped controls form a prefix of the observation, in order.
	byRef := map[string]int{}
	for i, c := range obs.Controls {
		byRef[c.Ref] = i
	}
	passed := map[int]bool{}
	for _, c := range v.Controls {
		passed[byRef[c.Ref]] = true
	}
	for _, s := range v.Skipped {
		passed[byRef[s.Ref]] = true
	}
	for i := range len(passed) {
		if !passed[i] {
			t.Fatalf("control %d was passed over silently (shown/skipped: %d)", i, len(passed))
		}
	}
	if v.ControlsOmitted != len(obs.Controls)-len(passed) {
		t.Fatalf("controls_omitted %d, want %d", v.ControlsOmitted, len(obs.Controls)-len(passed))
	}
	// The continuation resumes right after the last passed control.
	switch {
	case len(passed) < len(obs.Controls) && len(passed) > 0:
		if v.Next == nil || v.Next.After != obs.Controls[len(passed)-1].Ref {
			t.Fatalf("next %+v, want after %s", v.Next, obs.Controls[len(passed)-1].Ref)
		}
	case len(passed) == len(obs.Controls) && obs.ControlCoverage.Cursor != "":
		if v.Next == nil || v.Next.Cursor != obs.ControlCoverage.Cursor {
			t.Fatalf("next %+v, want the cursor", v.Next)
		}
	}
	return v
}

func TestProjectionInvariants(t *testing.T) {
	for seed := range uint64(120) {
		obs := genObservation(seed, int(seed%260))
		for i, budget := range []int{MinBudget, 1500, 4096, DefaultBudget, 65536} {
			opts := Options{Budget: budget, Coverage: true, Regions: seed%2 == 0, TextCoverage: seed%3 != 0}
			if i == 1 {
				opts = Options{Budget: budget, Offsets: true, ElementOffset: int(seed % 7), TextOffset: int(seed % 500)}
			}
			out, err := Project(obs, opts)
			if err != nil {
				t.Fatalf("seed %d budget %d: %v", seed, budget, err)
			}
			if opts.Offsets {
				if len(out) > budget || !json.Valid(out) {
					t.Fatalf("seed %d: 1.1.0 view of %d bytes", seed, len(out))
				}
				continue
			}
			v := checkView(t, obs, budget, out)
			if len(obs.Controls) > 0 && len(v.Controls) == 0 && len(v.Skipped) == 0 {
				t.Fatalf("seed %d budget %d: no control shown although one fits", seed, budget)
			}
			again, _ := Project(obs, opts)
			if !bytes.Equal(out, again) {
				t.Fatalf("seed %d: projection is not deterministic", seed)
			}
		}
	}
}

func FuzzProjection(f *testing.F) {
	f.Add(uint64(1), 10, 1024)
	f.Add(uint64(2), 256, 8192)
	f.Add(uint64(3), 0, 1024)
	f.Fuzz(func(t *testing.T, seed uint64, n, budget int) {
		n = abs(n) % 300
		budget = MinBudget + abs(budget)%(64*1024)
		obs := genObservation(seed, n)
		out, err := Project(obs, Options{Budget: budget, Coverage: true, Regions: true, TextCoverage: true})
		if err != nil {
			t.Fatal(err)
		}
		checkView(t, obs, budget, out)
		out, err = Project(obs, Options{Budget: budget, Offsets: true, ElementOffset: n / 2, TextOffset: budget})
		if err != nil || len(out) > budget || !json.Valid(out) {
			t.Fatalf("1.1.0 view: %v, %d bytes", err, len(out))
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func TestFirstControlBeforeContext(t *testing.T) {
	obs := genObservation(1, 3)
	obs.Title = strings.Repeat("T", 5000)
	obs.URL = "http://127.0.0.1/" + strings.Repeat("u", 5000)
	obs.Controls[0].Name = strings.Repeat("n", 150)
	out, err := Project(obs, Options{Budget: MinBudget, Coverage: true})
	if err != nil {
		t.Fatal(err)
	}
	v := checkView(t, obs, MinBudget, out)
	if len(v.Controls) == 0 || v.Controls[0].Ref != obs.Controls[0].Ref {
		t.Fatalf("first control missing: %s", out)
	}
	if !v.TitleTruncated || !v.URLTruncated {
		t.Fatalf("long title and URL are not flagged as cut: %s", out)
	}
}

func TestDefaultsAreOmitted(t *testing.T) {
	obs := &observation.Observation{Version: "1.5.0", Revision: "v1", Trust: observation.Trust,
		Controls: []observation.Control{{Ref: "e1", Role: "button", Name: "Go"}}}
	out, err := Project(obs, Options{Coverage: true})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"version":"1.5.0","revision":"v1","trust":"external_untrusted","controls":[{"ref":"e1","role":"button","name":"Go"}],"coverage_version":1,"control_coverage":{"offset":0,"scanned":0}}`
	if string(out) != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
}

func TestOversizedControlIsSkippedWithDisclosure(t *testing.T) {
	obs := &observation.Observation{Version: "1.5.0", Revision: "v1", Trust: observation.Trust}
	for i := range 4 {
		obs.Controls = append(obs.Controls, observation.Control{Ref: fmt.Sprintf("e%d", i), Role: "button", Name: "ok"})
	}
	// A role cannot be cut for display, so an absurd one makes its control
	// oversized at any small budget.
	obs.Controls[1].Role = strings.Repeat("r", 2000)
	out, err := Project(obs, Options{Budget: MinBudget, Coverage: true})
	if err != nil {
		t.Fatal(err)
	}
	v := checkView(t, obs, MinBudget, out)
	if len(v.Skipped) != 1 || v.Skipped[0].Ref != "e1" || v.Skipped[0].Reason != "oversized" {
		t.Fatalf("oversized control not disclosed: %s", out)
	}
}

func TestEssentialsThatCannotFitAreRefused(t *testing.T) {
	obs := genObservation(3, 2)
	obs.Revision = strings.Repeat("v", 2000)
	_, err := Project(obs, Options{Budget: MinBudget, Coverage: true})
	if errcode.Of(err) != errcode.ObservationTooLarge {
		t.Fatalf("got %v, want observation_too_large", err)
	}
}

func TestClipNeverSplitsARune(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"abc", 5, "abc"},        // fits exactly with quotes
		{"abcd", 5, "abc"},       // one byte over
		{"ab😀", 7, "ab"},         // the emoji needs 4 bytes, only 3 remain
		{"a\"b", 5, "a\""},       // an escaped quote counts 2
		{"a\x01b", 8, "a"},       // a control character counts 6
		{"مرحبا", 8, "مرح"},      // 2-byte runes
		{"👩‍👩‍👧", 12, "👩\u200d"}, // a ZWJ sequence is cut between runes
	} {
		got, _ := clip(tc.in, tc.max)
		if got != tc.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("clip(%q, %d) split a rune", tc.in, tc.max)
		}
	}
}

func TestOffsetElementThatCannotFitIsAnError(t *testing.T) {
	obs := &observation.Observation{Version: "1.1.0", Revision: "v1", Trust: observation.Trust,
		Controls: []observation.Control{{Ref: "e1", Role: strings.Repeat("r", 2000), Name: "x"}, {Ref: "e2", Role: "button", Name: "ok"}}}
	_, err := Project(obs, Options{Budget: MinBudget, Offsets: true})
	if errcode.Of(err) != errcode.ObservationTooLarge {
		t.Fatalf("got %v, want observation_too_large", err)
	}
	out, err := Project(obs, Options{Budget: MinBudget, Offsets: true, ElementOffset: 1})
	if err != nil || !strings.Contains(string(out), `"e2"`) {
		t.Fatalf("offset 1: %s %v", out, err)
	}
}

// TestScrollContainerCountsAreShown: a 1.9.0 observation's counts of what
// came from scroll containers reach the view's coverage; at 0 the view is
// what it was.
func TestScrollContainerCountsAreShown(t *testing.T) {
	obs := &observation.Observation{Version: "1.9.0", Revision: "v1", Trust: observation.Trust,
		Controls:        []observation.Control{{Ref: "e1", Role: "button", Name: "Like post 8"}},
		ControlCoverage: observation.ControlCoverage{Scanned: 1, InScrollContainers: 1},
		Text:            []observation.TextPart{{Text: "Post 8", Source: observation.TextSourcePage}},
		Regions:         []observation.Region{{Ref: "g1", Kind: "heading", Level: 2, Summary: "Post 8"}},
		RegionCoverage:  &observation.RegionCoverage{Version: 1, Scope: observation.ReadingScope, ScannedNodes: 3, InScrollContainers: 1},
		TextCoverage:    &observation.TextCoverage{Version: 1, Scope: observation.TextScope, ScannedNodes: 3, InspectedUnits: 6, InScrollContainers: 1}}
	out, err := Project(obs, Options{Coverage: true, TextCoverage: true, Regions: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"control_coverage":{"offset":0,"scanned":1,"in_scroll_containers":1}`) ||
		!strings.Contains(string(out), `"inspected_units":6,"in_scroll_containers":1}`) ||
		!strings.Contains(string(out), `"scanned_nodes":3,"in_scroll_containers":1}`) {
		t.Errorf("view %s", out)
	}
	obs.ControlCoverage.InScrollContainers, obs.TextCoverage.InScrollContainers, obs.RegionCoverage.InScrollContainers = 0, 0, 0
	out, err = Project(obs, Options{Coverage: true, TextCoverage: true, Regions: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "in_scroll_containers") {
		t.Errorf("view %s", out)
	}
}
