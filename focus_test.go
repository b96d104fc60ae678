package veetbrowser

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/pages"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
)

// readFrom follows next from res until it is absent, as readAll does.
func readFrom(t *testing.T, s *Session, res *Result) *reading {
	t.Helper()
	ctx := browsertest.Context(t, 5*time.Minute)
	r := &reading{}
	for v := r.add(t, s, res); v.Next != nil; v = r.add(t, s, res) {
		if len(r.views) > 2000 {
			t.Fatal("the reading does not end")
		}
		args, _ := json.Marshal(v.Next)
		var err error
		if res, err = s.Call(ctx, "browser_observe", args); err != nil {
			t.Fatalf("view %d: %v", len(r.views), err)
		}
	}
	return r
}

// untilLast is the bytes of the views up to the one that holds the end of
// the last of want's parts.
func untilLast(t *testing.T, r *reading, want []string) int {
	t.Helper()
	last, bytes, joined := want[len(want)-1], 0, ""
	for i, v := range r.views {
		bytes += len(r.results[i].View)
		for k, p := range v.Text {
			if k == 0 && v.TextContinues {
				joined += p
			} else {
				joined = p
			}
			if joined == last && (k < len(v.Text)-1 || !v.TextTruncated) {
				return bytes
			}
		}
	}
	t.Fatalf("the last part %q was never read", last)
	return 0
}

// TestMainFirstReading reads a news page (menu, search, a sidebar of link
// lists and a newsletter box, a 24-paragraph article with a share bar,
// comments with reply buttons, a footer of link columns) main content
// first, for each of the rule's three cases: the main landmark, an
// article, the densest block of paragraphs. The first view at 8 KiB is
// the article from its headline and first paragraph on, with no menu,
// sidebar or control; the views until the article's last paragraph cost at
// most 1.1× its text; following next to the end still reads every
// paragraph and every link of the page exactly once (nothing dropped).
// Without focus the first view is in document order, as before.
func TestMainFirstReading(t *testing.T) {
	t.Parallel()
	for _, layout := range []pages.NewsLayout{pages.NewsMain, pages.NewsArticle, pages.NewsPlain} {
		t.Run(fmt.Sprint(layout), func(t *testing.T) {
			t.Parallel()
			n := pages.NewNews(layout, 24)
			url := browsertest.Serve(t, n.HTML)
			s := session(t, SessionOptions{Budget: 8192})
			ctx := browsertest.Context(t, 5*time.Minute)
			res, err := s.Call(ctx, "browser_navigate", json.RawMessage(`{"url":"`+url+`","focus":"main"}`))
			if err != nil {
				t.Fatal(err)
			}
			r := readFrom(t, s, res)
			first := r.views[0]
			if first.Focus != "main" || len(first.Controls) != 0 || len(first.Text) < 3 || first.Text[0] != n.Article[0] || first.Text[2] != n.Paragraphs[0] {
				t.Fatalf("the first view is not the article from its start: %s", r.results[0].View)
			}
			for _, p := range first.Text {
				if strings.Contains(p, "Most read") || strings.Contains(p, "Sections") || strings.Contains(p, "Council votes") {
					t.Fatalf("the first view holds page furniture: %q", p)
				}
			}
			article := 0
			for _, p := range n.Article {
				article += len(p)
			}
			until := untilLast(t, r, n.Paragraphs)
			t.Logf("layout %d: %d bytes until the last paragraph, %.3f× the article's %d bytes; %d views, %d bytes in all",
				layout, until, float64(until)/float64(article), article, len(r.views), r.bytes)
			if float64(until) > 1.1*float64(article) {
				t.Fatalf("%d bytes until the article's last paragraph, more than 1.1× its %d bytes", until, article)
			}
			if ok, at := subsequence(r.text, n.Paragraphs); !ok {
				t.Fatalf("paragraph %d not read once in order", at)
			}
			if ok, at := subsequence(r.links, n.Links); !ok || len(r.links) != len(n.Links) {
				t.Fatalf("links: %d seen of %d, in order up to %d", len(r.links), len(n.Links), at)
			}
			for _, want := range []string{"Most read", "Every morning, the port's news in five minutes.", "© 2026 The Harbour Gazette"} {
				if !slices.Contains(r.text, want) {
					t.Fatalf("the rest of the page lost %q", want)
				}
			}
			if slices.IndexFunc(r.views, func(v projection.View) bool { return v.Focus == "rest" }) < 0 {
				t.Fatal("no view says it reads the rest")
			}

			plain, err := s.Navigate(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			if v := view(t, plain); v.Focus != "" || len(v.Text) == 0 || v.Text[0] == n.Article[0] || len(v.Controls) == 0 {
				t.Fatalf("without focus the view is not in document order: %s", plain.View)
			}
			again, err := s.Call(ctx, "browser_observe", json.RawMessage(`{"focus":"main"}`))
			if err != nil {
				t.Fatal(err)
			}
			if v := view(t, again); v.Focus != "main" || v.Text[0] != n.Article[0] {
				t.Fatalf("observe with focus: %s", again.View)
			}
		})
	}
}

// TestMainFirstArguments: focus takes only "main", never with a
// continuation or a history step, and only from tool version 1.9.0.
func TestMainFirstArguments(t *testing.T) {
	t.Parallel()
	url := browsertest.Serve(t, `<main><p>One.</p><p>Two.</p></main>`)
	ctx := browsertest.Context(t, time.Minute)
	s := session(t, SessionOptions{})
	res, err := s.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	ref := view(t, res).Revision
	for _, args := range []string{`{"focus":"article"}`, `{"focus":""}`, `{"focus":"main","cursor":"` + ref + `"}`} {
		_, err := s.Call(ctx, "browser_observe", json.RawMessage(args))
		wantCode(t, err, errcode.InvalidArgument)
	}
	_, err = s.Call(ctx, "browser_navigate", json.RawMessage(`{"history":"reload","focus":"main"}`))
	wantCode(t, err, errcode.InvalidArgument)
	old := session(t, SessionOptions{Version: "1.8.0"})
	if _, err := old.Navigate(ctx, url); err != nil {
		t.Fatal(err)
	}
	_, err = old.Call(ctx, "browser_observe", json.RawMessage(`{"focus":"main"}`))
	wantCode(t, err, errcode.InvalidArgument)
	_, err = old.Call(ctx, "browser_navigate", json.RawMessage(`{"url":"`+url+`","focus":"main"}`))
	wantCode(t, err, errcode.InvalidArgument)
}

// TestMainFirstSearchBound: the main content is searched for within
// 8,192 elements in document order: a main landmark that is the 8,192nd
// element (html, head and body, then 8,188 empty spans) is read first; one
// that is the 8,193rd is not found, so the first view has no text and its
// next reads the whole page, main included, in document order.
func TestMainFirstSearchBound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spans int
		found bool
	}{{observation.FocusScanNodes - 4, true}, {observation.FocusScanNodes - 3, false}} {
		t.Run(fmt.Sprint(tc.spans), func(t *testing.T) {
			t.Parallel()
			html := "<!doctype html><body>" + strings.Repeat("<span></span>", tc.spans) +
				"<main><h1>Tide tables</h1><p>High water at six.</p></main><footer><a href=/about>About</a></footer>"
			url := browsertest.Serve(t, html)
			s := session(t, SessionOptions{Budget: 8192})
			ctx := browsertest.Context(t, 2*time.Minute)
			res, err := s.Call(ctx, "browser_navigate", json.RawMessage(`{"url":"`+url+`","focus":"main"}`))
			if err != nil {
				t.Fatal(err)
			}
			first := view(t, res)
			if got := len(first.Text) > 0 && first.Text[0] == "Tide tables"; got != tc.found || first.Focus != "main" || first.Next == nil {
				t.Fatalf("main found %v, want %v: %s", got, tc.found, res.View)
			}
			r := readFrom(t, s, res)
			want := []string{"About"}
			if !tc.found {
				want = []string{"Tide tables", "High water at six.", "About"}
			}
			if got := r.text[len(r.text)-len(want):]; !slices.Equal(got, want) || len(r.text) != 3 {
				t.Fatalf("text read %q", r.text)
			}
		})
	}
}

// TestMainFirstOnALivePage: a main-first continuation finds the main
// content again by the rule and resumes only inside it. When the page
// moves the content into a new main landmark ahead of the old one, the
// reading goes on with the rest of the part the view cut; when a new
// main landmark with other content appears first, the place to resume is
// no longer in the main content and the continuation is stale_reference,
// never a read of the wrong content.
func TestMainFirstOnALivePage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, change string
		code         errcode.Code
	}{
		{"rewrapped", "const m = document.querySelector('main'), n = document.createElement('main'); n.append(...m.childNodes); document.body.prepend(n)", ""},
		{"another main", "document.body.prepend(Object.assign(document.createElement('main'), {textContent: 'Breaking news'}))", errcode.StaleReference},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := session(t, SessionOptions{Budget: 1024})
			ctx := browsertest.Context(t, time.Minute)
			url, apply := changingPage(t, tc.change)
			res, err := s.Call(ctx, "browser_navigate", json.RawMessage(`{"url":"`+url+`","focus":"main"}`))
			if err != nil {
				t.Fatal(err)
			}
			v := view(t, res)
			if v.Focus != "main" || v.Next == nil || len(v.Text) < 2 {
				t.Fatalf("want the main content first, continued: %s", res.View)
			}
			apply()
			args, _ := json.Marshal(v.Next)
			res, err = s.Call(ctx, "browser_observe", args)
			if (tc.code == "") != (err == nil) || err != nil && errcode.Of(err) != tc.code {
				t.Fatalf("after %s: %v, want %q", tc.name, err, tc.code)
			}
			if err != nil {
				return
			}
			// The reading goes on where the view stopped: inside its last
			// part when it was cut, else at the next part.
			want := fmt.Sprintf("paragraph number %d with enough words to fill the view", len(v.Text))
			if v.TextTruncated {
				cut := v.Text[len(v.Text)-1]
				want = fmt.Sprintf("paragraph number %d with enough words to fill the view", len(v.Text)-1)[len(cut):]
			}
			if next := view(t, res); next.Focus != "main" || next.TextContinues != v.TextTruncated || len(next.Text) == 0 || next.Text[0] != want {
				t.Fatalf("the reading does not go on at %q: %s", want, res.View)
			}
		})
	}
}
