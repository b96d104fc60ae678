package browsertest

import (
	"context"
	"sync"

	"github.com/veetbot/veetbrowser/browser"
)

// Tabs are a sidecar's Browsers for tests that need pages but not
// profiles: every lease's provider opens tabs of one shared browser, and
// closing it closes only those tabs. It counts the providers opened and
// closed, so a test sees a lease's browser go.
type Tabs struct {
	Browser browser.Provider

	mu             sync.Mutex
	opened, closed int
}

// Open returns a lease's provider; the profile directory is not used.
func (t *Tabs) Open(context.Context, string) (browser.Provider, error) {
	t.mu.Lock()
	t.opened++
	t.mu.Unlock()
	return &tabSet{owner: t}, nil
}

// Counts returns how many lease providers were opened and closed.
func (t *Tabs) Counts() (opened, closed int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.opened, t.closed
}

type tabSet struct {
	owner *Tabs

	mu   sync.Mutex
	open []browser.Session
	done bool
}

func (s *tabSet) NewSession(ctx context.Context, opts browser.SessionOptions) (browser.Session, error) {
	sess, err := s.owner.Browser.NewSession(ctx, opts)
	if err == nil {
		s.mu.Lock()
		s.open = append(s.open, sess)
		s.mu.Unlock()
	}
	return sess, err
}

func (s *tabSet) Close(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return nil
	}
	s.done = true
	for _, sess := range s.open {
		sess.Close(ctx)
	}
	s.owner.mu.Lock()
	s.owner.closed++
	s.owner.mu.Unlock()
	return nil
}
