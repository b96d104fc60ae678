package collect

import "fmt"

// The calls about frame owners (frames.js, tool version 1.7.0).
const (
	fnRevealOwner  = "revealOwner"
	fnThroughOwner = "throughOwner"
)

// OwnerRequest names a frame's owner element by the frame's key in the
// document Doc, and a point of the frame's viewport.
type OwnerRequest struct {
	Frame string  `json:"frame"`
	Doc   string  `json:"doc"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
}

// RevealOwner scrolls the owner into view if it is not wholly in view.
func RevealOwner(r OwnerRequest) string { return call(fnRevealOwner, r) }

// ThroughOwner maps the point to the owner's document and hit-tests it.
func ThroughOwner(r OwnerRequest) string { return call(fnThroughOwner, r) }

var ownerRefusals = []Refusal{DocumentChanged, Stale, Detached, Hidden, Covered}

// DecodeOwner decodes the answer of RevealOwner or ThroughOwner: a
// refusal, or the point in the owner's document.
func DecodeOwner(raw []byte) (*PointResult, error) {
	r, err := decodeRefusable[PointResult](raw, ownerRefusals)
	if err != nil {
		return nil, fmt.Errorf("decoding an owner's answer: %w", err)
	}
	return r, nil
}
