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
	"github.com/veetbot/veetbrowser/hosted"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/sidecar/sidecartest"
)

// TestHostedSessionsOverMCP: with Options.Open, each MCP session runs on
// a sidecar's lease (mcp --hosted): the model drives it with the same
// tools, a consequential click is approved by the user through
// elicitation on this side, relayed, and dispatched exactly once; the
// lease ends with the MCP session. (Over streamable HTTP: the SDK's
// in-memory transport negotiates a protocol version that sends no
// elicitation while a request is served.)
func TestHostedSessionsOverMCP(t *testing.T) {
	t.Parallel()
	sc := sidecartest.Start(t, &browsertest.Tabs{Browser: shared.Get(t)}, 0)
	ctx := browsertest.Context(t, 2*time.Minute)
	profile := hosted.Options{URL: sc.URL, Token: sc.Token, Profile: "agent", ViewOnly: true}
	if err := hosted.CreateProfile(ctx, profile); err != nil {
		t.Fatal(err)
	}
	hctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	handler, err := HTTPHandler(hctx, nil, Options{Budget: 1024, Open: func(ctx context.Context, o veetbrowser.SessionOptions) (veetbrowser.Caller, error) {
		opts := profile
		opts.Session = o
		return hosted.Open(ctx, opts)
	}}, HTTPOptions{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)

	var mu sync.Mutex
	posts := 0
	page := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/publish" {
			mu.Lock()
			posts++
			mu.Unlock()
			return
		}
		fmt.Fprint(w, `<!doctype html><button onclick="fetch('/publish', {method: 'POST'}).then(() => document.title = 'sent')">Publish</button>`)
	}))
	var asked []string
	cs := connectHTTP(t, srv.URL, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, req.Params.Message)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	})
	text, isErr := call(t, cs, "browser_navigate", map[string]any{"url": page})
	if isErr {
		t.Fatal(text)
	}
	ref := text[strings.Index(text, `"ref":"`)+7:]
	ref = ref[:strings.IndexByte(ref, '"')]
	if text, isErr = call(t, cs, "browser_act", map[string]any{"kind": "click", "ref": ref}); isErr {
		t.Fatal(text)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		n := posts
		mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	if posts != 1 || len(asked) != 1 || !strings.Contains(asked[0], `button "Publish"`) {
		t.Fatalf("posts %d, approvals asked %q", posts, asked)
	}
	mu.Unlock()

	// The MCP session ends: its lease is released, and the profile is free.
	cs.Close()
	for {
		again, err := hosted.Open(ctx, profile)
		if err == nil {
			again.Close(context.Background())
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the profile stayed leased after the MCP session ended: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
