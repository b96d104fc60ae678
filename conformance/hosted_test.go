package conformance

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/hosted"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/sidecar"
	"github.com/veetbot/veetbrowser/store"
)

// TestHosted runs the suite on sessions hosted by a real sidecar on
// loopback, over HTTP: each session leases a profile of its own. The
// sidecar's leases share one launched browser (a tab each), so that the
// suite's parallel scenarios do not start a browser each.
func TestHosted(t *testing.T) {
	t.Parallel()
	b, err := chromium.Launch(context.Background(), chromium.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close(context.Background()) })
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "sidecar.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	token, line, err := sidecar.NewToken("conformance")
	if err != nil {
		t.Fatal(err)
	}
	toks, err := sidecar.ParseTokens(strings.NewReader(line))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sidecar.New(context.Background(), sidecar.Options{Data: t.TempDir(), Tokens: toks, Store: st,
		Browsers: &browsertest.Tabs{Browser: b}, MaxLeases: 64})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		srv.Close(context.Background())
	})
	var profiles atomic.Int64
	Run(t, Provider{Name: "hosted", Open: func(t *testing.T, opts veetbrowser.SessionOptions) veetbrowser.Caller {
		ctx := browsertest.Context(t, callTimeout)
		o := hosted.Options{URL: hs.URL, Token: token, Profile: fmt.Sprintf("p%d", profiles.Add(1)), Session: opts}
		if err := hosted.CreateProfile(ctx, o); err != nil {
			t.Fatal(err)
		}
		s, err := hosted.Open(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close(context.Background()) })
		return s
	}})
}
