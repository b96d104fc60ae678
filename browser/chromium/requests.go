package chromium

import (
	"github.com/veetbot/veetbrowser/browser/chromium/internal/egress"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// The request guard of a session (tool version 1.9.0, docs/navigation.md):
// every tab the session opens or adopts pauses each of its requests and
// asks the session's request check; the requests refused, on any tab, go
// into one tally that the next observation reports as its Blocked record.

// startEgress puts a contained session of a launched browser behind an
// egress proxy of its own: its first tab opens a browser context whose
// every connection goes through the proxy, which asks the session's request
// check and counts what it refuses in the session's tally. That covers what
// CDP Fetch does not see (a popup's or an out-of-process frame's first
// moments, workers' WebSockets, preconnect hints). An attached browser may
// not reach this process's loopback, and a browser on a persistent profile
// keeps the user's cookies in its default context, which a context of the
// session's own would not see: their sessions keep the guards alone
// (docs/navigation.md). The proxy returned (nil when none) is the caller's
// to close.
func (s *Session) startEgress(inst *instance, first *tab.Options) (*egress.Proxy, error) {
	if s.requests.Contain == nil || inst.pid == 0 || inst.persistent {
		return nil, nil
	}
	p, err := egress.Start(s.requests.CheckRequest, s.requests.Blocked.Add)
	if err != nil {
		return nil, errcode.Wrap(errcode.BrowserUnavailable, err, "could not start the session's request guard")
	}
	first.Proxy = p.Addr()
	s.requests.Contain.Proxied = true
	return p, nil
}

// tabOptions completes the options of a tab the session opens or adopts.
func (s *Session) tabOptions(o tab.Options) tab.Options {
	o.Frames, o.Timings, o.Logs = s.frames, s.timings, s.debugging
	o.CheckRequest, o.Blocked = s.requests.CheckRequest, s.requests.Blocked
	o.Contain, o.NoServiceWorkers, o.RefusedHosts = s.requests.Contain, s.requests.NoServiceWorkers, s.requests.RefusedHosts
	return o
}

// stampBlocked puts the requests blocked since the previous observation on
// obs. The tally is emptied: an observation that fails after this loses
// the count, never shows it twice.
func (s *Session) stampBlocked(obs *observation.Observation) {
	if s.requests.Blocked != nil {
		obs.Blocked = s.requests.Blocked.Take()
	}
}
