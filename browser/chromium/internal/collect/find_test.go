package collect

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// findAnswer is a valid answer of find, each list and count at its bound.
func findAnswer() *FindResult {
	r := &FindResult{Page: Page{Doc: "d1", URL: "http://127.0.0.1/", Origin: "http://127.0.0.1", Title: "t"}}
	for i := range observation.FindMatches {
		r.Controls = append(r.Controls, Control{Role: "button", Name: strings.Repeat("n", observation.MaxNameUnits), Position: i})
		r.Matches = append(r.Matches, observation.TextMatch{Snippet: strings.Repeat("😀", observation.SnippetUnits/2), CutBefore: true})
	}
	r.Coverage = observation.FindCoverage{ScannedNodes: observation.ScanNodes, Candidates: observation.MaxOffset,
		InspectedUnits: observation.FindUnits, NodeLimitReached: true, MoreControls: true, MoreText: true}
	return r
}

func encode(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeFindChecksEveryBound(t *testing.T) {
	if _, err := DecodeFind(encode(t, findAnswer())); err != nil {
		t.Fatalf("an answer at every bound: %v", err)
	}
	past := map[string]func(r *FindResult){
		"one control too many": func(r *FindResult) { r.Controls = append(r.Controls, r.Controls[0]) },
		"one text match too many": func(r *FindResult) {
			r.Matches = append(r.Matches, r.Matches[0])
		},
		"a name one unit over":    func(r *FindResult) { r.Controls[3].Name += "n" },
		"a snippet one unit over": func(r *FindResult) { r.Matches[5].Snippet += "x" },
		"an empty snippet":        func(r *FindResult) { r.Matches[0].Snippet = "" },
		"a control without role":  func(r *FindResult) { r.Controls[0].Role = "" },
		"a negative position":     func(r *FindResult) { r.Controls[0].Position = -1 },
		"one node too many":       func(r *FindResult) { r.Coverage.ScannedNodes++ },
		"negative nodes":          func(r *FindResult) { r.Coverage.ScannedNodes = -1 },
		"one candidate too many":  func(r *FindResult) { r.Coverage.Candidates++ },
		"negative candidates":     func(r *FindResult) { r.Coverage.Candidates = -1 },
		"one unit too many":       func(r *FindResult) { r.Coverage.InspectedUnits++ },
		"negative units":          func(r *FindResult) { r.Coverage.InspectedUnits = -1 },
		"a title one unit over":   func(r *FindResult) { r.Title = strings.Repeat("t", observation.MaxTitleUnits+1) },
		"a URL one unit over":     func(r *FindResult) { r.URL = strings.Repeat("u", observation.MaxURLUnits+1) },
		"no controls":             func(r *FindResult) { r.Controls = nil },
		"no matches":              func(r *FindResult) { r.Matches = nil },
		"an unknown refusal":      func(r *FindResult) { r.Error = "stale" },
	}
	for name, change := range past {
		r := findAnswer()
		change(r)
		if _, err := DecodeFind(encode(t, r)); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	for _, bad := range []string{
		`[]`, `null`, `{"doc":"d1","controls":[],"matches":[]} {}`,
		`{"doc":"d1","controls":[],"matches":[],"values":["secret"]}`,
		`{"doc":"d1","controls":[],"matches":[{"snippet":"x","text":"whole part"}]}`,
		`{"doc":"d1","controls":[],"matches":[],"coverage":{"scanned_nodes":"1"}}`,
	} {
		if _, err := DecodeFind([]byte(bad)); err == nil {
			t.Errorf("%s: decoded", bad)
		}
	}
	for _, refusal := range []Refusal{DocumentChanged, AnchorUnknown, AnchorDetached, AnchorMoved} {
		r, err := DecodeFind(encode(t, map[string]any{"error": refusal, "doc": "d2"}))
		if err != nil || r.Error != refusal {
			t.Errorf("refusal %s: %+v %v", refusal, r, err)
		}
	}
}

// wordCases are queries both sides split into words; want is Go's answer,
// nil for an invalid query.
var wordCases = []struct {
	query string
	want  []string
}{
	{"Publish", []string{"publish"}},
	{"  CAFÉ  au lait ", []string{"cafe", "au", "lait"}},
	{"cafe\u0301", []string{"cafe"}},
	{"naïve-résumé, 2,900!", []string{"naive", "resume", "2", "900"}},
	{"ΟΔΟΣ οδός", []string{"οδοσ", "οδοσ"}},
	{"İstanbul STRASSE straße ẞ", []string{"istanbul", "strasse", "straße", "ß"}},
	{"ﬁle ½ ①", []string{"file", "1", "2", "1"}},
	{"東京 tower", []string{"東京", "tower"}},
	{"😀 x_y", []string{"x", "y"}},
	{"Ǆemal", []string{"dzemal"}},
	{"", nil},
	{"  ,.;!? 😀 ", nil},
	{strings.Repeat("a", observation.MaxQueryUnits), []string{strings.Repeat("a", observation.MaxQueryUnits)}},
	{strings.Repeat("a", observation.MaxQueryUnits+1), nil},
	{strings.Repeat("😀", observation.MaxQueryUnits/2) + "a", nil},
	{strings.Repeat("w ", observation.MaxQueryWords), slices.Repeat([]string{"w"}, observation.MaxQueryWords)},
	{strings.Repeat("w ", observation.MaxQueryWords+1), nil},
}

func TestQueryWords(t *testing.T) {
	for _, c := range wordCases {
		got, err := QueryWords(c.query)
		if c.want == nil {
			if code := errcode.Of(err); code != errcode.InvalidArgument {
				t.Errorf("%q: %v %v, want invalid_argument", c.query, got, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%q: %q %v, want %q", c.query, got, err, c.want)
		}
	}
}

// TestQueryWordsMatchPage runs the collector's queryWords on the same
// queries: the page matches on exactly the words Go checked. Where Go
// refuses a query for its length or word count, the page (which never gets
// it) cuts it to the bounds instead.
func TestQueryWordsMatchPage(t *testing.T) {
	t.Parallel()
	ctx := openPage(t, assemble("globalThis.__findTest = {queryWords};\n"))
	queries := make([]string, len(wordCases))
	for i, c := range wordCases {
		queries[i] = c.query
	}
	var got [][]string
	evaluate(t, ctx, "("+string(encode(t, queries))+").map((q) => globalThis.__findTest.queryWords(q))", &got)
	if len(got) != len(wordCases) {
		t.Fatalf("%d answers for %d queries", len(got), len(wordCases))
	}
	for i, c := range wordCases {
		want, err := QueryWords(c.query)
		if err != nil {
			if c.query == strings.Repeat("w ", observation.MaxQueryWords+1) {
				want = slices.Repeat([]string{"w"}, observation.MaxQueryWords)
			} else if observation.UTF16Len(c.query) > observation.MaxQueryUnits {
				continue
			}
		}
		if !slices.Equal(got[i], want) && !(len(got[i]) == 0 && len(want) == 0) {
			t.Errorf("%q: page %q, Go %q", c.query, got[i], want)
		}
	}
}
