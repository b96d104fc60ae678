package mcpserver

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

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

	user := &approvingUser{}
	cs := connectHTTP(t, srv.URL, user.options())
	publishApproved(t, cs, servePublish(t), user)

	// The MCP session ends: its lease is released, and the profile is free.
	cs.Close()
	for {
		again, err := hosted.Open(ctx, profile)
		if err == nil {
			again.Close(context.Background())
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the profile stayed leased after the MCP session ended: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
