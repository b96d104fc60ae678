package veetbrowser

import (
	"context"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/semaphore"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// reopeningPage is a session's page that outlives its browser. When the
// browser dies (or the connection to it drops), the call that finds it gone
// reports browser_unavailable, once; the next call runs on a fresh blank
// page, in a fresh browser if the provider can start one. References of the
// lost page are refused there: they belong to another page.
//
// Every surface goes through a Session, so none of them needs its own
// recovery.
type reopeningPage struct {
	// fixed at creation
	provider browser.Provider
	opts     browser.SessionOptions

	// held: a person holds the page, asked (heldByHandoff) or not
	// (heldByTakeover, handoff.go); the agent's calls are refused until it
	// is cleared (0).
	held atomic.Int32
	// agent is taken, one unit, by each of the agent's page calls for as
	// long as it runs; a takeover takes all of it to wait for the running
	// call to end.
	agent *semaphore.Weighted

	mu      sync.Mutex
	current browser.Session // nil once its browser is gone, until the next call opens a page
	closed  bool
}

var _ browser.Session = (*reopeningPage)(nil)

func openPage(ctx context.Context, provider browser.Provider, opts browser.SessionOptions) (*reopeningPage, error) {
	s, err := provider.NewSession(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &reopeningPage{provider: provider, opts: opts, current: s, agent: semaphore.NewWeighted(maxAgentCalls)}, nil
}

// page returns the current page, opening a fresh one after a loss.
func (p *reopeningPage) page(ctx context.Context) (browser.Session, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errcode.New(errcode.BrowserUnavailable, "the session is closed")
	}
	if p.current == nil {
		s, err := p.provider.NewSession(ctx, p.opts)
		if err != nil {
			return nil, err
		}
		p.current = s
	}
	return p.current, nil
}

// check passes on the failure of a call on s. Once the browser under s is
// gone, whatever the call reported, the failure is browser_unavailable and
// s is dropped, so that the next call opens a fresh page.
func (p *reopeningPage) check(s browser.Session, err error) error {
	if err == nil || !s.Gone() {
		return err
	}
	p.mu.Lock()
	lost := p.current == s
	if lost {
		p.current = nil
	}
	p.mu.Unlock()
	if lost {
		// Quick: the page is gone already; this releases what is left.
		s.Close(context.Background())
	}
	return errcode.Wrap(errcode.BrowserUnavailable, err, "the browser stopped; this call may or may not have taken effect, the page and its references are lost, and the next call opens a fresh page")
}

// on runs one of the agent's calls on the current page and passes on its
// failure (check); while a person holds the page (browser_handoff) it is
// human_in_control, and nothing reaches the page.
func on[R any](ctx context.Context, p *reopeningPage, call func(browser.Session) (R, error)) (R, error) {
	var none R
	// Taken before held is read: a takeover that set held waits for this
	// call, and a call that starts after it sees held.
	if err := p.agent.Acquire(ctx, 1); err != nil {
		return none, err
	}
	defer p.agent.Release(1)
	switch p.held.Load() {
	case heldByHandoff:
		return none, errcode.New(errcode.HumanInControl, "a person is in control of the page (browser_handoff); wait for the handoff to end")
	case heldByTakeover, heldHandingBack:
		return none, errcode.New(errcode.HumanInControl, "a person took the page over in the control room; wait until they hand it back, then observe it afresh")
	}
	return run(ctx, p, call)
}

// run runs one call on the current page, held or not: the person's input
// and picture.
func run[R any](ctx context.Context, p *reopeningPage, call func(browser.Session) (R, error)) (R, error) {
	s, err := p.page(ctx)
	if err != nil {
		var none R
		return none, err
	}
	res, err := call(s)
	return res, p.check(s, err)
}

func (p *reopeningPage) Navigate(ctx context.Context, url string) (*observation.Observation, error) {
	return on(ctx, p, func(s browser.Session) (*observation.Observation, error) { return s.Navigate(ctx, url) })
}

func (p *reopeningPage) Observe(ctx context.Context, req observation.Request) (*observation.Observation, error) {
	return on(ctx, p, func(s browser.Session) (*observation.Observation, error) { return s.Observe(ctx, req) })
}

func (p *reopeningPage) Act(ctx context.Context, a browser.Action, authorize browser.Authorize) (*browser.ActResult, error) {
	return on(ctx, p, func(s browser.Session) (*browser.ActResult, error) { return s.Act(ctx, a, authorize) })
}

func (p *reopeningPage) Step(ctx context.Context, a browser.Action, authorize browser.Authorize) (*browser.ActResult, error) {
	return on(ctx, p, func(s browser.Session) (*browser.ActResult, error) { return s.Step(ctx, a, authorize) })
}

func (p *reopeningPage) Upload(ctx context.Context, ref string, stage browser.Stage, authorize browser.Authorize) (*browser.ActResult, error) {
	return on(ctx, p, func(s browser.Session) (*browser.ActResult, error) { return s.Upload(ctx, ref, stage, authorize) })
}

func (p *reopeningPage) Find(ctx context.Context, req browser.FindRequest) (*observation.Observation, error) {
	return on(ctx, p, func(s browser.Session) (*observation.Observation, error) { return s.Find(ctx, req) })
}

func (p *reopeningPage) History(ctx context.Context, step browser.HistoryStep) (*observation.Observation, error) {
	return on(ctx, p, func(s browser.Session) (*observation.Observation, error) { return s.History(ctx, step) })
}

func (p *reopeningPage) Wait(ctx context.Context, req browser.WaitRequest) (*observation.Observation, error) {
	return on(ctx, p, func(s browser.Session) (*observation.Observation, error) { return s.Wait(ctx, req) })
}

func (p *reopeningPage) Tabs(ctx context.Context, req browser.TabsRequest) (*observation.Observation, error) {
	return on(ctx, p, func(s browser.Session) (*observation.Observation, error) { return s.Tabs(ctx, req) })
}

func (p *reopeningPage) Screenshot(ctx context.Context, req browser.ScreenshotRequest) (*browser.Screenshot, error) {
	return on(ctx, p, func(s browser.Session) (*browser.Screenshot, error) { return s.Screenshot(ctx, req) })
}

func (p *reopeningPage) Log(ctx context.Context, req browser.LogRequest) (*observation.Log, error) {
	return on(ctx, p, func(s browser.Session) (*observation.Log, error) { return s.Log(ctx, req) })
}

func (p *reopeningPage) Emulate(ctx context.Context, req browser.EmulateRequest) (*observation.Observation, error) {
	return on(ctx, p, func(s browser.Session) (*observation.Observation, error) { return s.Emulate(ctx, req) })
}

func (p *reopeningPage) PersonInput(ctx context.Context, in browser.PersonInput) error {
	_, err := run(ctx, p, func(s browser.Session) (struct{}, error) { return struct{}{}, s.PersonInput(ctx, in) })
	return err
}

func (p *reopeningPage) Screencast(ctx context.Context, each func([]byte)) error {
	_, err := run(ctx, p, func(s browser.Session) (struct{}, error) { return struct{}{}, s.Screencast(ctx, each) })
	return err
}

// picture is a masked capture for the person watching, held or not.
func (p *reopeningPage) picture(ctx context.Context) (*browser.Screenshot, error) {
	return run(ctx, p, func(s browser.Session) (*browser.Screenshot, error) {
		return s.Screenshot(ctx, browser.ScreenshotRequest{})
	})
}

// Gone reports whether the current page's browser is gone: the next call
// reports it, and the one after opens a fresh page.
func (p *reopeningPage) Gone() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.current != nil && p.current.Gone()
}

func (p *reopeningPage) Close(ctx context.Context) error {
	p.mu.Lock()
	s := p.current
	p.current, p.closed = nil, true
	p.mu.Unlock()
	if s == nil {
		return nil
	}
	return s.Close(ctx)
}
