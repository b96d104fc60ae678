package conformance

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/store/storespec"
)

// TestLocal runs the suite on the local runtime over a launched Chromium.
func TestLocal(t *testing.T) {
	t.Parallel()
	b, err := chromium.Launch(context.Background(), chromium.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(context.Background()); err != nil {
			t.Errorf("closing the browser: %v", err)
		}
	})
	Run(t, runtimeProvider(t, "local", b))
}

// runtimeProvider opens the sessions of one runtime over b, which records
// every call in a SQLite store of the test's own.
func runtimeProvider(t *testing.T, name string, b browser.Provider) Provider {
	ctx := browsertest.Context(t, callTimeout)
	st, err := storespec.Open(ctx, filepath.Join(t.TempDir(), "artifacts.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rt, err := veetbrowser.New(b, veetbrowser.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	return Provider{Name: name, Open: func(t *testing.T, opts veetbrowser.SessionOptions) veetbrowser.Caller {
		s, err := rt.NewSession(browsertest.Context(t, callTimeout), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close(context.Background()) })
		return s
	}}
}
