package chromium

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// handbookPage is a handbook's page of regions with headings, links, a
// form, a pointer target and hidden parts.
const handbookPage = `<!doctype html><title>Handbook</title>
<header><a href="/">Northwind</a><button aria-expanded="false">Menu</button><ul hidden><li><a href="/a">A</a></li></ul></header>
<nav aria-label="Contents"><a href="#s1">One</a> <a href="#s2">Two</a></nav>
<main><h1>Handbook</h1>
<section id="s1" aria-labelledby="h1"><h2 id="h1">Leave</h2><p>How to ask for <b>leave</b>.</p><a href="/leave">Read more</a></section>
<section id="s2" aria-label="Travel"><h2>Travel</h2><p style="overflow:hidden">Book trains.</p><span onclick="go()" style="cursor:pointer">Book now</span></section>
<form aria-label="Ask"><label>Question <input name="q"></label><button>Ask</button></form>
<p style="display:none">hidden</p><div aria-hidden="true">decoration</div></main>
<footer><a href="/privacy">Privacy</a></footer>`

// TestObserveReadsEachStyleOnce: an observation reads an element's
// computed style once, however many checks ask about it (visibility,
// clips, text, names, pointer signals): on a page of regions with
// headings, links, a form and hidden parts, no element's style is read
// twice (pseudo-elements' styles are other objects, and not counted).
func TestObserveReadsEachStyleOnce(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, _ := openReal(t, browsertest.Serve(t, handbookPage), true)
	var got struct {
		Elements int
		Twice    []string
	}
	observeInstrumented(t, ctx, s, `(() => {
  const read = globalThis.getComputedStyle, counts = new Map();
  globalThis.__styleReads = counts;
  globalThis.getComputedStyle = function(el, pseudo) {
    if (pseudo === undefined) counts.set(el, (counts.get(el) || 0) + 1);
    return read.call(this, el, pseudo);
  };
  return true;
})()`, `(() => {
  let most = 0, twice = [];
  for (const [el, n] of globalThis.__styleReads) {
    most = Math.max(most, n);
    if (n > 1) twice.push(el.localName + '×' + n);
  }
  return {elements: globalThis.__styleReads.size, twice};
})()`, &got)
	if got.Elements < 10 || len(got.Twice) > 0 {
		t.Fatalf("styles of %d elements read; read more than once: %v", got.Elements, got.Twice)
	}
}

// TestObserveReadsEachStylePropertyOnce: an observation reads each
// property of an element's computed style once, and its box once, however
// many checks and collectors ask (each read of a declaration's property
// serializes the value anew, and each box is computed anew): no (element,
// property) pair and no element's box is read twice.
func TestObserveReadsEachStylePropertyOnce(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, _ := openReal(t, browsertest.Serve(t, handbookPage), true)
	var got struct {
		Reads, Boxes int
		Twice        []string
	}
	observeInstrumented(t, ctx, s, `(() => {
  const read = globalThis.getComputedStyle, box = Element.prototype.getBoundingClientRect;
  const props = new Map(), boxes = new Map();
  globalThis.__reads = {props, boxes};
  globalThis.getComputedStyle = function(el, pseudo) {
    const st = read.call(this, el, pseudo);
    if (pseudo !== undefined) return st;
    return new Proxy(st, {get(target, k) {
      const v = Reflect.get(target, k);
      if (typeof v === 'function') return v.bind(target);
      if (typeof k === 'string') {
        let m = props.get(el);
        if (!m) props.set(el, m = new Map());
        m.set(k, (m.get(k) || 0) + 1);
      }
      return v;
    }});
  };
  Element.prototype.getBoundingClientRect = function() {
    boxes.set(this, (boxes.get(this) || 0) + 1);
    return box.call(this);
  };
  return true;
})()`, `(() => {
  const {props, boxes} = globalThis.__reads;
  let reads = 0, twice = [];
  for (const [el, m] of props) for (const [k, n] of m) {
    reads += n;
    if (n > 1) twice.push(el.localName + '.' + k + '×' + n);
  }
  for (const [el, n] of boxes) if (n > 1) twice.push(el.localName + ' box×' + n);
  return {reads, boxes: boxes.size, twice: twice.slice(0, 12)};
})()`, &got)
	if got.Reads < 100 || got.Boxes < 10 || len(got.Twice) > 0 {
		t.Fatalf("%d property reads, %d boxes; read more than once: %v", got.Reads, got.Boxes, got.Twice)
	}
}

// TestTextLayoutAskedOnlyOfPossibleHosts: whether an element's text is
// laid out is asked of a range only where it may not be (an element that
// can host a shadow root or shows fallback content): the text of the
// handbook's links, list items, cells, labels and bold phrases is
// visible by its element's box alone, that of its paragraphs and
// headings is still asked, and all of it is read.
func TestTextLayoutAskedOnlyOfPossibleHosts(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, _ := openReal(t, browsertest.Serve(t, strings.Replace(handbookPage, "</main>",
		`<table><tr><th>Days</th><td>25 a year</td></tr></table><ul><li>Ask early</li></ul></main>`, 1)), true)
	if _, err := s.tab.Evaluate(ctx, `(() => {
  const rects = Range.prototype.getClientRects, asked = new Set();
  globalThis.__asked = asked;
  Range.prototype.getClientRects = function() {
    asked.add(this.startContainer.parentNode.localName);
    return rects.call(this);
  };
  return true;
})()`); err != nil {
		t.Fatal(err)
	}
	obs, err := s.Observe(ctx, observation.Request{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := s.tab.Evaluate(ctx, `[...globalThis.__asked].sort()`)
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	if err := json.Unmarshal(raw, &asked); err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{"a", "li", "td", "th", "label", "b"} {
		if slices.Contains(asked, tag) {
			t.Errorf("the layout of a %s's text was asked: %v", tag, asked)
		}
	}
	if !slices.Contains(asked, "p") || !slices.Contains(asked, "h2") {
		t.Errorf("the layout of paragraphs' and headings' text was not asked: %v", asked)
	}
	var text strings.Builder
	for _, p := range obs.Text {
		text.WriteString(p.Text + "\n")
	}
	for _, want := range []string{"Read more", "Ask early", "25 a year", "leave", "Book trains."} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("%q is not in the text: %q", want, text.String())
		}
	}
}

// observeInstrumented runs instrument in the collector's world (it wraps
// the DOM calls a test counts), observes once, and decodes what report
// then evaluates to into got.
func observeInstrumented(t *testing.T, ctx context.Context, s *Session, instrument, report string, got any) {
	t.Helper()
	if _, err := s.tab.Evaluate(ctx, instrument); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Observe(ctx, observation.Request{}); err != nil {
		t.Fatal(err)
	}
	raw, err := s.tab.Evaluate(ctx, report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, got); err != nil {
		t.Fatal(err)
	}
}
