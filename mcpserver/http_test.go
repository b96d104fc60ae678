package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
)

const testToken = "s3cret-token"

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// countingProvider opens real pages in the shared browser and counts the
// ones not yet closed.
type countingProvider struct {
	browser.Provider
	open atomic.Int64
}

func (p *countingProvider) NewSession(ctx context.Context, opts browser.SessionOptions) (browser.Session, error) {
	s, err := p.Provider.NewSession(ctx, opts)
	if err != nil {
		return nil, err
	}
	p.open.Add(1)
	return &countedSession{Session: s, p: p}, nil
}

func (p *countingProvider) Close(context.Context) error { return nil } // the shared browser outlives the test

type countedSession struct {
	browser.Session
	p      *countingProvider
	closed atomic.Bool
}

func (s *countedSession) Close(ctx context.Context) error {
	if !s.closed.Swap(true) {
		s.p.open.Add(-1)
	}
	return s.Session.Close(ctx)
}

// waitPages waits until n pages are open, at most within.
func (p *countingProvider) waitPages(t *testing.T, n int64, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for p.open.Load() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d pages open, want %d", p.open.Load(), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// serveHTTP serves the HTTP transport on 127.0.0.1 over a counting provider.
func serveHTTP(t *testing.T, h HTTPOptions) (string, *countingProvider) {
	t.Helper()
	p := &countingProvider{Provider: shared.Get(t)}
	rt, err := veetbrowser.New(p, veetbrowser.Options{Budget: 1024})
	if err != nil {
		t.Fatal(err)
	}
	hctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	if h.Token == "" {
		h.Token = testToken
	}
	handler, err := HTTPHandler(hctx, rt, Options{}, h)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return srv.URL, p
}

func connectHTTP(t *testing.T, url string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test"}, opts)
	cs, err := client.Connect(browsertest.Context(t, time.Minute), &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: bearer{testToken, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends one raw MCP request and returns the status and, for a
// refusal, the JSON error body.
func post(t *testing.T, method, url string, header map[string]string, body string) (*http.Response, ErrorBody) {
	t.Helper()
	req, err := http.NewRequestWithContext(browsertest.Context(t, time.Minute), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var eb ErrorBody
	if res.StatusCode >= 400 {
		b, _ := io.ReadAll(res.Body)
		if err := json.Unmarshal(b, &eb); err != nil {
			t.Fatalf("status %d with a body that is not a JSON error: %q", res.StatusCode, b)
		}
	}
	return res, eb
}

func TestHTTPRefusesAMissingOrWrongTokenWithJSON(t *testing.T) {
	t.Parallel()
	url, _ := serveHTTP(t, HTTPOptions{})
	for _, auth := range []string{"", "Bearer wrong", "Basic " + testToken, "Bearer " + testToken + "x"} {
		res, body := post(t, http.MethodPost, url, map[string]string{"Authorization": auth}, initialize)
		if res.StatusCode != http.StatusUnauthorized || body.Error.Code != "unauthorized" || body.Error.Message == "" {
			t.Errorf("Authorization %q: status %d, body %+v", auth, res.StatusCode, body)
		}
		if !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("Authorization %q: no WWW-Authenticate challenge", auth)
		}
	}
}

// TestHTTPRefusesCrossSitePages: a web page's script carrying the token is
// still refused unless its origin was allowed.
func TestHTTPRefusesCrossSitePages(t *testing.T) {
	t.Parallel()
	url, _ := serveHTTP(t, HTTPOptions{AllowedOrigins: []string{"http://app.invalid"}})
	auth := "Bearer " + testToken

	for _, h := range []map[string]string{
		{"Authorization": auth, "Origin": "http://attacker.invalid"},
		{"Authorization": auth, "Origin": "null"},
		{"Authorization": auth, "Origin": "http://app.invalid:8080"}, // another origin of the same host
		{"Authorization": auth, "Sec-Fetch-Site": "cross-site"},      // a browser that sent no Origin
	} {
		res, body := post(t, http.MethodPost, url, h, initialize)
		if res.StatusCode != http.StatusForbidden || body.Error.Code != "foreign_origin" {
			t.Errorf("%v: status %d, body %+v", h, res.StatusCode, body)
		}
	}
	res, _ := post(t, http.MethodOptions, url, map[string]string{"Origin": "http://attacker.invalid",
		"Access-Control-Request-Method": "POST"}, "")
	if res.StatusCode != http.StatusForbidden || res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight of a foreign origin: status %d, allow-origin %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"))
	}

	// The allowed origin, the server's own, and a client that is no web page.
	for _, h := range []map[string]string{
		{"Authorization": auth, "Origin": "http://app.invalid"},
		{"Authorization": auth, "Origin": url},
		{"Authorization": auth},
	} {
		res, body := post(t, http.MethodPost, url, h, initialize)
		if res.StatusCode != http.StatusOK || res.Header.Get("Mcp-Session-Id") == "" {
			t.Errorf("%v: status %d, body %+v", h, res.StatusCode, body)
		}
		if o := h["Origin"]; o == "http://app.invalid" && res.Header.Get("Access-Control-Allow-Origin") != o {
			t.Errorf("allowed origin without Access-Control-Allow-Origin")
		}
	}
	res, _ = post(t, http.MethodOptions, url, map[string]string{"Origin": "http://app.invalid",
		"Access-Control-Request-Method": "POST"}, "")
	if res.StatusCode != http.StatusNoContent || res.Header.Get("Access-Control-Allow-Origin") != "http://app.invalid" ||
		!strings.Contains(res.Header.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Errorf("preflight of the allowed origin: status %d, headers %v", res.StatusCode, res.Header)
	}
}

func TestHTTPOptionsAreChecked(t *testing.T) {
	t.Parallel()
	rt, err := veetbrowser.New(shared.Get(t), veetbrowser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []HTTPOptions{
		{},
		{Token: "t", AllowedOrigins: []string{"app.invalid"}},
		{Token: "t", AllowedOrigins: []string{"http://app.invalid/path"}},
		{Token: "t", MaxSessions: -1},
		{Token: "t", IdleTimeout: -time.Second},
	} {
		if _, err := HTTPHandler(context.Background(), rt, Options{}, h); err == nil {
			t.Errorf("%+v accepted", h)
		}
	}
}

// TestHTTPDeleteClosesThePage: ending an MCP session closes its browser
// page at once.
func TestHTTPDeleteClosesThePage(t *testing.T) {
	t.Parallel()
	url, pages := serveHTTP(t, HTTPOptions{})
	page := browsertest.Serve(t, `<button>OK</button>`)
	cs := connectHTTP(t, url, nil)
	if text, isErr := call(t, cs, "browser_navigate", map[string]any{"url": page}); isErr {
		t.Fatal(text)
	}
	pages.waitPages(t, 1, 30*time.Second)
	res, _ := post(t, http.MethodDelete, url, map[string]string{"Authorization": "Bearer " + testToken, "Mcp-Session-Id": cs.ID()}, "")
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: status %d", res.StatusCode)
	}
	// Closing a page takes milliseconds; a periodic sweep (every 30 s)
	// would miss this generous bound.
	pages.waitPages(t, 0, 10*time.Second)
}

// TestHTTPIdleTimeoutClosesThePage: a client that vanishes without a
// DELETE loses its session, and its page, after the idle timeout.
func TestHTTPIdleTimeoutClosesThePage(t *testing.T) {
	t.Parallel()
	url, pages := serveHTTP(t, HTTPOptions{IdleTimeout: 2 * time.Second})
	page := browsertest.Serve(t, `<button>OK</button>`)
	cs := connectHTTP(t, url, nil)
	if text, isErr := call(t, cs, "browser_navigate", map[string]any{"url": page}); isErr {
		t.Fatal(text)
	}
	pages.waitPages(t, 1, 30*time.Second)
	pages.waitPages(t, 0, 30*time.Second) // no request: the session idles out
	if _, err := cs.CallTool(browsertest.Context(t, time.Minute), &mcp.CallToolParams{Name: "browser_observe"}); err == nil {
		t.Fatal("a call on the idled-out session succeeded")
	}
}

// TestHTTPCapsLiveSessionsPerToken: the cap admits sessions up to the
// limit and refuses the next with a JSON error until one ends.
func TestHTTPCapsLiveSessionsPerToken(t *testing.T) {
	t.Parallel()
	url, _ := serveHTTP(t, HTTPOptions{MaxSessions: 2})
	first := connectHTTP(t, url, nil)
	connectHTTP(t, url, nil) // the second: at the bound

	res, body := post(t, http.MethodPost, url, map[string]string{"Authorization": "Bearer " + testToken}, initialize)
	if res.StatusCode != http.StatusTooManyRequests || body.Error.Code != "too_many_sessions" ||
		!strings.Contains(body.Error.Message, "2 live sessions") {
		t.Fatalf("third session: status %d, body %+v", res.StatusCode, body)
	}
	// Requests of live sessions still pass.
	if text, isErr := call(t, first, "browser_observe", map[string]any{}); isErr && strings.Contains(text, "too_many_sessions") {
		t.Fatal(text)
	}
	first.Close() // sends DELETE
	// The session's end frees its slot as the server handles the DELETE,
	// which may come just after Close returns.
	deadline := time.Now().Add(30 * time.Second)
	for {
		client := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil)
		cs, err := client.Connect(browsertest.Context(t, time.Minute), &mcp.StreamableClientTransport{Endpoint: url,
			HTTPClient: &http.Client{Transport: bearer{testToken, http.DefaultTransport}}}, nil)
		if err == nil {
			cs.Close()
			break
		}
		if !strings.Contains(err.Error(), "Too Many Requests") || time.Now().After(deadline) {
			t.Fatalf("a session after one ended: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestHTTPDrivesTheBrowserWithApproval: the right token drives the browser,
// and a consequential click is approved by the user through elicitation.
func TestHTTPDrivesTheBrowserWithApproval(t *testing.T) {
	t.Parallel()
	url, _ := serveHTTP(t, HTTPOptions{})
	user := &approvingUser{}
	publishApproved(t, connectHTTP(t, url, user.options()), servePublish(t), user)
}
