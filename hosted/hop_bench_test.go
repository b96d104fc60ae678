package hosted_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/hosted"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/sidecar/sidecartest"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
	"github.com/veetbot/veetbrowser/tools"
)

// cannedPages is a provider whose pages answer every observation with one
// observation a real browser made of the bench page: what a call costs
// besides the browser, so that the hop is measured apart from Chromium's
// time (and the machine's load on it).
type cannedPages struct{ obs *observation.Observation }

func (p cannedPages) NewSession(context.Context, browser.SessionOptions) (browser.Session, error) {
	return cannedPage{obs: p.obs}, nil
}

func (cannedPages) Close(context.Context) error { return nil }

func (p cannedPages) Open(context.Context, string) (browser.Provider, error) { return p, nil }

// cannedPage answers Navigate and Observe; nothing else is called.
type cannedPage struct {
	browser.Session
	obs *observation.Observation
}

func (p cannedPage) Navigate(context.Context, string) (*observation.Observation, error) {
	return p.copy(), nil
}

func (p cannedPage) Observe(context.Context, observation.Request) (*observation.Observation, error) {
	return p.copy(), nil
}

func (p cannedPage) Close(context.Context) error { return nil }

func (p cannedPage) copy() *observation.Observation {
	o := *p.obs
	return &o
}

// canned observes the bench page once in Chromium, as tool version 1.10.0.
func canned(b *testing.B) cannedPages {
	ctx := context.Background()
	pr, err := chromium.Launch(ctx, chromium.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer pr.Close(ctx)
	rt, err := veetbrowser.New(pr, veetbrowser.Options{Store: storeOf(b, store.None)})
	if err != nil {
		b.Fatal(err)
	}
	s, err := rt.NewSession(ctx, veetbrowser.SessionOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close(ctx)
	res, err := s.Call(ctx, tools.Navigate, navigateArgs(benchPage(b)))
	if err != nil {
		b.Fatal(err)
	}
	return cannedPages{obs: res.Observation}
}

func storeOf(b *testing.B, spec string) store.Store {
	st, err := storespec.Open(context.Background(), spec)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

// BenchmarkHop observes the canned bench page (1.10.0, 8 KiB) on a local
// session recording into SQLite, and through a sidecar on loopback (which
// records into SQLite too) with and without the canonical observation in
// the answer. It reports each call's p50 and p95 and, through the
// sidecar, the hop: each call's time at the client minus the runtime's in
// the sidecar (Server-Timing).
func BenchmarkHop(b *testing.B) {
	pages := canned(b)
	ctx := context.Background()
	b.Run("library", func(b *testing.B) {
		rt, err := veetbrowser.New(pages, veetbrowser.Options{Store: storeOf(b, filepath.Join(b.TempDir(), "local.db"))})
		if err != nil {
			b.Fatal(err)
		}
		s, err := rt.NewSession(ctx, veetbrowser.SessionOptions{})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close(ctx)
		hopCalls(b, s, nil)
	})
	for _, viewOnly := range []bool{false, true} {
		name := "sidecar"
		if viewOnly {
			name = "sidecar-view-only"
		}
		b.Run(name, func(b *testing.B) {
			sc := sidecartest.Start(b, pages, 0)
			hop := &hopTimer{}
			o := hosted.Options{URL: sc.URL, Token: sc.Token, Profile: "hop", HTTPClient: &http.Client{Transport: hop}, ViewOnly: viewOnly}
			if err := hosted.CreateProfile(ctx, o); err != nil {
				b.Fatal(err)
			}
			s, err := hosted.Open(ctx, o)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close(ctx)
			hopCalls(b, s, hop)
		})
	}
}

// hopCalls navigates s once, then times b.N observations and reports
// their p50 and p95, and the hop's when hop is set.
func hopCalls(b *testing.B, s veetbrowser.Caller, hop *hopTimer) {
	ctx := context.Background()
	if _, err := s.Call(ctx, tools.Navigate, navigateArgs("http://127.0.0.1/")); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if _, err := s.Call(ctx, tools.Observe, json.RawMessage(`{}`)); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	if hop != nil {
		hop.report(b, took)
	}
	reportLatency(b, took)
}

// hopReplyPage is a small page, where Chromium's time does not hide the
// hop: a help desk ticket's thread and the reply form below it.
const hopReplyPage = `<!doctype html><title>Ticket #2187 · Support</title>
<header><a href="/">Support</a> <input type="search" aria-label="Search tickets"> <button aria-label="Account">Account</button></header>
<nav aria-label="Views"><a href="/unassigned">Unassigned (4)</a> <a href="/mine">Mine (9)</a> <a href="/solved">Solved</a></nav>
<main><h1>Ticket #2187: the order arrived twice</h1>
<article><h2>Sam Ortiz <time>3 days ago</time></h2><p>I was charged once but two parcels came. Shall I send one back?</p></article>
<article><h2>Support <time>2 days ago</time></h2><p>Thank you for telling us. Which order number is on the second parcel?</p></article>
<article><h2>Sam Ortiz <time>today</time></h2><p>It says 55-1043. A photo of the label is attached.</p><a href="/att/label.jpg">label.jpg</a></article>
<form aria-label="Reply" onsubmit="event.preventDefault()"><h2>Reply</h2>
<div role="toolbar" aria-label="Formatting"><button type="button" aria-label="Bold">B</button><button type="button" aria-label="Italic">I</button><button type="button" aria-label="Quote">“</button></div>
<label>Message <textarea name="body" rows="6"></textarea></label>
<label>Status <select name="status"><option>Open</option><option>Waiting</option><option>Solved</option></select></label>
<label><input type="checkbox" name="note"> Internal note</label>
<button>Send reply</button> <button type="button">Save draft</button></form></main>
<aside aria-label="Customer"><h2>Sam Ortiz</h2><p>Customer since 2019</p><a href="/c/311">All tickets</a></aside>`

// BenchmarkHopPages is the hop through a real browser at the newest tool
// version (8 KiB views): a sidecar on loopback observing a small reply
// form and the bench article, with and without the canonical observation
// in the answer. Its hop metrics take the runtime's own time out of each
// call (Server-Timing), so that Chromium's time, and its noise, do not
// hide the hop.
func BenchmarkHopPages(b *testing.B) {
	urls := map[string]string{"reply": browsertest.Serve(b, hopReplyPage), "article": benchPage(b)}
	for _, page := range []string{"reply", "article"} {
		for _, viewOnly := range []bool{false, true} {
			name := page + "/observation"
			if viewOnly {
				name = page + "/view-only"
			}
			b.Run(name, func(b *testing.B) { benchHosted(b, urls[page], tools.Newest().Name, viewOnly) })
		}
	}
}
