package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/demo"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/hosted"
	"github.com/veetbot/veetbrowser/mcpserver"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
	"github.com/veetbot/veetbrowser/tools"
)

const doctorUsageLine = "veetbrowser doctor [--json] [--browser PATH] [--store SPEC] [--upload-root DIR] [--hosted URL] [--log-level LEVEL]"

// checkBound bounds each check: a browser that does not start, or a
// database or sidecar that does not answer, is a verdict, not a hang.
const checkBound = 45 * time.Second

// A check is one line of the doctor's report: what was checked, whether it
// passed, what was found, and the fix when it failed.
type check struct {
	Name    string `json:"name"`
	OK      bool   `json:"ok"`
	Verdict string `json:"verdict"`
	Fix     string `json:"fix,omitempty"`
}

// doctor is what runDoctor checks, from its flags.
type doctor struct {
	browserPath string
	storeSpec   string
	uploadRoot  string
	hostedURL   string
	log         cliLog
}

// runDoctor checks the setup the other commands need and prints one
// verdict per check; it fails unless every check passed.
func runDoctor(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	asJSON := fs.Bool("json", false, "print the checks as one JSON object")
	d := doctor{log: c.log}
	fs.StringVar(&d.browserPath, "browser", "", "Chromium binary to check (default: $"+browser.EnvChromium+", then the usual paths)")
	fs.StringVar(&d.storeSpec, "store", os.Getenv(EnvStore), storeUsage)
	fs.StringVar(&d.uploadRoot, "upload-root", "", "the directory mcp --upload-root would read uploads from (default: not checked)")
	fs.StringVar(&d.hostedURL, "hosted", "", "a sidecar to check (http(s)://host:port), with its token in $"+EnvToken)
	fs.TextVar(c.log.level, "log-level", c.log.level, "log internal causes to stderr from this `level` on: debug, info, warn or error")
	if _, err := parseUsage(fs, args, 0, doctorUsageLine); err != nil {
		return err
	}
	checks := d.run(ctx)
	ok := true
	for _, ch := range checks {
		ok = ok && ch.OK
	}
	if *asJSON {
		json.NewEncoder(c.stdout).Encode(struct {
			OK     bool    `json:"ok"`
			Checks []check `json:"checks"`
		}{ok, checks})
	} else {
		for _, ch := range checks {
			mark := "ok  "
			if !ch.OK {
				mark = "FAIL"
			}
			fmt.Fprintf(c.stdout, "%s %s: %s\n", mark, ch.Name, ch.Verdict)
			if ch.Fix != "" {
				fmt.Fprintf(c.stdout, "     fix: %s\n", ch.Fix)
			}
		}
	}
	if !ok {
		return &silentError{"a check failed"}
	}
	return nil
}

// run runs the checks in order; a browser that cannot be found is not
// started, and the MCP handshake needs a browser that starts.
func (d doctor) run(ctx context.Context) []check {
	exe, found := d.findBrowser(ctx)
	checks := []check{found}
	started := check{Name: "headless start", Verdict: "not tried: no browser", Fix: found.Fix}
	if found.OK {
		started = d.startBrowser(ctx, exe)
	}
	checks = append(checks, started, d.store(ctx), d.uploads())
	handshake := check{Name: "MCP", Verdict: "not tried: the browser does not start", Fix: started.Fix}
	if started.OK {
		handshake = d.mcpHandshake(ctx, exe)
	}
	checks = append(checks, handshake)
	if d.hostedURL != "" {
		checks = append(checks, d.sidecar(ctx))
	}
	return checks
}

// findBrowser finds the binary the commands would launch and asks it for
// its version.
func (d doctor) findBrowser(ctx context.Context) (string, check) {
	ch := check{Name: "browser"}
	exe, err := browser.FindChromium(d.browserPath)
	if err != nil {
		ch.Verdict = publicMessage(err)
		ch.Fix = installFix
		if d.browserPath != "" {
			ch.Fix = "--browser names no executable: " + installFix
		}
		return "", ch
	}
	cctx, cancel := context.WithTimeout(ctx, checkBound)
	defer cancel()
	out, err := exec.CommandContext(cctx, exe, "--version").Output()
	if err != nil {
		ch.Verdict = fmt.Sprintf("%s does not run: %v", exe, err)
		ch.Fix = "reinstall Chromium, or pass --browser PATH to a Chromium that runs: " + installFix
		return "", ch
	}
	ch.OK, ch.Verdict = true, fmt.Sprintf("%s at %s", strings.TrimSpace(string(out)), exe)
	return exe, ch
}

// installFix is how to get a browser on the common systems; nothing ever
// downloads one.
const installFix = "install Chromium (Debian/Ubuntu: sudo apt-get install -y chromium; Fedora: sudo dnf install -y chromium; Arch: sudo pacman -S chromium; macOS: brew install --cask chromium) or pass --browser PATH or set $" + browser.EnvChromium

// startBrowser launches the browser headless, as the commands do, and
// observes the built-in demo site with it.
func (d doctor) startBrowser(ctx context.Context, exe string) check {
	ch := check{Name: "headless start"}
	cctx, cancel := context.WithTimeout(ctx, checkBound)
	defer cancel()
	controls, err := d.observeDemo(cctx, exe)
	if err != nil {
		ch.Verdict = "the browser does not start headless here: " + publicMessage(err)
		ch.Fix = "run it by hand (" + exe + " --headless --dump-dom about:blank) to see why; as root the sandbox is turned off by itself, elsewhere a sandbox error needs the distribution's chromium package (its sandbox helper) or user namespaces enabled"
		return ch
	}
	sandbox := "sandboxed"
	if os.Geteuid() == 0 {
		sandbox = "without the sandbox (running as root)"
	}
	ch.OK, ch.Verdict = true, fmt.Sprintf("starts headless %s and sees %d controls on the built-in demo", sandbox, controls)
	return ch
}

func (d doctor) observeDemo(ctx context.Context, exe string) (int, error) {
	u, stop, err := demo.Serve(&demo.Site{})
	if err != nil {
		return 0, err
	}
	defer stop()
	rt, end, err := launch(ctx, exe, d.log)
	if err != nil {
		return 0, err
	}
	defer end()
	s, err := rt.NewSession(ctx, veetbrowser.SessionOptions{Surface: "cli"})
	if err != nil {
		return 0, err
	}
	defer s.Close(context.WithoutCancel(ctx))
	res, err := s.Navigate(ctx, u)
	if err != nil {
		return 0, err
	}
	return len(res.Observation.Controls), nil
}

// store opens the artifact store the commands would record in, which
// creates it or migrates its schema as they would.
func (d doctor) store(ctx context.Context) check {
	ch := check{Name: "store"}
	where := "the SQLite file under $XDG_DATA_HOME/veetbrowser"
	switch {
	case d.storeSpec == "none":
		where = "none (nothing is recorded)"
	case strings.HasPrefix(d.storeSpec, "postgres://"), strings.HasPrefix(d.storeSpec, "postgresql://"):
		where = "the PostgreSQL database of --store"
	case d.storeSpec != "":
		where = errcode.Quote(d.storeSpec)
	}
	cctx, cancel := context.WithTimeout(ctx, checkBound)
	defer cancel()
	st, err := storespec.Open(cctx, d.storeSpec)
	if err != nil {
		ch.Verdict = where + " cannot be opened: " + publicMessage(err)
		ch.Fix = "pass --store with a SQLite file in a directory you can write, a postgres:// URL of a server that answers (check host, port, user and password), or none"
		return ch
	}
	st.Close()
	ch.OK, ch.Verdict = true, where+" opens and its schema is current"
	return ch
}

// uploads checks the directory browser_upload would read from.
func (d doctor) uploads() check {
	ch := check{Name: "upload root"}
	if d.uploadRoot == "" {
		ch.OK, ch.Verdict = true, "none given: browser_upload is refused (mcp --upload-root DIR allows it)"
		return ch
	}
	f, err := os.Open(d.uploadRoot)
	if err == nil {
		_, err = f.Readdirnames(1)
		f.Close()
		if err == io.EOF {
			err = nil // empty, and readable
		}
	}
	if err != nil {
		ch.Verdict = fmt.Sprintf("%s cannot be read as a directory: %v", errcode.Quote(d.uploadRoot), err)
		ch.Fix = "--upload-root must name a directory you can read"
		return ch
	}
	ch.OK, ch.Verdict = true, errcode.Quote(d.uploadRoot)+" is a readable directory"
	return ch
}

// mcpHandshake serves the browser tools as mcp does, on a browser of its
// own, and talks to them as a client: the handshake and tools/list.
func (d doctor) mcpHandshake(ctx context.Context, exe string) check {
	ch := check{Name: "MCP"}
	cctx, cancel := context.WithTimeout(ctx, checkBound)
	defer cancel()
	n, err := listTools(cctx, exe, d.log)
	if err != nil {
		ch.Verdict = "the handshake failed: " + publicMessage(err)
		ch.Fix = "run veetbrowser mcp --allow-any-origin --log-level debug and read its stderr"
		return ch
	}
	ch.OK, ch.Verdict = true, fmt.Sprintf("handshake and tools/list answer %d tools (tool version %s)", n, tools.Newest().Name)
	return ch
}

// launch starts the browser at exe as the commands do, with a runtime
// over it that records nothing: a check leaves no session in the store.
// end closes the browser.
func launch(ctx context.Context, exe string, log cliLog) (rt *veetbrowser.Runtime, end func(), err error) {
	p, err := chromium.Launch(ctx, chromium.Options{ExecPath: exe, Logger: log.Logger})
	if err != nil {
		return nil, nil, err
	}
	end = func() { p.Close(context.WithoutCancel(ctx)) }
	if rt, err = veetbrowser.New(p, veetbrowser.Options{Store: store.Discard}); err != nil {
		end()
		return nil, nil, err
	}
	return rt, end, nil
}

func listTools(ctx context.Context, exe string, log cliLog) (int, error) {
	rt, end, err := launch(ctx, exe, log)
	if err != nil {
		return 0, err
	}
	defer end()
	srv, err := mcpserver.New(rt, mcpserver.Options{ServerVersion: build().version, Grant: policy.Grant{Origins: []string{"http://127.0.0.1"}}, Logger: log.Logger})
	if err != nil {
		return 0, err
	}
	defer srv.Close(context.WithoutCancel(ctx))
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP.Connect(ctx, st, nil)
	if err != nil {
		return 0, err
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "veetbrowser-doctor", Version: build().version}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		return 0, err
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return 0, err
	}
	return len(res.Tools), nil
}

// sidecar asks the sidecar of --hosted for its health and the token's
// tenant.
func (d doctor) sidecar(ctx context.Context) check {
	ch := check{Name: "sidecar"}
	cctx, cancel := context.WithTimeout(ctx, checkBound)
	defer cancel()
	tenant, err := hosted.Check(cctx, hosted.Options{URL: d.hostedURL, Token: os.Getenv(EnvToken)})
	if err != nil {
		ch.Verdict = errcode.Quote(d.hostedURL) + ": " + publicMessage(err)
		switch errcode.Of(err) {
		case errcode.Unauthorized:
			ch.Fix = "set $" + EnvToken + " to a token of the sidecar's token file (veetbrowser token TENANT makes one)"
		case errcode.InvalidArgument:
			ch.Fix = "--hosted wants http(s)://host:port"
		default:
			ch.Fix = "start the sidecar (veetbrowser serve) or fix --hosted's address"
		}
		return ch
	}
	ch.OK, ch.Verdict = true, fmt.Sprintf("%s is healthy; the token is tenant %s's", errcode.Quote(d.hostedURL), errcode.Quote(tenant))
	return ch
}

// publicMessage is err's public message: what the commands print.
func publicMessage(err error) string {
	_, msg := errcode.Public(err)
	return msg
}
