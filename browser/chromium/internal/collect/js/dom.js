// veetbrowser in-page collector. It runs only in the runtime's isolated world,
// registered before the page's own scripts, so the page can neither see nor
// patch it: DOM wrappers and prototypes here are this world's own.
//
// Rules (docs/observation.md): iterative walks with an explicit stack (no recursion, no
// enumeration of a node's `children`), every budget counted here before any
// data crosses to Go, no form value, storage or credential read. Every bound
// is read from B, which the Go side generates from its own constants.
//
// dom.js: the traversals every job shares, the document's identity, and
// what a block is.

const docId = (() => {
  const a = new Uint32Array(2);
  crypto.getRandomValues(a);
  return a[0].toString(36) + a[1].toString(36);
})();

// What a walk's visit returns: undefined to go on into the node's
// children, or one of these.
const SKIP = 1; // leave the node's subtree out
const STOP = 2; // end the walk here
const CLOSE = 3; // descend, and call opts.leave(node) once its subtree is done
const LEAVE = {}; // stack mark: the node under it has had its subtree walked

// walk is the depth-first walk of the nodes from first on: first, its
// subtree, then its following siblings and theirs (walk(el.firstChild, …)
// walks el's descendants; walk(document.documentElement, …) the document).
// opts.shadow also descends into open shadow roots, shadow children before
// light children; closed roots and frames stay outside. opts.stack resumes a
// walk from the stack a previous one held (see resumeStack); its top is the
// next node. The stack holds at most one pending sibling per level (and a
// node with its LEAVE mark per open CLOSE).
//
// It visits at most opts.max nodes and reports whether that bound (bound) or
// visit (stopped) ended it, how many nodes it visited and the last one; when
// the bound ended it, next is the node it would have visited next.
function walk(first, opts, visit) {
  const stack = opts.stack || [first];
  const max = opts.max;
  const shadow = opts.shadow === true;
  let visits = 0;
  let last = null;
  while (stack.length) {
    const n = stack.pop();
    if (n === LEAVE) { opts.leave(stack.pop()); continue; }
    if (!n) continue;
    if (visits >= max) return {bound: true, stopped: false, visits, last, next: n};
    visits++;
    last = n;
    const next = n.nextSibling;
    if (next) stack.push(next);
    const r = visit(n);
    if (r === SKIP) continue;
    if (r === STOP) return {bound: false, stopped: true, visits, last};
    if (r === CLOSE) stack.push(n, LEAVE);
    const light = n.firstChild;
    if (light) stack.push(light);
    if (shadow) {
      const sr = n.shadowRoot; // null for closed roots: they stay outside coverage
      if (sr && sr.firstChild) stack.push(sr.firstChild);
    }
  }
  return {bound: false, stopped: false, visits, last};
}

// walkParent is a node's parent in a shadow walk: the host of the shadow
// root it is a child of, else its parent node.
function walkParent(n) {
  const p = n.parentNode;
  return p && p.nodeType === 11 ? p.host || null : p;
}

// resumeStack rebuilds the stack a shadow walk held right after it visited
// point.node, from the node's live ancestors: each level's pending sibling
// (and, in a shadow tree, the host's light children). The point must still
// be where it was retained: connected, under the same parent, and inside
// the traversal (no closed root on the way up). The climb is bounded like
// a scan.
function resumeStack(point) {
  const r = ancestorStack(point);
  if (r.error) return r;
  const n = point.node;
  const stack = r.stack;
  if (n.nextSibling) stack.push(n.nextSibling);
  if (n.nodeType === 1) {
    if (n.firstChild) stack.push(n.firstChild);
    const sr = n.shadowRoot;
    if (sr && sr.firstChild) stack.push(sr.firstChild);
  }
  return {stack};
}

// resumeBefore rebuilds the stack a shadow walk held when point.node was
// the next node to visit, under the same conditions as resumeStack.
function resumeBefore(point) {
  const r = ancestorStack(point);
  if (!r.error) r.stack.push(point.node);
  return r;
}

// ancestorStack is the part of a shadow walk's stack that point.node's
// ancestors hold: each level's pending sibling, outermost first.
function ancestorStack(point) {
  const n = point.node;
  if (!n.isConnected) return {error: R.AnchorDetached};
  if (walkParent(n) !== point.parent) return {error: R.AnchorMoved};
  const root = document.documentElement;
  const levels = [];
  for (let c = n; c !== root;) {
    const p = c.parentNode;
    if (!p || levels.length >= B.ScanNodes) return {error: R.AnchorMoved};
    if (p.nodeType === 9) {
      // A sibling of the root element: the walk reaches only those after it.
      if (!root || !(root.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING)) return {error: R.AnchorMoved};
      break;
    }
    if (p.nodeType === 11) {
      const host = p.host;
      if (!host || host.shadowRoot !== p) return {error: R.AnchorMoved}; // a closed root
      levels.push([host.nextSibling, host.firstChild]);
      c = host;
    } else {
      levels.push([p.nextSibling]);
      c = p;
    }
  }
  const stack = [];
  for (let i = levels.length - 1; i >= 0; i--) {
    for (const x of levels[i]) if (x) stack.push(x);
  }
  return {stack};
}

// flatParent is the parent in the flat (rendered) tree: a slotted node's
// slot, a shadow root's host.
function flatParent(n) {
  if (n.assignedSlot) return n.assignedSlot;
  const p = n.parentNode;
  if (!p) return null;
  if (p.nodeType === 11) return p.host || null;
  return p.nodeType === 1 ? p : null;
}

// flatChildren lists a node's children in the flat tree, at most max of
// them: a host's open shadow root, a slot's assigned nodes (found among
// the host's light children, each check counted as a visit) or its
// fallback content, any other node's own children. It never builds a
// whole assignment list.
function flatChildren(n, max) {
  const nodes = [];
  let visits = 0;
  let c;
  if (n.shadowRoot) {
    for (c = n.shadowRoot.firstChild; c && nodes.length < max; c = c.nextSibling) nodes.push(c);
    return {nodes, visits, more: !!c};
  }
  if (n.localName === 'slot') {
    const root = n.getRootNode();
    const host = root && root.host;
    if (host) {
      for (c = host.firstChild; c && visits < max; c = c.nextSibling) {
        visits++;
        if (c.assignedSlot === n) nodes.push(c);
      }
      if (nodes.length || c) return {nodes, visits, more: !!c};
    }
  }
  for (c = n.firstChild; c && nodes.length < max; c = c.nextSibling) nodes.push(c);
  return {nodes, visits, more: !!c};
}

// inFlatTree: the text walk reaches n as a child of up in the flat tree:
// assigned to the slot up, a child of up's open shadow root, or a child of
// up when up shows its own children.
function inFlatTree(n, up) {
  if (n.assignedSlot) return n.assignedSlot === up;
  const p = n.parentNode;
  if (p && p.nodeType === 11) return up.shadowRoot === p;
  return p === up && !up.shadowRoot;
}

// resumeTextWalk rebuilds the stack the text walk held when point.node was the
// next node to visit (text.js has the entries): each flat-tree ancestor's
// pending sibling and the close marks of the blocks and cells around the
// node. Each ancestor climbed counts as a visit, at most max of them. The
// point must still be where the walk found it: connected (else
// anchor_detached), under the same flat parent and inside the traversal
// (else anchor_moved). A point inside a subtree that is no longer rendered
// resumes right after that subtree, as a walk from the start would.
function resumeTextWalk(point, max, root = null) {
  const n = point.node;
  const parent = point.parent;
  if (!n.isConnected || (parent && !parent.isConnected)) return {error: R.AnchorDetached};
  // A scan point is a light child of the slot's host, assigned or not.
  const placed = point.scan ? n.parentNode === parent.getRootNode().host : !!parent && inFlatTree(n, parent);
  if (!placed) return {error: R.AnchorMoved};
  const chain = [];
  for (let a = parent; a; a = flatParent(a)) {
    const up = flatParent(a);
    if (chain.length >= max || (up ? !inFlatTree(a, up) : a !== document.documentElement)) return {error: R.AnchorMoved};
    chain.push(a);
  }
  // A walk of root's subtree alone (a main-first reading's main content,
  // 1.9.0) resumes only inside it: nothing past root is pushed.
  const k = root ? chain.indexOf(root) : chain.length;
  if (k < 0) return {error: R.AnchorMoved};
  const stack = [];
  let pre = false;
  for (let i = chain.length - 1; i >= 0; i--) {
    const a = chain[i];
    if (i < Math.min(k, chain.length - 1)) stack.push([a.nextSibling, a.assignedSlot ? SLOTTED : 0, chain[i + 1], pre, true, 0]);
    const st = styleOf(a);
    const display = st.display;
    if (excludedSubtree(a) || display === 'none' || display === '' || st.contentVisibility === 'hidden') {
      return {stack, visits: chain.length};
    }
    if (i <= k && (blockDisplay(display) || display === 'table-cell' || CELL_TAGS.has(a.localName))) stack.push([a, CLOSING]);
    pre = PRE_SPACE.has(st.whiteSpace);
  }
  if (point.scan) stack.push([n, SLOTTED, parent, pre, point.any, 0]);
  else stack.push([n, n.assignedSlot ? SLOTTED : 0, parent, pre, true, point.offset || 0]);
  return {stack, visits: chain.length};
}

// pushFlatChildren pushes the entry of n's first child in the flat tree:
// its open shadow root's first child, for a slot in a shadow tree the scan
// of its host's light children, else its own first child.
function pushFlatChildren(stack, n, pre) {
  const sr = n.shadowRoot;
  if (sr) {
    stack.push([sr.firstChild, 0, n, pre, false, 0]);
    return;
  }
  const host = n.localName === 'slot' ? n.getRootNode().host : null;
  if (host) stack.push([host.firstChild, SLOTTED, n, pre, false, 0]);
  else stack.push([n.firstChild, 0, n, pre, false, 0]);
}

// within: node is ancestor or inside it in the flat tree.
function within(node, ancestor) {
  for (let n = node; n; n = flatParent(n)) if (n === ancestor) return true;
  return false;
}

// hitTarget descends through open shadow roots to the element under (x, y).
function hitTarget(x, y) {
  let el = document.elementFromPoint(x, y);
  while (el && el.shadowRoot) {
    const inner = el.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === el) break;
    el = inner;
  }
  return el;
}

function deepActiveElement() {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a;
}

// ---- blocks ---------------------------------------------------------------

// A block is a box laid out on lines of its own: its computed display is
// neither inline-level (inline, inline-block, inline-flex, …) nor contents
// nor none. Readable text breaks lines around blocks; an accessible name
// spaces blocks and also atomic inlines (inline-block and the like), as
// Chromium does.
function blockDisplay(display) {
  return display !== 'contents' && display !== 'none' && !display.startsWith('inline');
}

// atomicInline: an inline-level box that is not plain inline text flow.
function atomicInline(display) {
  return display !== 'inline' && display.startsWith('inline');
}

// blockTag: an element HTML displays as a block by default. Summaries and
// the draft check read markup without computing style, and break there.
function blockTag(el) {
  return BLOCK_TAGS.has(el.localName);
}

const BLOCK_TAGS = new Set(['address', 'article', 'aside', 'blockquote', 'dd', 'details', 'dialog', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li',
  'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'thead', 'tfoot', 'tr', 'ul', 'br',
  'caption', 'legend', 'menu', 'search', 'body', 'html']);
