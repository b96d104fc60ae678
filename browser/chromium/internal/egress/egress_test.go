package egress

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// server is an upstream that counts the TCP connections it accepts.
func server(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello") }))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// start runs a proxy that allows only allowed's host and records what it
// refuses.
func start(t *testing.T, allowed string) (*Proxy, func() []string) {
	var mu sync.Mutex
	var refused []string
	p, err := Start(Rules{Check: func(_ context.Context, u *url.URL) error {
		if u.Host == allowed {
			return nil
		}
		return errors.New("refused")
	}, Refused: func(origin string) {
		mu.Lock()
		refused = append(refused, origin)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), refused...) }
}

func get(t *testing.T, p *Proxy, target string) int {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: p.Addr()})}}
	res, err := c.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// connect opens a tunnel to host and sends first into it; it returns the
// proxy's answer to the CONNECT and the first line read after first.
func connect(t *testing.T, p *Proxy, host, first string) (string, string) {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", host, host)
	r := bufio.NewReader(c)
	status, _ := r.ReadString('\n')
	for {
		if l, err := r.ReadString('\n'); err != nil || l == "\r\n" {
			break
		}
	}
	io.WriteString(c, first)
	line, _ := r.ReadString('\n')
	return strings.TrimSpace(status), strings.TrimSpace(line)
}

// A refused request or tunnel never reaches its host and is reported by
// origin (a tunnel by what the browser sends into it), except before
// anything was let through; an allowed one goes through.
func TestProxyRefusesBeforeDialling(t *testing.T) {
	ok, okConns := server(t)
	other, otherConns := server(t)
	okHost := strings.TrimPrefix(ok.URL, "http://")
	otherHost := strings.TrimPrefix(other.URL, "http://")
	p, refused := start(t, okHost)

	if code := get(t, p, other.URL+"/early"); code != http.StatusForbidden {
		t.Fatalf("refused request: %d", code)
	}
	if len(refused()) != 0 {
		t.Errorf("reported before any page asked: %v", refused())
	}
	if code := get(t, p, ok.URL+"/"); code != http.StatusOK || okConns.Load() == 0 {
		t.Fatalf("allowed request: %d, %d connections", code, okConns.Load())
	}
	if code := get(t, p, other.URL+"/pixel.gif"); code != http.StatusForbidden {
		t.Fatalf("refused request: %d", code)
	}
	if status, _ := connect(t, p, otherHost, "GET /socket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\n"); !strings.Contains(status, "200") {
		t.Fatalf("refused tunnel: %q", status)
	}
	connect(t, p, otherHost, "\x16\x03\x01")
	want := []string{"http://" + otherHost, "ws://" + otherHost, "https://" + otherHost}
	if got := refused(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("reported %v, want %v", got, want)
	}
	if n := otherConns.Load(); n != 0 {
		t.Fatalf("the refused host accepted %d connections", n)
	}
	if _, line := connect(t, p, okHost, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); !strings.Contains(line, "200") {
		t.Errorf("allowed tunnel answered %q", line)
	}
}

// The address rule is asked about each address the proxy connects to,
// after its lookup, whatever the check said of the URL: with a check that
// lets everything through (as one would whose lookup a DNS server answered
// with another address), 127.0.0.2, which the rule refuses, is never
// dialled: the request is refused (403, not the 502 of a failed dial) and
// the tunnel closed, each reported; 127.0.0.1, which it allows, goes
// through.
func TestProxyDialsOnlyAllowedAddresses(t *testing.T) {
	srv, conns := server(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	var mu sync.Mutex
	var refused []string
	var asked []netip.Addr
	p, err := Start(Rules{
		Check: func(context.Context, *url.URL) error { return nil },
		Address: func(a netip.Addr) error {
			mu.Lock()
			asked = append(asked, a)
			mu.Unlock()
			if a.IsLoopback() && a != netip.MustParseAddr("127.0.0.1") {
				return errors.New("refused address")
			}
			return nil
		},
		Refused: func(origin string) { mu.Lock(); refused = append(refused, origin); mu.Unlock() },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if code := get(t, p, srv.URL+"/"); code != http.StatusOK || conns.Load() != 1 {
		t.Fatalf("an allowed address: %d, %d connections", code, conns.Load())
	}
	other := "127.0.0.2:" + port // nothing listens there: a dial would fail, not be refused
	if code := get(t, p, "http://"+other+"/"); code != http.StatusForbidden {
		t.Fatalf("a refused address answered %d", code)
	}
	if status, _ := connect(t, p, other, "\x16\x03\x01"); !strings.Contains(status, "200") {
		t.Fatalf("refused tunnel: %q", status)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"http://" + other, "https://" + other}
	if fmt.Sprint(refused) != fmt.Sprint(want) || conns.Load() != 1 {
		t.Errorf("reported %v, want %v; %d connections", refused, want, conns.Load())
	}
	if len(asked) < 3 {
		t.Errorf("the rule was asked about %v", asked)
	}
}
