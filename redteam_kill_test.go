package veetbrowser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/proc"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/store"
)

// The red team's kill rows (docs/redteam.md): the browser killed with all
// its processes, or only its renderers (what the kernel's OOM killer
// does), between calls and during an observation, an action, a navigation
// and a download. Each row has a browser of its own. The call that meets
// the loss reports it with its code, or succeeds if it finished first; the
// session's next calls work; and once every row closed, the process holds
// no more goroutines, open files or temp directories than before.

// killSite is a shop whose pages keep a call busy long enough to be
// killed under: a held page, a held download, a slow button and a large
// table.
type killSite struct {
	URL     string
	arrived chan string // a held request's path, as it arrives
	release chan struct{}
	once    sync.Once
}

func serveKillSite(t *testing.T) *killSite {
	k := &killSite{arrived: make(chan string, 4), release: make(chan struct{})}
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/", page(`<!doctype html><title>Acme shop</title><header><nav><a href="/">Acme</a> <a href="/slow">Deals</a></nav></header>
<main><h1>Your cart</h1><p>2 items.</p>
<button onclick="const end = Date.now() + 3000; while (Date.now() < end) {}">Show shipping options</button>
<a href="/export">Export invoices</a></main><footer>© Acme</footer>`))
	mux.HandleFunc("/fine", page(`<main><h1>Fine</h1><button>fine again</button></main>`))
	mux.HandleFunc("/big", page(`<main><h1>Orders</h1><table id="t"></table><button>Next page</button></main><script>
const t = document.getElementById('t'), frag = document.createDocumentFragment();
for (let r = 0; r < 15000; r++) { const tr = document.createElement('tr');
  for (let c = 0; c < 6; c++) { const td = document.createElement('td'); td.textContent = 'order ' + r + '.' + c; tr.append(td); }
  frag.append(tr); }
t.append(frag);
</script>`))
	hold := func(w http.ResponseWriter, r *http.Request) {
		k.arrived <- r.URL.Path
		select {
		case <-k.release:
		case <-r.Context().Done():
		}
	}
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		hold(w, r)
		page(`<main><h1>Deals</h1><button>fine again</button></main>`)(w, r)
	})
	mux.HandleFunc("/export", func(w http.ResponseWriter, r *http.Request) {
		// Typed, so that the browser takes it as a download at its headers,
		// with no body to sniff.
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="invoices.csv"`)
		w.Header().Set("Content-Length", "20000")
		w.Write([]byte(strings.Repeat("x", 1000)))
		w.(http.Flusher).Flush()
		hold(w, r)
		w.Write([]byte(strings.Repeat("x", 19000)))
	})
	k.URL = browsertest.ServeHandler(t, mux)
	t.Cleanup(k.free) // before the server's Close, which waits for held requests
	return k
}

func (k *killSite) free() { k.once.Do(func() { close(k.release) }) }

// waitHeld waits for a held request to reach the site.
func (k *killSite) waitHeld(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case <-k.arrived:
	case <-ctx.Done():
		t.Fatal("the held request never reached the site")
	}
}

// killRenderers kills the renderer processes of the browser whose process
// group is pgid, as the kernel's OOM killer would; it returns how many.
func killRenderers(t *testing.T, pgid int) int {
	t.Helper()
	n := 0
	for _, pid := range proc.Group(pgid) {
		cmd, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err == nil && strings.Contains(string(cmd), "--type=renderer") && syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	if n == 0 {
		t.Fatal("no renderer to kill")
	}
	return n
}

type killRow struct {
	name string
	// run drives s on site k of browser p, kills, and returns the error of
	// the call that met the loss; want lists the codes it may have (nil:
	// the call finished first).
	run  func(t *testing.T, ctx context.Context, p *chromium.Provider, s *Session, k *killSite) error
	want []errcode.Code
}

// during runs call in the background, waits for ready, kills, and
// returns the call's error.
func during(t *testing.T, ready func(), kill func(), call func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- call() }()
	ready()
	kill()
	select {
	case err := <-done:
		return err
	case <-time.After(45 * time.Second):
		t.Fatal("the call did not return after the kill")
		return nil
	}
}

func killBrowser(t *testing.T, p *chromium.Provider) {
	if err := syscall.Kill(-p.Process(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}

var killRows = []killRow{
	{name: "browser killed between calls", want: []errcode.Code{errcode.BrowserUnavailable},
		run: func(t *testing.T, ctx context.Context, p *chromium.Provider, s *Session, k *killSite) error {
			killBrowser(t, p)
			_, err := s.Observe(ctx, ObserveOptions{})
			return err
		}},
	{name: "browser killed during a navigation", want: []errcode.Code{errcode.BrowserUnavailable},
		run: func(t *testing.T, ctx context.Context, p *chromium.Provider, s *Session, k *killSite) error {
			return during(t, func() { k.waitHeld(t, ctx) }, func() { killBrowser(t, p) }, func() error {
				_, err := s.Navigate(ctx, k.URL+"slow")
				return err
			})
		}},
	{name: "renderer killed between calls", want: []errcode.Code{errcode.PageCrashed},
		run: func(t *testing.T, ctx context.Context, p *chromium.Provider, s *Session, k *killSite) error {
			killRenderers(t, p.Process())
			time.Sleep(500 * time.Millisecond) // the browser notices the crash
			_, err := s.Observe(ctx, ObserveOptions{})
			return err
		}},
	{name: "renderer killed right before a navigation", want: []errcode.Code{""},
		run: func(t *testing.T, ctx context.Context, p *chromium.Provider, s *Session, k *killSite) error {
			// Before the browser told the session: the navigation starts
			// the page's new renderer all the same.
			killRenderers(t, p.Process())
			_, err := s.Navigate(ctx, k.URL+"fine")
			return err
		}},
	{name: "renderer killed during an observation", want: []errcode.Code{errcode.PageCrashed, ""},
		run: func(t *testing.T, ctx context.Context, p *chromium.Provider, s *Session, k *killSite) error {
			if _, err := s.Navigate(ctx, k.URL+"big"); err != nil {
				t.Fatal(err)
			}
			return during(t, func() { time.Sleep(50 * time.Millisecond) }, func() { killRenderers(t, p.Process()) }, func() error {
				_, err := s.Observe(ctx, ObserveOptions{})
				return err
			})
		}},
	{name: "renderer killed during an action", want: []errcode.Code{errcode.PageCrashed, errcode.ActionUncertain},
		run: func(t *testing.T, ctx context.Context, p *chromium.Provider, s *Session, k *killSite) error {
			res, err := s.Observe(ctx, ObserveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// The button's handler keeps the renderer busy for 3 s.
			return during(t, func() { time.Sleep(time.Second) }, func() { killRenderers(t, p.Process()) }, func() error {
				_, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: ref(t, res, "Show shipping options")})
				return err
			})
		}},
	{name: "renderer killed during a navigation", want: []errcode.Code{errcode.PageCrashed, ""},
		run: func(t *testing.T, ctx context.Context, p *chromium.Provider, s *Session, k *killSite) error {
			return during(t, func() { k.waitHeld(t, ctx) }, func() { killRenderers(t, p.Process()); k.free() }, func() error {
				_, err := s.Navigate(ctx, k.URL+"slow")
				return err
			})
		}},
	{name: "renderer killed during a download", want: []errcode.Code{""},
		run: func(t *testing.T, ctx context.Context, p *chromium.Provider, s *Session, k *killSite) error {
			res, err := s.Observe(ctx, ObserveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: ref(t, res, "Export invoices")}); err != nil {
				t.Fatal(err)
			}
			k.waitHeld(t, ctx)
			killRenderers(t, p.Process())
			k.free()
			// The download is the browser's, not the renderer's: it ends
			// and is listed with its state.
			var v projection.DownloadsView
			for ctx.Err() == nil {
				out, err := s.Call(ctx, "browser_downloads", []byte(`{}`))
				if err != nil {
					return err
				}
				v = projection.DownloadsView{}
				if err := json.Unmarshal(out.View, &v); err != nil {
					t.Fatal(err)
				}
				if len(v.Downloads) == 1 && v.Downloads[0].State != browser.DownloadInProgress {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if len(v.Downloads) != 1 || v.Downloads[0].State != browser.DownloadCompleted || v.Downloads[0].Bytes != 20000 {
				t.Errorf("downloads after the renderer was killed: %+v", v)
			}
			return nil
		}},
}

// leakCounts is what the process holds: goroutines, open files and the
// runtime's temp directories.
func leakCounts(t *testing.T) (goroutines, files, dirs int) {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	tmp, err := os.ReadDir(os.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tmp {
		if strings.HasPrefix(e.Name(), "veetbrowser-") {
			dirs++
		}
	}
	return runtime.NumGoroutine(), len(fds), dirs
}

// TestRedTeamKills is not parallel: the package's parallel tests wait
// until it ended, so the counts before and after are its own.
func TestRedTeamKills(t *testing.T) {
	g0, f0, d0 := leakCounts(t)
	t.Run("rows", func(t *testing.T) {
		for _, row := range killRows {
			t.Run(row.name, func(t *testing.T) {
				t.Parallel()
				ctx := browsertest.Context(t, 2*time.Minute)
				p, err := chromium.Launch(ctx, chromium.Options{Isolated: true})
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close(context.Background())
				rt, err := New(p, Options{Store: store.Discard})
				if err != nil {
					t.Fatal(err)
				}
				defer rt.Close(context.Background())
				k := serveKillSite(t)
				s, err := rt.NewSession(ctx, SessionOptions{DownloadDir: t.TempDir()})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close(context.Background())
				if _, err := s.Navigate(ctx, k.URL); err != nil {
					t.Fatal(err)
				}
				err = row.run(t, ctx, p, s, k)
				if code := errcode.Of(err); (err == nil && !slices.Contains(row.want, "")) || (err != nil && !slices.Contains(row.want, code)) {
					t.Errorf("the call that met the kill: %v, want one of %q", err, row.want)
				}
				t.Logf("the call that met the kill: %v", err)
				k.free()
				// The next calls work, on a fresh page where the old one was
				// lost.
				wantFine(t, ctx, s, k.URL+"fine")
				if _, err := s.Observe(ctx, ObserveOptions{}); err != nil {
					t.Fatal(err)
				}
			})
		}
	})
	if t.Failed() {
		return
	}
	// What the rows held is released once they closed: the HTTP servers'
	// and the browsers' goroutines end a moment after.
	var g, f, d int
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if g, f, d = leakCounts(t); g <= g0+2 && f <= f0+2 && d <= d0 {
			return
		}
	}
	t.Errorf("after the kills: %d goroutines (before %d), %d open files (%d), %d temp dirs (%d)", g, g0, f, f0, d, d0)
}
