// frames.js: child frames (tool version 1.7.0, docs/frames.md).

// Frame owners (tool version 1.7.0): the runtime names each child frame's
// element with the frame's key (nameFrame) before it observes, so that a
// scan can say which frame stands where. An owner is a candidate of the
// control scan in frames mode: it is visited, windowed and retained like a
// control (an anchor after it resumes after the frame), and the runtime
// puts the frame's own controls in its place.
const FRAME_TAGS = new Set(['iframe', 'frame']);
const frameKeys = new WeakMap();
const owners = new Map(); // key → WeakRef of its owner, to find it again

function nameFrame(el, key) {
  if (el && FRAME_TAGS.has(el.localName)) {
    frameKeys.set(el, String(key));
    owners.set(String(key), new WeakRef(el));
  }
  return true;
}

// frameShown: a frame shows content when its owner is visible and its
// content box is not empty (a zero-size frame shows only its border).
function frameShown(el, visible) {
  return visible(el) && el.clientWidth > 0 && el.clientHeight > 0;
}

// ownerByKey is the element the runtime named key, if it still is.
function ownerByKey(key) {
  const ref = owners.get(key);
  const el = ref && ref.deref();
  if (!el || frameKeys.get(el) !== key) {
    owners.delete(key);
    return null;
  }
  return el;
}

const NO_STATES = Object.freeze({disabled: false, checked: false, selected: false, expanded: false,
  pressed: false, required: false, readonly: false, focused: false});

// revealOwner scrolls a frame's retained owner into view in its document
// when it is not wholly in view: an action inside the frame reveals the
// owners from the top document down before its control is scrolled to.
function revealOwner(p) {
  const el = ownerFor(p);
  if (el.error) return el;
  const r = el.getBoundingClientRect();
  if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
    el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
  }
  return {};
}

// throughOwner maps a point of a frame's viewport (p.x, p.y) to its
// owner's document, and hit-tests it there: an element of this document
// over the frame at that point stops the action (covered).
function throughOwner(p) {
  const el = ownerFor(p);
  if (el.error) return el;
  const r = el.getBoundingClientRect();
  const st = getComputedStyle(el);
  const x = r.left + el.clientLeft + parseFloat(st.paddingLeft) + p.x;
  const y = r.top + el.clientTop + parseFloat(st.paddingTop) + p.y;
  if (!(x >= 0 && y >= 0 && x < innerWidth && y < innerHeight)) return {error: R.Hidden};
  if (hitTarget(x, y) !== el) return {error: R.Covered};
  return {x, y};
}

function ownerFor(p) {
  if (p.doc && p.doc !== docId) return {error: R.DocumentChanged};
  const el = ownerByKey(p.frame);
  if (!el) return {error: R.Stale};
  if (!el.isConnected) return {error: R.Detached};
  return el;
}
