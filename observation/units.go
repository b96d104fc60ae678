package observation

import (
	"iter"
	"unicode/utf8"
)

// The units a page's text is measured in: UTF-16 units for what the
// collector bounds (a JavaScript string's length), and JSON bytes for what
// crosses to Go or to the model. Every count of either lives here.

// UTF16Len is the length of s in UTF-16 units, the unit every text bound of
// a page is counted in (a JavaScript string's length).
func UTF16Len(s string) int {
	n := 0
	for _, r := range s {
		n += unitsOf(r)
	}
	return n
}

// CutUTF16 keeps at most max UTF-16 units of s, never splitting a rune, and
// says whether it cut. The collector's cut does the same in the page.
func CutUTF16(s string, max int) (string, bool) {
	n := 0
	for i, r := range s {
		w := unitsOf(r)
		if n+w > max {
			return s[:i], true
		}
		n += w
	}
	return s, false
}

func unitsOf(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// Escaping is the string escaping of one JSON encoder.
type Escaping int

const (
	// ScriptEscaping is JSON.stringify's, which the collector counts the
	// text byte bound by: quotes, backslashes and control characters.
	ScriptEscaping Escaping = iota
	// GoEscaping is encoding/json's, which the model view is measured by:
	// those and <, >, &, U+2028, U+2029 and invalid UTF-8, as \u escapes.
	// U+FFFD counts as an escape too, which can only overstate a size.
	GoEscaping
)

// EscapedLen is the number of bytes s takes inside a JSON string, quotes
// not included, escaped as e escapes it.
func EscapedLen(s string, e Escaping) int {
	n := 0
	for _, r := range s {
		n += escapedRuneLen(r, e)
	}
	return n
}

// CutEscaped keeps the longest prefix of s, cut between runes, that takes
// at most max bytes inside a JSON string, and says whether it cut.
func CutEscaped(s string, max int, e Escaping) (string, bool) {
	n := 0
	for i, r := range s {
		w := escapedRuneLen(r, e)
		if n+w > max {
			return s[:i], true
		}
		n += w
	}
	return s, false
}

func escapedRuneLen(r rune, e Escaping) int {
	switch {
	case r == '"' || r == '\\' || r == '\b' || r == '\f' || r == '\n' || r == '\r' || r == '\t':
		return 2
	case r < 0x20:
		return 6
	case e == GoEscaping && (r == '<' || r == '>' || r == '&' || r == 0x2028 || r == 0x2029 || r == utf8.RuneError):
		return 6
	default:
		return utf8.RuneLen(r) // invalid UTF-8 ranges as U+FFFD: 3
	}
}

// TextPartCost is a text part's share of the text byte bound: its JSON
// string (quotes, backslashes and control characters escaped) and a
// separator. The collector counts the same way.
func TextPartCost(s string) int {
	return TextPartOverhead + EscapedLen(s, ScriptEscaping)
}

// TextCost is the share of the text byte bound that parts take with the
// bytes canonical bounding already omitted from them.
func TextCost(omitted int, parts iter.Seq[string]) int {
	n := omitted
	for p := range parts {
		n += TextPartCost(p)
	}
	return n
}

// TextCost is the observation's share of the text byte bound: its text
// parts and the bytes its coverage says were omitted.
func (o *Observation) TextCost() int {
	omitted := 0
	if o.TextCoverage != nil {
		omitted = o.TextCoverage.OmittedBytes
	}
	return TextCost(omitted, func(yield func(string) bool) {
		for _, p := range o.Text {
			if !yield(p.Text) {
				return
			}
		}
	})
}
