// Package collect holds the in-page collector and the Go side of its contract:
// the parameters Go sends, and the decoding and validation of what comes back.
//
// The collector runs in an isolated world registered before the page's own
// documents are created, and enforces every bound before data crosses to Go;
// Decode checks the bounds again, so a broken collector cannot publish an
// oversized observation.
package collect

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/veetbot/veetbrowser/observation"
)

// Script is the collector source, evaluated in WorldName on every new document.
//
//go:embed js/collector.js
var Script string

// WorldName names the isolated world the collector lives in.
const WorldName = "veetbrowser"

// Params are the arguments of one observation.
type Params struct {
	Revision string `json:"revision"` // binds the retained nodes
	// Doc, when set, is the document a continuation belongs to: the
	// collector refuses to continue on another document.
	Doc        string  `json:"doc,omitempty"`
	Offset     int     `json:"offset"`
	After      *Anchor `json:"after,omitempty"`
	Resume     *Resume `json:"resume,omitempty"`
	MaxVisible int     `json:"max_visible"`
	Window     int     `json:"window"`
	MaxOffset  int     `json:"max_offset"`
	Draft      *Draft  `json:"draft,omitempty"`
}

// Draft asks for the live equality check of the draft receipt.
type Draft struct {
	Value string `json:"value"`
}

// Anchor is a retained control: the revision that retained it and its index.
type Anchor struct {
	Revision string `json:"revision"`
	Index    int    `json:"index"`
}

// Resume continues a cursor's scan from a point its revision retained in
// the page instead of the document's start.
type Resume struct {
	Revision string `json:"revision"`
	From     string `json:"from"` // ResumeOrigin or ResumeStop
}

// Where a scan's walk starts, as ControlCoverage.From reports it for the
// next window and Resume asks for it.
const (
	ResumeStart  = ""       // the document's start
	ResumeOrigin = "origin" // the point the scan itself resumed from
	ResumeStop   = "stop"   // right after the last node a scan stopped by the node bound visited
)

// Expression returns the JavaScript expression that runs the collector.
func Expression(p Params) string {
	b, err := json.Marshal(p)
	if err != nil {
		panic(err) // Params holds only strings and numbers
	}
	return "globalThis.__veetbrowser.observe(" + string(b) + ")"
}

// Errors the collector reports instead of a result.
const (
	DocumentChanged = "document_changed" // the continuation's document is gone
	AnchorUnknown   = "anchor_unknown"   // the anchor's revision is no longer retained
	AnchorDetached  = "anchor_detached"  // the anchor left the document
	AnchorMoved     = "anchor_moved"     // the anchor changed parent or left the traversal
)

// Result is what the collector returns.
type Result struct {
	Error           string                     `json:"error"`
	Doc             string                     `json:"doc"` // random per document: a new one means a new document
	URL             string                     `json:"url"`
	URLTruncated    bool                       `json:"url_truncated"`
	Origin          string                     `json:"origin"`
	Title           string                     `json:"title"`
	TitleTruncated  bool                       `json:"title_truncated"`
	Controls        []Control                  `json:"controls"`
	ControlCoverage ControlCoverage            `json:"control_coverage"`
	Regions         []observation.Region       `json:"regions"` // refs are minted by the session
	RegionCoverage  observation.RegionCoverage `json:"region_coverage"`
	Text            []string                   `json:"text"`
	TextCoverage    observation.TextCoverage   `json:"text_coverage"`
	Draft           string                     `json:"draft"` // verdict of the draft check, "" if none asked
}

// Control is a collected control; Position is its candidate position.
type Control struct {
	Role          string             `json:"role"`
	Name          string             `json:"name"`
	NameTruncated bool               `json:"name_truncated"`
	Position      int                `json:"position"`
	States        observation.States `json:"states"`
}

// ControlCoverage is the collector's view of the control scan.
type ControlCoverage struct {
	Offset  int    `json:"offset"`
	Scanned int    `json:"scanned"`
	More    bool   `json:"more"` // candidates remain after the scanned ones
	Limit   string `json:"limit"`
	// Acquired counts the candidates held before visibility work, at most
	// observation.MaxAcquired; it is checked, not published.
	Acquired int `json:"acquired"`
	// From is where the next window's walk starts (ResumeStart, ResumeOrigin
	// or ResumeStop); the session binds it into the cursor.
	From string `json:"from"`
}

// Decode parses a collector result and checks its bounds.
func Decode(raw []byte) (*Result, error) {
	var r Result
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("decoding collector result: %w", err)
	}
	if r.Error != "" {
		return &r, nil
	}
	if n := len(r.Controls); n > observation.MaxControls {
		return nil, fmt.Errorf("collector returned %d controls, more than %d", n, observation.MaxControls)
	}
	if a := r.ControlCoverage.Acquired; a > observation.MaxAcquired {
		return nil, fmt.Errorf("collector acquired %d candidates, more than %d", a, observation.MaxAcquired)
	}
	if s := r.ControlCoverage.Scanned; s < 0 || s > observation.WindowSize {
		return nil, fmt.Errorf("collector scanned %d candidates, more than %d", s, observation.WindowSize)
	}
	if f := r.ControlCoverage.From; f != ResumeStart && f != ResumeOrigin && f != ResumeStop {
		return nil, fmt.Errorf("collector returned an unknown resume point")
	}
	for _, c := range r.Controls {
		if utf16Len(c.Name) > observation.MaxNameUnits {
			return nil, fmt.Errorf("collector returned a name over %d units", observation.MaxNameUnits)
		}
	}
	if n := len(r.Regions); n > observation.MaxRegions {
		return nil, fmt.Errorf("collector returned %d regions, more than %d", n, observation.MaxRegions)
	}
	for _, g := range r.Regions {
		if utf16Len(g.Summary) > observation.SummaryUnits {
			return nil, fmt.Errorf("collector returned a summary over %d units", observation.SummaryUnits)
		}
	}
	if c := r.RegionCoverage; c.Version != observation.RegionCoverageV1 || c.ScannedNodes < 0 || c.ScannedNodes > observation.RegionScanNodes || c.Omitted < 0 {
		return nil, fmt.Errorf("collector returned region coverage %+v", c)
	}
	c := r.TextCoverage
	// Counts are checked from below too: a negative omission would hide text
	// from the byte bound.
	if c.Version != observation.TextCoverageV1 || c.ScannedNodes < 0 || c.ScannedNodes > observation.TextNodes ||
		c.InspectedUnits < 0 || c.InspectedUnits > observation.TextUnits || c.OmittedBytes < 0 {
		return nil, fmt.Errorf("collector returned text coverage %+v", c)
	}
	total := c.OmittedBytes
	for _, t := range r.Text {
		total += observation.TextPartCost(t)
	}
	if total > observation.TextBytes {
		return nil, fmt.Errorf("collector returned %d text bytes with omissions, more than %d", total, observation.TextBytes)
	}
	return &r, nil
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}
