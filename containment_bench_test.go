package veetbrowser

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/policy"
)

// BenchmarkContainment navigates to a catalogue page of 200 subresources
// (180 images, 10 scripts, 10 style sheets, none cached) and observes it:
// with tool version 1.8.0 (only documents paused), 1.9.0 (every request
// paused and checked against the destination rules) and 1.9.0 with
// contain (and against the grant's origins). It reports the time of each
// and their ratios.
func BenchmarkContainment(b *testing.B) {
	var page strings.Builder
	page.WriteString(`<!doctype html><title>Catalogue</title>`)
	for i := range 10 {
		fmt.Fprintf(&page, `<link rel="stylesheet" href="/s%d.css">`, i)
	}
	page.WriteString(`<main><h1>Catalogue</h1>`)
	for i := range 180 {
		fmt.Fprintf(&page, `<figure><img src="/i%d.png" width="8" height="8" alt="item %d"><figcaption><a href="/p%d">Item %d</a></figcaption></figure>`, i, i, i, i)
	}
	page.WriteString(`</main>`)
	for i := range 10 {
		fmt.Fprintf(&page, `<script src="/j%d.js"></script>`, i)
	}
	html := page.String()
	base := browsertest.ServeHandler(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		switch {
		case r.URL.Path == "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, html)
		case strings.HasSuffix(r.URL.Path, ".css"):
			w.Header().Set("Content-Type", "text/css")
			fmt.Fprint(w, "figure{display:inline-block}")
		case strings.HasSuffix(r.URL.Path, ".js"):
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, "void 0;")
		default:
			w.Header().Set("Content-Type", "image/gif")
			w.Write([]byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"))
		}
	}))
	origin := strings.TrimSuffix(base, "/")
	// The three sessions take turns in every round, so that a change in
	// the machine's load falls on each of them alike.
	configs := []struct {
		name string
		opts SessionOptions
	}{
		{"1.8.0", SessionOptions{Version: "1.8.0", Grant: policy.Grant{Origins: []string{origin}}}},
		{"1.9.0", SessionOptions{Grant: policy.Grant{Origins: []string{origin}}}},
		{"1.9.0-contain", SessionOptions{Grant: policy.Grant{Origins: []string{origin}, Contain: true}}},
	}
	sessions := make([]*Session, len(configs))
	for i, c := range configs {
		sessions[i] = session(b, c.opts)
	}
	ctx := browsertest.Context(b, 30*time.Minute)
	spent := make([]time.Duration, len(configs))
	for b.Loop() {
		for i, s := range sessions {
			start := time.Now()
			if _, err := s.Navigate(ctx, base); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Observe(ctx, ObserveOptions{}); err != nil {
				b.Fatal(err)
			}
			spent[i] += time.Since(start)
		}
	}
	for i, c := range configs {
		b.ReportMetric(float64(spent[i].Milliseconds())/float64(b.N), "ms/"+c.name)
	}
	b.ReportMetric(float64(spent[1])/float64(spent[0]), "1.9.0/1.8.0")
	b.ReportMetric(float64(spent[2])/float64(spent[0]), "contain/1.8.0")
	b.ReportMetric(float64(spent[2])/float64(spent[1]), "contain/1.9.0")
}
