// Package browsertest runs tests against one real headless Chromium per test
// binary, with pages served on 127.0.0.1. It is for tests only.
package browsertest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Closer is what Main closes after the tests: a shared browser.
type Closer interface {
	Close(ctx context.Context) error
}

// Shared is a browser shared by a test binary, launched on first use.
type Shared[T Closer] struct {
	Launch func() (T, error)

	once    sync.Once
	browser T
	err     error
	started bool
}

// Get returns the shared browser, launching it on first use.
func (s *Shared[T]) Get(tb testing.TB) T {
	tb.Helper()
	s.once.Do(func() {
		s.browser, s.err = s.Launch()
		s.started = s.err == nil
	})
	if s.err != nil {
		tb.Fatalf("launching the browser: %v", s.err)
	}
	return s.browser
}

func (s *Shared[T]) close() error {
	if !s.started {
		return nil
	}
	return s.browser.Close(context.Background())
}

// closer is a Shared of any type, or a Cleanup.
type closer interface{ close() error }

// Cleanup is something else Main ends after the tests, before it looks for
// leaked temp files: e.g. pgtest.Stop.
type Cleanup func() error

func (c Cleanup) close() error { return c() }

// Main runs the tests with a private TMPDIR and a private XDG_DATA_HOME
// (where a runtime's default artifact store goes: never the user's),
// closes the shared browsers, and fails the binary if anything is left in
// that TMPDIR (a browser's profile, HOME or any other temp file).
func Main(m *testing.M, shared ...closer) {
	tmp, err := os.MkdirTemp("", "browsertest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	data, err := os.MkdirTemp("", "browsertest-data-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Traversable, not listable: a helper server that runs as another
	// user (PostgreSQL, when the tests run as root) reaches its own
	// directory in here.
	if err := os.Chmod(tmp, 0o711); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("TMPDIR", tmp)
	os.Setenv("XDG_DATA_HOME", data)
	code := m.Run()
	for _, s := range shared {
		if err := s.close(); err != nil {
			fmt.Fprintln(os.Stderr, "after the tests:", err)
			code = 1
		}
	}
	left, _ := os.ReadDir(tmp)
	for _, e := range left {
		fmt.Fprintln(os.Stderr, "leaked temp file:", filepath.Join(tmp, e.Name()))
		code = 1
	}
	os.RemoveAll(tmp)
	os.RemoveAll(data)
	os.Exit(code)
}

// Serve serves html at / and returns the URL; the server stops with the test.
func Serve(tb testing.TB, html string) string {
	tb.Helper()
	return ServeHandler(tb, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, html)
	}))
}

// ServePages serves each page at its path (anything else is an empty page)
// and returns the base URL.
func ServePages(tb testing.TB, pages map[string]string) string {
	tb.Helper()
	return ServeHandler(tb, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, pages[r.URL.Path])
	}))
}

// OtherOrigin names a URL of a test server by localhost instead of
// 127.0.0.1: the same server as another origin, whose frames Chromium runs
// out of process.
func OtherOrigin(url string) string {
	return strings.Replace(url, "127.0.0.1", "localhost", 1)
}

// ServeHandler serves h on 127.0.0.1 for the test's lifetime.
func ServeHandler(tb testing.TB, h http.Handler) string {
	tb.Helper()
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return srv.URL + "/"
}

// Repeat returns n copies of format, each formatted with its index.
func Repeat(n int, format string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format, i)
	}
	return b.String()
}

// Context returns a context that ends with the test or after d.
func Context(tb testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	tb.Cleanup(cancel)
	return ctx
}
