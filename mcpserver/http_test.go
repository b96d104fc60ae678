package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
)

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// TestHTTPTransportNeedsTheToken serves MCP over streamable HTTP: no token
// or a wrong one is refused; the right one drives the browser, and a
// consequential click is approved by the user through elicitation.
func TestHTTPTransportNeedsTheToken(t *testing.T) {
	ctx := browsertest.Context(t, 2*time.Minute)
	rt, err := veetbrowser.New(shared.Get(t), veetbrowser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hctx, stop := context.WithCancel(context.Background())
	defer stop()
	h, err := HTTPHandler(hctx, rt, Options{}, "s3cret-token")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	for _, token := range []string{"", "wrong"} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("token %q: status %d", token, res.StatusCode)
		}
	}

	var mu sync.Mutex
	clicks := 0
	page := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/publish" {
			mu.Lock()
			clicks++
			mu.Unlock()
			return
		}
		fmt.Fprint(w, `<!doctype html><button onclick="fetch('/publish', {method: 'POST'})">Publish</button>`)
	}))
	var asked []string
	client := mcp.NewClient(&mcp.Implementation{Name: "test"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL,
		HTTPClient: &http.Client{Transport: bearer{"s3cret-token", http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	text, isErr := call(t, cs, "browser_navigate", map[string]any{"url": page})
	if isErr {
		t.Fatal(text)
	}
	ref := text[strings.Index(text, `"ref":"`)+7:]
	ref = ref[:strings.IndexByte(ref, '"')]
	if text, isErr = call(t, cs, "browser_act", map[string]any{"kind": "click", "ref": ref}); isErr {
		t.Fatal(text)
	}
	time.Sleep(300 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if clicks != 1 || len(asked) != 1 || !strings.Contains(asked[0], `button "Publish"`) {
		t.Fatalf("clicks %d, approvals asked %q", clicks, asked)
	}
}

func TestWithoutElicitationApprovalIsRequired(t *testing.T) {
	cs := connect(t, Options{})
	url := browsertest.Serve(t, `<button>Delete account</button>`)
	text, isErr := call(t, cs, "browser_navigate", map[string]any{"url": url})
	if isErr {
		t.Fatal(text)
	}
	ref := text[strings.Index(text, `"ref":"`)+7:]
	ref = ref[:strings.IndexByte(ref, '"')]
	text, isErr = call(t, cs, "browser_act", map[string]any{"kind": "click", "ref": ref})
	if !isErr || !strings.Contains(text, "approval_required") || !strings.Contains(text, "Delete account") {
		t.Fatalf("unapproved delete: %s", text)
	}
}
