// visibility.js: what a visible box and visibly rendered text are (docs/observation.md).

// visibilityChecker is the one definition of hidden for every collector.
// Its facts are memoized per element for one collection, and every
// ancestor fact is computed top-down along the flat tree once, so shared
// ancestors are inspected once and no check walks further up than the
// nearest ancestor already known.
//
// The function it returns says whether an element is a visible box
// (controls, regions, action guards); its showsText says whether the text
// children of an element are visibly rendered (readable text, summaries);
// its scrolled says whether an element lies in a scroll container.
//
// opts.scrollers (tool version 1.9.0, docs/realpages.md): content a
// scroll container (overflow auto or scroll with more content than its
// box, on that axis) clips is visible, as a person scrolls to it; before
// 1.9.0 such a box clips like overflow:hidden on an axis it hides.
function visibilityChecker(opts) {
  const scrollers = !!(opts && opts.scrollers);
  const hiddenMemo = new Map(); // bit 1: hidden, inert or aria-hidden; bit 2: inside the blocking modal dialog
  const clipMemo = new Map();
  const textMemo = new Map();
  const renderedMemo = new Map();
  let range = null; // laidOutText's, one for the checker
  const sx = window.scrollX;
  const sy = window.scrollY;
  const modal = blockingModal();

  // blockingModal is the modal dialog (showModal) that makes the rest of
  // the document inert: the topmost one, whose backdrop covers the
  // viewport, found by hit-testing its corner (bounded: one hit test and
  // one ancestor climb), or null.
  function blockingModal() {
    let n = hitTarget(0, 0);
    for (let steps = 0; n && steps < B.ScanNodes; steps++, n = flatParent(n)) {
      if (n.localName === 'dialog' && n.matches(':modal')) return n;
    }
    return null;
  }

  // hiddenSubtree: the element or a flat-tree ancestor is hidden, inert or
  // aria-hidden (CSS may override [hidden]'s display, the rule still
  // holds; hidden="until-found" too), or a modal dialog makes it inert.
  function hiddenSubtree(el) {
    const chain = [];
    let n = el;
    let bits = 0;
    while (n) {
      const m = hiddenMemo.get(n);
      if (m !== undefined) { bits = m; break; }
      chain.push(n);
      n = flatParent(n);
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      const e = chain[i];
      if (attrsOf(e).hidden) bits |= 1;
      if (e === modal) bits |= 2;
      hiddenMemo.set(e, bits);
    }
    return (bits & 1) !== 0 || (modal !== null && (bits & 2) === 0);
  }

  // clipOf returns the viewport rectangle that overflow:hidden/clip
  // ancestors leave to el's descendants, null for no clip, or 'none' when
  // something clips everything (a collapsed ancestor included). Scroll
  // containers do not clip: their content is reachable by scrolling.
  function clipOf(el) {
    const chain = [];
    let n = el;
    let acc;
    while (n) {
      if (clipMemo.has(n)) { acc = clipMemo.get(n); break; }
      chain.push(n);
      n = flatParent(n);
    }
    if (acc === undefined) acc = null;
    for (let i = chain.length - 1; i >= 0; i--) {
      const e = chain[i];
      if (acc !== 'none') {
        const st = styleOf(e);
        if (collapsed(st, e)) {
          acc = 'none';
        } else if (st.position === 'fixed') {
          acc = null;
        } else if (scrollers && (scrollsOn(e, st.overflowX, 'x') || scrollsOn(e, st.overflowY, 'y')) && !viewportScroller(e)) {
          acc = scrollClip(e, st, acc);
        } else if (st.overflowX === 'hidden' || st.overflowX === 'clip' || st.overflowY === 'hidden' || st.overflowY === 'clip') {
          const r = rectOf(e);
          const box = {l: r.left, t: r.top, r: r.right, b: r.bottom};
          acc = acc ? intersect(acc, box) : box;
          if (acc.r <= acc.l || acc.b <= acc.t) acc = 'none';
        }
      }
      clipMemo.set(e, acc);
    }
    return acc;
  }

  // outside: the box lies entirely outside the clip its ancestors leave,
  // or left of or above the document (the off-screen hiding idiom; inside
  // a scroll container's range, its clip answers for that axis).
  function outside(el, r) {
    const p = flatParent(el);
    const clip = p ? clipOf(p) : null;
    const scrollX = !!(clip && clip !== 'none' && clip.sx);
    const scrollY = !!(clip && clip !== 'none' && clip.sy);
    if ((!scrollX && r.right + sx <= 0) || (!scrollY && r.bottom + sy <= 0)) return true;
    if (clip === 'none') return true;
    return !!clip && (r.right <= clip.l || r.left >= clip.r || r.bottom <= clip.t || r.top >= clip.b);
  }

  function visible(el) {
    if (!checkedVisible(el)) return false;
    if (hiddenSubtree(el)) return false;
    const r = rectOf(el);
    if (!(r.width > 0 && r.height > 0)) return false;
    const style = styleOf(el);
    if (collapsed(style, el) || outside(el, r)) return false;
    return !blankText(el, style);
  }

  // rendered: el is rendered and not made invisible by opacity,
  // visibility or a content-visibility:hidden ancestor (a collapsed
  // <details>, hidden="until-found"). display:contents has no box of its
  // own: it shows what its flat parent shows.
  function rendered(el, st) {
    const chain = []; // display:contents elements, each shown if visible and its flat parent is
    let n = el;
    let v = true;
    for (let s = st; n; s = n && styleOf(n)) {
      const m = renderedMemo.get(n);
      if (m !== undefined) { v = m; break; }
      if (s.display !== 'contents') {
        v = shownBox(n) || n.checkVisibility({opacityProperty: true, visibilityProperty: true});
        renderedMemo.set(n, v);
        break;
      }
      chain.push([n, s.visibility === 'visible']);
      n = flatParent(n);
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      v = v && chain[i][1];
      renderedMemo.set(chain[i][0], v);
    }
    return v;
  }

  // showsText: the text children of el are visibly rendered. Beyond
  // rendered and not hidden: not a zero font size, not collapsed or
  // clipped away, and actually laid out (a closed <details> lays out only
  // its summary; the light children of a shadow host that no slot takes,
  // closed roots included, and fallback content are not laid out).
  function showsText(el) {
    let v = textMemo.get(el);
    if (v !== undefined) return v;
    const st = styleOf(el);
    v = st.display !== '' && st.fontSize !== '0px' && rendered(el, st) && !hiddenSubtree(el) &&
      !(el.localName === 'details' && !el.open) && clipOf(el) !== 'none';
    if (v && st.display !== 'contents') {
      const r = rectOf(el);
      const positioned = st.position === 'absolute' || st.position === 'fixed';
      // A box outside its clip hides its text; a static box of zero size
      // still shows text overflowing it, so only positioned boxes count
      // as off the document.
      if (positioned || r.width > 0 || r.height > 0) v = !outside(el, r);
    }
    if (v) v = laidOutText(el, st);
    textMemo.set(el, v);
    return v;
  }

  // laidOutText: the first non-blank text child of el has a layout box.
  // A host's text children are all slotted or none (only the default slot
  // takes text), so one child answers for all; other elements' text is
  // laid out whenever they are. An element of TEXT_BOXES with a box of its
  // own (rendered said so) hosts no shadow root and renders its children:
  // no range needs to be laid out to say that its text is.
  function laidOutText(el, st) {
    if (st.display !== 'contents' && st.contentVisibility !== 'hidden' && el.namespaceURI === HTML_NS &&
      TEXT_BOXES.has(el.localName)) return true;
    let c = el.firstChild;
    for (let i = 0; c && i < B.NameNodes; i++, c = c.nextSibling) {
      if (c.nodeType === 3 && /\S/.test(c.data)) {
        if (range === null) range = document.createRange();
        range.selectNodeContents(c);
        return range.getClientRects().length > 0;
      }
    }
    return true;
  }

  // scrolled: el lies inside a scroll container, what coverage counts as
  // read in scroll containers; null without opts.scrollers, so that older
  // versions' walks pay nothing for it.
  function scrolled(el) {
    const p = flatParent(el);
    const clip = p ? clipOf(p) : null;
    return !!(clip && clip !== 'none' && clip.scroll);
  }

  visible.showsText = showsText;
  visible.scrolled = scrollers ? scrolled : null;
  return visible;
}

// TEXT_BOXES are the HTML elements that can host no shadow root (neither
// a page's nor the browser's own) and render their children, not fallback
// content: links, list items, cells, labels and inline phrasing.
const TEXT_BOXES = new Set(['a', 'abbr', 'b', 'caption', 'cite', 'code', 'dd', 'dfn', 'dt', 'em', 'figcaption', 'i',
  'kbd', 'label', 'legend', 'li', 'mark', 'q', 's', 'samp', 'small', 'strong', 'sub', 'sup', 'td', 'th', 'time', 'u', 'var']);

// blankText: a control drawn with a zero font size shows no label, unless
// it draws something besides its own text: a native check box, radio,
// slider, colour well or image, a background image, or, among its first
// B.NameNodes nodes, a replaced element or an element that sets a font
// size again (the idiom that zeroes a container's spacing).
const BLANK_EXEMPT_INPUTS = new Set(['checkbox', 'radio', 'range', 'color', 'image']);
const REPLACED = new Set(['img', 'svg', 'picture', 'video', 'canvas', 'object', 'embed', 'iframe']);
function blankText(el, st) {
  if (st.fontSize !== '0px' || st.backgroundImage !== 'none') return false;
  if (REPLACED.has(el.localName)) return false;
  if (el.localName === 'input' && BLANK_EXEMPT_INPUTS.has((el.getAttribute('type') || '').toLowerCase())) return false;
  const drawn = walk(el.firstChild, {max: B.NameNodes}, (n) => {
    if (n.nodeType !== 1) return SKIP;
    if (REPLACED.has(n.localName) || styleOf(n).fontSize !== '0px') return STOP;
  });
  return !drawn.stopped;
}

// Subtrees that give no prose: non-rendered, embedded documents, form
// values and editable content.
const NO_TEXT = new Set(['script', 'style', 'template', 'noscript', 'iframe', 'frame', 'object', 'embed',
  'input', 'textarea', 'select', 'option', 'datalist', 'head', 'title', 'meta', 'link']);
const VALUE_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton']);

// excludedSubtree: content that never becomes prose or summary text.
function excludedSubtree(el) {
  if (NO_TEXT.has(el.localName)) return true;
  return attrsOf(el).hidden || valueBearing(el);
}

// valueBearing: an element whose content is a value (form controls,
// editable content, custom text fields), never readable text.
function valueBearing(el) {
  const tag = el.localName;
  if (tag === 'input' || tag === 'textarea' || tag === 'select') return true;
  const a = attrsOf(el);
  const ce = a.editable;
  if (ce !== null && ce !== 'false') return true;
  return VALUE_ROLES.has(a.role);
}
