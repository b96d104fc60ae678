package egress

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net"
	"net/http"
	"strings"
	"sync"
)

// A browser on another machine cannot reach this machine's loopback, so
// its sessions' proxy listens on an address the operator chooses, which
// others may reach too. There one proxy serves every session of the
// browser, each session's context by credentials of its own (Admit), which
// the session gives the browser's proxy challenge (CDP Fetch.authRequired)
// and nobody else knows: a request or tunnel without them is answered 407
// and nothing is dialled; with them, it is held to that session's rules.

// Listen serves a keyed proxy on addr (host:port of this machine, which
// the browser can reach; port 0 picks one) until Close. With no session
// admitted it answers every request 407.
func Listen(addr string) (*Proxy, error) {
	p, err := listen(addr)
	if err != nil {
		return nil, err
	}
	p.route = p.keys.route
	p.run()
	return p, nil
}

// Credentials are what a session answers its proxy's challenge with.
type Credentials struct{ User, Password string }

// keys are a keyed proxy's admitted sessions.
type keys struct {
	mu   sync.Mutex
	list []*key
}

type key struct {
	token []byte // base64 of user:password, as Proxy-Authorization carries it
	r     *route
}

// realm names the proxy in its challenge.
const realm = "veetbrowser egress"

// Admit gives a session of rules credentials of its own, until the revoke
// it returns is called, which also ends the session's tunnels. It may be
// called only on a proxy from Listen.
func (p *Proxy) Admit(rules Rules) (Credentials, func()) {
	c := Credentials{User: rand.Text(), Password: rand.Text() + rand.Text()} // at least 128 and 256 random bits
	ctx, end := context.WithCancel(p.ctx)
	k := &key{token: []byte(base64.StdEncoding.EncodeToString([]byte(c.User + ":" + c.Password))), r: newRoute(ctx, rules)}
	context.AfterFunc(ctx, k.r.close)
	p.keys.mu.Lock()
	p.keys.list = append(p.keys.list, k)
	p.keys.mu.Unlock()
	var once sync.Once
	return c, func() {
		once.Do(func() {
			p.keys.mu.Lock()
			for i, o := range p.keys.list {
				if o == k {
					p.keys.list = append(p.keys.list[:i], p.keys.list[i+1:]...)
					break
				}
			}
			p.keys.mu.Unlock()
			end()
		})
	}
}

// route is the rules of the session whose credentials the request carries
// (Basic); nil if it carries none that are admitted. Every admitted key
// is compared, each in constant time, so the answer's timing tells
// nothing of how much of a token was right.
func (ks *keys) route(req *http.Request) *route {
	scheme, token, _ := strings.Cut(req.Header.Get("Proxy-Authorization"), " ")
	if !strings.EqualFold(scheme, "Basic") {
		return nil
	}
	got := []byte(strings.TrimSpace(token))
	ks.mu.Lock()
	defer ks.mu.Unlock()
	var found *route
	for _, k := range ks.list {
		if subtle.ConstantTimeCompare(got, k.token) == 1 {
			found = k.r
		}
	}
	return found
}

// askCredentials answers a request without admitted credentials: 407, and
// the connection closed, so a client cannot keep trying on it.
func askCredentials(w http.ResponseWriter) {
	w.Header().Set("Proxy-Authenticate", `Basic realm="`+realm+`"`)
	w.Header().Set("Connection", "close")
	http.Error(w, "proxy authentication required", http.StatusProxyAuthRequired)
}

// Unspecified reports whether addr's host is the unspecified address
// (0.0.0.0, ::) or empty: a browser cannot be pointed at it.
func Unspecified(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return host == "" || ip != nil && ip.IsUnspecified()
}
