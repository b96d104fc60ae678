package chromium

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/framemerge"
	"github.com/veetbot/veetbrowser/errcode"
)

// Actions inside frames (tool version 1.7.0, docs/frames.md). A control of
// a frames-mode revision is resolved to the frame its collector retained it
// in; the action's guards run in that frame's world, exactly as in the top
// document, and a pointer action's point is carried up through every
// owner, each hit-tested in its own document, to where the page shows it:
// an element over a frame stops the action. Trusted input is dispatched to
// the page, which Chromium routes to the frame.

// inFrame is where the running action's control lives when it is in a
// frame: the frame's world, and the owners from the top document down.
type inFrame struct {
	target *chromedp.Target
	world  string
	// owners are the documents from the top down that hold the frames
	// leading to the control, frames[i] being the frame whose owner
	// owners[i]'s document holds.
	owners framemerge.Place
	frames []cdp.FrameID
}

type point struct{ x, y float64 }

// frameControl resolves index of revision rev in a frames-mode revision,
// and sets the action's frame when the control is in one.
func (s *Session) frameControl(rev, index uint64) (collect.Target, error) {
	if index >= uint64(len(s.places)) {
		return collect.Target{}, errcode.New(errcode.UnknownReference, "the reference names no control of the newest observation")
	}
	at := s.places[index]
	last := at[len(at)-1]
	ct := collect.Target{Revision: s.revisionToken(rev), Index: uint64(last.Index), Doc: last.Doc}
	if len(at) == 1 {
		return ct, nil
	}
	f, ok := s.tab.Frame(last.Frame)
	if !ok || f.World == "" || f.Target == nil {
		return collect.Target{}, errcode.New(errcode.StaleReference, "the control's frame is gone or loading another document; observe again")
	}
	if f.Crashed {
		return collect.Target{}, errcode.New(errcode.PageCrashed, "the control's frame crashed; observe again")
	}
	act := &inFrame{target: f.Target, world: f.World, owners: at[:len(at)-1]}
	for _, l := range at[1:] {
		act.frames = append(act.frames, l.Frame)
	}
	s.act = act
	return ct, nil
}

// leaveFrame ends the running action's frame.
func (s *Session) leaveFrame() { s.act = nil }

// eval runs a collector call in the running action's world: its frame's,
// or the top document's.
func (s *Session) eval(ctx context.Context, expr string) ([]byte, error) {
	if s.act == nil {
		return s.tab.Evaluate(ctx, expr)
	}
	raw, err := s.tab.EvaluateIn(ctx, s.act.target, s.act.world, expr)
	if err != nil && errcode.Of(err) == errcode.CaptureFailed {
		// The frame's world is gone: it navigated or was removed.
		return nil, errcode.Wrap(errcode.StaleReference, err, "the control's frame is gone or loading another document; observe again")
	}
	return raw, err
}

// evalOwner runs an owner call in the document of o (the top document's
// when o.Frame is "") and maps its refusal to a public error.
func (s *Session) evalOwner(ctx context.Context, o framemerge.Link, expr string) (*collect.PointResult, error) {
	var eval evaluator = s.tab.Evaluate
	if o.Frame != "" {
		f, ok := s.tab.Frame(o.Frame)
		if !ok || f.World == "" || f.Target == nil {
			return nil, errcode.New(errcode.StaleReference, "a frame holding the control is gone; observe again")
		}
		eval = s.tab.EvaluatorIn(f.Target, f.World)
	}
	return collectOr(ctx, eval, expr, collect.DecodeOwner, "a frame holding the control could not be checked", func(r collect.Refusal) error {
		w, ok := refusalWords[r]
		if !ok || w.owner == "" {
			// Decoding admits only the refusals an owner call may answer
			// with, each of which has its words.
			return errcode.New(errcode.NotActionable, "another element covers the control's frame; close it or observe again")
		}
		return errcode.New(w.code, "%s", w.owner)
	})
}

// revealOwners scrolls the running action's owners into view, from the top
// document down.
func (s *Session) revealOwners(ctx context.Context) error {
	if s.act == nil {
		return nil
	}
	for i, o := range s.act.owners {
		req := collect.OwnerRequest{Frame: string(s.act.frames[i]), Doc: o.Doc}
		if _, err := s.evalOwner(ctx, o, collect.RevealOwner(req)); err != nil {
			return err
		}
	}
	return nil
}

// throughOwners carries a point of the running action's frame up to the
// page, hit-testing it at every owner.
func (s *Session) throughOwners(ctx context.Context, at point) (point, error) {
	if s.act == nil {
		return at, nil
	}
	for i := len(s.act.owners) - 1; i >= 0; i-- {
		o := s.act.owners[i]
		req := collect.OwnerRequest{Frame: string(s.act.frames[i]), Doc: o.Doc, X: at.x, Y: at.y}
		r, err := s.evalOwner(ctx, o, collect.ThroughOwner(req))
		if err != nil {
			return point{}, err
		}
		at = point{r.X, r.Y}
	}
	return at, nil
}
