// Package demo is the built-in demo site: a social compose page with a
// navigation bar, a long feed, a composer with an enabled Publish button, a
// web component with an open shadow root, a labelled form and a hidden
// panel. It is embedded so the CLI works offline, and served on loopback.
package demo

import (
	_ "embed"
	"fmt"
	"html/template"
	"net/http"
	"sync"

	"github.com/veetbot/veetbrowser/internal/loopback"
)

//go:embed site/index.html
var indexHTML string

var index = template.Must(template.New("index").Parse(indexHTML))

// FeedLength is the number of feed items: enough that the Publish button
// lies beyond what a 1 KiB model view shows first.
const FeedLength = 40

type item struct {
	N      int
	Author string
	Text   string
}

func feed() []item {
	authors := []string{"Ada", "Grace", "Linus", "Margaret", "Ken", "Barbara", "Dennis", "Frances"}
	items := make([]item, FeedLength)
	for i := range items {
		items[i] = item{N: i + 1, Author: authors[i%len(authors)], Text: fmt.Sprintf("Post number %d about building careful software.", i+1)}
	}
	return items
}

// Site serves the demo and records what reaches it.
type Site struct {
	mu        sync.Mutex
	published []string
}

// Published returns the posts the server received.
func (s *Site) Published() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.published...)
}

// ServeHTTP serves the home page and records publications.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/publish" && r.Method == http.MethodPost:
		s.mu.Lock()
		s.published = append(s.published, r.FormValue("text"))
		s.mu.Unlock()
		http.Redirect(w, r, "/", http.StatusSeeOther)
	default:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := index.Execute(w, feed()); err != nil {
			http.Error(w, "template error", http.StatusInternalServerError)
		}
	}
}

// Serve starts the site on 127.0.0.1 with a random port and returns the
// home page's URL and a func that stops it.
func Serve(site *Site) (string, func(), error) {
	base, stop, err := loopback.Serve(site)
	return base + "/", stop, err
}
