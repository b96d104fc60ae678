package chromium

import (
	"math"
	"testing"

	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/framemerge"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// TestCursorIndexBound: a cursor that continues inside frames is no
// longer than the widest top-document cursor, whose offset is at the
// bound (MaxOffset + MaxAcquired) and whose walk resumes where the node
// bound stopped it; one past that offset is refused, and so is a frames
// cursor with an offset or without the revision's frame cursor.
func TestCursorIndexBound(t *testing.T) {
	keys := observation.NewKeys()
	widest := keys.Mint(observation.KindCursor, math.MaxUint64, cursorIndex(observation.MaxOffset+observation.MaxAcquired, collect.ResumeStop))
	framed := keys.Mint(observation.KindCursor, math.MaxUint64, cursorIndex(0, cursorInFrames))
	t.Logf("widest %d bytes, frames %d", len(widest), len(framed))
	if len(framed) > len(widest) || len(widest) > 64 {
		t.Fatalf("frames cursor %d bytes, widest %d, bound 64", len(framed), len(widest))
	}
	for _, ref := range []string{widest, framed} {
		if _, _, err := keys.Parse(observation.KindCursor, ref); err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
	}
	if off, from, ok := splitCursor(cursorIndex(observation.MaxOffset+observation.MaxAcquired, collect.ResumeStop)); !ok || from != collect.ResumeStop || off != observation.MaxOffset+observation.MaxAcquired {
		t.Fatalf("at the bound: %d %q %v", off, from, ok)
	}
	if _, _, ok := splitCursor(cursorIndex(observation.MaxOffset+observation.MaxAcquired+1, collect.ResumeStart)); ok {
		t.Fatal("an offset one past the bound was accepted")
	}
	s := &Session{refKeys: keys}
	var rs *framemerge.Resume
	for _, index := range []uint64{cursorIndex(0, cursorInFrames), cursorIndex(1, cursorInFrames)} {
		if err := s.resumeControls(&collect.Params{}, &rs, 1, index); errcode.Of(err) != errcode.UnknownReference {
			t.Fatalf("frames cursor %d without a frame cursor: %v", index, err)
		}
	}
	s.frameCursor = &framemerge.Cursor{At: framemerge.Place{{}, {Frame: "F"}}, Window: &framemerge.Window{Offset: 9}}
	if err := s.resumeControls(&collect.Params{}, &rs, 1, cursorIndex(1, cursorInFrames)); errcode.Of(err) != errcode.UnknownReference {
		t.Fatalf("frames cursor with an offset: %v", err)
	}
	p := collect.Params{}
	if err := s.resumeControls(&p, &rs, 1, cursorIndex(0, cursorInFrames)); err != nil || !p.ControlsEnded || rs == nil || rs.Window.Offset != 9 {
		t.Fatalf("frames cursor: %v, params %+v, resume %+v", err, p, rs)
	}
}
