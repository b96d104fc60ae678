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
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/replay"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/sqlitestore"
)

// An agent's loop on the built-in demo site: launch a browser, open a
// session, navigate, follow the model view's next until the composer and
// its Publish button are in view, type a post, and publish it with the
// user's approval.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	site := &demo.Site{}
	url, stop, err := demo.Serve(site) // on 127.0.0.1
	if err != nil {
		log.Fatal(err)
	}
	defer stop()

	p, err := chromium.Launch(ctx, chromium.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(ctx) // the runtime does not own the browser
	// A 1 KiB budget: the demo's Publish button lies beyond the first view.
	// Options.Store is nil, so calls are recorded in the default store.
	rt, err := veetbrowser.New(p, veetbrowser.Options{Budget: 1024})
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
	view := decode(res)
	fmt.Println("title:", view.Title)
	fmt.Println("more beyond the first view:", view.Next != nil)

	// A reference is good in the newest observation only: find each
	// control from the last result, continuing with next until it shows.
	res, composer := seek(ctx, s, res, "textbox", "What is happening?")
	res, err = s.Act(ctx, veetbrowser.Action{Kind: veetbrowser.Type, Ref: composer, Text: "Hello from Go"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("typed:", res.Action.Dispatched)

	res, publish := seek(ctx, s, res, "button", "Publish")
	// Publishing is consequential: without an approval it is refused.
	_, err = s.Act(ctx, veetbrowser.Action{Kind: veetbrowser.Click, Ref: publish})
	fmt.Println("without approval:", errcode.Of(err))

	// The user (never the model) approves exactly this: the Publish button
	// of this origin, submitting its form; once.
	s.Approve(policy.Facts{Origin: res.Observation.Origin, Role: "button", Name: "Publish", Submit: true})
	res, err = s.Act(ctx, veetbrowser.Action{Kind: veetbrowser.Click, Ref: publish})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("navigated:", res.Action.NavigationDone)
	fmt.Println("posts the site received:", len(site.Published()))
	// Output:
	// title: Veet Social — Home
	// more beyond the first view: true
	// typed: true
	// without approval: approval_required
	// navigated: true
	// posts the site received: 1
}

// decode reads the model view of res.
func decode(res *veetbrowser.Result) projection.View {
	var view projection.View
	if err := res.DecodeView(&view); err != nil {
		log.Fatal(err)
	}
	return view
}

// seek returns the newest result and the ref of the control with this role
// and name, observing on through the page's next until it is in view.
func seek(ctx context.Context, s *veetbrowser.Session, res *veetbrowser.Result, role, name string) (*veetbrowser.Result, string) {
	for {
		view := decode(res)
		for _, c := range view.Controls {
			if c.Role == role && c.Name == name {
				return res, c.Ref
			}
		}
		if view.Next == nil {
			log.Fatalf("no %s %q on the page", role, name)
		}
		// next holds either after or cursor; pass both as they are.
		var err error
		res, err = s.Observe(ctx, veetbrowser.ObserveOptions{After: view.Next.After, Cursor: view.Next.Cursor})
		if err != nil {
			log.Fatal(err)
		}
	}
}

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

// Recording a session and replaying it (package replay): each call's view
// is re-derived from its recorded observation and compared with the view
// the agent was given, byte for byte; then the views are re-projected
// under a smaller budget, to see that each still fits.
func Example_replay() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url, stop, err := demo.Serve(&demo.Site{})
	if err != nil {
		log.Fatal(err)
	}
	defer stop()
	dir, err := os.MkdirTemp("", "replay")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	st, err := sqlitestore.Open(ctx, filepath.Join(dir, "artifacts.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()

	id := record(ctx, st, url)
	rep, err := replay.Session(ctx, st, id, replay.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("views:", len(rep.Views), "identical:", rep.Identical())
	rep, err = replay.Session(ctx, st, id, replay.Options{Budget: projection.MinBudget})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("at 1 KiB, all fit:", rep.AllFit)
	// Output:
	// views: 2 identical: true
	// at 1 KiB, all fit: true
}

// record records a session in st that loads url and observes on from its
// first view's next, and returns the session's id.
func record(ctx context.Context, st store.Store, url string) string {
	p, err := chromium.Launch(ctx, chromium.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(ctx)
	rt, err := veetbrowser.New(p, veetbrowser.Options{Store: st, Budget: 2048})
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
	view := decode(res)
	if view.Next == nil {
		log.Fatal("the first view has no next")
	}
	if _, err := s.Observe(ctx, veetbrowser.ObserveOptions{After: view.Next.After, Cursor: view.Next.Cursor}); err != nil {
		log.Fatal(err)
	}
	return s.ID()
}
