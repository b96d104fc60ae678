package observation

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/veetbot/veetbrowser/errcode"
)

// fromPage is s as it reaches Go from the page: JSON decoding turns a lone
// surrogate into U+FFFD.
func fromPage(t *testing.T, jsonString string) string {
	t.Helper()
	var s string
	if err := json.Unmarshal([]byte(jsonString), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestUTF16Units(t *testing.T) {
	lone := fromPage(t, `"a\ud800b"`)
	for _, tc := range []struct {
		name string
		in   string
		max  int
		want string // CutUTF16's result
	}{
		{"empty", "", 0, ""},
		{"ASCII at the bound", "abc", 3, "abc"},
		{"ASCII one past", "abcd", 3, "abc"},
		{"two-byte runes are one unit", "ééé", 3, "ééé"},
		{"emoji at the bound", "a😀", 3, "a😀"},
		{"emoji at the cut", "a😀", 2, "a"},
		{"emoji one unit short", "ab😀", 3, "ab"},
		{"ZWJ sequence cut between runes", "👩\u200d👧", 3, "👩\u200d"},
		{"lone surrogate from the page", lone, 2, "a\ufffd"},
		{"invalid UTF-8 counts a unit per byte", "a\xffb", 2, "a\xff"},
		{"zero keeps nothing", "abc", 0, ""},
	} {
		got, cut := CutUTF16(tc.in, tc.max)
		if got != tc.want || cut != (got != tc.in) {
			t.Errorf("%s: CutUTF16(%q, %d) = %q, %v; want %q", tc.name, tc.in, tc.max, got, cut, tc.want)
		}
		if UTF16Len(got) > tc.max {
			t.Errorf("%s: kept %d units, more than %d", tc.name, UTF16Len(got), tc.max)
		}
		if utf8.ValidString(tc.in) {
			// What JavaScript's length says of the same string.
			if js := len(utf16.Encode([]rune(tc.in))); UTF16Len(tc.in) != js {
				t.Errorf("%s: UTF16Len(%q) = %d, JavaScript length %d", tc.name, tc.in, UTF16Len(tc.in), js)
			}
		}
	}
}

// escapingCases cover every class of rune the two escapings count apart.
var escapingCases = []string{
	"", "plain", "quote \" and \\ backslash", "\b\f\n\r\t", "\x00\x01\x1f", "<a href=x>&amp;</a>",
	"line\u2028para\u2029", "émoji 😀 👩‍👩‍👧", "עברית", "中文", "\x7f", "a\xffb", "\ufffd",
}

func TestEscapedLenMatchesEncodingJSON(t *testing.T) {
	for _, s := range escapingCases {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		want := len(b) - len(`""`)
		got := EscapedLen(s, GoEscaping)
		// U+FFFD itself is written as is, but counted as the escape of
		// invalid UTF-8: a size may be overstated, never understated.
		if s == "\ufffd" {
			want += len(`\ufffd`) - len("\ufffd")
		}
		if got != want {
			t.Errorf("EscapedLen(%q, GoEscaping) = %d, encoding/json writes %d", s, got, want)
		}
	}
}

func TestEscapedLenScript(t *testing.T) {
	// JSON.stringify escapes only quotes, backslashes and control
	// characters; <, >, &, U+2028 and U+2029 are written as they are.
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"plain", 5},
		{`"\`, 4},
		{"\b\f\n\r\t", 10},
		{"\x00\x1f", 12},
		{"<>&", 3},
		{"\u2028\u2029", 6},
		{"é😀", 6},
		{"\ufffd", 3}, // a lone surrogate of the page arrives as U+FFFD
	} {
		if got := EscapedLen(tc.in, ScriptEscaping); got != tc.want {
			t.Errorf("EscapedLen(%q, ScriptEscaping) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestCutEscaped(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		e    Escaping
		want string
	}{
		{"abc", 3, ScriptEscaping, "abc"},     // at the bound
		{"abcd", 3, ScriptEscaping, "abc"},    // one past
		{"ab😀", 5, ScriptEscaping, "ab"},      // the emoji needs 4 bytes, only 3 remain
		{"ab😀", 6, ScriptEscaping, "ab😀"},     // and fits at 4
		{"a\"b", 2, ScriptEscaping, "a"},      // an escape is never split
		{"a\"b", 3, ScriptEscaping, "a\""},    // and kept whole
		{"a<b", 3, ScriptEscaping, "a<b"},     // < is itself for JSON.stringify
		{"a<b", 3, GoEscaping, "a"},           // and \u003c for encoding/json
		{"a<b", 8, GoEscaping, "a<b"},         // which fits at 8
		{"a\x01", 6, ScriptEscaping, "a"},     // a control character counts 6
		{"a\x01", 7, ScriptEscaping, "a\x01"}, // and fits at 7
		{"x", -1, GoEscaping, ""},             // no room at all
		{"", -1, GoEscaping, ""},              // nothing to cut
	} {
		got, cut := CutEscaped(tc.in, tc.max, tc.e)
		if got != tc.want || cut != (got != tc.in) {
			t.Errorf("CutEscaped(%q, %d, %d) = %q, %v; want %q", tc.in, tc.max, tc.e, got, cut, tc.want)
		}
		if !utf8.ValidString(got) && utf8.ValidString(tc.in) {
			t.Errorf("CutEscaped(%q, %d, %d) split a rune", tc.in, tc.max, tc.e)
		}
		if n := EscapedLen(got, tc.e); n > max(tc.max, 0) {
			t.Errorf("CutEscaped(%q, %d, %d) kept %d bytes", tc.in, tc.max, tc.e, n)
		}
	}
}

func TestTextCost(t *testing.T) {
	if got := TextPartCost(""); got != TextPartOverhead {
		t.Errorf("an empty part costs %d, want the overhead %d", got, TextPartOverhead)
	}
	// A part costs what it adds to a JSON array of strings.
	parts := []string{"a\"b", "<é>", "😀\n"}
	whole, _ := json.Marshal(parts)
	var escaped int
	for _, p := range parts {
		escaped += EscapedLen(p, ScriptEscaping)
	}
	if got := TextCost(0, slices.Values(parts)); got != escaped+len(parts)*TextPartOverhead {
		t.Errorf("TextCost = %d, want %d", got, escaped+len(parts)*TextPartOverhead)
	}
	// encoding/json escapes < and >: the same array is 10 bytes longer
	// there, and one separator shorter (no trailing comma).
	if got, want := TextCost(0, slices.Values(parts))-1, len(whole)-len(`[]`)-10; got != want {
		t.Errorf("TextCost of %q = %d, JSON array body %d", parts, got, want)
	}
	if got := TextCost(1000, slices.Values(parts)); got != 1000+escaped+len(parts)*TextPartOverhead {
		t.Errorf("TextCost with omissions = %d", got)
	}
	o := &Observation{Text: []TextPart{{Text: "a\"b"}, {Text: "<é>"}, {Text: "😀\n"}}, TextCoverage: &TextCoverage{OmittedBytes: 7}}
	if got, want := o.TextCost(), TextCost(7, slices.Values(parts)); got != want {
		t.Errorf("Observation.TextCost = %d, want %d", got, want)
	}
	o.TextCoverage = nil
	if got, want := o.TextCost(), TextCost(0, slices.Values(parts)); got != want {
		t.Errorf("Observation.TextCost without coverage = %d, want %d", got, want)
	}
}

func TestRequestCheck(t *testing.T) {
	for _, r := range []Request{{}, {After: "e1"}, {Cursor: "k1"}} {
		if err := r.Check(); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
	err := Request{After: "e1", Cursor: "k1"}.Check()
	if errcode.Of(err) != errcode.InvalidArgument || !strings.Contains(err.Error(), "at most one") {
		t.Errorf("both continuations: %v", err)
	}
}
