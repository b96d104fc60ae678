package chromium

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// Tool version 1.8.0's actions: hover, scroll, drag and key chords.

// interactSite serves test pages, a feed of items ten to a page (/feed?page=N)
// and records what reaches it: beacons (/effect?e=…), the feed pages it
// served, and the bodies posted to /order.
type interactSite struct {
	browsertest.Events
	pages map[string]string
}

func (s *interactSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/effect":
		s.Record(r.URL.Query().Get("e"))
	case "/feed":
		n, _ := strconv.Atoi(r.URL.Query().Get("page"))
		s.Record(fmt.Sprintf("feed %d", n))
		var items []string
		for i := 1; i <= 10; i++ {
			items = append(items, fmt.Sprintf("Story %d-%d", n, i))
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(items)
	case "/order":
		b, _ := io.ReadAll(r.Body)
		s.Record("order " + string(b))
	default:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, s.pages[r.URL.Path])
	}
}

// waitSeen waits up to ten seconds for the site to record e.
func (s *interactSite) waitSeen(t *testing.T, e string) {
	t.Helper()
	for range 100 {
		if slices.Contains(s.Seen(), e) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the site never saw %q; it saw %q", e, s.Seen())
}

// openInteractions opens a 1.8.0 session on a page of a new site.
func openInteractions(t *testing.T, html string) (*Session, *interactSite, *observation.Observation) {
	t.Helper()
	st := &interactSite{pages: map[string]string{"/": html}}
	s, obs := openInteractionsAt(t, browsertest.ServeHandler(t, st))
	return s, st, obs
}

// openInteractionsAt opens a 1.8.0 session on url and observes until the
// controls named want show (frames load in their own time).
func openInteractionsAt(t *testing.T, url string, want ...string) (*Session, *observation.Observation) {
	t.Helper()
	ctx := browsertest.Context(t, time.Minute)
	s, obs := openOn(t, ctx, browser.SessionOptions{Reading: true, Frames: true, Interactions: true}, url)
	for range 100 {
		if !slices.ContainsFunc(want, func(name string) bool { return !has(obs, name) }) {
			return s, obs
		}
		time.Sleep(100 * time.Millisecond)
		var err error
		if obs, err = s.Observe(ctx, observation.Request{}); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatalf("%q never showed: %q", want, names(obs))
	return nil, nil
}

func has(obs *observation.Observation, name string) bool {
	return slices.Contains(names(obs), name)
}

// judged records what each action was authorized with.
type judged struct {
	mu    sync.Mutex
	facts []policy.Facts
}

func (j *judged) authorize(_ context.Context, class string, f policy.Facts) (policy.Permit, error) {
	j.mu.Lock()
	j.facts = append(j.facts, f)
	j.mu.Unlock()
	return policy.Permit{}, nil
}

func (j *judged) last(t *testing.T) policy.Facts {
	t.Helper()
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.facts) == 0 {
		t.Fatal("nothing was authorized")
	}
	return j.facts[len(j.facts)-1]
}

const hoverMenus = `<title>Menus</title>
<style>
/* A menu bar: each menu drops over the page, as real ones do, so one
   closing moves no other trigger under the pointer. */
.css, .js { display: inline-block; position: relative; vertical-align: top; margin-right: 40px; }
.sub { display: none; position: absolute; top: 100%; left: 0; background: #fff; }
.css:hover .sub, .js.open .sub { display: block; }
</style>
<div class="css"><button>Products</button><div class="sub"><button data-effect="laptops">Laptops</button></div></div>
<div class="js"><button>Services</button><div class="sub"><button data-effect="repairs">Repairs</button></div></div>
<p>Menus open under the pointer.</p>
<script>
const js = document.querySelector('.js');
js.addEventListener('mouseenter', () => js.classList.add('open'));
js.addEventListener('mouseleave', () => js.classList.remove('open'));
</script>` + beacon

// TestHoverOpensMenus hovers a menu that opens on :hover and one that
// opens on mouseenter (of the trigger's parent) and clicks an item each
// shows only then.
func TestHoverOpensMenus(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, 2*time.Minute)
	s, st, obs := openInteractions(t, hoverMenus)
	for _, m := range []struct{ trigger, item, effect string }{
		{"Products", "Laptops", "laptops"},
		{"Services", "Repairs", "repairs"},
	} {
		if has(obs, m.item) {
			t.Fatalf("%s shows before the hover: %q", m.item, names(obs))
		}
		res, err := s.Act(ctx, browser.Action{Kind: browser.ActHover, Ref: find(t, obs, m.trigger).Ref}, allowAll)
		if err != nil {
			t.Fatalf("hover %s: %v", m.trigger, err)
		}
		if !has(res.Observation, m.item) {
			t.Fatalf("%s does not show after the hover: %q", m.item, names(res.Observation))
		}
		// The pointer rests on the trigger already: hovering again moves
		// nothing and is no error.
		res, err = s.Act(ctx, browser.Action{Kind: browser.ActHover, Ref: find(t, res.Observation, m.trigger).Ref}, allowAll)
		if err != nil {
			t.Fatalf("hover %s again: %v", m.trigger, err)
		}
		res, err = s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, res.Observation, m.item).Ref}, allowAll)
		if err != nil {
			t.Fatalf("click %s: %v", m.item, err)
		}
		st.waitSeen(t, m.effect)
		obs = res.Observation
	}
}

const feedPage = `<title>Feed</title>
<style>.story { height: 120px; margin: 0; border-bottom: 1px solid #ccc; }</style>
<h1>Stories</h1>
<div id="feed"></div>
<p id="more">Loading more stories</p>
<script>
let page = 0, busy = false;
async function more() {
  if (busy) return;
  busy = true;
  const items = await (await fetch('/feed?page=' + (++page))).json();
  for (const text of items) {
    const d = document.createElement('div');
    d.className = 'story';
    const a = document.createElement('a');
    a.href = '#' + encodeURIComponent(text);
    a.textContent = text;
    d.append(a);
    document.getElementById('feed').append(d);
  }
  busy = false;
}
new IntersectionObserver((entries) => { if (entries.some((e) => e.isIntersecting)) more(); })
  .observe(document.getElementById('more'));
</script>`

// TestScrollLoadsAnInfiniteFeed scrolls the page until the feed loaded
// three more pages, and finds the last page's stories observed.
func TestScrollLoadsAnInfiniteFeed(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, 2*time.Minute)
	s, st, _ := openInteractions(t, feedPage)
	st.waitSeen(t, "feed 1")
	scrolls := 0
	for ; scrolls < 20 && !slices.Contains(st.Seen(), "feed 4"); scrolls++ {
		if _, err := s.Act(ctx, browser.Action{Kind: browser.ActScroll}, allowAll); err != nil {
			t.Fatalf("scroll %d: %v", scrolls+1, err)
		}
	}
	if want := []string{"feed 1", "feed 2", "feed 3", "feed 4"}; !slices.Equal(st.Seen(), want) {
		t.Fatalf("after %d scrolls the feed served %q, want %q", scrolls, st.Seen(), want)
	}
	if scrolls < 3 {
		t.Fatalf("three pages loaded in %d scrolls", scrolls)
	}
	var obs *observation.Observation
	for range 50 {
		var err error
		if obs, err = s.Observe(ctx, observation.Request{}); err != nil {
			t.Fatal(err)
		}
		if has(obs, "Story 4-10") {
			t.Logf("three more pages in %d scrolls", scrolls)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("page 4's stories are not observed: %q", names(obs))
}

// scrollBox is a box 300 pixels high that scrolls a link every 300 pixels.
var scrollBox = `<title>Box</title>
<div id="box" style="height: 300px; overflow: auto; border: 1px solid">` +
	browsertest.Repeat(10, `<div style="height: 300px"><a href="#%[1]d">Link %[1]d</a></div>`) + `</div>
<div style="height: 3000px">Below the box</div>`

// TestScrollOverAControlScrollsItsContainer scrolls the box under a link
// by its own height, down and back, and the page not at all.
func TestScrollOverAControlScrollsItsContainer(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, _, obs := openInteractions(t, scrollBox)
	j := &judged{}
	positions := func() string {
		return evalMain(t, s, "document.getElementById('box').scrollTop + ' ' + window.scrollY")
	}
	for _, step := range []struct {
		link      string
		viewports float64
		want      string
	}{{"Link 0", 2, "600 0"}, {"Link 2", -1, "300 0"}, {"Link 1", 0, "600 0"}} {
		res, err := s.Act(ctx, browser.Action{Kind: browser.ActScroll, Ref: find(t, obs, step.link).Ref, Viewports: step.viewports}, j.authorize)
		if err != nil {
			t.Fatal(err)
		}
		if got := positions(); got != step.want {
			t.Fatalf("after scrolling %v viewports the box and the page are at %s, want %s", step.viewports, got, step.want)
		}
		obs = res.Observation
	}
	// A scroll asks only about the origin: it never needs an approval.
	if f := j.last(t); f.Role != "" || f.Name != "" || f.Origin == "" || policy.Consequential(f) {
		t.Fatalf("a scroll was authorized with %+v", f)
	}
}

// sortable is a list sorted the way older sortable libraries do it, with
// mouse events only: a press holds an item, moves with the button down
// carry it, and the release drops it on the item under the mouse. (Pointer
// events are the suite's drag-reorder page.)
const sortable = `<title>Sortable</title>
<style>
#list { margin: 0; padding: 0; }
.item { height: 40px; border: 1px solid #999; user-select: none; }
</style>
<div id="list">
<div class="item" role="button" tabindex="0" data-id="1">Item 1</div>
<div class="item" role="button" tabindex="0" data-id="2">Item 2</div>
<div class="item" role="button" tabindex="0" data-id="3">Item 3</div>
<div class="item" role="button" tabindex="0" data-id="4">Item 4</div>
</div>
<script>
const list = document.getElementById('list');
let held = null, carried = false;
list.onmousedown = (e) => {
  held = e.target.closest('.item');
  carried = false;
  return !held; // no text selection while an item is held
};
document.onmousemove = (e) => {
  if (held && e.buttons & 1) carried = true;
};
document.onmouseup = (e) => {
  const drop = document.elementFromPoint(e.clientX, e.clientY)?.closest('.item');
  const item = held;
  held = null;
  if (!item || !carried || !drop || drop === item) return;
  const items = [...list.children];
  drop[items.indexOf(item) < items.indexOf(drop) ? 'after' : 'before'](item);
  fetch('/order', {method: 'POST', body: [...list.children].map((el) => el.dataset.id).join(',')});
};
</script>`

// TestDragReordersAMouseEventSortable drags the first item onto the third
// of a list sorted by mouse events; the page posts the new order.
func TestDragReordersAMouseEventSortable(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, st, obs := openInteractions(t, sortable)
	j := &judged{}
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActDrag, Ref: find(t, obs, "Item 1").Ref, To: find(t, obs, "Item 3").Ref}, j.authorize)
	if err != nil {
		t.Fatal(err)
	}
	st.waitSeen(t, "order 2,3,1,4")
	if f := j.last(t); f.Name != "Item 1" || f.Role != "button" || len(j.facts) != 1 {
		t.Fatalf("the drag was authorized %d times, last with %+v; want once with the source's facts", len(j.facts), f)
	}
	if got := names(res.Observation); !slices.Equal(got, []string{"Item 2", "Item 3", "Item 1", "Item 4"}) {
		t.Fatalf("observed after the drag: %q", got)
	}
}

const fields = `<title>Fields</title>
<form aria-label="Search" onsubmit="event.preventDefault()">
<input aria-label="Query" value="old query" style="width: 80px">
<input aria-label="Notes" value="old notes">
<button>Go</button>
</form>
<script>
window.keys = [];
document.addEventListener('keydown', (e) => keys.push((e.ctrlKey ? 'C' : '') + (e.shiftKey ? 'S' : '') + (e.altKey ? 'A' : '') + (e.metaKey ? 'M' : '') + ':' + e.key));
</script>`

// TestChordSelectsAllAndTypingReplaces presses Control+A (and Meta+A) in
// a text field and types: the text replaces the field's value.
func TestChordSelectsAllAndTypingReplaces(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, _, obs := openInteractions(t, fields)
	j := &judged{}
	for _, c := range []struct{ field, chord, text, index string }{
		{"Query", "Control+A", "new query", "0"},
		{"Notes", "Meta+A", "new notes", "1"},
	} {
		res, err := s.Act(ctx, browser.Action{Kind: browser.ActPress, Ref: find(t, obs, c.field).Ref, Key: c.chord}, j.authorize)
		if err != nil {
			t.Fatalf("%s: %v", c.chord, err)
		}
		if f := j.last(t); f.Submit {
			t.Fatalf("%s was judged a submission: %+v", c.chord, f)
		}
		res, err = s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, res.Observation, c.field).Ref, Text: c.text}, allowAll)
		if err != nil {
			t.Fatal(err)
		}
		if got := evalMain(t, s, "document.querySelectorAll('input')["+c.index+"].value"); got != c.text {
			t.Fatalf("after %s and typing, the field holds %q, want %q", c.chord, got, c.text)
		}
		obs = res.Observation
	}
	if got := evalMain(t, s, "keys.join(' ')"); got != "C:Control C:a M:Meta M:a" {
		t.Fatalf("the page saw the keys %q", got)
	}
	// After a click the caret is no longer the keys': typing appends.
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Query").Ref}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, res.Observation, "Query").Ref, Text: " more"}, allowAll); err != nil {
		t.Fatal(err)
	}
	if got := evalMain(t, s, "document.querySelector('input').value"); got != "new query more" {
		t.Fatalf("typing after a click made %q", got)
	}
}

// TestChordsKeysAndFocus presses chords that move the focus and the
// caret, and one that the page sees as Control+Enter, which is judged as
// submitting the form, as Enter is.
func TestChordsKeysAndFocus(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, _, obs := openInteractions(t, fields)
	j := &judged{}
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActPress, Ref: find(t, obs, "Notes").Ref, Key: "Shift+Tab"}, j.authorize)
	if err != nil {
		t.Fatal(err)
	}
	if got := evalMain(t, s, "document.activeElement.getAttribute('aria-label')"); got != "Query" {
		t.Fatalf("Shift+Tab from Notes focused %q, want Query", got)
	}
	// The caret moves a word left: typing lands before the last word.
	res, err = s.Act(ctx, browser.Action{Kind: browser.ActPress, Ref: find(t, res.Observation, "Query").Ref, Key: "Control+ArrowLeft"}, j.authorize)
	if err != nil {
		t.Fatal(err)
	}
	res, err = s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, res.Observation, "Query").Ref, Text: "my "}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if got := evalMain(t, s, "document.querySelector('input').value"); got != "old my query" {
		t.Fatalf("typing after Control+ArrowLeft made %q", got)
	}
	if f := j.last(t); f.Submit {
		t.Fatalf("Control+ArrowLeft was judged a submission: %+v", f)
	}
	for _, chord := range []string{"Control+Enter", "Meta+Enter", "Control+Shift+Enter"} {
		if res, err = s.Act(ctx, browser.Action{Kind: browser.ActPress, Ref: find(t, res.Observation, "Query").Ref, Key: chord}, j.authorize); err != nil {
			t.Fatal(err)
		}
		if f := j.last(t); !f.Submit || f.Form != "Search" {
			t.Fatalf("%s was judged %+v, want a submission of the form Search", chord, f)
		}
	}
	if got := evalMain(t, s, "keys.join(' ')"); got != "S:Shift S:Tab C:Control C:ArrowLeft C:Control C:Enter M:Meta M:Enter C:Control CS:Shift CS:Enter" {
		t.Fatalf("the page saw the keys %q", got)
	}
}

// TestInteractionsRefusedBeforeTheirVersion: sessions of older tool
// versions refuse the new kinds and chords as before; 1.8.0 sessions
// refuse bad chords and scrolls past MaxScrollViewports.
func TestInteractionsRefusedBeforeTheirVersion(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	old, obs := openPage(t, fields)
	query := find(t, obs, "Query").Ref
	for _, a := range []browser.Action{
		{Kind: browser.ActHover, Ref: query},
		{Kind: browser.ActScroll},
		{Kind: browser.ActDrag, Ref: query, To: find(t, obs, "Notes").Ref},
		{Kind: browser.ActPress, Ref: query, Key: "Control+A"},
	} {
		_, err := old.Act(ctx, a, allowAll)
		wantCode(t, err, errcode.InvalidArgument)
		if a.Kind == browser.ActPress && err.Error() != `invalid_argument: unknown key "Control+A"` {
			t.Fatalf("an older session's refusal of a chord changed: %v", err)
		}
	}

	s, _, obs := openInteractions(t, fields)
	query = find(t, obs, "Query").Ref
	for _, key := range []string{"Ctrl+A", "control+a", "Control+Control+A", "Control+", "Control+Foo", "Shift+Hyper+X", "Control+AB", "+A"} {
		_, err := s.Act(ctx, browser.Action{Kind: browser.ActPress, Ref: query, Key: key}, allowAll)
		if errcode.Of(err) != errcode.InvalidArgument {
			t.Fatalf("press %q: %v, want invalid_argument", key, err)
		}
	}
	for _, a := range []browser.Action{
		{Kind: browser.ActScroll, Viewports: 11},
		{Kind: browser.ActScroll, Viewports: -11},
		{Kind: browser.ActScroll, Viewports: 10.5},
		{Kind: browser.ActHover},
		{Kind: browser.ActDrag, Ref: query},
		{Kind: browser.ActDrag, Ref: query, To: query},
	} {
		_, err := s.Act(ctx, a, allowAll)
		if errcode.Of(err) != errcode.InvalidArgument {
			t.Fatalf("%+v: %v, want invalid_argument", a, err)
		}
	}
	for _, v := range []float64{10, -10} {
		res, err := s.Act(ctx, browser.Action{Kind: browser.ActScroll, Viewports: v}, allowAll)
		if err != nil {
			t.Fatalf("scroll %v viewports: %v", v, err)
		}
		obs = res.Observation
	}
	// Keys of older versions stay keys.
	if _, err := s.Act(ctx, browser.Action{Kind: browser.ActPress, Ref: find(t, obs, "Query").Ref, Key: "+"}, allowAll); err != nil {
		t.Fatalf("press +: %v", err)
	}
	if !strings.HasSuffix(evalMain(t, s, "keys.join(' ')"), ":+") {
		t.Fatalf("the page saw %q", evalMain(t, s, "keys.join(' ')"))
	}
}

const cards = `<title>Board</title>
<div draggable="true" role="button" tabindex="0" style="height: 50px">Card A</div>
<div role="button" tabindex="0" id="done" style="height: 50px; margin-top: 100px">Done column</div>
<script>
const done = document.getElementById('done');
done.addEventListener('dragover', (e) => e.preventDefault());
done.addEventListener('drop', (e) => { e.preventDefault(); fetch('/order', {method: 'POST', body: 'dropped on done'}); });
</script>`

// TestDragDropsHTML5 drags a draggable card onto a drop zone: the page's
// HTML5 drag and drop sees the drop.
func TestDragDropsHTML5(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, st, obs := openInteractions(t, cards)
	if _, err := s.Act(ctx, browser.Action{Kind: browser.ActDrag, Ref: find(t, obs, "Card A").Ref, To: find(t, obs, "Done column").Ref}, allowAll); err != nil {
		t.Fatal(err)
	}
	st.waitSeen(t, "order dropped on done")
}

// TestInteractionsInAFrame hovers a menu and scrolls a box inside a
// cross-origin frame; a drag there is refused.
func TestInteractionsInAFrame(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	inner := &interactSite{pages: map[string]string{"/menus": hoverMenus, "/box": scrollBox, "/list": sortable}}
	other := browsertest.OtherOrigin(browsertest.ServeHandler(t, inner))
	top := browsertest.Serve(t, `<title>Embeds</title><h1>Embeds</h1>
<iframe src="`+other+`menus" style="width: 400px; height: 200px"></iframe>
<iframe src="`+other+`box" style="width: 400px; height: 400px"></iframe>
<iframe src="`+other+`list" style="width: 400px; height: 250px"></iframe>`)
	s, obs := openInteractionsAt(t, top, "Products", "Link 0", "Item 1")
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActHover, Ref: find(t, obs, "Products").Ref}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if res, err = s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, res.Observation, "Laptops").Ref}, allowAll); err != nil {
		t.Fatal(err)
	}
	inner.waitSeen(t, "laptops")
	if res, err = s.Act(ctx, browser.Action{Kind: browser.ActScroll, Ref: find(t, res.Observation, "Link 0").Ref}, allowAll); err != nil {
		t.Fatal(err)
	}
	if !has(res.Observation, "Link 1") || has(res.Observation, "Link 0") {
		t.Fatalf("after scrolling the box by its height: %q", names(res.Observation))
	}
	_, err = s.Act(ctx, browser.Action{Kind: browser.ActDrag, Ref: find(t, res.Observation, "Item 1").Ref, To: find(t, res.Observation, "Item 3").Ref}, allowAll)
	wantCode(t, err, errcode.NotActionable)
}
