package sidecar

import (
	"context"
	"log/slog"
	"sync"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/errcode"
)

// Launched starts a private headless Chromium for each lease, on the
// profile's directory: the profile keeps its cookies and storage from one
// lease to the next.
type Launched struct {
	ExecPath string // "" searches as the CLI does
	Logger   *slog.Logger
}

// Open launches the lease's browser.
func (b Launched) Open(ctx context.Context, profileDir string) (browser.Provider, error) {
	return chromium.Launch(ctx, chromium.Options{ExecPath: b.ExecPath, Logger: b.Logger, UserDataDir: profileDir})
}

// Fleet attaches each lease to a browser of a fleet (their DevTools
// endpoints, ws://…), one lease per browser at a time, in a browser
// context of its own that is thrown away when the lease ends: no two
// leases share cookies or storage, and nothing of a profile is kept. Each
// sidecar needs browsers of its own: leases are counted per process.
// Remote and Egress are chromium.Options' (docs/navigation.md): a fleet on
// other machines, and the egress proxy they reach, which Fleet does not
// close.
type Fleet struct {
	Endpoints []string
	Remote    bool
	Egress    *chromium.Egress
	Logger    *slog.Logger

	mu   sync.Mutex
	busy map[string]bool
}

// Open attaches to a free browser of the fleet; none free is
// browser_unavailable.
func (f *Fleet) Open(ctx context.Context, _ string) (browser.Provider, error) {
	f.mu.Lock()
	if f.busy == nil {
		f.busy = make(map[string]bool)
	}
	ws := ""
	for _, e := range f.Endpoints {
		if !f.busy[e] {
			ws = e
			break
		}
	}
	if ws == "" {
		f.mu.Unlock()
		return nil, errcode.New(errcode.BrowserUnavailable, "every browser of the fleet is leased")
	}
	f.busy[ws] = true
	f.mu.Unlock()
	p, err := chromium.Attach(ctx, ws, chromium.Options{Isolated: true, Remote: f.Remote, Egress: f.Egress, Logger: f.Logger})
	if err != nil {
		f.free(ws)
		return nil, err
	}
	return &fleetBrowser{Provider: p, release: func() { f.free(ws) }}, nil
}

func (f *Fleet) free(ws string) {
	f.mu.Lock()
	delete(f.busy, ws)
	f.mu.Unlock()
}

// fleetBrowser gives its browser back to the fleet when closed.
type fleetBrowser struct {
	*chromium.Provider
	once    sync.Once
	release func()
}

func (b *fleetBrowser) Close(ctx context.Context) error {
	err := b.Provider.Close(ctx)
	b.once.Do(b.release)
	return err
}
