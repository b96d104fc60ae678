// Package egress is the net under a session's request guard: a small HTTP
// proxy on 127.0.0.1 that the session's browser context sends every
// connection through (Target.createBrowserContext's proxyServer, or for a
// persistent profile's default context the browser's --proxy-server, whose
// rules are those of the sessions on it: Shared; either way with
// Chromium's implicit loopback bypass removed). It sees what CDP Fetch
// does not: connections opened before a session of their target is
// attached (a popup's first moments, an out-of-process frame's), a
// worker's or shared worker's WebSocket, a preconnect hint's connection.
// Each request (an absolute-URI one) and each tunnel (CONNECT: https,
// wss, and ws through a proxy) is checked before anything is dialled; a
// refused request is answered 403, a refused tunnel closed, each reported,
// and nothing leaves for its host. With a proxy, the browser resolves no destination name itself: the
// hint's DNS lookup happens here, only for what is allowed. And each address
// the proxy is about to connect to, after its own lookup, passes the
// destination rules (Rules.Address): what is dialled is what was checked,
// whatever a DNS server answered the check's lookup.
//
// A browser on another machine cannot reach 127.0.0.1: its proxy (Listen,
// keyed.go) listens on an address the operator chooses and serves each
// session's context by credentials of the session's own, answering 407 to
// anything without them.
package egress

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Check says whether a request to u may leave; Address whether the proxy
// may connect to an address; Refused is told the origin of each refused one
// (for a tunnel, whose scheme the proxy cannot see, the https origin of its
// host and port).
type (
	Check   func(ctx context.Context, u *url.URL) error
	Address func(netip.Addr) error
	Refused func(origin string)
)

// Rules are what a proxy asks and tells. Check is asked before anything is
// dialled, Address (nil: any address) as each connection is about to be
// made, to the address the name resolved to; a connection it refuses is a
// refusal like Check's. Refused may be nil.
type Rules struct {
	Check   Check
	Address Address
	Refused Refused
}

// refusedAddress is a dial the Address rule stopped.
type refusedAddress struct{ err error }

func (e *refusedAddress) Error() string { return "refused address: " + e.err.Error() }

// Bounds of the proxy's own waits: the check (a name lookup), a dial, and
// the idle connections it keeps to allowed hosts.
const (
	checkTimeout = 10 * time.Second
	dialTimeout  = 20 * time.Second
	maxIdleConns = 64
	peekTimeout  = 2 * time.Second
)

// Proxy is one browser context's proxy (a session's, or with Shared's
// rules a whole browser's: Start), or the proxy of a browser on another
// machine that serves every session of it, each by its own credentials
// (Listen, keyed.go).
type Proxy struct {
	ln   net.Listener
	srv  *http.Server
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup // the tunnels
	// route picks the rules of a request; nil refuses it, asking for
	// credentials (a keyed proxy's answer to a request without valid ones).
	route func(*http.Request) *route
	keys  keys // Listen's sessions; empty for Start
}

// route is the rules of one session (or of a Start proxy) with the
// connections made for them: each session dials and pools on its own, so
// no session's request rides a connection another's rules allowed.
type route struct {
	rules  Rules
	ctx    context.Context // ends the session's tunnels
	dialer net.Dialer
	tr     *http.Transport
	fwd    *httputil.ReverseProxy
	// paged: a request was let through. Until then no page of the
	// context has asked for anything (a fresh page is about:blank), so
	// what is refused is the browser's own (a search engine preconnect
	// as a context opens): refused, but not reported as a page's.
	paged atomic.Bool
}

// Start listens on a free port of 127.0.0.1 and serves until Close.
func Start(rules Rules) (*Proxy, error) {
	p, err := listen("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := newRoute(p.ctx, rules)
	p.route = func(*http.Request) *route { return r }
	context.AfterFunc(p.ctx, r.close)
	p.run()
	return p, nil
}

// listen makes a proxy listening on addr; the caller sets its route, then
// runs it, and it serves until Close.
func listen(addr string) (*Proxy, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	p := &Proxy{ln: ln, ctx: ctx, stop: stop}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: checkTimeout, BaseContext: func(net.Listener) context.Context { return ctx }}
	return p, nil
}

func (p *Proxy) run() { go p.srv.Serve(p.ln) }

func newRoute(ctx context.Context, rules Rules) *route {
	r := &route{rules: rules, ctx: ctx, dialer: net.Dialer{Timeout: dialTimeout}}
	if rules.Address != nil {
		// Called for each address the dial tries, after the lookup and
		// before the connection: the address connected to is one the
		// rules allow.
		r.dialer.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return &refusedAddress{err}
			}
			if err := rules.Address(ap.Addr()); err != nil {
				return &refusedAddress{err}
			}
			return nil
		}
	}
	// No proxy of the environment: what is allowed goes straight out.
	r.tr = &http.Transport{Proxy: nil, DialContext: r.dialer.DialContext, MaxIdleConns: maxIdleConns, MaxIdleConnsPerHost: maxIdleConns,
		IdleConnTimeout: 30 * time.Second, DisableCompression: true}
	r.fwd = &httputil.ReverseProxy{
		// The absolute URL as asked; no X-Forwarded headers. The
		// hop-by-hop headers, Proxy-Authorization among them, are not
		// forwarded.
		Rewrite:       func(*httputil.ProxyRequest) {},
		Transport:     r.tr,
		FlushInterval: -1, // event streams as they come
		ErrorHandler: func(w http.ResponseWriter, req *http.Request, err error) {
			if refused := new(refusedAddress); errors.As(err, &refused) {
				r.refuse(w, "http://"+req.URL.Host)
				return
			}
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	return r
}

func (r *route) close() { r.tr.CloseIdleConnections() }

// Addr is the proxy's host:port, for proxyServer.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Close stops the proxy and every connection through it; a nil proxy has
// nothing to stop.
func (p *Proxy) Close() error {
	if p == nil {
		return nil
	}
	p.stop()
	err := p.srv.Close()
	p.wg.Wait()
	return err
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r := p.route(req)
	if r == nil {
		askCredentials(w)
		return
	}
	if req.Method == http.MethodConnect {
		p.tunnel(w, req, r)
		return
	}
	u := req.URL
	if u.Scheme != "http" || u.Host == "" {
		// Not a proxy request (the browser sends https and ws through
		// CONNECT): nothing to forward.
		http.Error(w, "not a proxy request", http.StatusBadRequest)
		return
	}
	if !r.allowed(req.Context(), u) {
		r.refuse(w, "http://"+u.Host)
		return
	}
	r.paged.Store(true)
	r.fwd.ServeHTTP(w, req)
}

// tunnel answers a CONNECT to host:port: allowed if its https origin, or
// its http one (a ws tunnel), passes the check.
func (p *Proxy) tunnel(w http.ResponseWriter, req *http.Request, r *route) {
	host, port, err := net.SplitHostPort(req.Host)
	if err != nil {
		http.Error(w, "bad tunnel address", http.StatusBadRequest)
		return
	}
	if !r.allowed(req.Context(), &url.URL{Scheme: "https", Host: hostPort(host, port, "443")}) &&
		!r.allowed(req.Context(), &url.URL{Scheme: "http", Host: hostPort(host, port, "80")}) {
		r.refuseTunnel(w, host, port)
		return
	}
	r.paged.Store(true)
	up, err := r.dialer.DialContext(req.Context(), "tcp", net.JoinHostPort(host, port))
	if refused := new(refusedAddress); errors.As(err, &refused) {
		r.refuseTunnel(w, host, port)
		return
	}
	if err != nil {
		http.Error(w, "could not connect", http.StatusBadGateway)
		return
	}
	down, buf, err := hijack(w)
	if err != nil {
		up.Close()
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		stop := context.AfterFunc(r.ctx, func() { up.Close(); down.Close() })
		defer stop()
		done := make(chan struct{})
		go func() {
			io.Copy(up, buf) // what the browser sent after its CONNECT, then the rest
			closeWrite(up)
			close(done)
		}()
		io.Copy(down, up)
		closeWrite(down)
		<-done
		up.Close()
		down.Close()
	}()
}

// hijack takes the client's connection and tells it the tunnel is open.
func hijack(w http.ResponseWriter) (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("no tunnel")
	}
	down, buf, err := hj.Hijack()
	if err != nil {
		return nil, nil, err
	}
	if _, err := down.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n")); err != nil {
		down.Close()
		return nil, nil, err
	}
	return down, buf, nil
}

// refuseTunnel refuses a tunnel to host:port, which is never dialled. Its
// origin is named by the first byte the browser sends into it (a TLS
// handshake: https or wss; anything else: a ws handshake, the only plain
// protocol the browser tunnels), read from the client within peekTimeout;
// then the connection is closed, and the browser sees it fail.
func (r *route) refuseTunnel(w http.ResponseWriter, host, port string) {
	origin := originOf("https", host, port, "443")
	down, buf, err := hijack(w)
	if err != nil {
		r.refuse(w, origin)
		return
	}
	defer down.Close()
	down.SetReadDeadline(time.Now().Add(peekTimeout))
	if b, err := buf.Reader.Peek(1); err == nil && b[0] != tlsHandshake {
		origin = originOf("ws", host, port, "80")
	}
	r.report(origin)
}

// tlsHandshake is the first byte of a TLS client hello record.
const tlsHandshake = 0x16

func (r *route) allowed(ctx context.Context, u *url.URL) bool {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	return r.rules.Check(ctx, u) == nil
}

func (r *route) refuse(w http.ResponseWriter, origin string) {
	r.report(origin)
	http.Error(w, "blocked: this session may not reach "+origin, http.StatusForbidden)
}

func (r *route) report(origin string) {
	if r.rules.Refused != nil && r.paged.Load() {
		r.rules.Refused(origin)
	}
}

// hostPort is host:port, the port left out where it is the scheme's own.
func hostPort(host, port, def string) string {
	if port == def {
		return bracket(host)
	}
	return net.JoinHostPort(host, port)
}

func originOf(scheme, host, port, def string) string {
	return strings.ToLower(scheme + "://" + hostPort(host, port, def))
}

func bracket(host string) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]"
	}
	return host
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
}
