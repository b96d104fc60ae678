package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/chromeflags"
)

// DevTools starts a headless Chromium with the runtime's switches and
// a DevTools port chosen by the browser, in a temp dir of its own (profile,
// HOME, XDG dirs), and returns the ws:// URL it listens on and its process (the leader of
// its process group), read from the
// DevToolsActivePort file of its profile. The browser, with every helper
// process, and its dir are gone at the end of the test.
func DevTools(t testing.TB) (wsURL string, pid int) {
	t.Helper()
	exe, err := browser.FindChromium("")
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir(): Chromium's singleton socket path must stay short.
	dir, err := os.MkdirTemp("", "cdp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home, profile := filepath.Join(dir, "home"), filepath.Join(dir, "profile")
	for _, d := range []string{home, profile} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// chromedp starts the browser only because it holds the project's
	// switches; it talks to the browser over a pipe of its own. The runtime
	// reaches the browser over its DevTools port, as any client would.
	opts := append(chromeflags.Private(),
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(profile),
		chromedp.Env("HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_CACHE_HOME="+home, "XDG_DATA_HOME="+home, "TMPDIR="+dir),
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
			cmd.Args = append(cmd.Args, "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		}),
	)
	alloc, stopAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, stop := chromedp.NewContext(alloc)
	if err := chromedp.Do(ctx); err != nil {
		stop()
		stopAlloc()
		t.Fatalf("starting %s: %v", exe, err)
	}
	pid = chromedp.FromContext(ctx).Browser.Process().Pid
	t.Cleanup(func() {
		stop()
		stopAlloc()
		syscall.Kill(-pid, syscall.SIGKILL) // helpers outlive their browser
	})

	// DevToolsActivePort holds the port, then the browser's path.
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort"))
		if lines := strings.Fields(string(b)); err == nil && len(lines) == 2 {
			return fmt.Sprintf("ws://127.0.0.1:%s%s", lines[0], lines[1]), pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no DevToolsActivePort in the profile: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
