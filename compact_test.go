package veetbrowser

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// hitSite is a news article page whose every control (menu and sidebar
// links, share buttons, a comment box and its preview button) reports to the
// server what it was used for: links and buttons by name, the box by the
// text typed into it.
type hitSite struct {
	mu   sync.Mutex
	hits []string
}

func (h *hitSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/hit" {
		h.mu.Lock()
		h.hits = append(h.hits, r.URL.Query().Get("n"))
		h.mu.Unlock()
		return
	}
	var b strings.Builder
	b.WriteString(`<!doctype html><title>Harbour news</title><script>
function hit(n) { fetch('/hit?n=' + encodeURIComponent(n)); }
document.addEventListener('click', e => { const a = e.target.closest('a, button'); if (a) { e.preventDefault(); hit(a.textContent.trim()); } });
</script><header><nav aria-label="Sections">`)
	for _, s := range []string{"World", "Local", "Sport", "Culture", "Weather"} {
		fmt.Fprintf(&b, `<a href="/%s">%s</a> `, strings.ToLower(s), s)
	}
	b.WriteString(`</nav></header><aside><h2>Most read</h2><ul>`)
	for i := range 6 {
		fmt.Fprintf(&b, `<li><a href="/story/%d">Story %d of the week</a></li>`, i, i)
	}
	b.WriteString(`</ul></aside><main><article><h1>The harbour reopens</h1>`)
	for i := range 6 {
		fmt.Fprintf(&b, `<p>Paragraph %d: the quay was rebuilt stone by stone over two winters.</p>`, i)
	}
	b.WriteString(`<button>Share</button> <button>Save for later</button></article>
<section aria-label="Comments"><label>Your comment <input name="c" onchange="hit('typed:' + this.value)"></label> <button>Preview</button></section></main>
<footer><a href="/about">About us</a> <a href="/privacy">Privacy</a></footer>`)
	fmt.Fprint(w, b.String())
}

func (h *hitSite) wait(t *testing.T, want string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		h.mu.Lock()
		got := len(h.hits) > 0 && h.hits[len(h.hits)-1] == want
		h.mu.Unlock()
		if got {
			return
		}
	}
	t.Fatalf("the server never saw %q (it saw %q)", want, h.hits)
}

// TestEveryControlAViewShowsActs: a 1.9.0 view writes every reference
// compact (14 characters, where the canonical observation's is longer)
// and leaves out the role link; browser_act takes each compact reference
// of the newest view exactly as the full one, so every control the view
// shows is used, through the tool call, and its effect reaches the server.
// The full reference is still taken; a compact one of an older view is
// stale_reference; a 1.8.0 session writes full references with roles.
func TestEveryControlAViewShowsActs(t *testing.T) {
	t.Parallel()
	site := &hitSite{}
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	ctx := browsertest.Context(t, 3*time.Minute)

	s := session(t, SessionOptions{Budget: 8192})
	res, err := s.Navigate(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	first := view(t, res)
	if len(first.Controls) != 17 || first.Next != nil {
		t.Fatalf("want the page's 17 controls in one view, got %d: %s", len(first.Controls), res.View)
	}
	for i, c := range first.Controls {
		full := res.Observation.Controls[i]
		if c.Ref != observation.CompactRef(full.Ref) || len(c.Ref) != 14 || len(full.Ref) <= 14 {
			t.Fatalf("control %q: view ref %q, canonical %q", c.Name, c.Ref, full.Ref)
		}
		if (c.Role == "") != (full.Role == "link") {
			t.Fatalf("control %q of role %q shown with role %q", c.Name, full.Role, c.Role)
		}
	}
	stale := first.Controls[0].Ref
	for k, c := range first.Controls {
		cur := view(t, res)
		ref := cur.Controls[k].Ref // the newest view's ref of the same control
		if cur.Controls[k].Name != c.Name {
			t.Fatalf("the page changed: control %d is %q, was %q", k, cur.Controls[k].Name, c.Name)
		}
		args := map[string]any{"ref": ref, "kind": "click"}
		want := c.Name
		if c.Role == "textbox" {
			args = map[string]any{"ref": ref, "kind": "type", "text": "Lovely quay", "submit": false}
			want = "typed:Lovely quay"
		}
		raw, _ := json.Marshal(args)
		if res, err = s.Call(ctx, "browser_act", raw); err != nil {
			t.Fatalf("control %d %q (%q): %v", k, c.Name, ref, err)
		}
		if want != c.Name {
			// A field reports its value when it loses focus.
			if res, err = s.Call(ctx, "browser_act", json.RawMessage(`{"kind":"press","ref":"`+view(t, res).Controls[k+1].Ref+`","key":"Tab"}`)); err != nil {
				t.Fatal(err)
			}
		}
		site.wait(t, want)
	}
	_, err = s.Call(ctx, "browser_act", json.RawMessage(`{"kind":"click","ref":"`+stale+`"}`))
	wantCode(t, err, errcode.StaleReference)
	if _, err := s.Act(ctx, Action{Kind: Click, Ref: res.Observation.Controls[0].Ref}); err != nil {
		t.Fatalf("the full reference is refused: %v", err)
	}
	site.wait(t, first.Controls[0].Name)

	old := session(t, SessionOptions{Budget: 8192, Version: "1.8.0"})
	res, err = old.Navigate(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	v := view(t, res)
	if v.Controls[0].Ref != res.Observation.Controls[0].Ref || v.Controls[0].Role != "link" {
		t.Fatalf("1.8.0 changed its view: %+v", v.Controls[0])
	}
	_, err = old.Act(ctx, Action{Kind: Click, Ref: observation.CompactRef(v.Controls[0].Ref)})
	wantCode(t, err, errcode.UnknownReference)
}
