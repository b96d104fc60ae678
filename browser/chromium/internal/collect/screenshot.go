package collect

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// The page's part of a screenshot (screenshot.js): the viewport, the box of
// a control captured alone, and the boxes the capture is painted over,
// read right before and right after it.

// fnShot is the collector's shot.
const fnShot = "shot"

// MaxMaskBoxes bounds the boxes one read of a capture returns; a page with
// more is painted over whole.
const MaxMaskBoxes = 4096

// The steps of a capture.
const (
	ShotView   = "view"   // the viewport and the document's height
	ShotBefore = "before" // the target's box and the boxes to paint over, holding their elements
	ShotAfter  = "after"  // the held elements' boxes again, and any new ones
	ShotScroll = "scroll" // scroll back to (X, Y)
)

// The kinds of what a capture paints over.
const (
	MaskInput    = "input"    // an input showing a value or text
	MaskPassword = "password" // a password input
	MaskTextarea = "textarea"
	MaskSelect   = "select"
	MaskEditable = "editable" // editable content
	MaskField    = "field"    // a custom text field, by its role
	MaskFrame    = "frame"    // a frame whose document the runtime cannot read, whole
)

var maskKinds = []string{MaskInput, MaskPassword, MaskTextarea, MaskSelect, MaskEditable, MaskField, MaskFrame}

// The limits that make a read incomplete, after which the whole capture is
// painted over.
const (
	ShotLimitBoxes = "boxes" // more than MaxMaskBoxes boxes
	ShotLimitNodes = "nodes" // more than observation.ScanNodes nodes
)

// ShotRequest is one step of a capture. Doc, when set, is the document the
// step belongs to; Target is the control captured alone (ShotBefore);
// Fields asks for the boxes to paint over.
type ShotRequest struct {
	Step     string  `json:"step"`
	Doc      string  `json:"doc,omitempty"`
	Target   *Target `json:"target,omitempty"`
	Fields   bool    `json:"fields,omitempty"`
	Top      bool    `json:"top,omitempty"` // scroll to the document's start first (ShotBefore)
	MaxBoxes int     `json:"max_boxes"`
	X        float64 `json:"x"`
	Y        float64 `json:"y"`
}

// Shot returns the expression of one step of a capture.
func Shot(r ShotRequest) string {
	r.MaxBoxes = MaxMaskBoxes
	return call(fnShot, r)
}

// Box is a box in the top viewport's CSS pixels: left, top, right, bottom.
type Box struct {
	L float64 `json:"l"`
	T float64 `json:"t"`
	R float64 `json:"r"`
	B float64 `json:"b"`
}

// MaskBox is a box to paint over and what it is.
type MaskBox struct {
	Kind string `json:"kind"`
	Box
}

// ShotResult is the answer of a step: a refusal, or the viewport (CSS
// pixels), its scroll position and the document's height, and what the
// step asked for.
type ShotResult struct {
	Error        Refusal `json:"error"`
	Doc          string  `json:"doc"`
	Width        float64 `json:"width"`
	Height       float64 `json:"height"`
	ScrollX      float64 `json:"scroll_x"`
	ScrollY      float64 `json:"scroll_y"`
	ScrollHeight float64 `json:"scroll_height"`
	Target       *Box    `json:"target"`
	// Boxes to paint over: ShotBefore's, or those ShotAfter found that
	// the first read did not hold.
	Boxes []MaskBox `json:"boxes"`
	// Again (ShotAfter) are the boxes of the elements ShotBefore returned,
	// in its order; nil where one is gone or out of view.
	Again []*Box `json:"again"`
	Limit string `json:"limit"` // "", ShotLimitBoxes or ShotLimitNodes
}

func (r *ShotResult) Refused() Refusal { return r.Error }

// shotRefusals are the refusals of a capture's steps.
var shotRefusals = []Refusal{DocumentChanged, Stale, Detached, Hidden}

// DecodeShot decodes the answer of a step strictly and checks its bounds.
func DecodeShot(raw []byte) (*ShotResult, error) {
	r, err := decodeRefusable[ShotResult](raw, shotRefusals)
	if err != nil || r.Error != "" {
		return r, err
	}
	if n, m := len(r.Boxes), len(r.Again); n > MaxMaskBoxes || m > MaxMaskBoxes {
		return nil, fmt.Errorf("capture read returned %d and %d boxes, more than %d", n, m, MaxMaskBoxes)
	}
	if r.Limit != "" && r.Limit != ShotLimitBoxes && r.Limit != ShotLimitNodes {
		return nil, fmt.Errorf("capture read returned the limit %q", r.Limit)
	}
	if !(r.Width > 0 && r.Height > 0) {
		return nil, errors.New("capture read returned an empty viewport")
	}
	for _, b := range r.Boxes {
		if !slices.Contains(maskKinds, b.Kind) {
			return nil, fmt.Errorf("capture read returned the kind %q", b.Kind)
		}
		if !b.valid() {
			return nil, errors.New("capture read returned an empty box")
		}
	}
	for _, b := range r.Again {
		if b != nil && !b.valid() {
			return nil, errors.New("capture read returned an empty box")
		}
	}
	if r.Target != nil && !r.Target.valid() {
		return nil, errors.New("capture read returned an empty target box")
	}
	return r, nil
}

func (b Box) valid() bool {
	for _, v := range []float64{b.L, b.T, b.R, b.B} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return b.R > b.L && b.B > b.T
}
