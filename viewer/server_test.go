package viewer

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
)

// syntheticSession records a session of n observe calls without
// observations straight into a fresh store: the first n-1 ok, the last
// timed out.
func syntheticSession(t *testing.T, n int) (store.Store, string) {
	t.Helper()
	ctx := browsertest.Context(t, 5*time.Minute)
	st, err := storespec.Open(ctx, filepath.Join(t.TempDir(), "artifacts.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	id := store.NewSessionID()
	if err := st.CreateSession(ctx, store.Session{ID: id, StartedAt: time.Now(), Version: "1.7.0", Budget: 8192,
		Grant: json.RawMessage(`{}`), Surface: "library"}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		outcome := store.OutcomeOK
		if i == n-1 {
			outcome = string(errcode.Timeout)
		}
		if _, err := st.Record(ctx, store.Call{SessionID: id, Tool: "browser_observe", Arguments: json.RawMessage(`{}`),
			StartedAt: time.Now(), Result: store.Result{Outcome: outcome, Duration: time.Millisecond}}); err != nil {
			t.Fatal(err)
		}
	}
	return st, id
}

// TestViewerTokenRequired: with a token, a request without it, or with
// another, is 401; with it, 200.
func TestViewerTokenRequired(t *testing.T) {
	t.Parallel()
	st, id := syntheticSession(t, 1)
	const token = "a-viewer-token-of-some-length"
	base := serve(t, st, Options{Token: token})
	for _, path := range []string{"", "sessions/" + id, "sessions/" + id + "/images/1"} {
		if r, _ := get(t, base+path); r.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("/%s without a token: %d", path, r.StatusCode)
		}
		if r, _ := get(t, base+path, "Authorization", "Bearer "+token+"x"); r.StatusCode != http.StatusUnauthorized {
			t.Errorf("/%s with another token: %d", path, r.StatusCode)
		}
	}
	if r, body := get(t, base+"sessions/"+id, "Authorization", "Bearer "+token); r.StatusCode != 200 || !strings.Contains(string(body), "1. browser_observe: ") {
		t.Errorf("with the token: %d", r.StatusCode)
	}
	if _, err := NewHandler(st, Options{Token: "short"}); errcode.Of(err) != errcode.InvalidArgument {
		t.Errorf("a short token: %v", err)
	}
}

// TestViewerReadOnlyAndHeaders: only GET and HEAD are answered; every
// response carries the security headers; a Host that is not loopback is
// refused without a token; an unknown session is 404.
func TestViewerReadOnlyAndHeaders(t *testing.T) {
	t.Parallel()
	st, id := syntheticSession(t, 1)
	base := serve(t, st, Options{})
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		req, _ := http.NewRequest(m, base+"sessions/"+id, strings.NewReader("x"))
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: %d, Allow %q", m, r.StatusCode, r.Header.Get("Allow"))
		}
	}
	r, err := http.Head(base + "sessions/" + id)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 200 {
		t.Errorf("HEAD: %d", r.StatusCode)
	}
	r, _ = get(t, base)
	if r.StatusCode != 200 || r.Header.Get("Content-Security-Policy") != CSP || !strings.Contains(CSP, "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'") ||
		r.Header.Get("X-Content-Type-Options") != "nosniff" || r.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("index: %d, headers %v", r.StatusCode, r.Header)
	}
	if r, _ := get(t, base+"sessions/"+store.NewSessionID()); r.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown session: %d", r.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodGet, base, nil)
	req.Host = "rebound.example:80"
	if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("a foreign Host: %v %v", r, err)
	}
}

// TestViewerListenRefusesNonLoopbackWithoutToken: only loopback addresses
// are listened on without a token.
func TestViewerListenRefusesNonLoopbackWithoutToken(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0", "example.com:0", "nonsense"} {
		if ln, err := Listen(addr, false); errcode.Of(err) != errcode.InvalidArgument {
			if ln != nil {
				ln.Close()
			}
			t.Errorf("%s: %v", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		ln, err := Listen(addr, false)
		if err != nil {
			t.Fatalf("%s: %v", addr, err)
		}
		if !strings.HasPrefix(ln.Addr().String(), "127.0.0.1:") {
			t.Errorf("%s listens on %s", addr, ln.Addr())
		}
		ln.Close()
	}
}

// TestViewerPaginatesLongSessions: a session of CallsPerPage+1 calls is
// shown CallsPerPage to a page, with a link to the next; the last call
// and its outcome are on page 2.
func TestViewerPaginatesLongSessions(t *testing.T) {
	t.Parallel()
	n := CallsPerPage + 1
	st, id := syntheticSession(t, n)
	base := serve(t, st, Options{})
	_, page1 := get(t, base+"sessions/"+id)
	if c := strings.Count(string(page1), `<section class="call`); c != CallsPerPage {
		t.Errorf("page 1 shows %d calls", c)
	}
	if !strings.Contains(string(page1), fmt.Sprintf(`href="/sessions/%s?page=2"`, id)) {
		t.Errorf("page 1 has no link to page 2")
	}
	_, page2 := get(t, base+"sessions/"+id+"?page=2")
	if c := strings.Count(string(page2), `<section class="call`); c != 1 ||
		!strings.Contains(string(page2), fmt.Sprintf(`%d. browser_observe: <span class="code">timeout</span>`, n)) ||
		strings.Contains(string(page2), "?page=3") {
		t.Errorf("page 2 shows %d calls:\n%s", c, page2)
	}
	if r, _ := get(t, base+"sessions/"+id+"?page=0"); r.StatusCode != http.StatusBadRequest {
		t.Errorf("page 0: %d", r.StatusCode)
	}
	// The file holds every call.
	var b strings.Builder
	if err := WriteHTML(context.Background(), &b, st, id, nil); err != nil {
		t.Fatal(err)
	}
	if c := strings.Count(b.String(), `<section class="call`); c != n {
		t.Errorf("the file shows %d calls", c)
	}
}
