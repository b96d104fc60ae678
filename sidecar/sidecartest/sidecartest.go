// Package sidecartest serves a real sidecar on 127.0.0.1 for the tests of
// its clients.
package sidecartest

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/hosted"
	"github.com/veetbot/veetbrowser/sidecar"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/sqlitestore"
)

// Sidecar is a sidecar serving for one test.
type Sidecar struct {
	URL   string
	Token string // the token of its one tenant
	Store store.Store
	*sidecar.Server
}

// Start serves a sidecar whose leases run on browsers, with one tenant,
// its leases (and call records) in a SQLite store of its own; it stops
// with the test. maxLeases 0 is the default.
func Start(tb testing.TB, browsers sidecar.Browsers, maxLeases int) *Sidecar {
	tb.Helper()
	st, err := sqlitestore.Open(context.Background(), filepath.Join(tb.TempDir(), "sidecar.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	token, line, err := sidecar.NewToken("tenant")
	if err != nil {
		tb.Fatal(err)
	}
	toks, err := sidecar.ParseTokens(strings.NewReader(line))
	if err != nil {
		tb.Fatal(err)
	}
	srv, err := sidecar.New(context.Background(), sidecar.Options{Data: tb.TempDir(), Tokens: toks, Store: st,
		Browsers: browsers, MaxLeases: maxLeases})
	if err != nil {
		tb.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	tb.Cleanup(func() {
		hs.Close()
		srv.Close(context.Background())
	})
	return &Sidecar{URL: hs.URL, Token: token, Store: st, Server: srv}
}

// Open creates a profile of the sidecar's tenant and leases it: a hosted
// session with opts (Version, Budget, Grant, Approver, upload root) that
// is closed when the test ends.
func (s *Sidecar) Open(tb testing.TB, profile string, opts veetbrowser.SessionOptions) *hosted.Session {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	o := hosted.Options{URL: s.URL, Token: s.Token, Profile: profile, Session: opts}
	if err := hosted.CreateProfile(ctx, o); err != nil {
		tb.Fatal(err)
	}
	sess, err := hosted.Open(ctx, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { sess.Close(context.Background()) })
	return sess
}
