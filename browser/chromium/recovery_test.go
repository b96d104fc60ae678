package chromium

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/tempdir"
	"github.com/veetbot/veetbrowser/observation"
)

// TestKilledBrowserIsReportedAndReplaced kills a browser of its own, with
// every helper process, mid-session: the lost page reports
// browser_unavailable from then on, a new session runs in a fresh browser,
// and Close leaves no process and no directory of either.
func TestKilledBrowserIsReportedAndReplaced(t *testing.T) {
	before := tempDirs(t)
	p, err := Launch(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	ctx := browsertest.Context(t, 2*time.Minute)
	url := browsertest.Serve(t, `<button>one</button>`)
	s, _ := sessionAt(t, ctx, p, url)
	old := p.Process()
	if err := syscall.Kill(-old, syscall.SIGKILL); err != nil {
		t.Fatalf("killing the browser's process group: %v", err)
	}

	// The process cannot answer: the first call fails, whatever it was
	// doing when the loss was noticed; every later one is
	// browser_unavailable, at once.
	call := browsertest.Context(t, 30*time.Second)
	_, err = s.Observe(call, observation.Request{})
	if err == nil {
		t.Fatal("a killed browser observed the page")
	}
	t.Logf("the call that noticed the loss: %v", err)
	for range 2 {
		_, err = s.Observe(call, observation.Request{})
		wantCode(t, err, errcode.BrowserUnavailable)
		_, err = s.Navigate(call, url)
		wantCode(t, err, errcode.BrowserUnavailable)
	}
	if !s.Gone() {
		t.Fatal("the lost session is not gone")
	}

	s2, err := p.NewSession(ctx, browser.SessionOptions{})
	if err != nil {
		t.Fatalf("a session after the loss: %v", err)
	}
	obs, err := s2.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if len(obs.Controls) != 1 || obs.Controls[0].Name != "one" {
		t.Fatalf("the fresh browser observed %v", names(obs))
	}
	fresh := p.Process()
	if fresh == 0 || fresh == old {
		t.Fatalf("fresh browser %d, killed one %d", fresh, old)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatalf("closing the lost session: %v", err)
	}
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantBrowserGone(t, before, old, fresh)
	_, err = s2.Observe(ctx, observation.Request{})
	wantCode(t, err, errcode.BrowserUnavailable)
}

// TestAttachedBrowserGoneIsUnavailable: an attached browser that goes away
// cannot be started again; its pages and new sessions report
// browser_unavailable.
func TestAttachedBrowserGoneIsUnavailable(t *testing.T) {
	p, pid := attachOwn(t, Options{})
	ctx := browsertest.Context(t, 2*time.Minute)
	s, _ := sessionAt(t, ctx, p, browsertest.Serve(t, `<button>one</button>`))
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Observe(ctx, observation.Request{}); err == nil {
		t.Fatal("a killed browser observed the page")
	}
	_, err := s.Observe(ctx, observation.Request{})
	wantCode(t, err, errcode.BrowserUnavailable)
	_, err = p.NewSession(ctx, browser.SessionOptions{})
	wantCode(t, err, errcode.BrowserUnavailable)
}

// TestLaunchRemovesTempDirsOfGoneOwners: a temp dir whose owner process is
// gone (killed before it could clean up) is removed by the next Launch; one
// whose owner still runs is kept.
func TestLaunchRemovesTempDirsOfGoneOwners(t *testing.T) {
	owned := func(name string) (string, *exec.Cmd) {
		cmd := exec.Command("sleep", "120")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		o, err := tempdir.OwnerOf(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(os.TempDir(), tempPrefix+name)
		if err := os.MkdirAll(filepath.Join(dir, "profile"), 0o700); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		if err := o.Mark(dir); err != nil {
			t.Fatal(err)
		}
		return dir, cmd
	}
	stale, owner := owned("stale")
	live, _ := owned("live")
	owner.Process.Signal(syscall.SIGKILL)
	owner.Wait()

	p, err := Launch(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the dir of a killed owner survived Launch: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the dir of a live owner was removed: %v", err)
	}
}

func TestCrashIsReportedAndTheSessionRecovers(t *testing.T) {
	ctx := browsertest.Context(t, time.Minute)
	s, _ := openPage(t, "<button>before</button>")
	go s.tab.Navigate(ctx, "chrome://crash")
	// Observations succeed until the crash and then report it; the test's
	// context bounds the wait, so a hang fails the test.
	_, err := s.Observe(ctx, observation.Request{})
	for errcode.Of(err) != errcode.PageCrashed && ctx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
		_, err = s.Observe(ctx, observation.Request{})
	}
	wantCode(t, err, errcode.PageCrashed)
	wantGoesOn(t, ctx, s, browsertest.Serve(t, "<button>after</button>"), "after", "recovery")
}
