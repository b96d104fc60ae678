package collect

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// fnFind is the collector's find (find.js).
const fnFind = "find"

// FindRequest asks for the visible controls and the readable text of the
// page that hold every word of Query. Revision binds the matching controls
// and the points a continuation resumes from, as an observation's revision
// does; Doc, when set, is the document a continuation belongs to.
type FindRequest struct {
	Revision string    `json:"revision"`
	Doc      string    `json:"doc,omitempty"`
	Query    string    `json:"query"`
	From     *FindFrom `json:"from,omitempty"`
	// RealPages (tool version 1.9.0): as Params.RealPages: pointer targets are
	// candidates and scroll containers show their content.
	RealPages bool `json:"real_pages,omitempty"`
}

// FindFrom continues the find of Revision: its control stream at its
// Controls-th control match, and its text stream at its Text-th text match
// (the matches before them were given back). A count equal to that find's
// number of matches continues where its walk stopped; FindEnded leaves the
// stream out.
type FindFrom struct {
	Revision string `json:"revision"`
	Controls int    `json:"controls"`
	Text     int    `json:"text"`
}

// FindEnded marks a stream of FindFrom that ended: it is not walked again.
const FindEnded = -1

// Find returns the expression that runs the collector's find.
func Find(r FindRequest) string { return call(fnFind, r) }

// FindResult is the collector's answer to Find: a refusal, or the page's
// identity (as observe reports it), the matching controls, the text
// matches and the coverage of both walks. Controls[i] is retained at index
// i of the request's revision, so a Target of that revision acts on it; an
// observation continues reading at text match i as at text part i of that
// revision.
type FindResult struct {
	Error Refusal `json:"error"`
	Page
	Controls []Control                `json:"controls"`
	Matches  []observation.TextMatch  `json:"matches"`
	Coverage observation.FindCoverage `json:"coverage"`
}

func (r *FindResult) Refused() Refusal { return r.Error }

// findRefusals are find's refusals: those of observe's continuations.
var findRefusals = observeRefusals

// DecodeFind decodes the answer of Find strictly and checks every bound
// again, so a broken collector cannot publish more than a find may.
func DecodeFind(raw []byte) (*FindResult, error) {
	r, err := decodeRefusable[FindResult](raw, findRefusals)
	if err != nil || r.Error != "" {
		return r, err
	}
	if r.Controls == nil || r.Matches == nil {
		return nil, errors.New("find answer without controls or matches")
	}
	if n, m := len(r.Controls), len(r.Matches); n > observation.FindMatches || m > observation.FindMatches {
		return nil, fmt.Errorf("find answer with %d controls and %d text matches, more than %d", n, m, observation.FindMatches)
	}
	if err := r.Page.check(); err != nil {
		return nil, err
	}
	for _, c := range r.Controls {
		if c.Role == "" || c.Position < 0 || observation.UTF16Len(c.Name) > observation.MaxNameUnits {
			return nil, fmt.Errorf("find answer with a control %q of role %q at %d", c.Name, c.Role, c.Position)
		}
	}
	for _, m := range r.Matches {
		if m.Snippet == "" || observation.UTF16Len(m.Snippet) > observation.SnippetUnits {
			return nil, fmt.Errorf("find answer with a snippet of %d units, not 1 to %d", observation.UTF16Len(m.Snippet), observation.SnippetUnits)
		}
	}
	// Counts are checked from below too: a negative count is no coverage.
	if c := r.Coverage; c.ScannedNodes < 0 || c.ScannedNodes > observation.ScanNodes || c.Candidates < 0 ||
		c.Candidates > observation.MaxOffset || c.InspectedUnits < 0 || c.InspectedUnits > observation.FindUnits {
		return nil, fmt.Errorf("find answer with coverage %+v", c)
	}
	return r, nil
}

// QueryWords checks a find's query and returns its words, as the collector
// matches them: the query is folded (compatibility decomposition, combining
// marks removed, lower case, final sigma as sigma) and split into runs of
// letters and digits. A candidate matches when it holds every word. A query
// over MaxQueryUnits UTF-16 units, with no word or with more than
// MaxQueryWords words is an invalid argument.
func QueryWords(q string) ([]string, error) {
	if n := observation.UTF16Len(q); n > observation.MaxQueryUnits {
		return nil, errcode.New(errcode.InvalidArgument, "the query is %d characters long, at most %d: give a few words", n, observation.MaxQueryUnits)
	}
	words := strings.FieldsFunc(foldQuery(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	if len(words) == 0 {
		return nil, errcode.New(errcode.InvalidArgument, "the query has no word to look for: give letters or digits")
	}
	if len(words) > observation.MaxQueryWords {
		return nil, errcode.New(errcode.InvalidArgument, "the query has %d words, at most %d: give fewer words", len(words), observation.MaxQueryWords)
	}
	return slices.Clip(words), nil
}

// foldQuery is the collector's fold (find.js) in Go.
func foldQuery(s string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		if unicode.Is(unicode.M, r) {
			continue
		}
		r = unicode.ToLower(r)
		if r == 'ς' {
			r = 'σ'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// fnHoldsText is the collector's text condition of browser_wait (find.js).
const fnHoldsText = "holdsText"

// HoldsTextRequest asks whether one part of the readable text holds every
// word of Text, matched as Find matches a query (QueryWords).
type HoldsTextRequest struct {
	Text string `json:"text"`
}

// HoldsText returns the expression that checks the text condition.
func HoldsText(r HoldsTextRequest) string { return call(fnHoldsText, r) }

// DecodeHoldsText decodes the answer of HoldsText.
func DecodeHoldsText(raw []byte) (bool, error) {
	var r struct {
		Holds *bool `json:"holds"`
	}
	if err := decodeStrict(raw, &r); err != nil {
		return false, err
	}
	if r.Holds == nil {
		return false, errors.New("text condition answer without holds")
	}
	return *r.Holds, nil
}
