package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/proc"
)

// TestServerSurvivesKilledBrowser: after kill -9 of the browser's process
// group, the server reports browser_unavailable once and its next call
// works, in a fresh browser, without a restart.
func TestServerSurvivesKilledBrowser(t *testing.T) {
	p, err := chromium.Launch(context.Background(), chromium.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	rt, err := veetbrowser.New(p, veetbrowser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(rt, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	ctx := browsertest.Context(t, 3*time.Minute)
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.MCP.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(name string, args any) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(browsertest.Context(t, time.Minute), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}
	url := browsertest.Serve(t, `<button>still here</button>`)
	if text, isErr := call("browser_navigate", map[string]any{"url": url}); isErr {
		t.Fatal(text)
	}
	old := p.Process()
	if err := syscall.Kill(-old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}

	text, isErr := call("browser_observe", map[string]any{})
	var body ErrorBody
	if !isErr || json.Unmarshal([]byte(text), &body) != nil || body.Error.Code != errcode.BrowserUnavailable {
		t.Fatalf("observe after the kill: %s", text)
	}
	text, isErr = call("browser_navigate", map[string]any{"url": url})
	if isErr || !strings.Contains(text, "still here") {
		t.Fatalf("navigate after browser_unavailable: %s", text)
	}
	fresh := p.Process()
	if fresh == 0 || fresh == old {
		t.Fatalf("fresh browser %d, killed one %d", fresh, old)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{old, fresh} {
		if proc.GroupAlive(pid) {
			t.Errorf("processes of browser %d survived Close", pid)
		}
	}
}
