// Command veetbrowser is the CLI of the browser runtime for AI agents.
//
//	veetbrowser observe [URL] [--canonical] [--budget BYTES] [--tool-version V] [--browser PATH] [--cdp WS_URL] [--profile-dir DIR] [--log-level LEVEL] [--store SPEC] [--retain DURATION] [--retain-bytes N]
//	veetbrowser read URL [--budget BYTES] [--tool-version V] [--browser PATH] [--cdp WS_URL] [--profile-dir DIR] [--log-level LEVEL] [--store SPEC] [--retain DURATION] [--retain-bytes N]
//	veetbrowser find URL QUERY [--budget BYTES] [--tool-version V] [--browser PATH] [--cdp WS_URL] [--profile-dir DIR] [--log-level LEVEL] [--store SPEC] [--retain DURATION] [--retain-bytes N]
//	veetbrowser mcp (--allow-origin ORIGIN... | --allow-any-origin) [--hosted URL --profile NAME] [--allow-link-local] [--contain [--allow-resource ORIGIN...]] [--read-values] [--http ADDR] [--http-allow-origin ORIGIN...] [--max-sessions N] [--idle-timeout DURATION] [--budget BYTES] [--tool-version V] [--upload-root DIR] [--download-dir DIR] [--browser PATH] [--cdp WS_URL [--cdp-remote] [--egress-listen HOST:PORT]] [--profile-dir DIR] [--log-level LEVEL] [--store SPEC] [--retain DURATION] [--retain-bytes N]
//	veetbrowser serve --data DIR --tokens FILE [--listen ADDR] [--store SPEC] [--tls-cert FILE --tls-key FILE] [--cdp WS_URL... [--cdp-remote] [--egress-listen HOST:PORT]] [--browser PATH] [--max-leases N] [--allow-private] [--log-level LEVEL]
//	veetbrowser token TENANT
//	veetbrowser suite [--budget BYTES] [--json] [--scenario IDS] [--browser PATH] [--cdp WS_URL] [--log-level LEVEL] [--store SPEC] [--retain DURATION] [--retain-bytes N]
//	veetbrowser replay [--store SPEC] [--budget BYTES] [--tool-version V] [--html FILE] [SESSION]
//	veetbrowser view [--store SPEC] [--listen ADDR] [--token-file FILE]
//	veetbrowser sessions [--store SPEC] [--limit N]
//	veetbrowser doctor [--json] [--browser PATH] [--store SPEC] [--upload-root DIR] [--hosted URL] [--log-level LEVEL]
//	veetbrowser version
//	veetbrowser help [COMMAND]
//
// observe with no URL serves the built-in demo site on loopback and observes it.
// read prints every view of a page, following next until it is absent; find
// prints what browser_find finds on a page.
// Every call is recorded in the artifact store (--store, default
// $VEETBROWSER_STORE, else a SQLite file under $XDG_DATA_HOME/veetbrowser);
// replay re-derives a recorded session's model views from it (--html writes
// its timeline as one HTML file); view serves the sessions as timelines.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/tempdir"
	"github.com/veetbot/veetbrowser/mcpserver"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/tools"
)

// cli is what every command writes to and logs with.
type cli struct {
	stdout, stderr io.Writer
	log            cliLog
}

// A command runs one subcommand on its arguments; its flags go into fs,
// which bears its name.
type command func(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error

// commands are the subcommands by name.
var commands = map[string]command{
	"observe":  runObserve,
	"read":     runRead,
	"find":     runFind,
	"mcp":      runMCP,
	"serve":    runServe,
	"token":    runToken,
	"suite":    runSuite,
	"replay":   runReplay,
	"sessions": runSessions,
	"view":     runView,
	"version":  runVersion,
	"doctor":   runDoctor,
}

// sweepsAtStart are the commands that sweep the temp dirs of dead
// processes of ours (tempPrefix) as they start, whatever browser they use.
var sweepsAtStart = map[string]bool{"mcp": true, "serve": true}

// tempPrefix begins the name of every temp dir this program makes.
const tempPrefix = "veetbrowser-"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "veetbrowser: unknown command %s\n", errcode.Quote(args[0]))
		usage(stderr)
		return 2
	}
	log := newCLILog(stderr)
	if sweepsAtStart[args[0]] {
		// A server killed with SIGKILL left its temp dirs (its browser's,
		// its upload copies): the next start removes those of dead owners.
		for _, dir := range tempdir.Sweep(tempPrefix) {
			log.Info("removed the temp dir of a process that is gone", "dir", dir)
		}
	}
	c := cli{stdout: stdout, stderr: stderr, log: log}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := cmd(ctx, c, fs, args[1:]); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		var silent *silentError
		if !errors.As(err, &silent) {
			errcode.Log(ctx, log.Logger, "veetbrowser "+args[0]+" failed", err)
			writeError(stdout, err)
		}
		return 1
	}
	return 0
}

// The usage line of each subcommand lists every flag it takes.
const (
	observeUsageLine  = "veetbrowser observe [URL] [--canonical] [--budget BYTES] [--tool-version V] [--browser PATH] [--cdp WS_URL] [--profile-dir DIR] [--log-level LEVEL] [--store SPEC] [--retain DURATION] [--retain-bytes N]"
	readUsageLine     = "veetbrowser read URL [--budget BYTES] [--tool-version V] [--browser PATH] [--cdp WS_URL] [--profile-dir DIR] [--log-level LEVEL] [--store SPEC] [--retain DURATION] [--retain-bytes N]"
	findUsageLine     = "veetbrowser find URL QUERY [--budget BYTES] [--tool-version V] [--browser PATH] [--cdp WS_URL] [--profile-dir DIR] [--log-level LEVEL] [--store SPEC] [--retain DURATION] [--retain-bytes N]"
	mcpUsageLine      = "veetbrowser mcp (--allow-origin ORIGIN... | --allow-any-origin) [--hosted URL --profile NAME] [--allow-link-local] [--contain [--allow-resource ORIGIN...]] [--read-values] [--http ADDR] [--http-allow-origin ORIGIN...] [--max-sessions N] [--idle-timeout DURATION] [--control ADDR] [--approval-timeout DURATION] [--approve CLASS...] [--budget BYTES] [--tool-version V] [--upload-root DIR] [--download-dir DIR] [--browser PATH] [--cdp WS_URL [--cdp-remote] [--egress-listen HOST:PORT]] [--profile-dir DIR] [--log-level LEVEL] [--store SPEC] [--retain DURATION] [--retain-bytes N]"
	suiteUsageLine    = "veetbrowser suite [--budget BYTES] [--json] [--scenario IDS] [--browser PATH] [--cdp WS_URL] [--log-level LEVEL] [--store SPEC] [--retain DURATION] [--retain-bytes N]"
	replayUsageLine   = "veetbrowser replay [--store SPEC] [--budget BYTES] [--tool-version V] [--html FILE] [SESSION]"
	sessionsUsageLine = "veetbrowser sessions [--store SPEC] [--limit N]"
)

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: veetbrowser <command> [arguments]

commands:
  observe [URL]   observe a page (no URL: the built-in demo site) and print the model view
  read URL        read a whole page: print each view as a JSON line, following next
                  until a view has none
  find URL QUERY  find controls and text matching QUERY on a page (browser_find)
  mcp             serve the browser tools over MCP (stdio, or streamable HTTP with --http)
  serve           run the hosted sidecar: browsers, profiles and leases behind an
                  authenticated HTTP API (docs/sidecar.md)
  token TENANT    make a sidecar token: its token file line on stdout, the token on stderr
  suite           run the synthetic component task suite
  replay [ID]     re-derive a recorded session's model views (no ID: the newest) and
                  check they are byte-identical
                  (--html FILE: write its timeline as one self-contained HTML file)
  view            serve the recorded sessions as timelines on a local read-only web page
  sessions        list the recorded sessions, newest first
  doctor          check the browser, the store, uploads, MCP and a sidecar, and say
                  how to fix what fails
  version         print the module version, its revision and the browser tool versions
  help [COMMAND]  print a command's flags with their defaults and two examples

observe, read, find, mcp and suite record every call in the artifact store:
--store SPEC (a SQLite file, a postgres:// URL, or none; default $`+EnvStore+`,
else a SQLite file under $XDG_DATA_HOME/veetbrowser), pruned at start with
--retain DURATION and --retain-bytes N (whole sessions only).

flags:
  `+observeUsageLine+`
  `+readUsageLine+`
  `+findUsageLine+`
  `+mcpUsageLine+`
  `+serveUsageLine+`
  `+tokenUsageLine+`
  `+suiteUsageLine+`
  `+replayUsageLine+`
  `+viewUsageLine+`
  `+sessionsUsageLine+`
  `+doctorUsageLine+`
  `+versionUsageLine+`
  `+helpUsageLine+`
`)
}

// writeError prints the public form of err as JSON: {"error":{"code","message"}}.
func writeError(w io.Writer, err error) {
	json.NewEncoder(w).Encode(mcpserver.NewErrorBody(err))
}

// parseUsage parses args with parseFlags and refuses a bad flag, or more
// than maxPositional positional arguments, with the command's usage line.
func parseUsage(fs *flag.FlagSet, args []string, maxPositional int, usageLine string) ([]string, error) {
	pos, err := parseFlags(fs, args)
	if err == flag.ErrHelp {
		return nil, err
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.InvalidArgument, err, "invalid flags: %s; usage: %s", errcode.Quote(err.Error()), usageLine)
	}
	if len(pos) > maxPositional {
		return nil, errcode.New(errcode.InvalidArgument, "too many arguments; usage: %s", usageLine)
	}
	return pos, nil
}

// parseExactly is parseUsage for a command that takes exactly n
// positional arguments.
func parseExactly(fs *flag.FlagSet, args []string, n int, usageLine string) ([]string, error) {
	pos, err := parseUsage(fs, args, n, usageLine)
	if err == nil && len(pos) != n {
		return nil, errcode.New(errcode.InvalidArgument, "want %d argument(s), got %d; usage: %s", n, len(pos), usageLine)
	}
	return pos, err
}

// withHelp makes fs print help, then its flags, to w on --help and on a
// bad flag.
func withHelp(fs *flag.FlagSet, w io.Writer, help string) {
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), help)
		fs.PrintDefaults()
	}
}

// parseFlags parses flags that may stand before or after positional
// arguments and returns the positionals.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// cliLog is where the CLI logs internal causes of failures: stderr, at the
// level --log-level sets (default warn). The public code and message go to
// stdout as JSON.
type cliLog struct {
	*slog.Logger
	level *slog.LevelVar
}

func newCLILog(w io.Writer) cliLog {
	level := new(slog.LevelVar)
	level.Set(slog.LevelWarn)
	return cliLog{Logger: slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), level: level}
}

// browserFlags are the flags that choose a browser, and the log level of
// the commands that use one.
type browserFlags struct {
	path       string
	cdp        string
	profileDir string // --profile-dir (profile.go); only the commands that register it
	// --cdp-remote and --egress-listen (registerRemote): only the
	// commands that register them
	remote       bool
	egressListen string
	log          cliLog
}

// registerRemote registers the switches of a --cdp browser on another
// machine.
func (b *browserFlags) registerRemote(fs *flag.FlagSet) {
	fs.BoolVar(&b.remote, "cdp-remote", false, "the --cdp browser runs on another machine (its endpoint a forwarded port): its pages keep the in-page guards alone, unless --egress-listen")
	fs.StringVar(&b.egressListen, "egress-listen", "", "the --cdp browser runs on another machine and reaches this one at `HOST:PORT`: every connection of its 1.9.0 sessions goes through the egress proxy listening there, each session with credentials of its own")
}

func (b *browserFlags) register(fs *flag.FlagSet, log cliLog) {
	b.log = log
	fs.StringVar(&b.path, "browser", "", "Chromium binary (default: $"+browser.EnvChromium+", then the usual paths)")
	fs.StringVar(&b.cdp, "cdp", "", "attach to a running browser's DevTools endpoint (ws://…) instead of launching one")
	if log.level != nil {
		fs.TextVar(log.level, "log-level", log.level, "log internal causes to stderr from this `level` on: debug, info, warn or error")
	}
}

// runtime opens the artifact store, the chosen browser and a runtime over
// them (with opts, budget and store set from the flags); close releases
// all three.
func (b *browserFlags) runtime(ctx context.Context, budget int, sf *storeFlags, opts veetbrowser.Options) (rt *veetbrowser.Runtime, close func(), err error) {
	if err := checkBudgetFlag(budget); err != nil {
		return nil, nil, err
	}
	st, err := sf.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	unlock := func() {}
	if b.profileDir != "" {
		if b.cdp != "" {
			st.Close()
			return nil, nil, errcode.New(errcode.InvalidArgument, "--profile-dir is the profile of a launched browser; --cdp attaches to one")
		}
		if unlock, err = lockProfile(b.profileDir); err != nil {
			st.Close()
			return nil, nil, err
		}
	}
	p, closeEgress, err := b.provider(ctx)
	if err != nil {
		unlock()
		st.Close()
		return nil, nil, err
	}
	// Closing runs to its end even after the command's context is
	// cancelled: the browser's processes and files must go.
	closeCtx := context.WithoutCancel(ctx)
	opts.Budget, opts.Store = budget, st
	if rt, err = veetbrowser.New(p, opts); err != nil {
		p.Close(closeCtx)
		closeEgress()
		unlock()
		st.Close()
		return nil, nil, err
	}
	// The lock is released after the browser is closed: it wrote its
	// cookies out by then.
	return rt, func() { p.Close(closeCtx); closeEgress(); unlock(); st.Close() }, nil
}

// checkBudgetFlag refuses a --budget the runtime would refuse, naming the
// flag, before a store or a browser is opened.
func checkBudgetFlag(budget int) error {
	if budget != 0 && (budget < projection.MinBudget || budget > projection.MaxBudget) {
		return errcode.New(errcode.InvalidArgument, "--budget must be between %d and %d bytes", projection.MinBudget, projection.MaxBudget)
	}
	return nil
}

// checkVersionFlag refuses an unknown --tool-version, naming the flag,
// before a store or a browser is opened.
func checkVersionFlag(version string) error {
	if _, err := tools.Lookup(version); err != nil {
		return flagged("--tool-version", err)
	}
	return nil
}

// flagged names the flag that caused err in its public message; the code
// stays.
func flagged(flagName string, err error) error {
	code, msg := errcode.Public(err)
	return errcode.Wrap(code, err, "%s: %s", flagName, msg)
}

// provider opens the chosen browser; closeEgress, after the provider is
// closed, stops the egress proxy of a remote one (--egress-listen).
func (b *browserFlags) provider(ctx context.Context) (p *chromium.Provider, closeEgress func(), err error) {
	closeEgress = func() {}
	if b.cdp == "" {
		if b.remote || b.egressListen != "" {
			return nil, nil, errcode.New(errcode.InvalidArgument, "--cdp-remote and --egress-listen describe a --cdp browser on another machine")
		}
		p, err = chromium.Launch(ctx, chromium.Options{ExecPath: b.path, Logger: b.log.Logger, UserDataDir: b.profileDir})
		return p, closeEgress, err
	}
	if !strings.HasPrefix(b.cdp, "ws://") && !strings.HasPrefix(b.cdp, "wss://") {
		return nil, nil, errcode.New(errcode.InvalidArgument, "--cdp wants a ws:// or wss:// DevTools URL")
	}
	opts := chromium.Options{Logger: b.log.Logger, Remote: b.remote}
	if b.egressListen != "" {
		if opts.Egress, err = chromium.ListenEgress(b.egressListen); err != nil {
			return nil, nil, flagged("--egress-listen", err)
		}
		closeEgress = func() { opts.Egress.Close() }
	}
	if p, err = chromium.Attach(ctx, b.cdp, opts); err != nil {
		closeEgress()
		return nil, nil, err
	}
	return p, closeEgress, nil
}
