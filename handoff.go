package veetbrowser

import (
	"context"
	"encoding/json"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/tools"
)

// Takeover (tool version 1.10.0, docs/controlroom.md): browser_handoff
// hands the page to a person, who drives it from the control room, and
// returns a fresh observation once they hand it back. While they hold it,
// every other page call of the session is human_in_control: it fails at
// once rather than waiting, so that an agent never acts on a page it has
// not seen since the person changed it. Only the person's own input and
// the room's picture reach the page then; both still take the page's
// operation lock.

// PersonInput is one input of the person holding the page: a click at a
// point of the picture, text, or a key.
type PersonInput = browser.PersonInput

// Handoffer is the person browser_handoff hands the page to: the control
// room's page of the session.
type Handoffer interface {
	// Handoff shows reason to a person and waits, at most timeout, until
	// they hand the page back (HandedBack) or ctx ends. Meanwhile they may
	// drive the page through Session.PersonInput.
	Handoff(ctx context.Context, reason string, timeout time.Duration) (HandoffEnd, error)
}

// HandoffEnd is how a handoff ended: whether the person handed the page
// back before the timeout, and who held it (for the record).
type HandoffEnd struct {
	HandedBack bool
	By         string
}

// HandoffOptions are one browser_handoff: what the person is asked to do,
// and how long the agent waits at most (0: tools.DefaultHandoff; at most
// tools.MaxHandoff).
type HandoffOptions struct {
	Reason  string
	Timeout time.Duration
}

// handoffRecord is what the record keeps of a handoff: who held the page,
// from when, how long and how it ended. What the person typed or clicked
// is never recorded, anywhere: the record says only "person input".
type handoffRecord struct {
	By     string    `json:"by"`
	Began  time.Time `json:"began"`
	HeldMS int64     `json:"held_ms"`
	Ended  string    `json:"ended"`
	Input  string    `json:"input"`
}

// Handoff asks a person to take the page over (tool version 1.10.0) and
// waits until they hand it back or the timeout passes; it then observes
// the page afresh, so every older ref is stale, and the view says how
// long the person had it.
func (s *Session) Handoff(ctx context.Context, opts HandoffOptions) (*Result, error) {
	a := tools.HandoffArgs{Reason: opts.Reason}
	if opts.Timeout != 0 {
		a.TimeoutS = max(1, int(opts.Timeout/time.Second)) // the parser judges the bound
	}
	raw, err := json.Marshal(a)
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "the arguments cannot be encoded")
	}
	return s.Call(ctx, tools.Handoff, raw)
}

func (s *Session) handoffCall(ctx context.Context, a tools.HandoffArgs) (*Result, error) {
	rec, err := s.intent(ctx, tools.Handoff, a)
	if err != nil {
		return nil, err
	}
	res, err := s.handoffTo(ctx, rec, a)
	return rec.finish(ctx, res, err)
}

func (s *Session) handoffTo(ctx context.Context, rec *callRecord, a tools.HandoffArgs) (*Result, error) {
	if s.handoff == nil {
		return nil, errcode.New(errcode.HandoffUnavailable, "no person can take over this session: it has no control room")
	}
	if !s.page.held.CompareAndSwap(0, heldByHandoff) {
		return nil, errcode.New(errcode.HumanInControl, "a person already holds the page")
	}
	began := time.Now()
	end, err := s.handoff.Handoff(ctx, a.Reason, a.Timeout())
	held := time.Since(began)
	s.page.held.Store(0)
	out := &projection.Handoff{HeldS: int(held / time.Second), Ended: projection.HandoffTimeout}
	if end.HandedBack {
		out.Ended = projection.HandedBack
	}
	rec.handoff = &handoffRecord{By: end.By, Began: began.UTC(), HeldMS: held.Milliseconds(), Ended: out.Ended, Input: "person input"}
	if err != nil {
		rec.handoff.Ended = string(errcode.Of(err))
		return nil, err
	}
	obs, err := s.observeAfterPerson(ctx)
	if err != nil {
		return nil, err
	}
	// A whole view, never a delta: the person may have changed anything,
	// and only this view's refs are valid.
	obs.Version = s.version.Name
	opts := tools.ViewOptions(s.version, s.budget, 0, 0)
	opts.Next, opts.Handoff = obs.NextKey, out
	view, err := s.view(obs, &opts, false, false)
	if err != nil {
		return nil, err
	}
	return &Result{Observation: obs, View: view, projected: opts}, nil
}

// handBackSettle bounds how long the view after a hand-back waits for a
// document the person's last input started (a form they submitted) to
// stand.
const handBackSettle = 5 * time.Second

// observeAfterPerson observes the page a person handed back (after
// browser_handoff, or a takeover while it still holds the page): a page
// between documents is observed again until its new document stands, at
// most handBackSettle, so that the agent gets the page the person left.
func (s *Session) observeAfterPerson(ctx context.Context) (*observation.Observation, error) {
	deadline := time.Now().Add(handBackSettle)
	for {
		// run: the page may still be held (a takeover's hand-back
		// observes before it lets the agent in).
		obs, err := run(ctx, s.page, func(b browser.Session) (*observation.Observation, error) {
			return b.Observe(ctx, observation.Request{})
		})
		if errcode.Of(err) != errcode.DocumentChanged || time.Now().After(deadline) {
			return obs, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// PersonInput forwards a person's input to the page while they hold it
// (after browser_handoff): never while the agent does, never recorded.
func (s *Session) PersonInput(ctx context.Context, in PersonInput) error {
	if s.page.held.Load() == 0 {
		return errcode.New(errcode.NotActionable, "the agent holds the page: a person drives it only after browser_handoff or a takeover")
	}
	return s.page.PersonInput(ctx, in)
}
