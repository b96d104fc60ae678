package chromium

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/pages"
	"github.com/veetbot/veetbrowser/observation"
)

// newsroomPage is a newsroom's feed of exactly elements elements: a
// header with "Load more" (which puts a new post, its title a span with
// a click listener and no other signal, at the top of the feed) and
// "Enable previews" (which gives the existing "Preview" span a listener
// and changes nothing in the document), 100 posts whose titles are such
// spans, and a footer of links that fills the page to its size.
func newsroomPage(t *testing.T, elements int) string {
	const fixed = 14 // html head title style body header h1 2×button span main footer script, and the preview's p
	const posts = 100
	links := elements - fixed - 3*posts
	if links < 0 {
		t.Fatalf("no room for %d elements", elements)
	}
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Newsroom</title>
<style>body{font:14px sans-serif} .title{font-weight:bold} footer a{margin-right:4px}</style></head><body>
<header><h1>Newsroom</h1><button id="more">Load more</button><button id="previews">Enable previews</button> <span id="preview">Preview</span></header>
<main id="feed">`)
	for i := range posts {
		fmt.Fprintf(&b, `<article><p>Posted today: <span class="title">post %d</span></p></article>`, i)
	}
	b.WriteString(`</main><footer>`)
	for i := range links {
		fmt.Fprintf(&b, `<a href="/archive/%d">%d</a>`, i, i)
	}
	// The preview's p is the one the script adds below the feed, so that
	// each button's effect is the only change it makes.
	b.WriteString(`</footer><script>
const open = () => {};
document.querySelectorAll('.title').forEach((s) => s.addEventListener('click', open));
const note = document.createElement('p');
note.textContent = 'Archive below';
document.body.insertBefore(note, document.querySelector('footer'));
document.getElementById('more').addEventListener('click', () => {
  const a = document.createElement('article');
  a.innerHTML = '<p>Posted now: <span class="title">post new</span></p>';
  a.querySelector('span').addEventListener('click', open);
  document.getElementById('feed').prepend(a);
});
document.getElementById('previews').addEventListener('click', () => document.getElementById('preview').addEventListener('click', open));
</script></body></html>`)
	return b.String()
}

// openKept opens url in a session of tool version 1.10.0's pointer
// targets (RealPages and KeptListeners), or 1.9.0's without kept.
func openKept(t testing.TB, url string, kept bool) (*Session, *observation.Observation) {
	t.Helper()
	return openWith(t, url, browser.SessionOptions{RealPages: true, KeptListeners: kept})
}

// lists reports whether obs lists control "role name".
func lists(obs *observation.Observation, control string) bool {
	return slices.Contains(roleNames(obs), control)
}

// TestKeptListenersAtTheBound fails without kept marks (the page past the
// bound is listed again on every observation): a page of ListenerNodes
// elements is listed on every observation, as before; one of
// ListenerNodes+1 is not listed again while it gains no element, and
// shows the same targets. An element added with a listener is a target on
// the next observation either way; a listener given to an element already
// there is found at once at the bound, and past it once an element is
// added. A 1.9.0 session lists on every observation past the bound too.
func TestKeptListenersAtTheBound(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		elements int
		kept     bool
	}{{observation.ListenerNodes, true}, {observation.ListenerNodes + 1, true}, {observation.ListenerNodes + 1, false}} {
		t.Run(fmt.Sprintf("%d-kept=%v", c.elements, c.kept), func(t *testing.T) {
			t.Parallel()
			s, obs := openKept(t, browsertest.Serve(t, newsroomPage(t, c.elements)), c.kept)
			ctx := browsertest.Context(t, time.Minute)
			raw, err := s.tab.Evaluate(ctx, "document.getElementsByTagName('*').length")
			if err != nil || string(raw) != fmt.Sprint(c.elements) {
				t.Fatalf("the page has %s elements (%v), not %d", raw, err, c.elements)
			}
			if !lists(obs, "generic post 0") || !lists(obs, "generic post 99") || lists(obs, "generic Preview") {
				t.Fatalf("first view: %q", roleNames(obs)[:8])
			}
			large := c.kept && c.elements > observation.ListenerNodes
			before := s.tab.Listings()
			again, err := s.Observe(ctx, observation.Request{})
			if err != nil {
				t.Fatal(err)
			}
			if listed := s.tab.Listings() - before; listed != map[bool]int64{false: 1, true: 0}[large] {
				t.Fatalf("the unchanged page was listed %d times", listed)
			}
			if !slices.Equal(roleNames(again), roleNames(obs)) {
				t.Fatalf("the second view differs: %q", roleNames(again)[:8])
			}
			res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, again, "Enable previews").Ref}, allowAll)
			if err != nil {
				t.Fatal(err)
			}
			if lists(res.Observation, "generic Preview") == large {
				t.Fatalf("after the previews, Preview listed %v", !large)
			}
			before = s.tab.Listings()
			res, err = s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, res.Observation, "Load more").Ref}, allowAll)
			if err != nil {
				t.Fatal(err)
			}
			if !lists(res.Observation, "generic post new") || !lists(res.Observation, "generic Preview") || !lists(res.Observation, "generic post 0") {
				t.Fatalf("after load more: %q", roleNames(res.Observation)[:8])
			}
			if s.tab.Listings() == before {
				t.Fatal("the grown page was not listed")
			}
		})
	}
}

// TestKeptListenersOnLargePages: on the large benchmark pages (12,000 and
// 300,000 buttons, the long article) a 1.10.0 session lists the listeners
// once, on the first observation, and not on the next ones.
func TestKeptListenersOnLargePages(t *testing.T) {
	t.Parallel()
	for name, html := range map[string]string{
		"buttons-12000": buttons(12000, ""),
		"article":       pages.NewArticle(pages.ArticleOptions{Paragraphs: 3000, NavLinks: 800}).HTML,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, _ := openKept(t, browsertest.Serve(t, html), true)
			ctx := browsertest.Context(t, time.Minute)
			before := s.tab.Listings()
			for range 3 {
				if _, err := s.Observe(ctx, observation.Request{}); err != nil {
					t.Fatal(err)
				}
			}
			if listed := s.tab.Listings() - before; listed != 0 {
				t.Fatalf("listed %d times in 3 observations of the unchanged page", listed)
			}
		})
	}
}

// TestKeptListenersSeeShadowRoots fails when only the document is watched:
// past the bound, a span with a listener added inside an open shadow root
// (a contact list's, as a web component draws it) is a target on the next
// observation.
func TestKeptListenersSeeShadowRoots(t *testing.T) {
	t.Parallel()
	page := `<!doctype html><title>Contacts</title><header><h1>Contacts</h1><button id="add">Add contact</button></header>
<main><contact-list id="list"></contact-list></main><footer>` +
		browsertest.Repeat(observation.ListenerNodes, `<a href="/archive/%d">archive</a>`) + `</footer>
<script>
const root = document.getElementById('list').attachShadow({mode: 'open'});
root.innerHTML = '<p>Your contacts:</p>';
document.getElementById('add').addEventListener('click', () => {
  const s = document.createElement('span');
  s.textContent = 'Ada Lovelace';
  s.addEventListener('click', () => {});
  root.append(s);
});
</script>`
	s, obs := openKept(t, browsertest.Serve(t, page), true)
	ctx := browsertest.Context(t, time.Minute)
	before := s.tab.Listings()
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Add contact").Ref}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if !lists(res.Observation, "generic Ada Lovelace") {
		t.Fatalf("after the contact was added: %q", roleNames(res.Observation)[:4])
	}
	if s.tab.Listings() == before {
		t.Fatal("the grown page was not listed")
	}
}

// TestObserveAheadAtTheBound: an observation asked for again sends the
// collector beside the marking on a document of ListenerNodes elements,
// and not on one of ListenerNodes+1, where the call might be sent twice
// for nothing (marked); both show the same view twice.
func TestObserveAheadAtTheBound(t *testing.T) {
	t.Parallel()
	for _, elements := range []int{observation.ListenerNodes, observation.ListenerNodes + 1} {
		t.Run(fmt.Sprint(elements), func(t *testing.T) {
			t.Parallel()
			s, obs := openKept(t, browsertest.Serve(t, newsroomPage(t, elements)), true)
			if ahead := s.tab.MarkedBefore(); ahead != (elements <= observation.ListenerNodes) {
				t.Fatalf("%d elements: the collector goes ahead %v", elements, ahead)
			}
			again, err := s.Observe(browsertest.Context(t, time.Minute), observation.Request{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(roleNames(again), roleNames(obs)) {
				t.Fatalf("the second view differs: %q", roleNames(again)[:8])
			}
		})
	}
}
