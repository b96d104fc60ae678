package projection_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
)

// page is a synthetic page of the reading tests: what a collector would
// find from the start of each stream.
type page struct {
	controls []string
	regions  []string
	text     []string
}

func newPage(links, regions, paragraphs int) page {
	var p page
	for i := range links {
		p.controls = append(p.controls, fmt.Sprintf("Footer topic %d", i))
	}
	for i := range regions {
		p.regions = append(p.regions, fmt.Sprintf("Section %d", i))
	}
	for i := range paragraphs {
		p.text = append(p.text, fmt.Sprintf("§%d. Die Brücke über den Fluss 川の流れ النهر 👨‍👩‍👧 paragraph %d.", i, i))
	}
	return p
}

// reader plays the session and the collector for the projection: it
// observes the page from where a continuation says, within the
// collector's per-observation bounds, and mints refs and the next key.
type reader struct {
	keys *observation.Keys
	rev  uint64
	page page
	// where the newest observation's streams start in the page
	ctrlFrom, regFrom, textFrom, textSkip int
	ctrlEnded, regEnded, textEnded        bool
}

const windowParts = 500 // text parts a synthetic observation holds, as a bound would stop it

func (r *reader) observe(t testing.TB, cursor string) *observation.Observation {
	t.Helper()
	if cursor != "" {
		rev, s, err := r.keys.ParseStreamsNewest(cursor, r.rev) // full, or compact (1.9.0)
		if err != nil || rev != r.rev {
			t.Fatalf("cursor %q: revision %d, %v", cursor, rev, err)
		}
		switch s.Controls {
		case observation.ControlsEnded:
			r.ctrlEnded = true
		case observation.ControlsAfter:
			r.ctrlFrom += s.Control + 1
		case observation.ControlsCursor:
			r.ctrlFrom += observation.MaxControls
		}
		if s.Region < 0 {
			r.regEnded = true
		} else {
			r.regFrom += s.Region
		}
		if s.Text < 0 {
			r.textEnded = true
		} else {
			if s.Text > 0 {
				r.textSkip = 0
			}
			r.textFrom += s.Text
			r.textSkip += s.TextUnits
		}
	}
	r.rev++
	obs := &observation.Observation{Version: "1.6.0", Revision: r.keys.Mint(observation.KindRevision, r.rev, 0), Trust: observation.Trust,
		URL: "http://127.0.0.1/article", Title: "River valley", Controls: []observation.Control{}}
	if r.ctrlEnded {
		obs.ControlCoverage.Ended = true
	} else {
		end := min(r.ctrlFrom+observation.MaxControls, len(r.page.controls))
		for i, name := range r.page.controls[r.ctrlFrom:end] {
			obs.Controls = append(obs.Controls, observation.Control{Ref: r.keys.Mint(observation.KindControl, r.rev, uint64(i)), Role: "link", Name: name})
		}
		obs.ControlCoverage = observation.ControlCoverage{Offset: r.ctrlFrom, Scanned: end - r.ctrlFrom}
		if end < len(r.page.controls) {
			obs.ControlCoverage.Cursor = r.keys.Mint(observation.KindCursor, r.rev, 1)
		}
	}
	obs.RegionCoverage = &observation.RegionCoverage{Version: 1, Scope: observation.ReadingScope, Ended: r.regEnded}
	if !r.regEnded {
		end := min(r.regFrom+observation.MaxRegions, len(r.page.regions))
		for i, s := range r.page.regions[r.regFrom:end] {
			obs.Regions = append(obs.Regions, observation.Region{Ref: r.keys.Mint(observation.KindRegion, r.rev, uint64(i)), Kind: "heading", Level: 2, Summary: s})
		}
		obs.RegionCoverage.Omitted = len(r.page.regions) - end
	}
	obs.TextCoverage = &observation.TextCoverage{Version: 1, Scope: observation.TextScope, Ended: r.textEnded}
	if !r.textEnded {
		end := min(r.textFrom+windowParts, len(r.page.text))
		for i, s := range r.page.text[r.textFrom:end] {
			if i == 0 && r.textSkip > 0 {
				s = string([]rune(s)[0:0]) + utf16Rest(s, r.textSkip)
				obs.TextCoverage.FirstContinues = true
			}
			obs.Text = append(obs.Text, observation.TextPart{Text: s, Source: observation.TextSourcePage})
		}
		obs.TextCoverage.NodeLimitReached = end < len(r.page.text)
	}
	nk := r.keys.NextKey(r.rev)
	obs.NextKey = &nk
	return obs
}

// utf16Rest is s without its first n UTF-16 units.
func utf16Rest(s string, n int) string {
	units := 0
	for i, c := range s {
		if units >= n {
			return s[i:]
		}
		units++
		if c > 0xffff {
			units++
		}
	}
	return ""
}

// TestReadingReachesEveryStreamOnce follows next from a fresh observation
// until it is absent and checks that every control, region and text part
// was shown exactly once, in order, each view within the budget, and that
// the first view shows some of every stream.
func TestReadingReachesEveryStreamOnce(t *testing.T) {
	for _, budget := range []int{1024, 4096, 8192} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			p := newPage(800, 70, 3000)
			r := &reader{keys: observation.NewKeys(), page: p}
			var controls, regions []string
			var text strings.Builder
			cursor := ""
			for views := 0; ; views++ {
				if views > 20000 {
					t.Fatal("the chain does not end")
				}
				obs := r.observe(t, cursor)
				out, err := projection.Project(obs, projection.Options{Budget: budget, Coverage: true, Regions: true, TextCoverage: true, Reading: true, Next: obs.NextKey})
				if err != nil {
					t.Fatal(err)
				}
				if len(out) > budget {
					t.Fatalf("view of %d bytes", len(out))
				}
				var v projection.View
				if err := json.Unmarshal(out, &v); err != nil {
					t.Fatal(err)
				}
				if views == 0 && (len(v.Controls) == 0 || len(v.Regions) == 0 || len(v.Text) == 0) {
					t.Fatalf("the first view starves a stream: %d controls, %d regions, %d text parts", len(v.Controls), len(v.Regions), len(v.Text))
				}
				for _, c := range v.Controls {
					controls = append(controls, c.Name)
				}
				for _, g := range v.Regions {
					regions = append(regions, g.Summary)
				}
				for i, s := range v.Text {
					if i > 0 || !v.TextContinues {
						text.WriteString("\n")
					}
					text.WriteString(s)
				}
				if v.Next == nil {
					break
				}
				cursor = v.Next.Cursor
			}
			if strings.Join(controls, "|") != strings.Join(p.controls, "|") {
				t.Errorf("controls seen: %d of %d, or not in order", len(controls), len(p.controls))
			}
			if strings.Join(regions, "|") != strings.Join(p.regions, "|") {
				t.Errorf("regions seen: %d of %d, or not in order", len(regions), len(p.regions))
			}
			if got, want := text.String(), "\n"+strings.Join(p.text, "\n"); got != want {
				t.Errorf("text reassembled differs: %d bytes, want %d", len(got), len(want))
			}
		})
	}
}

// TestReadingContinuationIsBoundToItsRevision: a continuation is minted
// for one revision of one session.
func TestReadingContinuationIsBoundToItsRevision(t *testing.T) {
	keys := observation.NewKeys()
	s := observation.Streams{Controls: observation.ControlsAfter, Control: 7, Region: 3, Text: 12, TextUnits: 40}
	cur := keys.NextKey(5).MintStreams(s)
	rev, got, err := keys.ParseStreams(cur)
	if err != nil || rev != 5 || got != s {
		t.Fatalf("parsed %d %+v %v", rev, got, err)
	}
	if _, _, err := observation.NewKeys().ParseStreams(cur); err == nil {
		t.Fatal("another session's keys accepted the cursor")
	}
	edited := []byte(cur)
	edited[4] ^= 1
	if _, _, err := keys.ParseStreams(string(edited)); err == nil {
		t.Fatal("an edited cursor was accepted")
	}
	if len(cur) > observation.MaxNextLen {
		t.Fatalf("cursor of %d characters", len(cur))
	}
}

// BenchmarkProject projects one full observation (256 controls, 32
// regions, the text of 500 paragraphs) at 8 KiB as 1.5.0 does and as
// 1.6.0's reading admission does.
func BenchmarkProject(b *testing.B) {
	r := &reader{keys: observation.NewKeys(), page: newPage(800, 70, 3000)}
	obs := r.observe(b, "")
	for _, reading := range []bool{false, true} {
		b.Run(fmt.Sprintf("reading=%v", reading), func(b *testing.B) {
			opts := projection.Options{Budget: 8192, Coverage: true, Regions: true, TextCoverage: true, Reading: reading, Next: obs.NextKey}
			for b.Loop() {
				if _, err := projection.Project(obs, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestReadingPassesARegionTooLargeToShow: a region no 1 KiB view can hold
// is listed as skipped and passed, and the reading goes on to the end.
func TestReadingPassesARegionTooLargeToShow(t *testing.T) {
	p := newPage(3, 0, 10)
	p.regions = []string{"Intro", strings.Repeat("語", observation.SummaryUnits), "Outro"}
	r := &reader{keys: observation.NewKeys(), page: p}
	var shown []string
	skipped := 0
	cursor := ""
	for views := 0; ; views++ {
		if views > 50 {
			t.Fatal("the reading does not end")
		}
		obs := r.observe(t, cursor)
		out, err := projection.Project(obs, projection.Options{Budget: 1024, Coverage: true, Regions: true, TextCoverage: true, Reading: true, Next: obs.NextKey})
		if err != nil {
			t.Fatal(err)
		}
		var v projection.View
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatal(err)
		}
		for _, g := range v.Regions {
			shown = append(shown, g.Summary)
		}
		skipped += len(v.RegionsSkipped)
		if v.Next == nil {
			break
		}
		cursor = v.Next.Cursor
	}
	if strings.Join(shown, "|") != "Intro|Outro" || skipped != 1 {
		t.Fatalf("regions shown %q, %d skipped; want Intro and Outro, 1 skipped", shown, skipped)
	}
}
