package chromium

import (
	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/framemerge"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// How a control-window cursor is written and refused, and how cursors and
// reading continuations set the collector where they resume.

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

// resumeControls sets params to continue the control scan from the cursor
// index of revision rev, inside frames where the revision's frame cursor
// says (rs).
func (s *Session) resumeControls(params *collect.Params, rs **framemerge.Resume, rev, index uint64) error {
	offset, from, ok := splitCursor(index)
	if !ok || (from == cursorInFrames && (offset != 0 || s.frameCursor == nil)) {
		return errcode.New(errcode.UnknownReference, "the cursor is malformed; use the cursor of the newest observation")
	}
	if from == cursorInFrames {
		return resumeAt(params, rs, s.revisionToken(rev), *s.frameCursor)
	}
	params.Offset = offset
	if from != collect.ResumeStart {
		params.Resume = &collect.Resume{Revision: s.revisionToken(rev), From: from}
	}
	return nil
}

// readOn sets params to continue every stream where a reading continuation
// of the newest revision says (tool version 1.6.0).
func (s *Session) readOn(params *collect.Params, rs **framemerge.Resume, cursor string) error {
	if !s.reading {
		return errcode.New(errcode.InvalidArgument, "a reading continuation needs tool version 1.6.0 or later")
	}
	parse := s.refKeys.ParseStreams
	if s.realPages {
		parse = func(c string) (uint64, observation.Streams, error) {
			return s.refKeys.ParseStreamsNewest(c, s.revision)
		}
	}
	rev, st, err := parse(cursor)
	if err != nil {
		return err
	}
	if err := s.current(rev); err != nil {
		return err
	}
	switch st.Focus {
	case observation.FocusMainText:
		focusMain(params)
		params.Doc = s.doc
		return s.textFrom(params, rs, rev, st.Text, st.TextUnits)
	case observation.FocusRestStart:
		params.Focus, params.Doc = observation.FocusRest, s.doc // every stream from its start
		return nil
	case observation.FocusRestOn:
		params.Focus = observation.FocusRest
	}
	token := s.revisionToken(rev)
	switch st.Controls {
	case observation.ControlsEnded:
		params.ControlsEnded = true
	case observation.ControlsAfter:
		if err := s.afterIn(params, rs, rev, uint64(st.Control)); err != nil {
			return err
		}
	case observation.ControlsCursor:
		if s.cursor == nil {
			return errcode.New(errcode.UnknownReference, "the cursor continues controls the observation had no cursor for")
		}
		if err := s.resumeControls(params, rs, rev, *s.cursor); err != nil {
			return err
		}
	}
	if st.Region < 0 {
		params.RegionsEnded = true
	} else {
		idx, ended := s.topRegion(st.Region)
		params.Regions, params.RegionsEnded = &collect.From{Revision: token, Index: idx}, ended
	}
	if st.Text < 0 {
		params.TextEnded = true
	} else if err := s.textFrom(params, rs, rev, st.Text, st.TextUnits); err != nil {
		return err
	}
	params.Doc = s.doc
	return nil
}

// focusMain sets params to read the main content's text alone: the
// controls and regions come after it, with the rest of the page.
func focusMain(params *collect.Params) {
	params.Focus, params.ControlsEnded, params.RegionsEnded = observation.FocusMain, true, true
}
