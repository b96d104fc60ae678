// Package chromium provides browser sessions over the Chrome DevTools
// Protocol: Launch starts a private headless Chromium, Attach connects to an
// existing browser's ws:// DevTools endpoint. Both give the same Sessions.
//
// This package is the session side: the provider and its browsers, the
// Session with its operation lock, observation, actions (act_*.go, one
// file per kind), tabs, history, waits, find, screenshots and profiles.
// The page a session works on is a tab.Tab (internal/tab: one CDP target,
// its event state, navigation and the guards), reached only through its
// methods; the key tables are internal/keys, the frame merge
// internal/framemerge, the in-page collector internal/collect.
package chromium

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/egress"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/chromeflags"
	"github.com/veetbot/veetbrowser/internal/closeonce"
	"github.com/veetbot/veetbrowser/internal/loopback"
	"github.com/veetbot/veetbrowser/internal/tempdir"
)

// Options configure Launch and Attach. The zero value launches the Chromium
// that browser.FindChromium finds.
type Options struct {
	ExecPath string // Launch: the browser binary; "" to search
	// UserDataDir (Launch) is a persistent profile: the browser keeps its
	// cookies and storage there across launches. It is created (0700) if
	// missing and never removed. "" gives each browser a fresh profile that
	// Close removes.
	UserDataDir string
	// Isolated opens each session in a browser context of its own, thrown away when the session closes: no cookie or storage is
	// shared with the browser's other pages or kept after. For a browser
	// that serves one party after another (a fleet).
	Isolated bool
	// Remote (Attach) says the browser runs on another machine although
	// its DevTools endpoint is on this one's loopback (a forwarded port):
	// it cannot reach this process's egress proxy, so its sessions keep
	// the in-page guards alone (docs/navigation.md). An endpoint elsewhere
	// is remote without it; Launch refuses it.
	Remote bool
	// Egress (Attach) is the egress proxy of a browser on another machine
	// (ListenEgress), on an address of this one that the browser reaches:
	// each 1.9.0 session puts its browser context behind it with
	// credentials of its own (docs/navigation.md). It implies Remote. The
	// caller closes it after the provider; one Egress may serve several
	// providers (a fleet). Launch refuses it.
	Egress *Egress
	Logger *slog.Logger // internal detail; nil discards
	Output io.Writer    // Launch: the browser's own stdout/stderr; nil discards
	// Timings are the page layer's durations; nil runs with
	// DefaultTimings. A table given is used whole: start from
	// DefaultTimings and change what needs changing (tests shorten the
	// guard's bounds).
	Timings *Timings
}

// Timings are every duration the page layer waits for: navigation, the
// renderer guard, settling after input, frames, tabs, dialogs, scrolls and
// waits. DefaultTimings documents each default.
type Timings = tab.Timings

// DefaultTimings are the timings a provider runs with unless Options say
// otherwise.
func DefaultTimings() Timings { return tab.DefaultTimings() }

// Provider owns one browser and the sessions opened in it. A launched
// browser that dies is noticed: the sessions opened in it report
// browser_unavailable, its files are removed, and the next NewSession starts
// a fresh browser. An attached browser cannot be started again: once it is
// gone, NewSession reports browser_unavailable.
type Provider struct {
	// fixed at creation
	launch   func(ctx context.Context) (*instance, error) // starts a fresh browser; nil for an attached one
	log      *slog.Logger
	isolated bool        // each session in a browser context of its own
	timings  tab.Timings // handed to every tab and session

	starting sync.Mutex     // held while a browser is (re)started, so only one starts
	watchers sync.WaitGroup // one per browser, until its end is handled

	mu sync.Mutex
	// guarded by mu
	current  *instance              // the live browser; nil once it is gone, until the next NewSession
	sessions map[*Session]*instance // open sessions and the browser each runs in
	closed   bool
}

// instance is one running browser, or one connection to an attached browser.
type instance struct {
	ctx  context.Context // the browser's chromedp context; ends when the browser is gone
	lost <-chan struct{} // closed as soon as the connection to the browser drops
	pid  int             // the browser's process (and process group) id; 0 when attached
	// local: the browser runs on this machine (launched, or attached on a
	// loopback endpoint), so it reaches this process's loopback and its
	// sessions can be put behind an egress proxy there (requests.go).
	local bool
	// egress: the browser runs on a persistent profile, whose default
	// browser context holds the user's cookies and storage, and was
	// launched behind an egress proxy of its own that asks the rules the
	// sessions on that context attach (requests.go); nil otherwise.
	egress *egress.Shared
	// keyed: the browser runs on another machine and reaches this one's
	// proxy there (Options.Egress); nil otherwise.
	keyed *egress.Proxy
	// stop ends the browser (or the connection) and removes its files;
	// died says it is already gone. Only the first call does anything.
	stop func(died bool) error
	// downloads is the browser's download hub (downloads.go); nil until
	// a session keeps downloads. Guarded by Provider.mu.
	downloads *downloadHub
}

// gone reports whether the browser of inst is gone.
func (inst *instance) gone() bool {
	select {
	case <-inst.lost:
		return true
	default:
		return false
	}
}

var _ browser.Provider = (*Provider)(nil)

// tempPrefix names the private temp dirs of launched browsers (and, through
// the runtime, of upload copies): Launch removes those whose owner is gone.
const tempPrefix = "veetbrowser-"

// Launch starts a private headless Chromium with a fresh user-data dir and
// its own HOME and XDG dirs under one temp dir, all removed by Close. The
// temp dir is marked with this process, and Launch first removes the temp
// dirs that a killed process left behind. With opts.UserDataDir, the
// browser (and any browser relaunched after it died) runs on that
// persistent profile instead, which nothing here removes.
func Launch(ctx context.Context, opts Options) (*Provider, error) {
	if opts.Remote || opts.Egress != nil {
		return nil, errcode.New(errcode.InvalidArgument, "Remote and Egress describe an attached browser; a launched one runs on this machine")
	}
	exe, err := browser.FindChromium(opts.ExecPath)
	if err != nil {
		return nil, err
	}
	profile, err := profileDir(opts.UserDataDir)
	if err != nil {
		return nil, err
	}
	p := newProvider(opts)
	for _, dir := range tempdir.Sweep(tempPrefix) {
		p.log.Info("removed the temp dir of a process that is gone", "dir", dir)
	}
	var last *instance // the browser launched before; launches are serial
	p.launch = func(ctx context.Context) (*instance, error) {
		if profile != "" && last != nil {
			// The browser before must be wholly gone before another
			// opens its profile.
			last.stop(last.gone())
		}
		inst, err := launchBrowser(ctx, exe, opts.Output, profile, p.log)
		if err == nil {
			last = inst
		}
		return inst, err
	}
	inst, err := p.launch(ctx)
	if err != nil {
		return nil, err
	}
	p.adopt(inst)
	return p, nil
}

// launchBrowser starts one browser with its HOME in a fresh temp dir, on
// the persistent profile dir when one is given, else on a fresh profile in
// that temp dir.
func launchBrowser(ctx context.Context, exe string, output io.Writer, profile string, log *slog.Logger) (*instance, error) {
	tmp, err := tempdir.Make(tempPrefix)
	if err != nil {
		return nil, errcode.Wrap(errcode.BrowserUnavailable, err, "could not create the browser's directory")
	}
	home := filepath.Join(tmp, "home")
	dirs := []string{home, filepath.Join(home, ".config"), filepath.Join(home, ".cache"), filepath.Join(home, ".local", "share")}
	// A browser on a fresh profile is killed with this process, as
	// chromedp does by default: its profile is thrown away anyway. One on
	// a persistent profile is not: when this process ends, however it
	// ends, the browser's DevTools pipe closes, and the browser shuts
	// down as on Close, writing out what it has not yet (see profile.go).
	deathSignal := syscall.SIGKILL
	if profile == "" {
		profile = filepath.Join(tmp, "profile")
		dirs = append(dirs, profile)
	} else {
		if err := claimProfile(ctx, profile, log); err != nil {
			os.RemoveAll(tmp)
			return nil, err
		}
		deathSignal = 0
	}
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			os.RemoveAll(tmp)
			return nil, errcode.Wrap(errcode.BrowserUnavailable, err, "could not create the browser's directory")
		}
	}
	var proxy *egress.Proxy
	var shared *egress.Shared
	if deathSignal == 0 {
		// Its default context holds the profile, so no context of a
		// session's own can carry the session's proxy: the whole browser
		// goes through one, which asks the sessions on that context.
		shared = &egress.Shared{}
		if proxy, err = egress.Start(shared.Rules()); err != nil {
			os.RemoveAll(tmp)
			return nil, errcode.Wrap(errcode.BrowserUnavailable, err, "could not start the browser's request guard")
		}
	}
	flags := append(chromeflags.Private(),
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(profile),
		chromedp.Env("HOME="+home, "XDG_CONFIG_HOME="+dirs[1], "XDG_CACHE_HOME="+dirs[2], "XDG_DATA_HOME="+dirs[3], "TMPDIR="+tmp),
		// Its own process group, so that ending the browser ends every
		// helper process too, even after the main process was killed.
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: deathSignal}
		}),
	)
	if proxy != nil {
		flags = append(flags, chromeflags.Proxy(proxy.Addr())...)
	}
	if os.Geteuid() == 0 {
		flags = append(flags, chromedp.NoSandbox)
	}
	if output == nil {
		output = io.Discard
	}
	flags = append(flags, chromedp.CombinedOutput(output))

	// The browser outlives the caller's request context; Close ends it.
	base := context.WithoutCancel(ctx)
	allocCtx, allocCancel := chromedp.NewExecAllocator(base, flags...)
	copts := []chromedp.ContextOption{chromedp.WithErrorf(cdpErrorf)}
	if cdpDebugf != nil {
		copts = append(copts, chromedp.WithDebugf(cdpDebugf))
	}
	browserCtx, browserCancel := chromedp.NewContext(allocCtx, copts...)
	// The first run starts the browser and binds it to browserCtx: it must
	// carry no timeout (the allocator bounds the start itself).
	if err := chromedp.Do(browserCtx); err != nil {
		browserCancel()
		allocCancel()
		proxy.Close()
		os.RemoveAll(tmp)
		return nil, errcode.Wrap(errcode.BrowserUnavailable, err, "Chromium at %s did not start: %s", exe, browser.InstallHint)
	}
	b := chromedp.FromContext(browserCtx).Browser
	inst := &instance{ctx: browserCtx, lost: b.LostConnection, pid: b.Process().Pid, local: true, egress: shared}
	var once sync.Once
	inst.stop = func(died bool) error {
		var err error
		once.Do(func() {
			if !died {
				err = chromedp.Cancel(browserCtx) // closes the browser and waits for it
			}
			// Helpers can outlive a killed main process; once they
			// are gone, nothing writes to the profile any more.
			syscall.Kill(-inst.pid, syscall.SIGKILL)
			waitGroupGone(inst.pid, groupGoneTimeout)
			proxy.Close()
			browserCancel()
			allocCancel()
			if rerr := removeAll(tmp); rerr != nil && err == nil {
				err = rerr
			}
		})
		return err
	}
	return inst, nil
}

// cdpDebugf, when a test sets it before a launch, sees every CDP message
// of the browser launched (chromedp.WithDebugf): the tests count the round
// trips of an observation with it.
var cdpDebugf func(string, ...any)

// Attach connects to a running browser's DevTools endpoint (ws://…). Close
// closes the pages this provider opened and the connection, not the browser.
// Only opts.Isolated, Remote, Egress and Logger apply: an attached browser
// was started by someone else, so ExecPath, UserDataDir and Output are
// refused as invalid_argument rather than ignored. A browser whose endpoint
// is on loopback runs on this machine unless opts.Remote or opts.Egress
// says otherwise.
func Attach(ctx context.Context, wsURL string, opts Options) (*Provider, error) {
	if opts.ExecPath != "" || opts.Output != nil || opts.UserDataDir != "" {
		return nil, errcode.New(errcode.InvalidArgument, "ExecPath, UserDataDir and Output configure a launched browser; an attached one takes only Isolated, Remote, Egress and a Logger")
	}
	base := context.WithoutCancel(ctx)
	allocCtx, allocCancel := remote.NewAllocator(base, wsURL)
	browserCtx, browserCancel := chromedp.NewContext(allocCtx, chromedp.WithErrorf(cdpErrorf))
	// The first run starts the browser and binds it to browserCtx: it must
	// carry no timeout (the allocator bounds the start itself).
	if err := chromedp.Do(browserCtx); err != nil {
		browserCancel()
		allocCancel()
		return nil, errcode.Wrap(errcode.BrowserUnavailable, err, "could not attach to the browser's DevTools endpoint")
	}
	var once sync.Once
	p := newProvider(opts)
	inst := &instance{
		ctx:   browserCtx,
		lost:  chromedp.FromContext(browserCtx).Browser.LostConnection,
		local: !opts.Remote && opts.Egress == nil && endpointOnLoopback(wsURL),
		stop: func(bool) error {
			once.Do(func() { browserCancel(); allocCancel() })
			return nil
		},
	}
	if opts.Egress != nil {
		inst.keyed = opts.Egress.proxy
	}
	p.adopt(inst)
	return p, nil
}

// endpointOnLoopback reports whether the DevTools endpoint wsURL is on
// this machine's loopback. A malformed one is not: Attach has already
// connected to it, and a doubt keeps the guards alone.
func endpointOnLoopback(wsURL string) bool {
	u, err := url.Parse(wsURL)
	return err == nil && loopback.Host(u.Host)
}

func newProvider(opts Options) *Provider {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	timings := tab.DefaultTimings()
	if opts.Timings != nil {
		timings = *opts.Timings
	}
	return &Provider{log: logger, isolated: opts.Isolated, timings: timings, sessions: make(map[*Session]*instance)}
}

// adopt makes inst the provider's browser and watches for its end. It
// reports false, and does nothing, once the provider is closed.
func (p *Provider) adopt(inst *instance) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.current = inst
	p.watchers.Add(1)
	go p.watch(inst)
	return true
}

// watch waits for the end of inst. A browser that ends while the provider
// is open has died (or its connection dropped): its sessions' operations
// are interrupted, and its processes and files are removed at once rather
// than at Close.
func (p *Provider) watch(inst *instance) {
	defer p.watchers.Done()
	select {
	case <-inst.lost:
	case <-inst.ctx.Done():
	}
	p.mu.Lock()
	if p.current == inst {
		p.current = nil
	}
	closing := p.closed
	var orphans []*Session
	for s, in := range p.sessions {
		if in == inst {
			orphans = append(orphans, s)
		}
	}
	p.mu.Unlock()
	if closing {
		// Close stops the current browser; this makes sure of one that
		// died just before (a no-op for one Close already stopped).
		inst.stop(inst.gone())
		inst.closeDownloads(&p.mu)
		return
	}
	p.log.Warn("the browser is gone; its pages report browser_unavailable and the next session starts a fresh browser",
		"pid", inst.pid, "pages", len(orphans))
	for _, s := range orphans {
		s.tab.Interrupt(errBrowserGone)
	}
	if err := inst.stop(true); err != nil {
		errcode.Log(context.Background(), p.log, "cleaning up after the browser", err)
	}
	inst.closeDownloads(&p.mu)
}

// errBrowserGone is what every call of a session whose browser is gone
// reports.
var errBrowserGone = errcode.New(errcode.BrowserUnavailable, "the browser stopped; this page is lost and a new session is needed")

// browser returns the live browser, starting a fresh one if the last one
// died.
func (p *Provider) browser(ctx context.Context) (*instance, error) {
	p.starting.Lock()
	defer p.starting.Unlock()
	p.mu.Lock()
	closed, inst := p.closed, p.current
	p.mu.Unlock()
	switch {
	case closed:
		return nil, errcode.New(errcode.BrowserUnavailable, "the browser is closed")
	case inst != nil && !inst.gone():
		return inst, nil
	case p.launch == nil:
		return nil, errcode.New(errcode.BrowserUnavailable, "the attached browser is gone; attach to a running browser again")
	}
	inst, err := p.launch(ctx)
	if err != nil {
		return nil, err
	}
	if !p.adopt(inst) {
		inst.stop(false)
		return nil, errcode.New(errcode.BrowserUnavailable, "the browser is closed")
	}
	p.log.Info("started a fresh browser", "pid", inst.pid)
	return inst, nil
}

// NewSession opens a page with the collector installed, in a fresh browser
// if the last one died.
func (p *Provider) NewSession(ctx context.Context, opts browser.SessionOptions) (browser.Session, error) {
	inst, err := p.browser(ctx)
	if err != nil {
		return nil, err
	}
	s, err := newSession(ctx, p, inst, opts)
	if err != nil {
		if inst.gone() {
			return nil, errBrowserGone
		}
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		s.closeTabs()
		return nil, errcode.New(errcode.BrowserUnavailable, "the browser is closed")
	}
	p.sessions[s] = inst
	p.log.Debug("page opened", "pages", len(p.sessions))
	return s, nil
}

func (p *Provider) forget(s *Session) {
	p.mu.Lock()
	delete(p.sessions, s)
	n := len(p.sessions)
	p.mu.Unlock()
	p.log.Debug("page closed", "pages", n)
}

// Gone reports whether the browser under s is gone: it died, or the
// connection to it dropped. Every later call of s is browser_unavailable.
func (s *Session) Gone() bool {
	select {
	case <-s.browser().LostConnection:
		return true
	default:
		return false
	}
}

// Close closes every session, then the browser, and removes its files.
// Cleanup runs whatever ctx: each page waits at most closeTimeout for an
// operation in flight, then is closed under it.
func (p *Provider) Close(ctx context.Context) error {
	var inst *instance
	var sessions []*Session
	if !closeonce.Begin(&p.mu, &p.closed, func() {
		inst, p.current = p.current, nil
		sessions = slices.Collect(maps.Keys(p.sessions))
	}) {
		return nil
	}
	var errs []error
	for _, s := range sessions {
		if err := s.Close(ctx); err != nil {
			errcode.Log(context.WithoutCancel(ctx), p.log, "closing a page", err)
			errs = append(errs, err)
		}
	}
	if inst != nil {
		if err := inst.stop(inst.gone()); err != nil {
			errcode.Log(context.WithoutCancel(ctx), p.log, "closing the browser", err)
			errs = append(errs, err)
		}
	}
	// A browser that died may still be being cleaned up.
	p.watchers.Wait()
	return errors.Join(errs...)
}

// Process returns the live browser's process id; 0 for an attached browser
// or when the browser is gone.
func (p *Provider) Process() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.current == nil {
		return 0
	}
	return p.current.pid
}

// removeAll retries briefly: Chromium's helpers can still be writing as the
// main process exits.
func removeAll(dir string) error {
	var err error
	for range 50 {
		if err = os.RemoveAll(dir); err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("removing %s: %w", dir, err)
}

// cdpErrorf logs chromedp's errors as chromedp does, but for the detach of
// a session chromedp did not open: the browser session holds the dedicated
// workers of guarded tabs (tab/workers.go) in sessions of its own, each of
// which detaches when its worker ends.
func cdpErrorf(format string, args ...any) {
	if format == "executor for %q doesn't exist" {
		return
	}
	log.Printf("ERROR: "+format, args...)
}
