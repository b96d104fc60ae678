package chromium

import (
	"github.com/veetbot/veetbrowser/browser/chromium/internal/egress"
	"github.com/veetbot/veetbrowser/errcode"
)

// Egress is the egress proxy of browsers on another machine
// (Options.Egress): one listener, on an address of this machine that the
// browsers reach, serving each 1.9.0 session's browser context by
// credentials of its own. Without them it answers 407 and connects to
// nothing, so others who reach the address cannot use it
// (docs/navigation.md).
type Egress struct{ proxy *egress.Proxy }

// ListenEgress listens on addr, host:port of this machine as the remote
// browser dials it (port 0 picks a free one; Addr says which). An
// unspecified host (0.0.0.0, ::, empty) is refused: the browser is told
// this very address.
func ListenEgress(addr string) (*Egress, error) {
	if egress.Unspecified(addr) {
		return nil, errcode.New(errcode.InvalidArgument, "the egress address %s is what the browser connects to: name an address of this machine it reaches, not an unspecified one", errcode.Quote(addr))
	}
	p, err := egress.Listen(addr)
	if err != nil {
		return nil, errcode.Wrap(errcode.InvalidArgument, err, "cannot listen for the egress proxy on %s", errcode.Quote(addr))
	}
	return &Egress{proxy: p}, nil
}

// Addr is the address the proxy listens on and the browsers connect to.
func (e *Egress) Addr() string { return e.proxy.Addr() }

// Close stops the proxy and every connection through it.
func (e *Egress) Close() error { return e.proxy.Close() }
