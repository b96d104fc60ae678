package chromium

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// TestAttachRefusesLaunchOptions: an attached browser was started by
// someone else, so the options that start one are refused before anything
// connects, rather than silently ignored.
func TestAttachRefusesLaunchOptions(t *testing.T) {
	t.Parallel()
	// Nothing listens here; a refusal must come before any connection.
	const ws = "ws://127.0.0.1:9/devtools/browser/none"
	for _, opts := range []Options{{ExecPath: "/usr/bin/chromium"}, {Output: new(bytes.Buffer)}} {
		p, err := Attach(context.Background(), ws, opts)
		if errcode.Of(err) != errcode.InvalidArgument {
			if p != nil {
				p.Close(context.Background())
			}
			t.Fatalf("Attach with %+v: %v, want invalid_argument", opts, err)
		}
	}
}

// TestCloseWithAnEndedContextStillStopsTheBrowser: the context bounds
// closing the pages, but the browser is stopped and its files removed even
// when the context has already ended.
func TestCloseWithAnEndedContextStillStopsTheBrowser(t *testing.T) {
	before := tempDirs(t)
	p, err := Launch(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	pid := p.Process()
	ctx := browsertest.Context(t, time.Minute)
	s, err := p.NewSession(ctx, browser.SessionOptions{})
	if err != nil {
		p.Close(context.Background())
		t.Fatal(err)
	}
	if _, err := s.Navigate(ctx, browsertest.Serve(t, "<button>x</button>")); err != nil {
		p.Close(context.Background())
		t.Fatal(err)
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	done := make(chan error, 1)
	go func() { done <- p.Close(ended) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Close with an ended context did not return within 30 s")
	}
	wantBrowserGone(t, before, pid)
	if _, err := s.Observe(ctx, observation.Request{}); errcode.Of(err) != errcode.BrowserUnavailable {
		t.Fatalf("a page after Close: %v, want browser_unavailable", err)
	}
}
