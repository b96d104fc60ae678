package veetbrowser_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/demo"
	"github.com/veetbot/veetbrowser/errcode"
)

// A session driven by tool name, as the CLI, the MCP server and the sidecar
// drive it: a tool's JSON arguments in, the model view out. The agent
// finds the demo's Publish button without paging through the feed and
// clicks it; publishing is consequential and nobody approved it, so the
// click is refused before it reaches the page.
func ExampleSession_Call() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url, stop, err := demo.Serve(&demo.Site{})
	if err != nil {
		log.Fatal(err)
	}
	defer stop()
	p, err := chromium.Launch(ctx, chromium.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(ctx)
	rt, err := veetbrowser.New(p, veetbrowser.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(ctx)
	s, err := rt.NewSession(ctx, veetbrowser.SessionOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close(ctx)

	res, err := s.Call(ctx, "browser_navigate", []byte(fmt.Sprintf(`{"url": %q}`, url)))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("title:", decode(res).Title)

	res, err = s.Call(ctx, "browser_find", []byte(`{"query": "publish"}`))
	if err != nil {
		log.Fatal(err)
	}
	var publish string
	for _, c := range decode(res).Controls {
		if c.Role == "button" {
			fmt.Println("found:", c.Role, c.Name)
			publish = c.Ref
		}
	}

	_, err = s.Call(ctx, "browser_act", []byte(fmt.Sprintf(`{"kind": "click", "ref": %q}`, publish)))
	fmt.Println("click:", errcode.Of(err))
	_, err = s.Call(ctx, "browser_teleport", []byte(`{}`))
	fmt.Println("unknown tool:", errcode.Of(err))
	// Output:
	// title: Veet Social — Home
	// found: button Publish
	// click: approval_required
	// unknown tool: invalid_argument
}

// Attaching to a browser that is already running, started with a DevTools
// port (chromium --headless --remote-debugging-port=9222): the runtime
// opens its pages there, and closing the provider closes those pages and
// the connection, not the browser.
func Example_attach() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url, stop, err := demo.Serve(&demo.Site{})
	if err != nil {
		log.Fatal(err)
	}
	defer stop()
	ws, stopBrowser := runningChromium()
	defer stopBrowser()

	p, err := chromium.Attach(ctx, ws, chromium.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(ctx)
	rt, err := veetbrowser.New(p, veetbrowser.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(ctx)
	s, err := rt.NewSession(ctx, veetbrowser.SessionOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close(ctx)

	res, err := s.Navigate(ctx, url)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("title:", decode(res).Title)
	// Output:
	// title: Veet Social — Home
}

// runningChromium starts a headless Chromium with a DevTools port on
// 127.0.0.1, as a browser someone else started would run, and returns its
// DevTools endpoint (ws://…) and a func that stops it.
func runningChromium() (string, func()) {
	exe, err := browser.FindChromium("")
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "cdp")
	if err != nil {
		log.Fatal(err)
	}
	args := []string{"--headless", "--no-first-run", "--disable-gpu", "--user-data-dir=" + dir,
		"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "about:blank"}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox") // Chromium's sandbox refuses root
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "HOME="+dir, "TMPDIR="+dir) // all its files in dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	stop := func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the browser and its helpers
		cmd.Wait()
		os.RemoveAll(dir)
	}
	// The browser writes its port, then its endpoint's path, to
	// DevToolsActivePort in the profile.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		b, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort"))
		if lines := strings.Fields(string(b)); err == nil && len(lines) == 2 {
			return "ws://127.0.0.1:" + lines[0] + lines[1], stop
		}
	}
	stop()
	log.Fatal("the browser wrote no DevToolsActivePort")
	return "", nil
}
