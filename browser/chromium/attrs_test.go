package chromium

import (
	"slices"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// TestObserveReadsEachAttributeOnce: the control, region and text passes
// each ask about an element's role, its hidden, inert and contenteditable
// attributes and its class; an observation reads each of them once per
// element (attrsOf), on the handbook page of regions, links, a form, a
// pointer target and hidden parts, and still reads them all.
func TestObserveReadsEachAttributeOnce(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, _ := openReal(t, browsertest.Serve(t, handbookPage), true)
	var got struct {
		Reads, Names int
		Twice        []string
	}
	observeInstrumented(t, ctx, s, `(() => {
  const counts = new Map(), watched = new Set(['role', 'hidden', 'inert', 'contenteditable', 'class']);
  globalThis.__attrReads = counts;
  for (const m of ['getAttribute', 'hasAttribute']) {
    const read = Element.prototype[m];
    Element.prototype[m] = function(name) {
      if (watched.has(name)) {
        let c = counts.get(this);
        if (!c) counts.set(this, c = new Map());
        c.set(name, (c.get(name) || 0) + 1);
      }
      return read.call(this, name);
    };
  }
  return true;
})()`, `(() => {
  const names = new Set(), twice = [];
  let reads = 0;
  for (const [el, c] of globalThis.__attrReads) for (const [k, n] of c) {
    names.add(k);
    reads += n;
    if (n > 1) twice.push(el.localName + '[' + k + ']×' + n);
  }
  return {reads, names: names.size, twice: twice.slice(0, 12)};
})()`, &got)
	if got.Names < 5 || got.Reads < 20 || len(got.Twice) > 0 {
		t.Fatalf("%d reads of %d attributes; read more than once: %v", got.Reads, got.Names, got.Twice)
	}
}

// TestObserveAsksNoMoreOfAVisibleBox: once an observation found an
// element a visible box (checkVisibility with opacity, visibility and
// content-visibility:auto), no weaker check is asked of it again (its
// text's rendering, its name's): they all say true. On the handbook page
// the links, named by content and showing text, and the headings are
// asked once each.
func TestObserveAsksNoMoreOfAVisibleBox(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, _ := openReal(t, browsertest.Serve(t, handbookPage), true)
	var got struct {
		Boxes []string
		Again []string
	}
	observeInstrumented(t, ctx, s, `(() => {
  const check = Element.prototype.checkVisibility, asked = new Map(), boxes = new Set();
  globalThis.__vis = {asked, boxes};
  Element.prototype.checkVisibility = function(o) {
    const v = check.call(this, o);
    if (v && o && o.opacityProperty && o.visibilityProperty && o.contentVisibilityAuto) boxes.add(this);
    asked.set(this, (asked.get(this) || 0) + 1);
    return v;
  };
  return true;
})()`, `(() => {
  const {asked, boxes} = globalThis.__vis, again = [];
  for (const el of boxes) if (asked.get(el) > 1) again.push(el.localName + '×' + asked.get(el));
  return {boxes: [...boxes].map((el) => el.localName), again};
})()`, &got)
	if !slices.Contains(got.Boxes, "a") || !slices.Contains(got.Boxes, "h2") || len(got.Again) > 0 {
		t.Fatalf("visible boxes %v; asked again: %v", got.Boxes, got.Again)
	}
}
