// pointer.js: pointer targets (tool version 1.9.0, docs/realpages.md):
// elements a person clicks though ARIA gives them no control role. They
// are candidates of the control scan, found by deterministic signals:
//   - a click-type listener the page added (Go finds them with
//     DOMDebugger.getEventListeners and marks them with markListened);
//   - an onclick attribute;
//   - a tabindex of 0 or more (-1 only lets a script focus it);
//   - draggable="true";
//   - an item of a sortable list: a child of an element with a class token
//     holding "sortable", or an element with the class ui-sortable-handle;
//   - a computed cursor: pointer its parent does not have (the outermost
//     element of a pointer area, not every descendant inheriting it).
// A signalled element is a target only once the scan has walked its
// subtree and found no candidate in it: a control (or frame) or a
// signalled element inside it is listed instead, so a target is listed
// once, as the innermost element, and a page's delegated listener on a
// container does not hide the items inside it that bear their own signal.
// Nothing inside a control is a pointer target. The document's root and
// body never are targets: a listener there is a delegation root.

// listened is the set of elements Go found a click-type listener on, as of
// the observation that marked it last.
let listened = new WeakSet();

// pointerRoles are the listed targets' roles, for the guards of an action
// (inspect), which cannot recompute a listener-found target's role.
const pointerRoles = new WeakMap();

// markListened adds els (the elements Go resolved in this world) to the
// listener marks, or with add false replaces the marks with them, and
// answers how many it was given.
function markListened(add, ...els) {
  if (!add) listened = new WeakSet();
  for (const el of els) {
    if (el && el.nodeType === 1 && el !== document.documentElement && el !== document.body) listened.add(el);
  }
  return els.length;
}

// A listing of a large document's listeners (more than B.ListenerNodes
// elements) costs the browser time in proportion to the page, so Go keeps
// its marks (tool version 1.10.0) until an element is added: growth watches
// for one, and stops at the first, until the next listing.
let listedLarge = false; // the last listing's document was large
let grown = false; // an element was added since the last listing
const addedElement = (records) => records.some((r) => [...r.addedNodes].some((n) => n.nodeType === 1));
const growth = new MutationObserver((records) => {
  if (addedElement(records)) {
    grown = true;
    growth.disconnect();
  }
});

// listenerRoots are the document's first B.ListenerRoots open shadow
// roots, in the traversal's order, within a scan's node bound: Go reads
// each one's listeners (the document's own query does not enter them).
// None is null, which spares Go reading an empty list. With keep (Go holds
// a complete marking of this document) it answers 'unchanged' when the
// document is large and no element was added since that marking: Go lists
// nothing. A large document's answer says so (the list's own large, or
// 'large' for none): Go lists the next one after this call, since it may
// need no listing, and a small one's at the same time.
function listenerRoots(keep) {
  if (addedElement(growth.takeRecords())) grown = true;
  if (keep && listedLarge && !grown) return 'unchanged';
  growth.disconnect();
  const roots = [];
  let elements = 0;
  walk(document.documentElement, {max: B.ScanNodes, shadow: true}, (n) => {
    if (n.nodeType !== 1) return SKIP;
    elements++;
    if (n.shadowRoot && roots.length < B.ListenerRoots) roots.push(n.shadowRoot);
    if (roots.length >= B.ListenerRoots && elements > B.ListenerNodes) return STOP;
  });
  grown = false;
  listedLarge = elements > B.ListenerNodes;
  if (listedLarge) {
    for (const r of [document, ...roots]) growth.observe(r, {childList: true, subtree: true});
  }
  if (roots.length === 0) return listedLarge ? 'large' : null;
  if (listedLarge) roots.large = true;
  return roots;
}

// sortableItem reads class attributes as strings: a token holds
// "sortable" exactly when the attribute does (a token holds no
// whitespace), and a string costs less than a DOMTokenList per element.
function sortableItem(el, own) {
  if (own !== null && HANDLE.test(own)) return true;
  const p = el.parentElement;
  const cls = p ? attrsOf(p).cls : null;
  return cls !== null && cls.toLowerCase().includes('sortable');
}
const HANDLE = /(?:^|[ \t\n\f\r])ui-sortable-handle(?:[ \t\n\f\r]|$)/;

// cursorOf is el's computed cursor, read once per element in a
// collection: a parent's is asked about by each of its children.
let cursors = null;
let cursorsFor = null; // the collection's style memo cursors belong to
function cursorOf(el) {
  if (styles === null) return styleOf(el).cursor;
  if (cursorsFor !== styles) {
    cursorsFor = styles;
    cursors = new Map();
  }
  let c = cursors.get(el);
  if (c === undefined) {
    c = styleOf(el).cursor;
    cursors.set(el, c);
  }
  return c;
}

// pointerSignal reports whether el bears one of the signals above. The
// style test comes last: it is the only one that needs computed style. An
// element without attributes (most of a page) skips their tests.
function pointerSignal(el) {
  if (el === document.documentElement || el === document.body) return false;
  if (listened.has(el)) return true;
  const a = attrsOf(el);
  if (a.any && (el.hasAttribute('onclick') || el.getAttribute('draggable') === 'true')) return true;
  if (sortableItem(el, a.cls)) return true;
  const ti = a.any ? el.getAttribute('tabindex') : null;
  if (ti !== null && /^\s*\d+\s*$/.test(ti)) return true;
  if (cursorOf(el) !== 'pointer') return false;
  const p = flatParent(el);
  return !p || p.nodeType !== 1 || cursorOf(p) !== 'pointer';
}

// pointerRole is a pointer target's role: its ARIA role's first token (no
// control role, or it would be a control) if any, else generic.
function pointerRole(el) {
  const explicit = firstRole(el);
  return explicit && explicit !== 'none' && explicit !== 'presentation' ? explicit : 'generic';
}

// candidateWalk is the visit and leave of a scan's walk over candidates:
// take(n, role) is called on each, in traversal order (a pointer target
// once its subtree is walked: no candidate lies inside it, so its place
// among the others is the same) and answers STOP to end the walk. With
// pointer (tool version 1.9.0) it finds pointer targets; with frames,
// frame owners are candidates.
function candidateWalk(pointer, frames, take) {
  const roleOf = (n) => controlRole(n) || (frames && FRAME_TAGS.has(n.localName) ? 'frame' : null);
  if (!pointer) {
    return {visit: (n) => {
      if (n.nodeType !== 1) return SKIP;
      const role = roleOf(n);
      return role ? take(n, role) : undefined;
    }, leave: null};
  }
  let inControls = 0; // open control ancestors
  const open = []; // open signalled elements, innermost last: {el, rejected}
  let stop = false; // a target taken at its leave ended the walk
  const reject = () => { if (open.length) open[open.length - 1].rejected = true; };
  return {
    visit(n) {
      if (stop) return STOP;
      if (n.nodeType !== 1) return SKIP;
      const role = roleOf(n);
      if (role) {
        reject();
        if (take(n, role) === STOP) return STOP;
        inControls++;
        return CLOSE;
      }
      if (inControls > 0 || !pointerSignal(n)) return undefined;
      reject();
      open.push({el: n, rejected: false});
      return CLOSE;
    },
    leave(n) {
      const top = open[open.length - 1];
      if (!top || top.el !== n) {
        inControls--;
        return;
      }
      open.pop();
      // A rejected element holds a candidate, and so do its open ancestors.
      if (top.rejected) return reject();
      const role = pointerRole(n);
      pointerRoles.set(n, role);
      if (take(n, role) === STOP) stop = true;
    },
  };
}
