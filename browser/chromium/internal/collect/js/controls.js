// controls.js: the actionable controls of a page (docs/observation.md): their roles,
// states, the candidate scan and the nodes each revision retains.

const ROLES = new Set([
  'button', 'link', 'textbox', 'searchbox', 'combobox', 'listbox', 'checkbox', 'radio',
  'switch', 'slider', 'spinbutton', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
  'option', 'treeitem',
]);
const TEXT_INPUTS = new Set(['', 'text', 'email', 'tel', 'url', 'password', 'date', 'time',
  'datetime-local', 'month', 'week', 'color']);

// nodeKey is a node's identity within this document (tool version 1.9.0):
// a serial given the first time a scan keeps the node, the same in every
// later observation. A view's changes match controls by it, since refs name
// a revision (docs/changes.md). A new document starts a new world, whose
// serials start at a random point (below 2^53): a frame's next document
// does not reuse its previous one's keys.
const nodeKeys = new WeakMap();
let nodeSerial = Math.floor(Math.random() * Number.MAX_SAFE_INTEGER / 2);
function nodeKey(el) {
  let k = nodeKeys.get(el);
  if (!k) {
    k = ++nodeSerial;
    nodeKeys.set(el, k);
  }
  return k;
}

// Retained nodes by revision, the last B.RetainedRevisions of them: the only
// strong references the runtime keeps. Older entries are dropped, which
// releases their nodes.
const retained = new Map();

// retain binds a scan's controls, and the points its anchors and cursors
// resume from, to a revision; in reading mode also where its region and
// text streams continue (streams: {regions: {matches, stop}, text:
// {starts}}, each null when that stream ended).
function retain(revision, c, streams, scrollers) {
  retained.set(revision, {nodes: c.nodes, parents: c.parents, origin: c.origin || null, stop: c.stop || null,
    regions: (streams && streams.regions) || null, text: (streams && streams.text) || null, scrollers: !!scrollers});
  while (retained.size > B.RetainedRevisions) retained.delete(retained.keys().next().value);
}

// retainedVisibility is the visibility checker of the revision that
// retained p's control: as the observation saw it (scroll containers,
// tool version 1.9.0), so an action guards what the view showed.
function retainedVisibility(p) {
  const entry = retained.get(p.revision);
  return visibilityChecker({scrollers: !!(entry && entry.scrollers)});
}

// retainedNode is the control a revision retained at an index, or null.
function retainedNode(p) {
  const entry = retained.get(p.revision);
  return (entry && entry.nodes[p.index]) || null;
}

function controlRole(el) {
  const explicit = attrsOf(el).role;
  if (explicit) {
    for (const r of explicit.split(/\s+/)) {
      if (ROLES.has(r)) return r;
    }
  }
  switch (el.localName) {
    case 'button':
      return 'button';
    case 'a':
    case 'area':
      return el.hasAttribute('href') ? 'link' : null;
    case 'select':
      return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    case 'textarea':
      return 'textbox';
    case 'summary': {
      const p = el.parentElement;
      return p && p.localName === 'details' && p.querySelector(':scope > summary') === el ? 'button' : null;
    }
    case 'input': {
      const t = (el.getAttribute('type') || '').toLowerCase();
      switch (t) {
        case 'hidden': return null;
        case 'button': case 'submit': case 'reset': case 'image': case 'file': return 'button';
        case 'checkbox': return el.hasAttribute('switch') ? 'switch' : 'checkbox';
        case 'radio': return 'radio';
        case 'range': return 'slider';
        case 'number': return 'spinbutton';
        case 'search': return el.hasAttribute('list') ? 'combobox' : 'searchbox';
        default:
          if (el.hasAttribute('list') && TEXT_INPUTS.has(t)) return 'combobox';
          return 'textbox';
      }
    }
  }
  // An editing host (not every editable descendant) is a textbox. The
  // attribute test comes first: isContentEditable needs style.
  const ce = attrsOf(el).editable;
  if (ce !== null && ce !== 'false' && el.isContentEditable) {
    const p = el.parentElement;
    if (!p || !p.isContentEditable) return 'textbox';
  }
  return null;
}

function ariaTrue(el, attr) {
  return el.getAttribute(attr) === 'true';
}

function states(el, role, focused) {
  const tag = el.localName;
  const native = tag === 'input' && (role === 'checkbox' || role === 'radio' || role === 'switch');
  return {
    disabled: el.matches(':disabled') || ariaTrue(el, 'aria-disabled'),
    checked: native ? el.checked === true : ariaTrue(el, 'aria-checked'),
    selected: ariaTrue(el, 'aria-selected') || (tag === 'option' && el.selected === true),
    expanded: ariaTrue(el, 'aria-expanded') || (tag === 'summary' && !!el.parentElement && el.parentElement.open === true),
    pressed: ariaTrue(el, 'aria-pressed'),
    required: el.required === true || ariaTrue(el, 'aria-required'),
    readonly: el.readOnly === true || ariaTrue(el, 'aria-readonly'),
    focused: el === focused,
  };
}

// collectControls acquires at most window+1 candidates (one lookahead)
// starting at a candidate offset or right after an anchor, and only then
// runs visibility and metadata work on the window.
//
// A scan walks from the document's start or, when it continues a scan that
// began at a retained point, from that point (its origin). Anchors and
// cursors of a revision resume from the revision's origin with the
// candidate position counted there, so offsets stay those of the whole
// traversal; a cursor of a scan the node bound stopped resumes right after
// the last node it visited. Only the offset bound is terminal.
function collectControls(p, revision, visible) {
  const maxVisible = Math.min(p.max_visible || B.MaxControls, B.MaxControls);
  const windowSize = Math.min(p.window || B.WindowSize, B.WindowSize);
  const maxOffset = Math.min(p.max_offset === undefined ? B.MaxOffset : p.max_offset, B.MaxOffset);
  let start = p.offset || 0;
  let anchor = null;
  let origin = null; // the retained point the walk resumes after; null: the document's start
  if (p.after) {
    const entry = retained.get(p.after.revision);
    if (!entry) return {error: R.AnchorUnknown};
    anchor = entry.nodes[p.after.index];
    if (!anchor) return {error: R.AnchorUnknown};
    if (!anchor.isConnected) return {error: R.AnchorDetached};
    if (flatParent(anchor) !== entry.parents[p.after.index]) return {error: R.AnchorMoved};
    origin = entry.origin;
    start = -1;
  } else if (p.after_frame) {
    // After a frame's owner (tool version 1.7.0): the frame's content was
    // shown, or continues inside it; the scan goes on past it.
    anchor = ownerByKey(p.after_frame);
    if (!anchor) return {error: R.AnchorUnknown};
    if (!anchor.isConnected) return {error: R.AnchorDetached};
    start = -1;
  } else if (p.resume) {
    const entry = retained.get(p.resume.revision);
    origin = entry && (p.resume.from === 'stop' ? entry.stop : entry.origin);
    if (!origin) return {error: R.AnchorUnknown};
    start = Math.max(start, origin.position);
  }
  const terminal = {controls: [], nodes: [], parents: [], coverage: {offset: start, scanned: 0, more: true, limit: 'offset'}};
  if (start > maxOffset) return terminal;

  let stack = [document.documentElement];
  let position = 0;
  if (origin) {
    const r = resumeStack(origin);
    if (r.error) return {error: r.error};
    stack = r.stack;
    position = origin.position;
  }
  const acquired = []; // {el, role}: the role is computed once, in the scan
  const frames = p.frames === true;
  const w = candidateWalk(p.real_pages === true, frames, (n, role) => {
    if (start < 0) {
      if (n === anchor) start = position + 1;
      position++;
      // An anchor further than any window could reach has moved.
      return position > maxOffset + windowSize + 1 ? STOP : undefined;
    }
    if (position >= start) acquired.push({el: n, role});
    position++;
    return acquired.length > windowSize ? STOP : undefined;
  });
  const scan = walk(null, {stack, max: B.ScanNodes, shadow: true, leave: w.leave}, w.visit);
  if (start < 0) return {error: R.AnchorMoved};
  terminal.coverage.offset = start;
  if (start > maxOffset) return terminal;

  const focused = deepActiveElement();
  const controls = [];
  const nodes = [];
  const parents = [];
  const hiddenFrames = []; // the owners scanned and not visible: {frame: key, index: controls before it}
  let scanned = 0;
  let inScrollers = 0; // kept controls inside scroll containers (tool version 1.9.0)
  const limit = Math.min(acquired.length, windowSize);
  while (scanned < limit && controls.length < maxVisible) {
    const {el, role} = acquired[scanned];
    scanned++;
    if (role === 'frame') {
      const key = frameKeys.get(el) || '';
      if (!frameShown(el, visible)) {
        hiddenFrames.push({frame: key, index: controls.length});
        continue;
      }
      const owner = {role, name: '', name_truncated: false, position: start + scanned - 1, states: NO_STATES, frame: key};
      if (p.real_pages === true) owner.key = nodeKey(el);
      controls.push(owner);
      nodes.push(el);
      parents.push(flatParent(el));
      continue;
    }
    if (!visible(el)) continue;
    if (visible.scrolled && visible.scrolled(el)) inScrollers++;
    const [name, truncated] = cut(accessibleName(el, role), B.MaxNameUnits);
    const c = {role, name, name_truncated: truncated, position: start + scanned - 1, states: states(el, role, focused)};
    if (p.real_pages === true) c.key = nodeKey(el);
    if (p.real_pages === true && multiChoice(el)) Object.assign(c, chosenOptions(el));
    if (p.values) withValue(c, el, role);
    controls.push(c);
    nodes.push(el);
    parents.push(flatParent(el));
  }
  // The node bound leaves unknown content: more, resumed by a cursor from
  // the last node visited (every candidate before it was counted).
  const stopped = scan.bound && scanned === acquired.length;
  const more = acquired.length > scanned || stopped;
  let lim = '';
  if (more) lim = controls.length >= maxVisible ? 'controls' : acquired.length > scanned ? 'window' : 'nodes';
  if (more && start + scanned > maxOffset) lim = 'offset';
  // from says where the next window's walk starts: '' the document's
  // start, 'origin' this scan's origin, 'stop' where the node bound ended it.
  const from = stopped ? 'stop' : origin ? 'origin' : '';
  const stop = stopped ? {node: scan.last, parent: walkParent(scan.last), position} : null;
  const out = {controls, nodes, parents, origin, stop,
    coverage: {offset: start, scanned, more, limit: lim, acquired: acquired.length, from}};
  if (inScrollers > 0) out.coverage.in_scroll_containers = inScrollers;
  if (frames) out.hidden_frames = hiddenFrames;
  return out;
}
