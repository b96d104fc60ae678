package browsertest

import (
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Counted is a server that counts the requests and the TCP connections it
// accepts: what a test asserts a page never reached counts 0 in both (a
// preconnect hint opens a connection and sends no request).
type Counted struct {
	URL      string
	Requests atomic.Int32
	Conns    atomic.Int32

	mu      sync.Mutex
	paths   []string
	sockets []net.Conn // accepted WebSockets, closed with the server
}

// ServeCounted serves pages on addr (host:0, e.g. 127.0.0.2:0 for another
// loopback host), counting requests and connections; a path not in pages
// answers "tracked", to any origin, and a WebSocket handshake is accepted
// (and the socket then left open, silent). A host the machine cannot
// listen on skips the test.
func ServeCounted(tb testing.TB, addr string, pages map[string]string) *Counted {
	tb.Helper()
	h := &Counted{}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		tb.Skipf("cannot listen on %s (a second loopback address?): %v", addr, err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.Requests.Add(1)
		h.mu.Lock()
		h.paths = append(h.paths, r.URL.Path)
		h.mu.Unlock()
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			h.acceptSocket(w, r)
			return
		}
		body, ok := pages[r.URL.Path]
		switch {
		case !ok:
			w.Header().Set("Access-Control-Allow-Origin", "*")
			fmt.Fprint(w, "tracked")
			return
		case strings.HasSuffix(r.URL.Path, ".js"):
			w.Header().Set("Content-Type", "text/javascript")
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		}
		fmt.Fprint(w, body)
	}))
	srv.Listener.Close()
	srv.Listener = l
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			h.Conns.Add(1)
		}
	}
	srv.Start()
	tb.Cleanup(func() {
		srv.Close()
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, c := range h.sockets {
			c.Close()
		}
	})
	h.URL = srv.URL
	return h
}

// Seen is the paths requested so far.
func (h *Counted) Seen() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.paths...)
}

// webSocketGUID is the key suffix of a WebSocket handshake's accept value
// (RFC 6455).
const webSocketGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// acceptSocket answers a WebSocket handshake and keeps the connection
// open until the server closes.
func (h *Counted) acceptSocket(w http.ResponseWriter, r *http.Request) {
	sum := sha1.Sum([]byte(r.Header.Get("Sec-WebSocket-Key") + webSocketGUID))
	c, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	h.mu.Lock()
	h.sockets = append(h.sockets, c)
	h.mu.Unlock()
	fmt.Fprintf(buf, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n", base64.StdEncoding.EncodeToString(sum[:]))
	buf.Flush()
}
