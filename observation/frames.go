package observation

// Frames (tool version 1.7.0, docs/frames.md). An observation includes the
// content of the page's child frames, same-origin and cross-origin alike:
// each frame's controls, regions and text stand where its <iframe> element
// stands in the flat-tree order, and name the frame they come from. The
// observation's bounds (controls, window, handles, text and regions) hold
// for the page and all its frames together; these bound the frames.
const (
	// MaxFrames bounds the frames one observation collects.
	MaxFrames = 16
	// MaxFrameDepth bounds how deep a collected frame may be nested: a
	// child of the top document is at depth 1.
	MaxFrameDepth = 4
	// MaxFrameRecords bounds the frame records of one observation,
	// collected or not; frames beyond it are counted in FramesOmitted.
	MaxFrameRecords = 2 * MaxFrames
)

// Frame statuses: collected, or why a frame's content is not in the
// observation.
const (
	FrameCollected  = "collected"
	FrameNotVisible = "not_visible" // hidden, zero size, or off the document like any hidden content
	FrameLimit      = "frame_limit" // MaxFrames frames were collected before it
	FrameDepthLimit = "depth_limit" // nested deeper than MaxFrameDepth
	FrameNotGranted = "not_granted" // its origin is outside the task's grant: present, never read
	FrameDetached   = "detached"    // removed, or navigating, while the observation ran
	FrameCrashed    = "crashed"     // its renderer is gone
	// FrameNotLoaded: the frame has no document yet (a lazily loaded
	// frame far from the viewport loads when scrolled near).
	FrameNotLoaded = "not_loaded"
	// FrameNotReached: the observation's bounds (controls, window, text)
	// were spent before the scan reached the frame; a continuation does.
	FrameNotReached = "not_reached"
)

// FrameStatuses are every status a frame record may carry.
var FrameStatuses = []string{FrameCollected, FrameNotVisible, FrameLimit, FrameDepthLimit,
	FrameNotGranted, FrameDetached, FrameCrashed, FrameNotReached, FrameNotLoaded}

// Frame is one child frame the observation met, and what it saw of it.
type Frame struct {
	// Index numbers the frames of one observation from 1 in the order their
	// elements appear; controls, regions and text parts name their frame
	// by it (0, omitted, is the top document).
	Index  int `json:"index"`
	Parent int `json:"parent"` // the index of the frame that holds its element; 0: the top document
	Depth  int `json:"depth"`  // 1: a child of the top document
	// Origin is the frame's origin ("null" when opaque: sandboxed, data:).
	// A frame whose content the grant does not allow is listed with its
	// origin and status not_granted, nothing more.
	Origin string `json:"origin"`
	Status string `json:"status"`
	// What was scanned of a collected frame: its controls and text parts
	// in this observation, the control candidates it examined, and the
	// bound that stopped its scan, if one did (a Limit* value).
	Controls  int    `json:"controls"`
	Scanned   int    `json:"scanned"`
	Limit     string `json:"limit,omitempty"`
	TextParts int    `json:"text_parts"`
	// TextLimit names the text bound the frame's text walk hit, if any:
	// "nodes", "units" or "bytes".
	TextLimit string `json:"text_limit,omitempty"`
}
