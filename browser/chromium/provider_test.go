package chromium

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/proc"
	"github.com/veetbot/veetbrowser/observation"
)

func TestSessionsHaveTheirOwnLock(t *testing.T) {
	t.Parallel()
	url := browsertest.Serve(t, "<button>x</button>")
	s1, s2 := openSession(t), openSession(t)
	// Hold s1's operation lock as a running operation would.
	if err := s1.lock.Acquire(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	defer s1.lock.Release(1)
	ctx := browsertest.Context(t, 30*time.Second)
	if _, err := s2.Navigate(ctx, url); err != nil {
		t.Fatalf("s2 waited on s1's lock: %v", err)
	}
	// s1's own operations wait, and a cancelled wait is reported as such.
	short, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := s1.Observe(short, observation.Request{})
	wantCode(t, err, errcode.Timeout)
}

func TestMissingBrowserIsBrowserUnavailable(t *testing.T) {
	_, err := Launch(context.Background(), Options{ExecPath: "/nonexistent/chromium"})
	wantCode(t, err, errcode.BrowserUnavailable)
	t.Setenv(browser.EnvChromium, "/nonexistent/chromium")
	_, err = Launch(context.Background(), Options{})
	wantCode(t, err, errcode.BrowserUnavailable)
}

// TestAttachObservesThroughDevTools attaches to a browser over ws://.
func TestAttachObservesThroughDevTools(t *testing.T) {
	p, pid := attachOwn(t, Options{})
	ctx := browsertest.Context(t, time.Minute)
	_, obs := sessionAt(t, ctx, p, browsertest.Serve(t, `<button>attached</button>`))
	if len(obs.Controls) != 1 || obs.Controls[0].Name != "attached" {
		t.Fatalf("attached observation: %+v", obs.Controls)
	}
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Closing the provider leaves the attached browser running.
	if !processAlive(pid) {
		t.Fatal("Close stopped a browser it did not launch")
	}
}

func TestCloseLeavesNothingBehind(t *testing.T) {
	before := tempDirs(t)
	p, err := Launch(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	pid := p.Process()
	if pid == 0 {
		t.Fatal("no browser process")
	}
	ctx := browsertest.Context(t, time.Minute)
	s, _ := sessionAt(t, ctx, p, browsertest.Serve(t, "<button>x</button>"))
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantBrowserGone(t, before, pid)
	if _, err := s.Observe(ctx, observation.Request{}); errcode.Of(err) != errcode.BrowserUnavailable {
		t.Fatalf("observe after Close: %v", err)
	}
}

// attachOwn attaches to a browser of the test's own over DevTools. It
// returns the provider, closed at the end of the test, and the browser's
// process.
func attachOwn(t *testing.T, opts Options) (*Provider, int) {
	t.Helper()
	ws, pid := browsertest.DevTools(t)
	p, err := Attach(context.Background(), ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p, pid
}

// sessionAt opens a session of p and loads url in it; the session is
// left to p's Close.
func sessionAt(t *testing.T, ctx context.Context, p *Provider, url string) (browser.Session, *observation.Observation) {
	t.Helper()
	s, err := p.NewSession(ctx, browser.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	obs, err := s.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	return s, obs
}

// wantBrowserGone fails the test if a process of a browser launched in its
// own process group (helpers included), or a temp dir not in before,
// survived its Close.
func wantBrowserGone(t *testing.T, before map[string]bool, pgids ...int) {
	t.Helper()
	for _, pid := range pgids {
		if proc.GroupAlive(pid) {
			t.Errorf("processes of browser %d survived Close", pid)
		}
	}
	for d := range tempDirs(t) {
		if !before[d] {
			t.Errorf("temp dir %s survived Close", d)
		}
	}
}

func tempDirs(t *testing.T) map[string]bool {
	matches, err := filepath.Glob(filepath.Join(os.TempDir(), "veetbrowser-*"))
	if err != nil {
		t.Fatal(err)
	}
	m := make(map[string]bool)
	for _, d := range matches {
		m[d] = true
	}
	return m
}

func processAlive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}

// An attached browser runs on this machine when its DevTools endpoint's
// host is loopback; anything else, or a URL that does not parse, is
// taken as another machine's.
func TestEndpointOnLoopback(t *testing.T) {
	for _, c := range []struct {
		ws   string
		want bool
	}{
		{"ws://127.0.0.1:9222/devtools/browser/x", true},  // the usual endpoint
		{"ws://127.1.2.3:9222/devtools/browser/x", true},  // anywhere in 127.0.0.0/8
		{"ws://localhost:9222/devtools/browser/x", true},  // the name
		{"ws://[::1]:9222/devtools/browser/x", true},      // IPv6 loopback
		{"ws://128.0.0.1:9222/devtools/browser/x", false}, // just past 127.0.0.0/8
		{"ws://10.0.0.5:9222/devtools/browser/x", false},  // a fleet host on a private network
		{"wss://browsers.example/devtools/browser/x", false},
		{"ws://127.0.0.1:9222/%zz", false}, // malformed
	} {
		if got := endpointOnLoopback(c.ws); got != c.want {
			t.Errorf("endpointOnLoopback(%q) = %v, want %v", c.ws, got, c.want)
		}
	}
}

// Remote describes an attached browser: Launch refuses it rather than
// ignore it.
func TestLaunchRefusesRemote(t *testing.T) {
	_, err := Launch(context.Background(), Options{Remote: true})
	wantCode(t, err, errcode.InvalidArgument)
}
