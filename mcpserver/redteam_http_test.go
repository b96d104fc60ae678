package mcpserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/tools"
)

// The red team's HTTP rows (docs/redteam.md): requests a hostile client or
// a hostile web page can send to the streamable HTTP transport. Each row
// asserts its status and stable JSON error code (or, for a tool call, the
// tool's error code); then a good client still drives the browser on the
// same server.

type httpAbuse struct {
	name string
	// send makes the request on the server at base (a session of the good
	// token is open: sid) and returns the status and the body.
	send   func(t *testing.T, base, sid string) (int, string)
	status int
	code   string // the error code in the body
}

const goodAuth = "Bearer " + testToken

// raw sends one request and returns its status and body (at most 64 KiB).
func raw(t *testing.T, method, target string, header map[string]string, body io.Reader) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(browsertest.Context(t, time.Minute), method, target, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	return res.StatusCode, string(b)
}

func rawPost(header map[string]string, body string) func(*testing.T, string, string) (int, string) {
	return func(t *testing.T, base, sid string) (int, string) {
		return raw(t, http.MethodPost, base, header, strings.NewReader(body))
	}
}

// toolCall is a tools/call message on the open session. The rows run in
// parallel on one session, so each call has an id of its own: the server
// refuses a second request with the id of one still in flight.
func toolCall(name string, args string) func(*testing.T, string, string) (int, string) {
	return func(t *testing.T, base, sid string) (int, string) {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, toolCallIDs.Add(1), name, args)
		return raw(t, http.MethodPost, base, map[string]string{"Authorization": goodAuth, "Mcp-Session-Id": sid}, strings.NewReader(msg))
	}
}

// toolCallIDs numbers toolCall's requests.
var toolCallIDs atomic.Int64

// padded is an initialize message padded with spaces to n bytes.
func padded(n int) string {
	return initialize[:len(initialize)-1] + strings.Repeat(" ", n-len(initialize)) + "}"
}

// chunked hides the body's length: it is sent chunked.
type chunked struct{ io.Reader }

var httpAbuses = []httpAbuse{
	{name: "no token", send: rawPost(nil, initialize), status: http.StatusUnauthorized, code: "unauthorized"},
	{name: "wrong token", send: rawPost(map[string]string{"Authorization": "Bearer not-" + testToken}, initialize),
		status: http.StatusUnauthorized, code: "unauthorized"},
	{name: "token in the query", send: func(t *testing.T, base, sid string) (int, string) {
		return raw(t, http.MethodPost, base+"?access_token="+url.QueryEscape(testToken), nil, strings.NewReader(initialize))
	}, status: http.StatusUnauthorized, code: "unauthorized"},
	{name: "a foreign web page with the token", send: rawPost(map[string]string{"Authorization": goodAuth, "Origin": "http://attacker.invalid"}, initialize),
		status: http.StatusForbidden, code: "foreign_origin"},
	{name: "DNS rebinding: a name rebound to the server", send: func(t *testing.T, base, sid string) (int, string) {
		// The page's own origin, and the Host its browser sends: the name,
		// with the server's port.
		u, _ := url.Parse(base)
		host := "rebound.invalid:" + u.Port()
		return raw(t, http.MethodPost, base, map[string]string{"Authorization": goodAuth, "Origin": "http://" + host, "Host": host}, strings.NewReader(initialize))
	}, status: http.StatusForbidden, code: "foreign_origin"},
	{name: "a body at the bound", send: rawPost(map[string]string{"Authorization": goodAuth}, padded(MaxBodyBytes)), status: http.StatusOK},
	{name: "a body one past the bound", send: rawPost(map[string]string{"Authorization": goodAuth}, padded(MaxBodyBytes+1)),
		status: http.StatusRequestEntityTooLarge, code: "too_large"},
	{name: "a chunked body one past the bound", send: func(t *testing.T, base, sid string) (int, string) {
		return raw(t, http.MethodPost, base, map[string]string{"Authorization": goodAuth}, chunked{strings.NewReader(padded(MaxBodyBytes + 1))})
	}, status: http.StatusRequestEntityTooLarge, code: "too_large"},
	{name: "not JSON", send: rawPost(map[string]string{"Authorization": goodAuth}, `{"jsonrpc":"2.0","id":1,"method":`),
		status: http.StatusBadRequest, code: "invalid_argument"},
	{name: "a JSON-RPC batch", send: rawPost(map[string]string{"Authorization": goodAuth}, "["+initialize+","+initialize+"]"),
		status: http.StatusBadRequest, code: "invalid_argument"},
	{name: "an empty body", send: rawPost(map[string]string{"Authorization": goodAuth}, ``),
		status: http.StatusBadRequest, code: "invalid_argument"},
	{name: "an unknown session id", send: func(t *testing.T, base, sid string) (int, string) {
		return raw(t, http.MethodPost, base, map[string]string{"Authorization": goodAuth, "Mcp-Session-Id": "forged-" + sid},
			strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	}, status: http.StatusNotFound, code: "not_found"},
	{name: "the session's id without the token", send: func(t *testing.T, base, sid string) (int, string) {
		return raw(t, http.MethodPost, base, map[string]string{"Mcp-Session-Id": sid}, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	}, status: http.StatusUnauthorized, code: "unauthorized"},
	{name: "tool arguments past their bound", send: toolCall("browser_navigate", `{"url":"http://127.0.0.1/`+strings.Repeat("a", tools.MaxArgumentBytes)+`"}`),
		status: http.StatusOK, code: "invalid_argument"},
	{name: "forged tool arguments", send: toolCall("browser_act", `{"ref":"c1","action":"exfiltrate","extra":{"__proto__":{"admin":true}}}`),
		status: http.StatusOK, code: "invalid_argument"},
	{name: "a tool that does not exist", send: toolCall("browser_shell", `{"cmd":"id"}`), status: http.StatusOK},
}

// openSession initializes a session by hand and returns its id.
func openSession(t *testing.T, base string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base, strings.NewReader(initialize))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", goodAuth)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	sid := res.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize: status %d, no session id", res.StatusCode)
	}
	status, body := raw(t, http.MethodPost, base, map[string]string{"Authorization": goodAuth, "Mcp-Session-Id": sid},
		strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if status != http.StatusAccepted {
		t.Fatalf("initialized: status %d %s", status, body)
	}
	return sid
}

func TestRedTeamHTTP(t *testing.T) {
	t.Parallel()
	base, _ := serveHTTP(t, HTTPOptions{MaxSessions: 2 * len(httpAbuses)})
	sid := openSession(t, base)
	t.Run("rows", func(t *testing.T) {
		for _, c := range httpAbuses {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				status, body := c.send(t, base, sid)
				if status != c.status {
					t.Fatalf("status %d, want %d: %.300s", status, c.status, body)
				}
				if c.code != "" && status >= 400 {
					var eb ErrorBody
					if err := json.Unmarshal([]byte(body), &eb); err != nil || string(eb.Error.Code) != c.code {
						t.Fatalf("body %.300q, want a JSON error %s", body, c.code)
					}
				}
				if c.code != "" && status < 400 && !strings.Contains(body, `\"code\":\"`+c.code+`\"`) {
					t.Fatalf("the tool's answer %.300s, want its error %s", body, c.code)
				}
				if status == http.StatusOK && strings.Contains(body, `"result"`) && c.code == "" && strings.Contains(c.name, "tool") &&
					!strings.Contains(body, `"isError":true`) && !strings.Contains(body, `"error"`) {
					t.Fatalf("the call was taken: %.300s", body)
				}
			})
		}
	})
	// A good client still drives the browser.
	cs := connectHTTP(t, base, nil)
	page := browsertest.Serve(t, `<main><h1>Fine</h1><button>fine again</button></main>`)
	if text, isErr := call(t, cs, "browser_navigate", map[string]any{"url": page}); isErr || !strings.Contains(text, "fine again") {
		t.Fatalf("a good client after the abuse: %s", text)
	}
}

// A flood of sessions: the cap admits them up to the bound and refuses the
// next, and the live ones still work.
func TestRedTeamHTTPSessionFlood(t *testing.T) {
	t.Parallel()
	base, _ := serveHTTP(t, HTTPOptions{MaxSessions: 3})
	var sids []string
	for range 3 {
		sids = append(sids, openSession(t, base))
	}
	status, body := raw(t, http.MethodPost, base, map[string]string{"Authorization": goodAuth}, strings.NewReader(initialize))
	if status != http.StatusTooManyRequests || !strings.Contains(body, `"too_many_sessions"`) {
		t.Fatalf("a session past the cap: %d %s", status, body)
	}
	status, body = raw(t, http.MethodPost, base, map[string]string{"Authorization": goodAuth, "Mcp-Session-Id": sids[0]},
		strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`))
	if status != http.StatusOK || !strings.Contains(body, "browser_observe") {
		t.Fatalf("a live session at the cap: %d %.200s", status, body)
	}
}

// A slow-loris body, a byte a while: cut off after the body timeout with
// 408 timeout, and the server still answers a good client.
func TestRedTeamHTTPSlowBody(t *testing.T) {
	t.Parallel()
	base, _ := serveHTTP(t, HTTPOptions{BodyTimeout: time.Second})
	u, _ := url.Parse(base)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n",
		u.Host, goodAuth, len(initialize))
	answered := make(chan *http.Response, 1)
	go func() {
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err == nil {
			answered <- res
		}
		close(answered)
	}()
	var res *http.Response
	// One byte every 200 ms would take the whole body over a minute.
dribble:
	for i := 0; i < len(initialize); i++ {
		select {
		case res = <-answered:
			break dribble
		case <-time.After(200 * time.Millisecond):
			conn.Write([]byte{initialize[i]})
		}
	}
	if res == nil {
		t.Fatal("the slow body was read to its end")
	}
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), `"timeout"`) {
		t.Fatalf("the slow body: %d %s", res.StatusCode, b)
	}
	if status, body := raw(t, http.MethodPost, base, map[string]string{"Authorization": goodAuth}, strings.NewReader(initialize)); status != http.StatusOK {
		t.Fatalf("a good client after the slow one: %d %s", status, body)
	}
}
