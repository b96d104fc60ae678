package chromium

import (
	"context"
	"errors"

	"github.com/chromedp/cdproto/cdp"

	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/framemerge"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// Observing with frames (tool version 1.7.0, docs/frames.md): where a
// continuation resumes inside frames, and the session's frame source for
// the merge (framemerge.go), the active tab.

// afterIn sets params to continue the controls after the control of index
// (of revision rev): in the top document, or, when it is in a frame, in the
// frames on the way (resumeAt).
func (s *Session) afterIn(params *collect.Params, rs **framemerge.Resume, rev, index uint64) error {
	token := s.revisionToken(rev)
	if s.places == nil {
		params.After = &collect.Anchor{Revision: token, Index: int(index)}
		return nil
	}
	if index >= uint64(len(s.places)) {
		return errcode.New(errcode.UnknownReference, "the reference names no control of the newest observation")
	}
	return resumeAt(params, rs, token, framemerge.Cursor{At: s.places[index]})
}

// resumeAt sets params to continue the controls where c says, of the
// revision of token. A stream that continues inside a frame continues
// there first, in the frames on the way (rs), with the whole window; the
// top document's own scan waits for the next window (docs/frames.md).
func resumeAt(params *collect.Params, rs **framemerge.Resume, token string, c framemerge.Cursor) error {
	if len(c.At) == 1 {
		if c.AfterFrame != "" {
			params.AfterFrame = string(c.AfterFrame)
		} else {
			params.After = &collect.Anchor{Revision: token, Index: c.At[0].Index}
		}
		return nil
	}
	params.ControlsEnded = true
	r := framemerge.ResumeOf(rs, token)
	r.Controls, r.Window, r.AfterFrame = c.At, c.Window, c.AfterFrame
	return nil
}

// textFrom sets params to continue the text at part index of revision rev
// with units of it shown, inside frames as afterIn does.
func (s *Session) textFrom(params *collect.Params, rs **framemerge.Resume, rev uint64, index, units int) error {
	token := s.revisionToken(rev)
	if s.textPlaces == nil {
		params.Text = &collect.From{Revision: token, Index: index, Units: units}
		return nil
	}
	if index < 0 || index >= len(s.textPlaces) {
		return errcode.New(errcode.UnknownReference, "the cursor names no text of the newest observation")
	}
	at := s.textPlaces[index]
	if len(at) == 1 {
		params.Text = &collect.From{Revision: token, Index: at[0].Index, Units: units}
		return nil
	}
	params.Text = &collect.From{Revision: token, Frame: string(at[1].Frame)}
	r := framemerge.ResumeOf(rs, token)
	r.Text, r.Units = at, units
	return nil
}

// topRegion is where the top document's region stream continues for a
// view that passed its first i regions (of the newest revision): frames'
// regions do not continue (docs/frames.md), so the top's retained list
// resumes after the top's regions among them; ended when none is left.
func (s *Session) topRegion(i int) (index int, ended bool) {
	if s.places == nil {
		return i, false
	}
	top := 0
	for j, f := range s.regionFrames {
		if f == 0 {
			top++
			if j < i {
				index++
			}
		}
	}
	return index, index == top && s.regionsDone
}

// withFrames puts the content of top's frames in place (framemerge.Merge);
// rs, if set, is where streams that stopped inside frames resume.
func (s *Session) withFrames(ctx context.Context, params collect.Params, top *collect.Result, rs *framemerge.Resume, ahead bool) (*collect.Result, *framemerge.Out, error) {
	s.tab.WaitAttaches(ctx)
	return framemerge.Merge(ctx, tabFrames{t: s.tab, ahead: ahead}, s.frameAllowed, params, top, rs)
}

// tabFrames is a tab's frames as the merge's framemerge.Source; ahead: an
// observation asked for again, whose frames' collector calls may go beside
// their markings (marked).
type tabFrames struct {
	t     *tab.Tab
	ahead bool
}

func (f tabFrames) Frame(id cdp.FrameID) (tab.FrameView, bool) { return f.t.Frame(id) }

// Collect runs the collector in frame id with p, once the frame has a
// world, naming its own frames' owners first.
func (f tabFrames) Collect(ctx context.Context, id cdp.FrameID, p collect.Params) (*collect.Result, error) {
	v, ok := f.t.WaitFrameWorld(ctx, id)
	if !ok {
		if v.Crashed {
			return nil, tab.ErrCrashed
		}
		return nil, errors.New("the frame has no document")
	}
	f.t.NameFrames(ctx, v.Target, id, v.World, v.WorldID, observation.MaxFrameRecords*4)
	eval, expr := evaluator(f.t.EvaluatorIn(v.Target, v.World)), collect.Expression(p)
	if p.RealPages {
		// The frame's listener marks, within what is left of the
		// observation's window (tool version 1.9.0).
		var released tab.Released
		var err error
		eval, released, err = marked(ctx, eval, expr, f.ahead && f.t.FrameMarkedBefore(v), func() (tab.Marking, error) {
			return f.t.MarkFrameListeners(ctx, v, min(max(p.Window, 0), observation.WindowSize))
		})
		if err != nil {
			return nil, err
		}
		defer released()
	}
	res, err := collectIn(ctx, eval, expr, collect.Decode, "a frame could not be observed")
	if err != nil {
		return nil, err
	}
	if res.Error != "" {
		return nil, continuationError(res.Error, p.After == nil)
	}
	return res, nil
}
