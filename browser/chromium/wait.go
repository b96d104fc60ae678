package chromium

import (
	"context"
	"errors"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// errDialogDuringWait ends a wait that a JavaScript dialog interrupted: the
// page cannot be read until the agent answers it.
var errDialogDuringWait = errcode.New(errcode.NotActionable, "a JavaScript dialog opened during the wait; observe the page and answer it")

// Wait checks one condition on the page every Timings.WaitPoll (each check
// is one cheap call into the page, or none for the network), holding the
// operation lock (a wait is bounded by MaxWait), until it holds, then
// observes the page; at req.Timeout it is timeout and the page's newest
// observation stays as it was. A crash or a dialog ends it with its own
// error. The text condition reads what browser_find reads (collect.HoldsText):
// one part of the readable text must hold every word of req.Text.
func (s *Session) Wait(ctx context.Context, req browser.WaitRequest) (*observation.Observation, error) {
	if !s.interactions {
		return nil, errcode.New(errcode.InvalidArgument, "wait needs tool version 1.8.0 or later")
	}
	if err := req.Check(); err != nil {
		return nil, err
	}
	if req.Text != "" {
		if _, err := collect.QueryWords(req.Text); err != nil {
			return nil, err
		}
	}
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.lock.Release(1)
	if s.tab.Dialog() != nil {
		return nil, errcode.New(errcode.NotActionable, "a JavaScript dialog is open; answer it before waiting")
	}
	var holds func(context.Context) (bool, error)
	switch {
	case req.Text != "":
		expr := collect.HoldsText(collect.HoldsTextRequest{Text: req.Text})
		holds = func(ctx context.Context) (bool, error) {
			return collectIn(ctx, s.tab.Evaluate, expr, collect.DecodeHoldsText, "the page could not be read")
		}
	case req.RefGone != "":
		ct, err := s.control(req.RefGone)
		if err != nil {
			return nil, err
		}
		defer s.leaveFrame()
		holds = func(ctx context.Context) (bool, error) { return s.controlGone(ctx, ct) }
	default:
		holds = func(context.Context) (bool, error) { return s.tab.NetworkIdle(browser.NetworkIdleQuiet), nil }
	}
	if err := s.waitUntil(ctx, req.Timeout, holds); err != nil {
		return nil, err
	}
	return s.observe(ctx, observation.Request{})
}

// waitUntil checks holds every WaitPoll until it holds or timeout passes.
// A check that finds the document changing under it found nothing yet.
func (s *Session) waitUntil(ctx context.Context, timeout time.Duration, holds func(context.Context) (bool, error)) error {
	octx, end, err := s.tab.Begin(ctx) // a crash or a dialog interrupts it
	if err != nil {
		return err
	}
	defer end()
	deadline := time.Now().Add(timeout)
	for {
		cctx, cancel := context.WithDeadline(octx, deadline)
		ok, err := holds(cctx)
		cancel()
		if octx.Err() != nil || errors.Is(err, tab.ErrDialog) {
			return waitInterrupted(octx, err)
		}
		if ok {
			return nil
		}
		if err != nil && errcode.Of(err) != errcode.DocumentChanged && time.Now().Before(deadline) {
			return err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return errcode.New(errcode.Timeout, "the condition did not hold within %d ms", timeout.Milliseconds())
		}
		select {
		case <-time.After(min(s.timings.WaitPoll, left)):
		case <-octx.Done():
			return waitInterrupted(octx, octx.Err())
		}
	}
}

// waitInterrupted is the error of a wait its operation context ended.
func waitInterrupted(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), tab.ErrDialog) || errors.Is(err, tab.ErrDialog) {
		return errDialogDuringWait
	}
	if err == nil {
		err = ctx.Err()
	}
	return tab.Classify(ctx, err, errcode.CaptureFailed, "the wait was interrupted")
}

// controlGone reports whether the control of ct has left the page, or is
// no longer visible. Disabled, it is still there.
func (s *Session) controlGone(ctx context.Context, ct collect.Target) (bool, error) {
	r, err := collectIn(ctx, s.eval, collect.Inspect(collect.GuardRequest{Target: ct}), collect.DecodeInspect, "the control could not be checked")
	if errcode.Of(err) == errcode.StaleReference {
		return true, nil // its frame is gone or holds another document
	}
	if err != nil {
		return false, err // a document changing under the check: see the next
	}
	switch r.Error {
	case collect.Detached, collect.Hidden, collect.Stale, collect.DocumentChanged:
		return true, nil
	}
	return false, nil
}
