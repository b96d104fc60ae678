// Package chromium provides browser sessions over the Chrome DevTools
// Protocol: Launch starts a private headless Chromium, Attach connects to an
// existing browser's ws:// DevTools endpoint. Both give the same Sessions.
package chromium

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
)

// Options configure Launch. The zero value launches the Chromium that
// browser.FindChromium finds.
type Options struct {
	ExecPath string               // browser binary; "" to search
	Logf     func(string, ...any) // internal detail; nil discards
	Output   io.Writer            // the browser's own stdout/stderr; nil discards
}

// Provider owns one browser and the sessions opened in it.
type Provider struct {
	// fixed at creation
	browserCtx context.Context
	stop       func() error // ends the browser (or the connection) and cleans up
	logf       func(string, ...any)

	mu       sync.Mutex
	sessions map[*Session]struct{}
	closed   bool
}

var _ browser.Provider = (*Provider)(nil)

// launchFlags are the switches SPEC §1 requires: headless, and none of the
// browser's own calls home, so it talks only to the sites its agent visits.
func launchFlags() []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.Headless,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("disable-client-side-phishing-detection", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("disable-features", "Translate,OptimizationHints,OptimizationGuideModelDownloading,AutofillServerCommunication,MediaRouter,CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions"),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-hang-monitor", true),
		chromedp.Flag("disable-popup-blocking", true),
		chromedp.Flag("disable-prompt-on-repost", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		chromedp.Flag("mute-audio", true),
		chromedp.WindowSize(1280, 900),
	}
}

// Launch starts a private headless Chromium with a fresh user-data dir and
// its own HOME and XDG dirs under one temp dir, all removed by Close.
func Launch(ctx context.Context, opts Options) (*Provider, error) {
	exe, err := browser.FindChromium(opts.ExecPath)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "veetbrowser-")
	if err != nil {
		return nil, errcode.Wrap(errcode.BrowserUnavailable, err, "could not create the browser's directory")
	}
	home := filepath.Join(tmp, "home")
	dirs := []string{home, filepath.Join(home, ".config"), filepath.Join(home, ".cache"), filepath.Join(home, ".local", "share"), filepath.Join(tmp, "profile")}
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			os.RemoveAll(tmp)
			return nil, errcode.Wrap(errcode.BrowserUnavailable, err, "could not create the browser's directory")
		}
	}
	flags := append(launchFlags(),
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(filepath.Join(tmp, "profile")),
		chromedp.Env("HOME="+home, "XDG_CONFIG_HOME="+dirs[1], "XDG_CACHE_HOME="+dirs[2], "XDG_DATA_HOME="+dirs[3], "TMPDIR="+tmp),
	)
	if os.Geteuid() == 0 {
		flags = append(flags, chromedp.NoSandbox)
	}
	out := opts.Output
	if out == nil {
		out = io.Discard
	}
	flags = append(flags, chromedp.CombinedOutput(out))

	// The browser outlives the caller's request context; Close ends it.
	base := context.WithoutCancel(ctx)
	allocCtx, allocCancel := chromedp.NewExecAllocator(base, flags...)
	browserCtx, browserCancel := chromedp.NewContext(allocCtx)
	// The first run starts the browser and binds it to browserCtx: it must
	// carry no timeout (the allocator bounds the start itself).
	if err := chromedp.Do(browserCtx); err != nil {
		browserCancel()
		allocCancel()
		os.RemoveAll(tmp)
		return nil, errcode.Wrap(errcode.BrowserUnavailable, err, "Chromium at %s did not start: %s", exe, browser.InstallHint)
	}
	p := newProvider(browserCtx, opts.Logf)
	p.stop = func() error {
		err := chromedp.Cancel(browserCtx) // closes the browser and waits for it
		browserCancel()
		allocCancel()
		if rerr := removeAll(tmp); rerr != nil && err == nil {
			err = rerr
		}
		return err
	}
	return p, nil
}

// Attach connects to a running browser's DevTools endpoint (ws://…). Close
// closes the pages this provider opened and the connection, not the browser.
func Attach(ctx context.Context, wsURL string, logf func(string, ...any)) (*Provider, error) {
	base := context.WithoutCancel(ctx)
	allocCtx, allocCancel := remote.NewAllocator(base, wsURL)
	browserCtx, browserCancel := chromedp.NewContext(allocCtx)
	// The first run starts the browser and binds it to browserCtx: it must
	// carry no timeout (the allocator bounds the start itself).
	if err := chromedp.Do(browserCtx); err != nil {
		browserCancel()
		allocCancel()
		return nil, errcode.Wrap(errcode.BrowserUnavailable, err, "could not attach to the browser's DevTools endpoint")
	}
	p := newProvider(browserCtx, logf)
	p.stop = func() error {
		browserCancel()
		allocCancel()
		return nil
	}
	return p, nil
}

func newProvider(browserCtx context.Context, logf func(string, ...any)) *Provider {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &Provider{browserCtx: browserCtx, logf: logf, sessions: make(map[*Session]struct{})}
}

// NewSession opens a page with the collector installed.
func (p *Provider) NewSession(ctx context.Context) (browser.Session, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errcode.New(errcode.BrowserUnavailable, "the browser is closed")
	}
	p.mu.Unlock()
	s, err := newSession(ctx, p)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		s.tab.close()
		return nil, errcode.New(errcode.BrowserUnavailable, "the browser is closed")
	}
	p.sessions[s] = struct{}{}
	return s, nil
}

func (p *Provider) forget(s *Session) {
	p.mu.Lock()
	delete(p.sessions, s)
	p.mu.Unlock()
}

// Close closes every session, then the browser, and removes its files.
func (p *Provider) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	sessions := make([]*Session, 0, len(p.sessions))
	for s := range p.sessions {
		sessions = append(sessions, s)
	}
	p.mu.Unlock()
	var errs []error
	for _, s := range sessions {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		errs = append(errs, s.Close(ctx))
		cancel()
	}
	errs = append(errs, p.stop())
	return errors.Join(errs...)
}

// Process returns the browser's process id, or 0 for an attached browser.
func (p *Provider) Process() int {
	c := chromedp.FromContext(p.browserCtx)
	if c == nil || c.Browser == nil || c.Browser.Process() == nil {
		return 0
	}
	return c.Browser.Process().Pid
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
