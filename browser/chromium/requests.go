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

// startEgress puts every session of a browser on this machine (launched,
// or attached on a loopback endpoint: instance.local) that checks its
// requests behind an egress proxy, which asks the session's request check
// (the destination rules, and the containment when contained) about every
// connection the session's pages make and counts what it refuses in the
// session's tally. That covers what CDP Fetch does not see: a popup's or an
// out-of-process frame's first moments, workers' and shared workers'
// requests and WebSockets, preconnect and DNS-prefetch hints.
//
// On a fresh profile, and on an attached browser, the session's first tab
// opens a browser context of its own with a proxy of the session's; an
// attached browser's default context, which its user's own tabs use, is
// left as it is. A browser on a persistent profile keeps
// the user's cookies in its default context, which a context of the
// session's own would not see: it was launched behind a proxy of its own
// (launchBrowser), and the session attaches its check and tally to it for
// its life, a session with no check too (allowing everything: the proxy
// must let an older tool version's pages through). A browser elsewhere
// cannot reach this process's loopback: given an Egress (Options.Egress,
// on an address it reaches) its session's context is put behind that
// keyed proxy with credentials of the session's own, which its tabs give
// the proxy's challenge; without one its sessions keep the guards alone
// (docs/navigation.md). The stop returned ends what startEgress started.
func (s *Session) startEgress(inst *instance, first *tab.Options) (stop func(), err error) {
	rules := egress.Rules{Check: s.requests.CheckRequest, Address: s.checkAddress}
	if s.requests.Blocked != nil {
		rules.Refused = s.requests.Blocked.Add
	}
	switch {
	case inst.egress != nil:
		s.proxied()
		return inst.egress.Attach(rules), nil
	case s.requests.CheckRequest == nil:
		return func() {}, nil
	case inst.keyed != nil:
		creds, revoke := inst.keyed.Admit(rules)
		first.Proxy = inst.keyed.Addr()
		s.requests.ProxyAuth = &tab.ProxyCredentials{User: creds.User, Password: creds.Password}
		s.proxied()
		return revoke, nil
	case !inst.local:
		return func() {}, nil
	}
	p, err := egress.Start(rules)
	if err != nil {
		return nil, errcode.Wrap(errcode.BrowserUnavailable, err, "could not start the session's request guard")
	}
	first.Proxy = p.Addr()
	s.proxied()
	return func() { p.Close() }, nil
}

// proxied tells the session's tabs that the egress proxy checks (and
// counts) what Fetch does not pause, so the in-page means that stand in for
// it without a proxy are left out.
func (s *Session) proxied() { s.requests.Proxied = true }

// tabOptions completes the options of a tab the session opens or adopts.
func (s *Session) tabOptions(o tab.Options) tab.Options {
	o.Frames, o.Timings, o.Logs = s.frames, s.timings, s.debugging
	o.CheckRequest, o.Blocked = s.requests.CheckRequest, s.requests.Blocked
	o.Contain, o.NoServiceWorkers, o.RefusedHosts = s.requests.Contain, s.requests.NoServiceWorkers, s.requests.RefusedHosts
	o.Proxied, o.ProxyAuth = s.requests.Proxied, s.requests.ProxyAuth
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
