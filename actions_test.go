package veetbrowser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/policy"
)

func wantCode(t *testing.T, err error, code errcode.Code) {
	t.Helper()
	if got := errcode.Of(err); got != code {
		t.Fatalf("error %v: code %q, want %q", err, got, code)
	}
}

// ref returns the ref of the control named name in res.
func ref(t testing.TB, res *Result, name string) string {
	t.Helper()
	for _, c := range res.Observation.Controls {
		if c.Name == name {
			return c.Ref
		}
	}
	t.Fatalf("no control %q in %s", name, res.View)
	return ""
}

// publishSite counts the publish clicks that reach its server.
type publishSite struct {
	mu     sync.Mutex
	clicks int
}

func (p *publishSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/publish" {
		p.mu.Lock()
		p.clicks++
		p.mu.Unlock()
		return
	}
	fmt.Fprint(w, `<!doctype html><button onclick="fetch('/publish', {method: 'POST'})">Publish</button><button>Like</button>`)
}

func (p *publishSite) count() int {
	time.Sleep(300 * time.Millisecond) // a fetch in flight would have arrived
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.clicks
}

func TestPublishNeedsTheRightSingleUseApproval(t *testing.T) {
	t.Parallel()
	site := &publishSite{}
	url := browsertest.ServeHandler(t, site)
	s := session(t, SessionOptions{})
	ctx := browsertest.Context(t, time.Minute)
	res, err := s.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	origin := res.Observation.Origin
	click := func(name string) (*Result, error) {
		r, err := s.Observe(ctx, ObserveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: ref(t, r, name)})
	}
	_, err = click("Publish")
	wantCode(t, err, errcode.ApprovalRequired)
	s.Approve(policy.Facts{Origin: origin, Role: "button", Name: "Publish now"})
	_, err = click("Publish")
	wantCode(t, err, errcode.ApprovalRequired)
	if n := site.count(); n != 0 {
		t.Fatalf("%d publishes without approval", n)
	}
	s.Approve(policy.Facts{Origin: origin, Role: "button", Name: "Publish"})
	if _, err := click("Publish"); err != nil {
		t.Fatal(err)
	}
	_, err = click("Publish")
	wantCode(t, err, errcode.ApprovalRequired)
	if n := site.count(); n != 1 {
		t.Fatalf("%d publishes, want exactly 1", n)
	}
	// A control that is not consequential needs nothing.
	if _, err := click("Like"); err != nil {
		t.Fatal(err)
	}
}

func TestForeignOriginsAreRefused(t *testing.T) {
	t.Parallel()
	var foreignHits atomic.Int64
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		foreignHits.Add(1)
		fmt.Fprint(w, `<!doctype html><button>Foreign button</button>`)
	}))
	defer foreign.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/away" {
			http.Redirect(w, r, foreign.URL+"/", http.StatusFound)
			return
		}
		fmt.Fprint(w, `<!doctype html><a href="/away">Away</a>`)
	}))
	defer home.Close()
	s := session(t, SessionOptions{Grant: policy.Grant{Origins: []string{home.URL}}})
	ctx := browsertest.Context(t, time.Minute)
	_, err := s.Navigate(ctx, foreign.URL+"/")
	wantCode(t, err, errcode.ForeignOrigin)
	res, err := s.Navigate(ctx, home.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	// The link redirects to a foreign origin: the redirect's hop is stopped
	// before its request leaves, and the page stays.
	_, err = s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: ref(t, res, "Away")})
	wantCode(t, err, errcode.ForeignOrigin)
	res, err = s.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Observation.Origin != home.URL || foreignHits.Load() != 0 {
		t.Fatalf("after the refused redirect: origin %s, %d foreign requests", res.Observation.Origin, foreignHits.Load())
	}
}

func TestUploadsStayInsideTheRoot(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	os.Mkdir(root, 0o700)
	os.WriteFile(filepath.Join(root, "ok.txt"), []byte("ok"), 0o600)
	os.WriteFile(filepath.Join(root, "big.bin"), make([]byte, 2048), 0o600)
	os.WriteFile(filepath.Join(base, "secret.txt"), []byte("secret"), 0o600)
	os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(root, "link.txt"))
	url := browsertest.Serve(t, `<label>File <input type="file"></label>`)
	s := session(t, SessionOptions{UploadRoot: root, MaxUploadBytes: 1024})
	ctx := browsertest.Context(t, time.Minute)
	res, err := s.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	file := ref(t, res, "File")
	for _, p := range []string{"../secret.txt", "link.txt", filepath.Join(base, "secret.txt"), "/etc/passwd", "missing.txt", "big.bin", "."} {
		_, err := s.Upload(ctx, file, []string{p})
		wantCode(t, err, errcode.UploadRefused)
	}
	if _, err := s.Upload(ctx, file, []string{"ok.txt"}); err != nil {
		t.Fatal(err)
	}
	none := session(t, SessionOptions{})
	_, err = none.Upload(ctx, file, []string{"ok.txt"})
	wantCode(t, err, errcode.UploadRefused)
}

func TestOnlyTheNewestExpansionsRefsAct(t *testing.T) {
	t.Parallel()
	s := session(t, SessionOptions{Budget: 1024})
	ctx := browsertest.Context(t, time.Minute)
	res, err := s.Navigate(ctx, browsertest.Serve(t, browsertest.Repeat(50, "<button>b%d</button>")))
	if err != nil {
		t.Fatal(err)
	}
	old := ref(t, res, "b1")
	next := view(t, res).Next
	expanded, err := s.Observe(ctx, ObserveOptions{After: next.After})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: old})
	wantCode(t, err, errcode.StaleReference)
	if _, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: expanded.Observation.Controls[0].Ref}); err != nil {
		t.Fatal(err)
	}
}
