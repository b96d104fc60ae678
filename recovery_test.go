package veetbrowser

import (
	"context"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/proc"
)

// TestSessionOutlivesItsBrowser kills the browser (its whole process
// group) while a navigation waits on the site: that call reports
// browser_unavailable, the next call runs on a fresh page in a fresh
// browser, and the lost page's references are refused there.
func TestSessionOutlivesItsBrowser(t *testing.T) {
	p, err := chromium.Launch(context.Background(), chromium.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	rt, err := New(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	arrived, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	defer close(release)
	base := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			once.Do(func() { close(arrived) })
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<button>one</button>`))
	}))
	ctx := browsertest.Context(t, 3*time.Minute)
	s, err := rt.NewSession(ctx, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	res, err := s.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	lostRef := ref(t, res, "one")

	done := make(chan error, 1)
	go func() {
		_, err := s.Navigate(ctx, base+"slow")
		done <- err
	}()
	select {
	case <-arrived:
	case <-ctx.Done():
		t.Fatal("the navigation never reached the site")
	}
	old := p.Process()
	if err := syscall.Kill(-old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		wantCode(t, err, errcode.BrowserUnavailable)
	case <-time.After(30 * time.Second):
		t.Fatal("the call in flight did not return after the browser was killed")
	}

	// The next call works, on a fresh page of a fresh browser.
	res, err = s.Navigate(ctx, base)
	if err != nil {
		t.Fatalf("the call after browser_unavailable: %v", err)
	}
	if fresh := p.Process(); fresh == 0 || fresh == old {
		t.Fatalf("fresh browser %d, killed one %d", fresh, old)
	}
	_, err = s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: lostRef})
	wantCode(t, err, errcode.ForeignReference)
	if _, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: ref(t, res, "one")}); err != nil {
		t.Fatal(err)
	}

	fresh := p.Process()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{old, fresh} {
		if proc.GroupAlive(pid) {
			t.Errorf("processes of browser %d survived Close", pid)
		}
	}
}
