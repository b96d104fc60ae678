package observation

import (
	"hash/fnv"

	"github.com/veetbot/veetbrowser/errcode"
)

// Find is what a find (browser_find, tool version 1.6.0) found besides the
// matching controls: text matches as short snippets, and its coverage.
type Find struct {
	Query    string       `json:"query"`
	Matches  []TextMatch  `json:"matches"`
	Coverage FindCoverage `json:"coverage"`
}

// TextMatch is one text part that holds every word of the query: a snippet
// around the first occurrence, cut flags on either side.
type TextMatch struct {
	Snippet   string `json:"snippet"`
	CutBefore bool   `json:"cut_before,omitempty"`
	CutAfter  bool   `json:"cut_after,omitempty"`
}

// FindCoverage says what a find scanned and which bound stopped it.
type FindCoverage struct {
	ScannedNodes       int  `json:"scanned_nodes"`
	Candidates         int  `json:"candidates"`
	InspectedUnits     int  `json:"inspected_units"`
	NodeLimitReached   bool `json:"node_limit_reached,omitempty"`
	UnitLimitReached   bool `json:"unit_limit_reached,omitempty"`
	OffsetLimitReached bool `json:"offset_limit_reached,omitempty"`
	// MoreControls and MoreText: matches may follow in that stream; the
	// find's continuation looks for them.
	MoreControls bool `json:"more_controls,omitempty"`
	MoreText     bool `json:"more_text,omitempty"`
}

// FindFrom says where a find continuation resumes each stream of the find
// it is bound to: after the first Controls control matches and the first
// Text text matches it found; -1 when that stream ended.
type FindFrom struct {
	Controls, Text int
	Query          uint64 // QueryHash of the query the find was for
}

// QueryHash binds a find continuation to its query, so that it is not
// used with another.
func QueryHash(query string) uint64 {
	h := fnv.New32a()
	h.Write([]byte(query))
	return uint64(h.Sum32())
}

// MintFind returns the find continuation of f.
func (nk NextKey) MintFind(f FindFrom) string {
	return nk.Mint(KindFind, uint64(f.Controls+1), uint64(f.Text+1), f.Query)
}

// ParseFind verifies a find continuation and returns its revision and
// where it resumes. Errors as Parse.
func (k *Keys) ParseFind(ref string) (revision uint64, f FindFrom, err error) {
	revision, v, err := k.ParseNext(KindFind, ref, 3)
	if err != nil {
		return 0, FindFrom{}, err
	}
	if v[0] > FindMatches+1 || v[1] > FindMatches+1 {
		return 0, FindFrom{}, errcode.New(errcode.UnknownReference, "the cursor is malformed; use the next of the newest find")
	}
	return revision, FindFrom{Controls: int(v[0]) - 1, Text: int(v[1]) - 1, Query: v[2]}, nil
}
