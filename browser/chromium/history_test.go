package chromium

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// openInteractive opens a session of tool version 1.8.0's kind.
func openInteractive(t *testing.T) *Session {
	t.Helper()
	bs, err := shared.Get(t).NewSession(browsertest.Context(t, time.Minute), browser.SessionOptions{Reading: true, Frames: true, Interactions: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bs.Close(context.Background()) })
	return bs.(*Session)
}

// countedPages serves pages by path and counts the requests of each.
type countedPages struct {
	mu    sync.Mutex
	hits  map[string]int
	pages map[string]string
}

func serveCounted(t *testing.T, pages map[string]string) (*countedPages, string) {
	t.Helper()
	c := &countedPages{hits: map[string]int{}, pages: pages}
	base := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.hits[r.URL.Path]++
		c.mu.Unlock()
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}))
	return c, base
}

func (c *countedPages) count(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits[path]
}

func TestHistoryBackForwardReload(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, 3*time.Minute)
	pages := map[string]string{}
	for _, p := range []string{"a", "b", "c"} {
		pages["/"+p] = fmt.Sprintf(`<title>Page %s</title><h1>Heading %s</h1><button>Button %s</button>`, p, p, p)
	}
	site, base := serveCounted(t, pages)
	s := openInteractive(t)
	for _, p := range []string{"a", "b", "c"} {
		if _, err := s.Navigate(ctx, base+p); err != nil {
			t.Fatal(err)
		}
	}
	at := func(obs *observation.Observation, err error, p string) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if obs.URL != base+p || obs.Title != "Page "+p || len(obs.Controls) != 1 || obs.Controls[0].Name != "Button "+p || obs.Loading {
			t.Fatalf("at %s (%q, %v, loading %v), want page %s", obs.URL, obs.Title, names(obs), obs.Loading, p)
		}
		if !strings.Contains(joined(obs), "Heading "+p) {
			t.Fatalf("page %s observed without its heading: %q", p, joined(obs))
		}
	}
	obs, err := s.History(ctx, browser.HistoryBack)
	at(obs, err, "b")
	obs, err = s.History(ctx, browser.HistoryBack)
	at(obs, err, "a")
	_, err = s.History(ctx, browser.HistoryBack)
	wantCode(t, err, errcode.NotActionable)
	obs, err = s.History(ctx, browser.HistoryForward)
	at(obs, err, "b")
	obs, err = s.History(ctx, browser.HistoryForward)
	at(obs, err, "c")
	_, err = s.History(ctx, browser.HistoryForward)
	wantCode(t, err, errcode.NotActionable)

	before := site.count("/c")
	obs, err = s.History(ctx, browser.HistoryReload)
	at(obs, err, "c")
	if got := site.count("/c"); got != before+1 {
		t.Fatalf("the reload made %d requests of the page, want 1", got-before)
	}
	// The refs of the new observation act on the reloaded page.
	if _, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: obs.Controls[0].Ref}, allowAll); err != nil {
		t.Fatal(err)
	}

	// A step within the document (an entry the page pushed) stays in it.
	mainWorld(t, s, `history.pushState({}, '', '/c#pushed')`)
	obs, err = s.History(ctx, browser.HistoryBack)
	at(obs, err, "c")
	obs, err = s.History(ctx, browser.HistoryForward)
	if err != nil || obs.URL != base+"c#pushed" {
		t.Fatalf("forward to the pushed entry: %v %v", obs, err)
	}

	_, err = s.History(ctx, browser.HistoryStep("sideways"))
	wantCode(t, err, errcode.InvalidArgument)
	older := openSession(t) // a session without interactions
	_, err = older.History(ctx, browser.HistoryReload)
	wantCode(t, err, errcode.InvalidArgument)
}

// A page that asks to keep unsaved changes keeps them: a reload or a step
// back is cancelled, its beforeunload dismissed, the draft and URL kept.
func TestHistoryRefusedByBeforeunloadDraft(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, 2*time.Minute)
	site, base := serveCounted(t, map[string]string{"/": composer, "/first": "<title>First</title><p>first</p>"})
	s := openInteractive(t)
	if _, err := s.Navigate(ctx, base+"first"); err != nil {
		t.Fatal(err)
	}
	writeDraft(t, s, base, "my unsaved draft")
	loads := site.count("/")
	for _, step := range []browser.HistoryStep{browser.HistoryReload, browser.HistoryBack} {
		_, err := s.History(ctx, step)
		wantCode(t, err, errcode.NavigationCancelled)
		if got := evalMain(t, s, "document.querySelector('textarea').value"); got != "my unsaved draft" {
			t.Fatalf("%s: draft after the cancelled step: %q", step, got)
		}
		obs, err := s.Observe(ctx, observation.Request{})
		if err != nil {
			t.Fatal(err)
		}
		if obs.URL != base || obs.Title != "Composer" {
			t.Fatalf("%s: the page is %s %q, want the composer kept", step, obs.URL, obs.Title)
		}
	}
	if got := site.count("/"); got != loads {
		t.Fatalf("the composer was requested %d more times", got-loads)
	}
}

// A history step passes the navigation check like any navigation: a step
// back to a page the check now refuses is stopped, and the page stays.
func TestHistoryStepIsChecked(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, 2*time.Minute)
	site, base := serveCounted(t, map[string]string{"/a": "<title>A</title><p>a</p>", "/b": "<title>B</title><p>b</p>"})
	var refuseA atomic.Bool
	check := func(_ context.Context, u *url.URL) error {
		if refuseA.Load() && u.Path == "/a" {
			return errcode.New(errcode.ForeignOrigin, "outside the grant")
		}
		return nil
	}
	bs, err := shared.Get(t).NewSession(ctx, browser.SessionOptions{Reading: true, Interactions: true, CheckNavigation: check})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bs.Close(context.Background()) })
	s := bs.(*Session)
	for _, p := range []string{"a", "b"} {
		if _, err := s.Navigate(ctx, base+p); err != nil {
			t.Fatal(err)
		}
	}
	refuseA.Store(true)
	loads := site.count("/a")
	_, err = s.History(ctx, browser.HistoryBack)
	wantCode(t, err, errcode.ForeignOrigin)
	obs, err := s.Observe(ctx, observation.Request{})
	if err != nil {
		t.Fatal(err)
	}
	if obs.URL != base+"b" || site.count("/a") != loads {
		t.Fatalf("after the refused step the page is %s and /a got %d requests", obs.URL, site.count("/a")-loads)
	}
}
