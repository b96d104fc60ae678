package veetbrowser

import (
	"context"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
)

// A person can take a session's page over unasked (the control room's
// Take over, docs/controlroom.md): the page is held exactly as during a
// browser_handoff (the same held flag, the same PersonInput), and the
// agent's page calls fail at once with human_in_control until the person
// hands it back. Hand back observes the page afresh, so every ref the
// agent held is stale, and records the takeover as the session's own
// event.

// Who holds the page (reopeningPage.held): 0 is the agent.
const (
	heldByHandoff   = 1 // the agent asked (browser_handoff)
	heldByTakeover  = 2 // a person took it unasked
	heldHandingBack = 3 // and hands it back: the fresh observation is being taken
)

// Bounds of a takeover.
const (
	// maxAgentCalls is the weight of reopeningPage.agent: more page calls
	// than a session ever runs at once.
	maxAgentCalls = 1 << 20
	// TakeOverWait is how long a takeover waits for the agent's running
	// page call to end (one waiting for an approval can take minutes);
	// past it the takeover is refused and the agent keeps the page.
	TakeOverWait = 10 * time.Second
)

// EventTakeover is the tool name of a takeover's record: an event of the
// session, not a tool the agent called. It holds no view, so replay
// passes over it.
const EventTakeover = "person_takeover"

// TakeOver makes a person hold the page, unasked. It waits, at most
// TakeOverWait, for the agent's running page call to end; a page a person
// holds already is human_in_control.
func (s *Session) TakeOver(ctx context.Context) error {
	if !s.page.held.CompareAndSwap(0, heldByTakeover) {
		return errcode.New(errcode.HumanInControl, "a person already holds the page")
	}
	wctx, cancel := context.WithTimeout(ctx, TakeOverWait)
	defer cancel()
	if err := s.page.agent.Acquire(wctx, maxAgentCalls); err != nil {
		s.page.held.Store(0)
		return errcode.New(errcode.Timeout, "the agent's call is still running (it may wait for an approval): the page stays the agent's; try again when it ends")
	}
	s.page.agent.Release(maxAgentCalls)
	s.mu.Lock()
	s.takenAt = time.Now()
	s.mu.Unlock()
	return nil
}

// HandBack ends a takeover: the page is observed afresh while the person
// still holds it, so every ref the agent was given is stale before any
// agent call can run again, and the takeover is recorded (by whom, when,
// how long, "person input"; never what they did). The agent's next view
// is a whole one.
func (s *Session) HandBack(ctx context.Context, by string) error {
	if !s.page.held.CompareAndSwap(heldByTakeover, heldHandingBack) {
		return errcode.New(errcode.NotActionable, "no person took this page over")
	}
	s.mu.Lock()
	began := s.takenAt
	s.mu.Unlock()
	_, oerr := s.observeAfterPerson(ctx)
	s.shown.mu.Lock()
	s.shown.obs, s.shown.given, s.shown.alias = nil, nil, nil // no delta since, and no ref carried, from a view before
	s.shown.mu.Unlock()
	held := time.Since(began)
	s.page.held.Store(0)
	rec := s.read(EventTakeover, struct{}{})
	rec.call.StartedAt = began
	rec.handoff = &handoffRecord{By: by, Began: began.UTC(), HeldMS: held.Milliseconds(), Ended: "handed_back", Input: "person input"}
	if oerr != nil {
		rec.handoff.Ended = string(errcode.Of(oerr))
	}
	_, err := rec.finish(ctx, nil, oerr)
	return err
}
