package egress

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// A keyed proxy (a browser on another machine; here on 127.0.0.2, another
// loopback address) answers 407 to a request or tunnel without admitted
// credentials, with wrong ones and with revoked ones, and dials nothing
// for it; with a session's credentials the request is held to that
// session's rules alone, and the credentials are not sent on.
func TestKeyedProxyAsksForCredentials(t *testing.T) {
	var sawAuth atomic.Value
	sawAuth.Store("")
	srv, conns := server(t)
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawAuth.Store(r.Header.Get("Proxy-Authorization") + r.Header.Get("Authorization"))
		fmt.Fprint(w, "hello")
	})
	host := strings.TrimPrefix(srv.URL, "http://")
	p, err := Listen("127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	allowAll := func(context.Context, *url.URL) error { return nil }
	refuseAll := func(context.Context, *url.URL) error { return errors.New("refused") }
	open, revokeOpen := p.Admit(Rules{Check: allowAll})
	closed, revokeClosed := p.Admit(Rules{Check: refuseAll})
	defer revokeClosed()

	get := func(c *Credentials) int {
		t.Helper()
		proxy := &url.URL{Scheme: "http", Host: p.Addr()}
		if c != nil {
			proxy.User = url.UserPassword(c.User, c.Password)
		}
		cl := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}
		res, err := cl.Get(srv.URL + "/")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	wrong := Credentials{User: open.User, Password: closed.Password}
	for name, c := range map[string]*Credentials{"none": nil, "wrong": &wrong, "user only": {User: open.User}} {
		if code := get(c); code != http.StatusProxyAuthRequired {
			t.Errorf("%s: answered %d, want 407", name, code)
		}
	}
	if status := tunnelStatus(t, p.Addr(), host, ""); !strings.Contains(status, "407") {
		t.Errorf("a tunnel without credentials: %q", status)
	}
	if n := conns.Load(); n != 0 {
		t.Fatalf("the upstream accepted %d connections from unauthenticated clients", n)
	}
	if code := get(&closed); code != http.StatusForbidden || conns.Load() != 0 {
		t.Fatalf("a session whose rules refuse: %d, %d connections", code, conns.Load())
	}
	if code := get(&open); code != http.StatusOK || conns.Load() != 1 {
		t.Fatalf("a session whose rules allow: %d, %d connections", code, conns.Load())
	}
	if a := sawAuth.Load().(string); a != "" {
		t.Errorf("the upstream was sent the credentials: %q", a)
	}
	auth := "Basic " + basic(open)
	if status := tunnelStatus(t, p.Addr(), host, auth); !strings.Contains(status, "200") {
		t.Errorf("a tunnel with credentials: %q", status)
	}
	revokeOpen()
	before := conns.Load()
	if code := get(&open); code != http.StatusProxyAuthRequired || conns.Load() != before {
		t.Errorf("revoked credentials: %d, %d new connections", code, conns.Load()-before)
	}
}

func basic(c Credentials) string {
	r := &http.Request{Header: http.Header{}}
	r.SetBasicAuth(c.User, c.Password)
	_, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	return token
}

// tunnelStatus sends a CONNECT to host through the proxy at addr (with
// auth as its Proxy-Authorization, if any) and returns the status line.
func tunnelStatus(t *testing.T, addr, host, auth string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n", host, host)
	if auth != "" {
		fmt.Fprintf(c, "Proxy-Authorization: %s\r\n", auth)
	}
	io.WriteString(c, "\r\n")
	status, _ := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(status)
}
