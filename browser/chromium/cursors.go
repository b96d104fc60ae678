package chromium

import (
	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// How a control-window cursor is written and refused.

// continuationError is the refusal of a continuation whose anchor, or the
// point a cursor resumes from, is no longer where it was retained.
func continuationError(code collect.Refusal, cursor bool) error {
	what := "the anchor control"
	if cursor {
		what = "the place the cursor resumes from"
	}
	switch code {
	case collect.DocumentChanged:
		return errcode.New(errcode.DocumentChanged, "the page loaded a new document since that observation; observe again without a continuation")
	case collect.AnchorDetached:
		return errcode.New(errcode.StaleReference, "%s was removed from the page; observe again", what)
	case collect.AnchorMoved:
		return errcode.New(errcode.StaleReference, "%s moved; observe again", what)
	default: // collect.AnchorUnknown
		return errcode.New(errcode.StaleReference, "%s is no longer known; observe again", what)
	}
}

// A cursor's index packs the candidate offset its window starts at with
// where the collector's walk starts (collect.Resume*), so a cursor stays an
// opaque, authenticated (revision, index) pair that names no DOM detail.
// A cursor of a stream that continues inside frames (tool version 1.7.0)
// is the index of cursorInFrames: the frames it resumes in are the
// revision's (Session.frameCursor), named by frame identity, which no
// reference could carry within the reference bound.
const cursorFromBits = 2

const cursorInFrames = "frames"

var cursorFroms = [...]string{collect.ResumeStart, collect.ResumeOrigin, collect.ResumeStop, cursorInFrames}

func cursorIndex(offset int, from string) uint64 {
	for i, f := range cursorFroms {
		if f == from {
			return uint64(offset)<<cursorFromBits | uint64(i)
		}
	}
	panic("unknown resume point " + from) // Decode admits only the known ones
}

func splitCursor(index uint64) (offset int, from string, ok bool) {
	i := index & (1<<cursorFromBits - 1)
	if i >= uint64(len(cursorFroms)) || index>>cursorFromBits > observation.MaxOffset+observation.MaxAcquired {
		return 0, "", false
	}
	return int(index >> cursorFromBits), cursorFroms[i], true
}
