package chromium

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// openWaitPage opens html in a session of tool version 1.8.0's kind.
func openWaitPage(t *testing.T, html string) (*Session, *observation.Observation) {
	t.Helper()
	s := openInteractive(t)
	obs, err := s.Navigate(browsertest.Context(t, time.Minute), browsertest.Serve(t, html))
	if err != nil {
		t.Fatal(err)
	}
	return s, obs
}

func TestWaitText(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, 2*time.Minute)
	s, _ := openWaitPage(t, `<h1>Orders</h1><script>
setTimeout(() => { const p = document.createElement('p'); p.textContent = 'Your order was shipped today.'; document.body.append(p); }, 1000);
</script>`)
	obs, err := s.Wait(ctx, browser.WaitRequest{Text: "ORDER shipped", Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(joined(obs), "Your order was shipped today.") {
		t.Fatalf("the observation after the wait lacks the text: %q", joined(obs))
	}
	// Every word must be in one part: words split between two parts (a
	// heading and a paragraph) are not the text.
	_, err = s.Wait(ctx, browser.WaitRequest{Text: "orders shipped", Timeout: 300 * time.Millisecond})
	wantCode(t, err, errcode.Timeout)
}

// A condition that never holds ends at its timeout with timeout, the
// page's references kept; text in a value, hidden or editable never counts.
func TestWaitTextNeverHolds(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, 2*time.Minute)
	s, obs := openWaitPage(t, `<p>Status: pending</p>
<input aria-label="Search" value="secret canary value">
<p style="display:none">hidden canary paragraph</p>
<div contenteditable="true" aria-label="Notes">editable canary note</div>
<button>Refresh</button>`)
	ref := find(t, obs, "Refresh").Ref
	if _, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Search").Ref, Text: " typed canary words"}, allowAll); err != nil {
		t.Fatal(err)
	}
	obs, err := s.Observe(ctx, observation.Request{})
	if err != nil {
		t.Fatal(err)
	}
	ref = find(t, obs, "Refresh").Ref
	for _, text := range []string{"complete", "secret canary value", "typed canary words", "hidden canary paragraph", "editable canary note"} {
		start := time.Now()
		_, err := s.Wait(ctx, browser.WaitRequest{Text: text, Timeout: 1500 * time.Millisecond})
		wantCode(t, err, errcode.Timeout)
		if !strings.Contains(err.Error(), "1500 ms") {
			t.Fatalf("timeout message %q does not say the bound", err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("%q: a 1.5 s wait took %s", text, d)
		}
	}
	// A failed wait publishes nothing: the newest references still act.
	if _, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: ref}, allowAll); err != nil {
		t.Fatal(err)
	}
	// The same words in readable text do satisfy it.
	mainWorld(t, s, `document.body.append(Object.assign(document.createElement('p'), {textContent: 'Status: complete'}))`)
	if _, err := s.Wait(ctx, browser.WaitRequest{Text: "complete", Timeout: 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
}

func TestWaitRefGone(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, 2*time.Minute)
	s, obs := openWaitPage(t, `<button id="spin">Cancel upload</button><button id="hide">Dismiss</button><button>Stay</button>
<script>setTimeout(() => document.getElementById('spin').remove(), 1000)</script>`)
	obs2, err := s.Wait(ctx, browser.WaitRequest{RefGone: find(t, obs, "Cancel upload").Ref, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(obs2); len(got) != 2 || got[0] != "Dismiss" {
		t.Fatalf("after the wait the controls are %v", got)
	}
	// A control that stays is not gone; one hidden is.
	_, err = s.Wait(ctx, browser.WaitRequest{RefGone: find(t, obs2, "Stay").Ref, Timeout: 500 * time.Millisecond})
	wantCode(t, err, errcode.Timeout)
	mainWorld(t, s, `setTimeout(() => { document.getElementById('hide').style.display = 'none' }, 500)`)
	if _, err := s.Wait(ctx, browser.WaitRequest{RefGone: find(t, obs2, "Dismiss").Ref, Timeout: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	// A ref of an older revision is stale, as for any action.
	_, err = s.Wait(ctx, browser.WaitRequest{RefGone: find(t, obs2, "Stay").Ref, Timeout: time.Second})
	wantCode(t, err, errcode.StaleReference)
}

func TestWaitNetworkIdle(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, 2*time.Minute)
	mux := http.NewServeMux()
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Second)
		w.Write([]byte("done"))
	})
	mux.HandleFunc("/fast", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	mux.HandleFunc("/fetch", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<button onclick="fetch('/slow').then(r => r.text()).then(t => document.getElementById('out').textContent = 'Loaded: ' + t)">Load</button><p id="out">waiting</p>`))
	})
	mux.HandleFunc("/poll", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<p>Live</p><script>setInterval(() => fetch('/fast'), 200)</script>`))
	})
	base := browsertest.ServeHandler(t, mux)
	s := openInteractive(t)
	obs, err := s.Navigate(ctx, base+"fetch")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Load").Ref}, allowAll); err != nil {
		t.Fatal(err)
	}
	obs, err = s.Wait(ctx, browser.WaitRequest{NetworkIdle: true, Timeout: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(joined(obs), "Loaded: done") {
		t.Fatalf("idle before the slow request ended: %q", joined(obs))
	}
	if _, err := s.Navigate(ctx, base+"poll"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Wait(ctx, browser.WaitRequest{NetworkIdle: true, Timeout: 2 * time.Second})
	wantCode(t, err, errcode.Timeout)
}

// At the tracking bound and one past it, a request still in flight keeps the
// page busy: the page starts n fetches, of which only the last one created
// (requestWillBeSent comes in creation order, queued ones too) hangs until
// the test releases it.
func TestWaitNetworkIdleAtTheBound(t *testing.T) {
	t.Parallel()
	for _, n := range []int{tab.MaxTracked, tab.MaxTracked + 1} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			t.Parallel()
			ctx := browsertest.Context(t, 3*time.Minute)
			var served atomic.Int64
			release := make(chan struct{})
			mux := http.NewServeMux()
			mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprintf(w, `<button onclick="start()">Start</button><p id="out">waiting</p><script>
function start() {
  const all = [];
  for (let i = 0; i < %d; i++) all.push(fetch('/r?i=' + i).then(r => r.text()));
  Promise.all(all).then(() => document.getElementById('out').textContent = 'All loaded');
}
</script>`, n)
			})
			mux.HandleFunc("/r", func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Query().Get("i") == strconv.Itoa(n-1) {
					select {
					case <-release:
					case <-r.Context().Done():
					}
				} else {
					served.Add(1)
				}
				w.Write([]byte("ok"))
			})
			base := browsertest.ServeHandler(t, mux)
			var once sync.Once
			free := func() { once.Do(func() { close(release) }) }
			t.Cleanup(free) // before the server closes
			s := openInteractive(t)
			obs, err := s.Navigate(ctx, base)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Start").Ref}, allowAll); err != nil {
				t.Fatal(err)
			}
			for served.Load() < int64(n-1) {
				if ctx.Err() != nil {
					t.Fatalf("served %d of %d quick requests", served.Load(), n-1)
				}
				time.Sleep(50 * time.Millisecond)
			}
			_, err = s.Wait(ctx, browser.WaitRequest{NetworkIdle: true, Timeout: 3 * time.Second})
			wantCode(t, err, errcode.Timeout)
			free()
			obs, err = s.Wait(ctx, browser.WaitRequest{NetworkIdle: true, Timeout: 15 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(joined(obs), "All loaded") {
				t.Fatalf("idle before the last request ended: %q", joined(obs))
			}
		})
	}
}

// A dialog the page opens during a wait ends it with its own error.
func TestWaitEndsAtADialog(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, _ := openWaitPage(t, `<p>Working</p><script>setTimeout(() => alert('Session expired'), 1500)</script>`)
	_, err := s.Wait(ctx, browser.WaitRequest{Text: "finished", Timeout: 20 * time.Second})
	wantCode(t, err, errcode.NotActionable)
	obs, err := s.Observe(ctx, observation.Request{})
	if err != nil || obs.Dialog == nil || obs.Dialog.Message != "Session expired" {
		t.Fatalf("after the wait: %+v %v", obs, err)
	}
}

func TestWaitBounds(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, obs := openWaitPage(t, `<p>Ready to go</p><button>Go</button>`)
	// The longest timeout is accepted; the condition already holds.
	if _, err := s.Wait(ctx, browser.WaitRequest{Text: "ready", Timeout: browser.MaxWait}); err != nil {
		t.Fatal(err)
	}
	ref := find(t, obs, "Go").Ref
	for _, req := range []browser.WaitRequest{
		{Text: "ready", Timeout: browser.MaxWait + time.Millisecond},
		{Text: "ready", Timeout: 0},
		{Text: "ready", Timeout: -time.Second},
		{Timeout: time.Second},
		{Text: "ready", NetworkIdle: true, Timeout: time.Second},
		{Text: "ready", RefGone: ref, Timeout: time.Second},
		{RefGone: ref, NetworkIdle: true, Timeout: time.Second},
		{Text: " !? ", Timeout: time.Second},
	} {
		_, err := s.Wait(ctx, req)
		wantCode(t, err, errcode.InvalidArgument)
	}
	older := openSession(t) // a session without interactions
	_, err := older.Wait(ctx, browser.WaitRequest{NetworkIdle: true, Timeout: time.Second})
	wantCode(t, err, errcode.InvalidArgument)
}
