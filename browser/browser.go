// Package browser defines what the runtime needs from a browser: a Provider
// of Sessions, each one page with one operation lock. Implementations: the
// chromium package (a launched Chromium, or one attached over CDP) and,
// through the hosted sidecar, a remote one.
package browser

import (
	"context"
	"os"
	"os/exec"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// Provider opens sessions in one browser.
type Provider interface {
	NewSession(ctx context.Context) (Session, error)
	// Close ends every session and releases the browser; it is safe to call
	// more than once.
	Close() error
}

// Session is one page. Every method is serialized on the session's
// operation lock, including result validation, and each returns the fresh
// canonical observation of the page it leaves.
type Session interface {
	Navigate(ctx context.Context, url string) (*observation.Observation, error)
	Observe(ctx context.Context, req observation.Request) (*observation.Observation, error)
	Close(ctx context.Context) error
}

// EnvChromium names the variable that points at a Chromium binary.
const EnvChromium = "VEETBROWSER_CHROMIUM"

// InstallHint tells a user how to get a browser; nothing ever downloads one.
const InstallHint = "install Chromium (Debian: apt-get install -y chromium) or pass --browser PATH or set " + EnvChromium

var searchPaths = []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// FindChromium returns the browser binary: explicit, then $VEETBROWSER_CHROMIUM,
// then the usual names. A missing browser is browser_unavailable.
func FindChromium(explicit string) (string, error) {
	for _, p := range []string{explicit, os.Getenv(EnvChromium)} {
		if p == "" {
			continue
		}
		if path, err := exec.LookPath(p); err == nil {
			return path, nil
		}
		return "", errcode.New(errcode.BrowserUnavailable, "no browser at %q: %s", p, InstallHint)
	}
	for _, p := range searchPaths {
		if path, err := exec.LookPath(p); err == nil {
			return path, nil
		}
	}
	return "", errcode.New(errcode.BrowserUnavailable, "no Chromium found: %s", InstallHint)
}
