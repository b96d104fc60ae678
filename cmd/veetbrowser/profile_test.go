package main

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// TestProfileDirKeepsCookies: a cookie set in one `mcp --profile-dir DIR`
// run is sent by the browser of the next run, though the first was killed
// with SIGKILL right after the cookie was set; while the first runs, a
// second run on DIR is refused at once with a clear error; without
// --profile-dir the next run sends no cookie.
func TestProfileDirKeepsCookies(t *testing.T) {
	t.Parallel()
	var sent atomic.Value
	sent.Store("")
	base := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/login":
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "kept-42", Path: "/", MaxAge: 3600})
			w.Write([]byte(`<title>Signed in</title><h1>Welcome back</h1><a href="/account">Account</a>`))
		default:
			if c, err := r.Cookie("session"); err == nil {
				sent.Store(c.Value)
			}
			w.Write([]byte(`<title>Account</title><h1>Your account</h1>`))
		}
	}))
	bin := installedBinary(t)
	dir := t.TempDir() + "/profile"
	env := append(os.Environ(), "XDG_DATA_HOME="+t.TempDir())
	origin := strings.TrimSuffix(base, "/")
	run := func(profile bool) (*mcp.ClientSession, *exec.Cmd) {
		args := []string{"mcp", "--allow-origin", origin, "--store", "none"}
		if profile {
			args = append(args, "--profile-dir", dir)
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "profile-test"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return cs, cmd
	}
	navigate := func(cs *mcp.ClientSession, url string) {
		t.Helper()
		res, err := cs.CallTool(browsertest.Context(t, time.Minute), &mcp.CallToolParams{Name: "browser_navigate", Arguments: map[string]any{"url": url}})
		if err != nil || res.IsError {
			t.Fatalf("navigate %s: %v %+v", url, err, res)
		}
	}

	first, cmd := run(true)
	navigate(first, base+"login")
	out, _, code := runInstalled(t, t.TempDir(), []string{"XDG_DATA_HOME=" + t.TempDir()}, "observe", base, "--profile-dir", dir)
	if code != 1 || !strings.Contains(out, "another veetbrowser") {
		t.Errorf("a second run on the profile: exit %d, %s", code, out)
	}
	cmd.Process.Kill() // SIGKILL
	cmd.Wait()
	first.Close()

	second, cmd2 := run(true)
	navigate(second, base+"account")
	if got := sent.Load(); got != "kept-42" {
		t.Errorf("after a kill -9, the next run sent the cookie %q", got)
	}
	second.Close()
	cmd2.Wait()

	sent.Store("")
	fresh, cmd3 := run(false)
	navigate(fresh, base+"account")
	if got := sent.Load(); got != "" {
		t.Errorf("a run without --profile-dir sent %q", got)
	}
	fresh.Close()
	cmd3.Wait()
}
