// screenshot.js: the page side of a screenshot: the boxes a capture paints
// over, and the box of a control captured alone.
//
// The runtime paints the boxes over the decoded capture itself, from boxes
// read right before and right after it, instead of laying an overlay over
// the page: an overlay is page DOM that the page's own scripts can see,
// restyle, cover or remove between the read and the frame, whereas pixels
// painted in Go are beyond the page's reach. A box that moved between the
// two reads is painted over everywhere between them.
//
// Painted over: every element that shows a value or typed text (inputs
// but hidden, submit, button, reset, image, checkbox and radio ones;
// textareas; selects; editable content; custom text fields by their role),
// in the top document, its open shadow roots and its same-origin frames,
// and every frame whose document this world cannot read, whole. Closed
// shadow roots and text drawn on a canvas are out of reach. Nothing here
// reads a value.

const UNMASKED_INPUTS = new Set(['hidden', 'submit', 'button', 'reset', 'image', 'checkbox', 'radio']);
const DOC_OWNERS = new Set(['iframe', 'frame', 'object', 'embed']);

// shotHeld holds the elements the first read of a capture painted over, in
// its order, until the second read gives their boxes again.
let shotHeld = [];

// maskKind is what el is painted over as, or '' when it is not.
function maskKind(el) {
  const tag = el.localName;
  if (tag === 'input') {
    if (el.type === 'password') return 'password';
    return UNMASKED_INPUTS.has(el.type) ? '' : 'input';
  }
  if (tag === 'textarea' || tag === 'select') return tag;
  if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return 'editable';
  const role = (el.getAttribute('role') || '').trim().toLowerCase();
  return VALUE_ROLES.has(role) ? 'field' : '';
}

function boxOf(r) {
  return {l: r.left, t: r.top, r: r.right, b: r.bottom};
}

// contentBox is the box a frame owner shows its document in, in its own
// document's viewport; null when a transform makes that box other than
// its layout box (its document is then painted over whole).
function contentBox(owner) {
  const r = owner.getBoundingClientRect();
  if (Math.abs(r.width - owner.offsetWidth) > 1 || Math.abs(r.height - owner.offsetHeight) > 1) return null;
  const st = getComputedStyle(owner);
  const l = r.left + owner.clientLeft + parseFloat(st.paddingLeft);
  const t = r.top + owner.clientTop + parseFloat(st.paddingTop);
  return {l, t, r: l + owner.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight),
    b: t + owner.clientHeight - parseFloat(st.paddingTop) - parseFloat(st.paddingBottom)};
}

// innerDoc is the document an owner shows when this world can read it and
// place it, else null.
function innerDoc(owner) {
  let d = null;
  try { d = owner.contentDocument; } catch (e) { /* another origin */ }
  return d && d.documentElement && contentBox(owner) ? d : null;
}

// topBox is el's box in the top viewport, clipped to every frame it is in
// (editable content with its content's overflow); null when it shows
// nothing.
function topBox(el, kind) {
  if (!el.isConnected) return null;
  const r = el.getBoundingClientRect();
  let b = r.width > 0 && r.height > 0 ? boxOf(r) : null;
  if (kind === 'editable' || kind === 'field') {
    // Its content may overflow it (or it may have no box of its own).
    const range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    const c = range.getBoundingClientRect();
    if (c.width > 0 && c.height > 0) {
      b = b ? {l: Math.min(b.l, c.left), t: Math.min(b.t, c.top), r: Math.max(b.r, c.right), b: Math.max(b.b, c.bottom)} : boxOf(c);
    }
  }
  if (!b) return null;
  for (let w = el.ownerDocument.defaultView; w && w !== window;) {
    const owner = w.frameElement;
    const o = owner && contentBox(owner);
    if (!o) return null;
    b = {l: Math.max(b.l + o.l, o.l), t: Math.max(b.t + o.t, o.t), r: Math.min(b.r + o.l, o.r), b: Math.min(b.b + o.t, o.b)};
    w = owner.ownerDocument.defaultView;
  }
  return b.r > b.l && b.b > b.t ? b : null;
}

// inView: b meets the top viewport.
function inView(b) {
  return b.r > 0 && b.b > 0 && b.l < innerWidth && b.t < innerHeight;
}

// maskWalk visits every element to paint over in the top document, its
// open shadow roots and its readable frames (at most B.ScanNodes nodes in
// all) and calls add(el, kind, box) for each that meets the viewport; add
// returns false to stop. It returns the limit that stopped it, or ''.
function maskWalk(add) {
  const docs = [document];
  let budget = B.ScanNodes;
  let full = false;
  for (let i = 0; i < docs.length && !full; i++) {
    const root = docs[i].documentElement;
    if (!root) continue;
    const w = walk(root, {max: budget, shadow: true}, (n) => {
      if (n.nodeType !== 1) return SKIP;
      let kind = maskKind(n);
      if (DOC_OWNERS.has(n.localName)) {
        const d = innerDoc(n);
        if (d) docs.push(d);
        else kind = 'frame';
      }
      if (!kind) return undefined;
      const b = topBox(n, kind);
      if (b && inView(b) && !add(n, kind, b)) {
        full = true;
        return STOP;
      }
      return undefined;
    });
    budget -= w.visits;
    if (w.bound) return 'nodes';
  }
  return full ? 'boxes' : '';
}

function viewOf() {
  return {doc: docId, width: innerWidth, height: innerHeight, scroll_x: scrollX, scroll_y: scrollY,
    scroll_height: Math.max(document.documentElement ? document.documentElement.scrollHeight : 0,
      document.body ? document.body.scrollHeight : 0)};
}

// shotTarget runs the guards of a control captured alone (in the document
// observed, retained, connected, visible), scrolls it into view and
// returns its box in the viewport.
function shotTarget(p) {
  if (p.doc !== docId) return {error: R.DocumentChanged};
  const el = retainedNode(p);
  if (!el) return {error: R.Stale};
  if (!el.isConnected) return {error: R.Detached};
  if (!retainedVisibility(p)(el)) return {error: R.Hidden};
  el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
  const b = boxOf(el.getBoundingClientRect());
  if (!(b.r > b.l && b.b > b.t) || !inView(b)) return {error: R.Hidden};
  return {box: b};
}

// shotRead adds to boxes those of the elements to paint over but held
// ones, at most max; the first read (held null) holds their elements.
function shotRead(boxes, held, max) {
  return maskWalk((el, kind, b) => {
    if (boxes.length >= max) return false;
    if (held && held.has(el)) return true;
    boxes.push(Object.assign({kind}, b));
    if (!held) shotHeld.push(el);
    return true;
  });
}

// shot is the page's part of a capture, by step: 'view' reports the
// viewport and the document's height; 'before' the target's box (p.target)
// and, with p.fields, the boxes to paint over, holding their elements
// (p.top: scrolled to the document's start first);
// 'after' those elements' boxes again (null: gone) and the boxes of
// elements the first read did not hold; 'scroll' scrolls back to (p.x, p.y).
function shot(p) {
  if (p.doc && p.doc !== docId) {
    shotHeld = [];
    return {error: R.DocumentChanged};
  }
  if (p.step === 'scroll') scrollTo(p.x, p.y);
  if (p.step === 'scroll' || p.step === 'view') return viewOf();
  if (p.step === 'before') {
    shotHeld = [];
    if (p.top) scrollTo(0, 0);
    let target;
    if (p.target) {
      const t = shotTarget(p.target);
      if (t.error) return {error: t.error};
      target = t.box;
    }
    const out = Object.assign(viewOf(), {target, boxes: []});
    if (p.fields) {
      out.limit = shotRead(out.boxes, null, p.max_boxes);
      if (out.limit) shotHeld = [];
    }
    return out;
  }
  // 'after'
  const held = shotHeld;
  shotHeld = [];
  const out = viewOf();
  out.again = held.map((el) => {
    const b = topBox(el, maskKind(el) || 'frame');
    return b && inView(b) ? b : null;
  });
  out.boxes = [];
  out.limit = shotRead(out.boxes, new Set(held), p.max_boxes);
  return out;
}
