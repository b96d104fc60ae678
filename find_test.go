package veetbrowser

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/pages"
	"github.com/veetbot/veetbrowser/projection"
)

// callFind calls browser_find as a model would and returns its view.
func callFind(t *testing.T, s *Session, args map[string]string) projection.View {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := s.Call(browsertest.Context(t, 2*time.Minute), "browser_find", raw)
	if err != nil {
		t.Fatalf("find %v: %v", args, err)
	}
	if len(res.View) > s.budget {
		t.Fatalf("find view of %d bytes over the %d budget", len(res.View), s.budget)
	}
	return view(t, res)
}

// TestFindAControlAmongTwelveThousand: one call finds it, and its ref acts
// on it like an observed control's.
func TestFindAControlAmongTwelveThousand(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var clicks []string
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, pages.Controls(12000, "Publish", 11500)+
			`<script>document.addEventListener('click', e => fetch('/click?' + e.target.dataset.e));</script>`)
	})
	mux.HandleFunc("GET /click", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		clicks = append(clicks, r.URL.RawQuery)
		mu.Unlock()
	})
	url := browsertest.ServeHandler(t, mux)
	s := session(t, SessionOptions{Budget: 1024, Approver: &hookApprover{yes: true}})
	ctx := browsertest.Context(t, 2*time.Minute)
	if _, err := s.Navigate(ctx, url); err != nil {
		t.Fatal(err)
	}
	v := callFind(t, s, map[string]string{"query": "PUBLISH"})
	if len(v.Controls) != 1 || v.Controls[0].Name != "Publish" || v.Next != nil {
		t.Fatalf("find gave %+v, next %+v", v.Controls, v.Next)
	}
	if _, err := s.Act(ctx, Action{Kind: Click, Ref: v.Controls[0].Ref}); err != nil {
		t.Fatalf("acting on a found control: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		got := strings.Join(clicks, ",")
		mu.Unlock()
		if got == "click:11500" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("clicks %q, want click:11500", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestFindLeadsIntoTheReading: a phrase of paragraph 2,900 of the long
// article is found in one call, and its match's next reads the page from
// that paragraph on.
func TestFindLeadsIntoTheReading(t *testing.T) {
	t.Parallel()
	const plant = "the lighthouse keeper's ledger"
	a := pages.NewArticle(pages.ArticleOptions{Paragraphs: 3000, NavLinks: 800, Plant: plant, PlantAt: 2900})
	s := session(t, SessionOptions{Budget: 1024})
	ctx := browsertest.Context(t, 2*time.Minute)
	if _, err := s.Navigate(ctx, browsertest.Serve(t, a.HTML)); err != nil {
		t.Fatal(err)
	}
	v := callFind(t, s, map[string]string{"query": "Lighthouse KEEPER ledger"})
	if len(v.Matches) != 1 || !strings.Contains(v.Matches[0].Text, plant) || v.Matches[0].Next == nil {
		t.Fatalf("find gave %+v", v.Matches)
	}
	args, _ := json.Marshal(v.Matches[0].Next)
	res, err := s.Call(ctx, "browser_observe", args)
	if err != nil {
		t.Fatal(err)
	}
	read := view(t, res)
	if len(read.Text) == 0 || read.Text[0] == "" || !strings.HasPrefix(a.Paragraphs[2900], read.Text[0]) {
		t.Fatalf("reading from the match starts with %q, want paragraph 2,900 %q", read.Text, a.Paragraphs[2900])
	}
	if len(read.Controls) != 0 || len(read.Regions) != 0 {
		t.Fatalf("reading from a match shows controls %d and regions %d", len(read.Controls), len(read.Regions))
	}
}

// TestFindNeverSearchesWhatIsNotReadable: values, passwords, editable,
// collapsed, hidden and aria-hidden content are never found; the one
// visible phrase is.
func TestFindNeverSearchesWhatIsNotReadable(t *testing.T) {
	t.Parallel()
	p := pages.NewPrivacy()
	s := session(t, SessionOptions{})
	ctx := browsertest.Context(t, 2*time.Minute)
	if _, err := s.Navigate(ctx, browsertest.Serve(t, p.HTML)); err != nil {
		t.Fatal(err)
	}
	if v := callFind(t, s, map[string]string{"query": p.Secret}); len(v.Controls) != 0 || len(v.Matches) != 0 {
		t.Fatalf("the secret (in %s) was found: %+v %+v", strings.Join(p.Places, ", "), v.Controls, v.Matches)
	}
	if v := callFind(t, s, map[string]string{"query": p.Visible}); len(v.Matches) != 1 {
		t.Fatalf("the visible phrase: %+v", v.Matches)
	}
}

// TestFindContinues: matches past one call's bound come through next,
// each once, and a cursor is for its own query only.
func TestFindContinues(t *testing.T) {
	t.Parallel()
	page := browsertest.Repeat(100, `<p>Save point %d <button>Save draft %[1]d</button></p>`)
	s := session(t, SessionOptions{})
	ctx := browsertest.Context(t, 2*time.Minute)
	if _, err := s.Navigate(ctx, browsertest.Serve(t, strings.ReplaceAll(page, "%d", "%[1]d"))); err != nil {
		t.Fatal(err)
	}
	var controls, matches []string
	args := map[string]string{"query": "save"}
	for calls := 1; ; calls++ {
		if calls > 20 {
			t.Fatal("find does not end")
		}
		v := callFind(t, s, args)
		for _, c := range v.Controls {
			controls = append(controls, c.Name)
		}
		for _, m := range v.Matches {
			matches = append(matches, m.Text)
		}
		if v.Next == nil {
			break
		}
		if calls == 1 {
			raw, _ := json.Marshal(map[string]string{"query": "draft", "cursor": v.Next.Cursor})
			if _, err := s.Call(ctx, "browser_find", raw); errcode.Of(err) != errcode.InvalidArgument {
				t.Fatalf("a cursor with another query: %v", err)
			}
		}
		args = map[string]string{"query": "save", "cursor": v.Next.Cursor}
	}
	if len(controls) != 100 || len(matches) != 100 {
		t.Fatalf("%d controls and %d text matches, want 100 each", len(controls), len(matches))
	}
	for i := range 100 {
		if controls[i] != fmt.Sprintf("Save draft %d", i) || !strings.Contains(matches[i], fmt.Sprintf("Save point %d ", i)) {
			t.Fatalf("match %d: %q, %q", i, controls[i], matches[i])
		}
	}
}
