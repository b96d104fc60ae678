package egress

import (
	"context"
	"errors"
	"net/netip"
	"net/url"
	"sync"
)

// Shared is the rules of a proxy a whole browser is launched with (its
// --proxy-server), for the sessions on its default context (a persistent
// profile's, which holds the profile's cookies and storage): the proxy
// cannot tell which page of the context asked, so a request passes only if
// every attached session's rules allow it, and a refusal is reported to
// every attached session. With no session attached, nothing of ours runs in
// the browser: what it asks for is the browser's own, and it is refused (and
// reported to nobody), as a session's proxy refuses the browser's own
// connections before its first page asks for anything.
type Shared struct {
	mu       sync.Mutex
	attached []*Rules // in the order they attached
}

// errNoSession refuses what the browser asks for with no session on it.
var errNoSession = errors.New("no session is open on this browser")

// Attach adds a session's rules until the detach it returns is called. A
// nil Check allows every request (a session of a tool version that checks
// none), a nil Address every address.
func (s *Shared) Attach(r Rules) (detach func()) {
	a := &r
	s.mu.Lock()
	s.attached = append(s.attached, a)
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			for i, b := range s.attached {
				if b == a {
					s.attached = append(s.attached[:i], s.attached[i+1:]...)
					break
				}
			}
		})
	}
}

// Rules are the rules every attached session's rules make together, for
// Start.
func (s *Shared) Rules() Rules {
	return Rules{Check: s.check, Address: s.address, Refused: s.refused}
}

func (s *Shared) sessions() []*Rules {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Rules(nil), s.attached...)
}

// every asks ask of each attached session's rules: the first refusal
// refuses, and with no session attached everything is refused.
func (s *Shared) every(ask func(*Rules) error) error {
	all := s.sessions()
	if len(all) == 0 {
		return errNoSession
	}
	for _, r := range all {
		if err := ask(r); err != nil {
			return err
		}
	}
	return nil
}

func (s *Shared) check(ctx context.Context, u *url.URL) error {
	return s.every(func(r *Rules) error {
		if r.Check == nil {
			return nil
		}
		return r.Check(ctx, u)
	})
}

func (s *Shared) address(a netip.Addr) error {
	return s.every(func(r *Rules) error {
		if r.Address == nil {
			return nil
		}
		return r.Address(a)
	})
}

func (s *Shared) refused(origin string) {
	for _, r := range s.sessions() {
		if r.Refused != nil {
			r.Refused(origin)
		}
	}
}
