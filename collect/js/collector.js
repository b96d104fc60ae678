// veetbrowser in-page collector. It runs only in the runtime's isolated world,
// registered before the page's own scripts, so the page can neither see nor
// patch it: DOM wrappers and prototypes here are this world's own.
//
// Rules (SPEC §5): iterative walks with an explicit stack (no recursion, no
// enumeration of a node's `children`), every budget counted here before any
// data crosses to Go, no form value, storage or credential read.
(() => {
  'use strict';
  if (globalThis.__veetbrowser) return;

  // Bounds of ADR-0157. Go sends the same numbers; these are the ceilings.
  const MAX_VISIBLE = 256;
  const WINDOW = 4096;
  const MAX_OFFSET = 65536;
  // Nodes one control scan may visit, skipping to its offset included: the
  // candidate bounds alone would let a page of prose cost time linear in its
  // size. Past it the coverage is terminal, like the offset bound.
  const SCAN_NODES = 262144;
  const MAX_NAME = 1024; // UTF-16 units of a control name kept in the canonical record
  const NAME_NODES = 256; // descendants inspected for a name from content
  const MAX_TITLE = 1024;
  const MAX_URL = 8192;

  const docId = (() => {
    const a = new Uint32Array(2);
    crypto.getRandomValues(a);
    return a[0].toString(36) + a[1].toString(36);
  })();

  // Retained nodes by revision: the only strong references the runtime keeps.
  // Older entries are dropped, which releases their nodes.
  const retained = new Map();
  const KEEP_REVISIONS = 2;

  const ROLES = new Set([
    'button', 'link', 'textbox', 'searchbox', 'combobox', 'listbox', 'checkbox', 'radio',
    'switch', 'slider', 'spinbutton', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
    'option', 'treeitem',
  ]);
  const NAME_FROM_CONTENT = new Set([
    'button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'treeitem',
  ]);
  const TEXT_INPUTS = new Set(['', 'text', 'email', 'tel', 'url', 'password', 'date', 'time',
    'datetime-local', 'month', 'week', 'color']);

  // ---- traversal -------------------------------------------------------------

  // walkElements visits the elements of the main document and its open shadow
  // roots depth-first, shadow children before light children. fn returns true
  // to stop. The stack holds at most one pending sibling per level.
  // It visits at most maxNodes nodes and reports whether that bound, not the
  // end of the document or fn, stopped it.
  function walkElements(fn, maxNodes) {
    const stack = [document.documentElement];
    let visits = 0;
    while (stack.length) {
      const n = stack.pop();
      if (!n) continue;
      if (visits >= maxNodes) return true;
      visits++;
      const next = n.nextSibling;
      if (next) stack.push(next);
      if (n.nodeType !== 1) continue;
      if (fn(n)) return false;
      const light = n.firstChild;
      if (light) stack.push(light);
      const sr = n.shadowRoot; // null for closed roots: they stay outside coverage
      if (sr && sr.firstChild) stack.push(sr.firstChild);
    }
    return false;
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

  // ---- roles, names, states ---------------------------------------------------

  function controlRole(el) {
    const explicit = el.getAttribute('role');
    if (explicit) {
      for (const r of explicit.trim().toLowerCase().split(/\s+/)) {
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
    const ce = el.getAttribute('contenteditable');
    if (ce !== null && ce !== 'false' && el.isContentEditable) {
      const p = el.parentElement;
      if (!p || !p.isContentEditable) return 'textbox';
    }
    return null;
  }

  function clean(s) {
    return s.replace(/\s+/g, ' ').trim();
  }

  // cut keeps at most max UTF-16 units without splitting a surrogate pair.
  function cut(s, max) {
    if (s.length <= max) return [s, false];
    let end = max;
    const c = s.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff) end--;
    return [s.slice(0, end), true];
  }

  // textAlternative reads the text of a subtree in flat-tree order, bounded by
  // NAME_NODES nodes and MAX_NAME+1 units. Hidden descendants are skipped
  // unless the subtree is referenced by aria-labelledby (accname 2B).
  const SPACE = {};
  function textAlternative(root, includeHidden) {
    const parts = [];
    let units = 0;
    let visits = 0;
    let unread = false; // children the node budget left unread
    const add = (t) => {
      const d = t.slice(0, MAX_NAME + 1 - units); // never more than a name can keep
      parts.push(d);
      units += d.length;
    };
    const stack = [root];
    while (stack.length && visits < NAME_NODES && units <= MAX_NAME) {
      const n = stack.pop();
      if (n === SPACE) { parts.push(' '); continue; }
      visits++;
      if (n.nodeType === 3) {
        add(n.data);
        continue;
      }
      if (n.nodeType !== 1) continue;
      // Form values and editable content never become a name.
      if (valueBearing(n)) continue;
      if (n !== root) {
        const tag = n.localName;
        if (tag === 'script' || tag === 'style' || tag === 'template' || tag === 'noscript') continue;
        if (!includeHidden && (n.getAttribute('aria-hidden') === 'true' ||
            !n.checkVisibility({visibilityProperty: true}))) continue;
        const label = n.getAttribute('aria-label');
        if (label && label.trim()) { parts.push(' '); add(label); parts.push(' '); continue; }
        if (tag === 'img' || tag === 'area') {
          add(n.getAttribute('alt') || '');
          continue;
        }
        if (tag === 'br') { parts.push(' '); continue; }
      }
      const block = n !== root && isBlock(n);
      if (block) {
        parts.push(' ');
        stack.push(SPACE);
      }
      const kids = flatChildren(n, NAME_NODES - visits);
      visits += kids.visits;
      if (kids.more) unread = true;
      for (let i = kids.nodes.length - 1; i >= 0; i--) stack.push(kids.nodes[i]);
    }
    return [clean(parts.join('')), unread || stack.length > 0];
  }

  // valueBearing: an element whose content is a value (form controls,
  // editable content, custom text fields), never readable text.
  function valueBearing(el) {
    const tag = el.localName;
    if (tag === 'input' || tag === 'textarea' || tag === 'select') return true;
    const ce = el.getAttribute('contenteditable');
    if (ce !== null && ce !== 'false') return true;
    const role = (el.getAttribute('role') || '').trim().toLowerCase();
    return VALUE_ROLES.has(role);
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


  function isBlock(el) {
    const d = getComputedStyle(el).display;
    return d !== 'inline' && d !== 'contents' && d !== 'none' && !d.startsWith('inline');
  }

  const MAX_LABEL_IDS = 16;

  function labelledBy(el) {
    const ids = (el.getAttribute('aria-labelledby') || '').trim();
    if (!ids) return '';
    const root = el.getRootNode();
    const parts = [];
    let units = 0;
    for (const id of ids.split(/\s+/, MAX_LABEL_IDS)) {
      const ref = root.getElementById ? root.getElementById(id) : document.getElementById(id);
      if (!ref || valueBearing(ref) && ref !== el) continue;
      const label = ref.getAttribute('aria-label');
      const text = label && label.trim() ? label.slice(0, MAX_NAME + 1) : ref === el ? '' : textAlternative(ref, true)[0];
      parts.push(text);
      units += text.length;
      if (units > MAX_NAME) break;
    }
    return clean(parts.join(' '));
  }

  // accessibleName follows the order Chromium applies to the sources SPEC
  // §3.1 names. Input values are never read; a button input's value
  // attribute is its printed label, not user data.
  function accessibleName(el, role) {
    let name = labelledBy(el);
    if (name) return name;
    name = clean(el.getAttribute('aria-label') || '');
    if (name) return name;
    const tag = el.localName;
    if (tag === 'input') {
      const t = (el.getAttribute('type') || '').toLowerCase();
      if (t === 'button' || t === 'submit' || t === 'reset') {
        name = clean(el.getAttribute('value') || '');
        if (name) return name;
        if (t === 'submit') return 'Submit';
        if (t === 'reset') return 'Reset';
      }
      if (t === 'image') {
        name = clean(el.getAttribute('alt') || '');
        if (name) return name;
      }
    }
    if (el.labels && el.labels.length) {
      const parts = [];
      for (const l of el.labels) parts.push(labelText(l, el));
      name = clean(parts.join(' '));
      if (name) return name;
    }
    if (NAME_FROM_CONTENT.has(role) || tag === 'summary') {
      name = textAlternative(el, false)[0];
      if (name) return name;
    }
    name = clean(el.getAttribute('title') || '');
    if (name) return name;
    name = clean(el.getAttribute('placeholder') || el.getAttribute('aria-placeholder') || '');
    if (name) return name;
    if (tag === 'img') return clean(el.getAttribute('alt') || '');
    return '';
  }

  // labelText is a label's text without the labelled control's own content.
  function labelText(label, control) {
    if (!label.contains(control)) return textAlternative(label, false)[0];
    const parts = [];
    let count = 0;
    const stack = [label];
    while (stack.length && count < NAME_NODES) {
      const n = stack.pop();
      count++;
      if (n === control) continue;
      if (n.nodeType === 3) { parts.push(n.data.slice(0, MAX_NAME + 1)); continue; }
      if (n.nodeType !== 1) continue;
      if (n !== label && valueBearing(n)) continue;
      const items = [];
      for (let c = n.firstChild; c && items.length < NAME_NODES; c = c.nextSibling) items.push(c);
      for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]);
    }
    return clean(parts.join(''));
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

  function deepActiveElement() {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a;
  }

  // ---- visibility (SPEC §5) ----------------------------------------------------

  // Visibility facts are memoized per element for one collection, so shared
  // ancestors are inspected once.
  function visibilityChecker() {
    const hiddenMemo = new Map();
    const clipMemo = new Map();
    const sx = window.scrollX;
    const sy = window.scrollY;

    // hiddenSubtree: the element or a flat-tree ancestor is hidden, inert or
    // aria-hidden (CSS may override [hidden]'s display, the rule still holds).
    function hiddenSubtree(el) {
      const chain = [];
      let n = el;
      let result = false;
      while (n) {
        const m = hiddenMemo.get(n);
        if (m !== undefined) { result = m; break; }
        chain.push(n);
        n = flatParent(n);
      }
      for (let i = chain.length - 1; i >= 0; i--) {
        const e = chain[i];
        if (!result && (e.hasAttribute('hidden') || e.hasAttribute('inert') || e.getAttribute('aria-hidden') === 'true')) {
          result = true;
        }
        hiddenMemo.set(e, result);
      }
      return result;
    }

    function zeroClip(style) {
      const c = style.clip;
      if (c && c.startsWith('rect(')) {
        const v = c.slice(5, -1).split(/[ ,]+/).map(parseFloat);
        if (v.length === 4 && (v[1] - v[3] <= 0 || v[2] - v[0] <= 0)) return true;
      }
      const cp = style.clipPath;
      return !!cp && /^inset\((50|100)%/.test(cp);
    }

    // clipOf returns the viewport rectangle that overflow:hidden/clip
    // ancestors leave to el's descendants, null for no clip, or 'none' when
    // something clips everything. Scroll containers do not clip: their
    // content is reachable by scrolling.
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
          const st = getComputedStyle(e);
          if (zeroClip(st)) {
            acc = 'none';
          } else if (st.position === 'fixed') {
            acc = null;
          } else if (st.overflowX === 'hidden' || st.overflowX === 'clip' || st.overflowY === 'hidden' || st.overflowY === 'clip') {
            const r = e.getBoundingClientRect();
            const box = {l: r.left, t: r.top, r: r.right, b: r.bottom};
            acc = acc ? intersect(acc, box) : box;
            if (acc.r <= acc.l || acc.b <= acc.t) acc = 'none';
          }
        }
        clipMemo.set(e, acc);
      }
      return acc;
    }

    function intersect(a, b) {
      return {l: Math.max(a.l, b.l), t: Math.max(a.t, b.t), r: Math.min(a.r, b.r), b: Math.min(a.b, b.b)};
    }

    return function visible(el) {
      if (!el.checkVisibility({opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true})) return false;
      if (hiddenSubtree(el)) return false;
      const r = el.getBoundingClientRect();
      if (!(r.width > 0 && r.height > 0)) return false;
      // Off the document's scrollable area (the off-screen hiding idiom).
      if (r.right + sx <= 0 || r.bottom + sy <= 0) return false;
      const style = getComputedStyle(el);
      if (zeroClip(style)) return false;
      const p = flatParent(el);
      const clip = p ? clipOf(p) : null;
      if (clip === 'none') return false;
      if (clip && (r.right <= clip.l || r.left >= clip.r || r.bottom <= clip.t || r.top >= clip.b)) return false;
      return true;
    };
  }

  // ---- controls (ADR-0157) -----------------------------------------------------

  // collectControls acquires at most window+1 candidates (one lookahead)
  // starting at a candidate offset or right after an anchor, and only then
  // runs visibility and metadata work on the window.
  function collectControls(p, revision) {
    const maxVisible = Math.min(p.max_visible || MAX_VISIBLE, MAX_VISIBLE);
    const windowSize = Math.min(p.window || WINDOW, WINDOW);
    const maxOffset = Math.min(p.max_offset === undefined ? MAX_OFFSET : p.max_offset, MAX_OFFSET);
    let start = p.offset || 0;
    let anchor = null;
    if (p.after) {
      const entry = retained.get(p.after.revision);
      if (!entry) return {error: 'anchor_unknown'};
      anchor = entry.nodes[p.after.index];
      if (!anchor) return {error: 'anchor_unknown'};
      if (!anchor.isConnected) return {error: 'anchor_detached'};
      if (flatParent(anchor) !== entry.parents[p.after.index]) return {error: 'anchor_moved'};
      start = -1;
    }
    if (start > maxOffset) {
      return {controls: [], nodes: [], parents: [], coverage: {offset: start, scanned: 0, more: true, limit: 'offset'}};
    }

    const acquired = [];
    let position = 0;
    const nodeBound = walkElements((el) => {
      if (!controlRole(el)) return false;
      if (start < 0) {
        if (el === anchor) start = position + 1;
        position++;
        // An anchor further than any window could reach has moved.
        return position > maxOffset + windowSize + 1;
      }
      if (position >= start) acquired.push(el);
      position++;
      return acquired.length > windowSize;
    }, SCAN_NODES);
    if (start < 0) return {error: 'anchor_moved'};
    if (start > maxOffset) {
      return {controls: [], nodes: [], parents: [], coverage: {offset: start, scanned: 0, more: true, limit: 'offset'}};
    }

    const visible = visibilityChecker();
    const focused = deepActiveElement();
    const controls = [];
    const nodes = [];
    const parents = [];
    let scanned = 0;
    const limit = Math.min(acquired.length, windowSize);
    while (scanned < limit && controls.length < maxVisible) {
      const el = acquired[scanned];
      scanned++;
      if (!visible(el)) continue;
      const role = controlRole(el);
      const [name, truncated] = cut(accessibleName(el, role), MAX_NAME);
      controls.push({role, name, name_truncated: truncated, position: start + scanned - 1,
        states: states(el, role, focused)});
      nodes.push(el);
      parents.push(flatParent(el));
    }
    // The node bound leaves unknown content: more, and terminal.
    const more = acquired.length > scanned || (nodeBound && scanned === acquired.length);
    let lim = '';
    if (more) lim = controls.length >= maxVisible ? 'controls' : acquired.length > scanned ? 'window' : 'nodes';
    if (more && start + scanned > maxOffset) lim = 'offset';
    return {controls, nodes, parents, coverage: {offset: start, scanned, more, limit: lim, acquired: acquired.length}};
  }

  // ---- regions (ADR-0160) -------------------------------------------------------

  const REGION_NODES = 8192; // main-document nodes scanned
  const MAX_REGIONS = 32;
  const SUMMARY_NODES = 256; // descendants inspected per summary
  const SUMMARY_CHARS = 512; // UTF-16 units kept per summary
  const KIND_ORDER = ['dialog', 'alert', 'status', 'form', 'heading'];
  // Subtrees that give no prose: non-rendered, embedded documents, form
  // values and editable content.
  const NO_TEXT = new Set(['script', 'style', 'template', 'noscript', 'iframe', 'frame', 'object', 'embed',
    'input', 'textarea', 'select', 'option', 'datalist', 'head', 'title', 'meta', 'link']);
  const VALUE_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton']);

  function regionKind(el) {
    const role = (el.getAttribute('role') || '').trim().toLowerCase().split(/\s+/)[0];
    if (role === 'dialog' || role === 'alertdialog' || (el.localName === 'dialog' && el.open)) return 'dialog';
    if (role === 'alert') return 'alert';
    if (role === 'status') return 'status';
    if (role === 'form' || el.localName === 'form') return 'form';
    if (role === 'heading' || /^h[1-6]$/.test(el.localName)) return 'heading';
    return null;
  }

  // excludedSubtree: content that never becomes prose or summary text.
  function excludedSubtree(el) {
    if (NO_TEXT.has(el.localName)) return true;
    if (el.hasAttribute('hidden') || el.hasAttribute('inert') || el.getAttribute('aria-hidden') === 'true') return true;
    const ce = el.getAttribute('contenteditable');
    if (ce !== null && ce !== 'false') return true;
    const role = (el.getAttribute('role') || '').trim().toLowerCase();
    return VALUE_ROLES.has(role);
  }

  // summarize reads the visible text under a region, bounded in nodes and
  // units; truncated covers both bounds.
  const SPACE_AFTER = {nodeType: 0};
  // summarize builds the normalized summary as it goes, so each text node
  // costs its own length once and at most SUMMARY_CHARS + 1 are kept.
  function summarize(root, visible) {
    let text = '';
    let visits = 0;
    let truncated = false;
    const append = (raw) => {
      let t = raw.replace(/\s+/g, ' ');
      if ((text === '' || text.endsWith(' ')) && t.startsWith(' ')) t = t.slice(1);
      text += t;
      return text.length > SUMMARY_CHARS + 1;
    };
    const stack = [root.firstChild];
    while (stack.length) {
      const n = stack.pop();
      if (!n) continue;
      if (n === SPACE_AFTER) { append(' '); continue; }
      if (visits >= SUMMARY_NODES) { truncated = true; break; }
      visits++;
      if (n.nextSibling) stack.push(n.nextSibling);
      if (n.nodeType === 3) {
        if (!visible(n.parentElement)) continue;
        // Never read more of one text node than the summary could keep.
        const room = SUMMARY_CHARS + 2 - text.length;
        if (append(n.data.length > room ? n.data.slice(0, room) : n.data) || n.data.length > room) {
          truncated = true;
          break;
        }
        continue;
      }
      if (n.nodeType !== 1 || excludedSubtree(n)) continue;
      if (n.localName === 'button' || isBlockish(n)) {
        append(' ');
        stack.push(SPACE_AFTER);
      }
      if (n.firstChild) stack.push(n.firstChild);
    }
    const [summary, cutText] = cut(text.trim(), SUMMARY_CHARS);
    return [summary, truncated || cutText];
  }

  function isBlockish(el) {
    return BLOCK_TAGS.has(el.localName);
  }

  const BLOCK_TAGS = new Set(['address', 'article', 'aside', 'blockquote', 'dd', 'details', 'dialog', 'div', 'dl', 'dt',
    'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li',
    'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'thead', 'tfoot', 'tr', 'ul', 'br',
    'caption', 'legend', 'menu', 'search', 'body', 'html']);

  function collectRegions() {
    const visibleEl = visibilityChecker();
    const matches = [];
    let scanned = 0;
    let limited = false;
    const stack = [document.documentElement];
    while (stack.length) {
      const n = stack.pop();
      if (!n) continue;
      if (scanned >= REGION_NODES) { limited = true; break; }
      scanned++;
      if (n.nextSibling) stack.push(n.nextSibling);
      if (n.nodeType !== 1) continue;
      if (excludedSubtree(n) && n.localName !== 'form') continue;
      const kind = regionKind(n);
      if (kind && visibleEl(n)) matches.push({kind, el: n, order: matches.length});
      if (n.firstChild) stack.push(n.firstChild); // no shadow roots, no frames
    }
    matches.sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || a.order - b.order);
    const regions = [];
    for (const m of matches.slice(0, MAX_REGIONS)) {
      const [summary, truncated] = summarize(m.el, visibleEl);
      const r = {kind: m.kind, summary, summary_truncated: truncated};
      if (m.kind === 'heading') {
        const lvl = parseInt(m.el.getAttribute('aria-level') || m.el.localName.slice(1), 10);
        if (lvl >= 1 && lvl <= 9) r.level = lvl;
      }
      regions.push(r);
    }
    return {regions, coverage: {version: 1, scope: 'main_document', scanned_nodes: scanned,
      node_limit_reached: limited, omitted: Math.max(0, matches.length - MAX_REGIONS)}};
  }

  // ---- readable text (ADR-0162) ---------------------------------------------------

  const TEXT_NODES = 8192; // node visits, slot checks included
  const TEXT_UNITS = 262144; // UTF-16 units inspected
  const TEXT_BYTES = 262144; // UTF-8 bytes returned
  const CELL_TAGS = new Set(['td', 'th']);

  // The text byte bound counts each part as serialized: a JSON string
  // (UTF-8, with quotes, backslashes and control characters escaped) and
  // its separator. charCost is one UTF-16 unit's share of that.
  function charCost(s, i) {
    const c = s.charCodeAt(i);
    if (c === 0x22 || c === 0x5c || c === 0x08 || c === 0x0c || c === 0x0a || c === 0x0d || c === 0x09) return [2, 1];
    if (c < 0x20) return [6, 1];
    if (c < 0x80) return [1, 1];
    if (c < 0x800) return [2, 1];
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) return [4, 2];
    return [3, 1];
  }
  const PART_OVERHEAD = 3; // two quotes and a comma

  function partCost(s) {
    let n = PART_OVERHEAD;
    for (let i = 0; i < s.length;) {
      const [w, step] = charCost(s, i);
      n += w;
      i += step;
    }
    return n;
  }

  // cutCost keeps the longest prefix of s whose part costs at most max,
  // never splitting a surrogate pair.
  function cutCost(s, max) {
    let n = PART_OVERHEAD;
    for (let i = 0; i < s.length;) {
      const [w, step] = charCost(s, i);
      if (n + w > max) return s.slice(0, i);
      n += w;
      i += step;
    }
    return s;
  }

  // clippedAway: the idioms that hide content from sight but not from the
  // DOM: a zero-area clip, a zero-size box that hides its overflow, and a
  // positioned box moved off the document.
  function clippedAway(el, st) {
    const c = st.clip;
    if (c && c.startsWith('rect(')) {
      const v = c.slice(5, -1).split(/[ ,]+/).map(parseFloat);
      if (v.length === 4 && (v[1] - v[3] <= 0 || v[2] - v[0] <= 0)) return true;
    }
    if (st.clipPath && /^inset\((50|100)%/.test(st.clipPath)) return true;
    const hides = st.overflowX === 'hidden' || st.overflowX === 'clip';
    const positioned = st.position === 'absolute' || st.position === 'fixed';
    if (!hides && !positioned) return false;
    const r = el.getBoundingClientRect();
    if (hides && (r.width === 0 || r.height === 0)) return true;
    return positioned && (r.right + window.scrollX <= 0 || r.bottom + window.scrollY <= 0);
  }

  // collectText walks the flat tree of the main document (open shadow roots
  // in place of their hosts' light children, slots expanded to what they
  // render) iteratively. It never reads innerText, a value or an attribute.
  function collectText() {
    const parts = [];
    let line = '';
    let bytes = 0;
    let visits = 0;
    let units = 0;
    let nodeLimit = false;
    let unitLimit = false;
    let byteLimit = false;
    let omitted = 0;
    let pendingBreak = false; // a block or cell boundary waits for the next text
    let pendingSep = '';
    let lastSpace = true; // collapse whitespace across inline boundaries

    function flush() {
      const t = line.replace(/[ \t]+\n/g, '\n').trim();
      line = '';
      lastSpace = true;
      if (!t || byteLimit) return;
      const size = partCost(t);
      if (bytes + size > TEXT_BYTES) {
        const kept = cutCost(t, TEXT_BYTES - bytes);
        if (kept) {
          parts.push(kept);
          bytes += partCost(kept);
        }
        // Known omission: the rest of this part, never past the bound.
        omitted = Math.min(size - (kept ? partCost(kept) : 0), TEXT_BYTES - bytes);
        byteLimit = true;
        return;
      }
      parts.push(t);
      bytes += size;
    }

    function emit(raw, pre) {
      if (pendingBreak) { flush(); pendingBreak = false; pendingSep = ''; }
      if (pendingSep) {
        if (line) line += pendingSep;
        pendingSep = '';
        lastSpace = true;
      }
      if (pre) {
        line += raw;
        lastSpace = /\s$/.test(raw);
        return;
      }
      let t = raw.replace(/[\t\n\r\f ]+/g, ' ');
      if (lastSpace && t.startsWith(' ')) t = t.slice(1);
      if (!t) return;
      line += t;
      lastSpace = t.endsWith(' ');
    }

    // The stack holds [node, mark, visible, pre]: what a text node needs is
    // inherited from its flat-tree parent, so each element's style is read
    // once, on the way down. visible: the parent's computed visibility is
    // visible and no ancestor is fully transparent; pre: whitespace is kept.
    const CLOSE = 1;
    const root = document.documentElement;
    const stack = [[root, 0, true, false]];
    while (stack.length && !byteLimit) {
      const [n, mark, shown, pre] = stack.pop();
      if (mark === CLOSE) {
        if (CELL_TAGS.has(n.localName)) pendingSep = '\t';
        else pendingBreak = true;
        continue;
      }
      if (visits >= TEXT_NODES) { nodeLimit = true; break; }
      visits++;
      if (n.nodeType === 3) {
        if (!shown) continue;
        let data = n.data;
        if (units + data.length > TEXT_UNITS) {
          data = cut(data, TEXT_UNITS - units)[0];
          unitLimit = true;
        }
        units += data.length;
        emit(data, pre);
        if (unitLimit) break;
        continue;
      }
      if (n.nodeType !== 1 || excludedSubtree(n)) continue;
      const tag = n.localName;
      const st = getComputedStyle(n);
      const display = st.display;
      if (display === 'none' || st.contentVisibility === 'hidden') continue;
      if (tag === 'br') { if (shown) emit('\n', true); continue; }
      const ws = st.whiteSpace;
      const kidPre = ws === 'pre' || ws === 'pre-wrap' || ws === 'break-spaces' || ws === 'pre-line';
      const kidShown = shown && st.opacity !== '0' && st.visibility === 'visible' && !clippedAway(n, st);
      const block = display !== 'inline' && display !== 'contents' && !display.startsWith('inline');
      const cell = CELL_TAGS.has(tag) || display === 'table-cell';
      if (block && !cell) pendingBreak = true;
      if (block || cell) stack.push([n, CLOSE]);
      // Children, last first, from the flat tree; slot assignment checks
      // count against the visit budget.
      const kids = flatChildren(n, TEXT_NODES - visits);
      visits += kids.visits;
      if (kids.more) nodeLimit = true; // children the budget left unread
      for (let i = kids.nodes.length - 1; i >= 0; i--) stack.push([kids.nodes[i], 0, kidShown, kidPre]);
    }
    if (stack.length && !nodeLimit && !unitLimit && !byteLimit) nodeLimit = true;
    flush();
    return {parts, coverage: {version: 1, scope: 'main_document_and_open_shadow_roots', scanned_nodes: visits,
      inspected_units: units, node_limit_reached: nodeLimit, text_limit_reached: unitLimit,
      byte_limit_reached: byteLimit, omitted_bytes: omitted}};
  }



  // ---- draft receipt (ADR-0162) -------------------------------------------------

  const DRAFT_NODES = 256;
  const DRAFT_UNITS = 4096;
  let draftEditor = null; // WeakRef: one receipt at a time, never keeping the editor alive

  // bindDraft binds the receipt to a retained editor and says whether it
  // was already bound to it (the agent typed into it again).
  function bindDraft(p) {
    const el = retainedNode(p);
    if (!el) return {ok: false};
    const same = !!draftEditor && draftEditor.deref() === el;
    draftEditor = new WeakRef(el);
    return {ok: true, same};
  }

  // checkDraft compares the bound editor with the known value and returns
  // only the verdict: the editor's text never leaves the page.
  function checkDraft(p) {
    const el = draftEditor && draftEditor.deref();
    if (!el || !el.isConnected) return 'gone';
    if (!visibilityChecker()(el)) return 'hidden';
    const type = (el.getAttribute('type') || '').toLowerCase();
    const ac = (el.getAttribute('autocomplete') || '').toLowerCase();
    if (type === 'password' || ac.includes('password') || ac.includes('one-time-code') || ac.startsWith('cc-')) return 'credential';
    let nodes = 0;
    let units = 0;
    let text = '';
    const stack = [el.firstChild];
    while (stack.length) {
      const n = stack.pop();
      if (!n) continue;
      if (++nodes > DRAFT_NODES) return 'oversized';
      if (n.nextSibling) stack.push(n.nextSibling);
      if (n.nodeType === 3) {
        units += n.data.length;
        if (units > DRAFT_UNITS) return 'oversized';
        text += n.data;
      } else if (n.nodeType === 1) {
        if (n.localName === 'br' || isBlockish(n)) text += '\n';
        if (n.firstChild) stack.push(n.firstChild);
      }
    }
    return clean(text) === clean(p.value) ? 'match' : 'changed';
  }

  // observe is the one entry point Go calls for an observation. It binds the
  // retained nodes to the revision Go minted, so a failed observation never
  // replaces the previous revision's nodes.
  function observe(p) {
    if (p.doc && p.doc !== docId) return {error: 'document_changed', doc: docId};
    const c = collectControls(p, p.revision);
    if (c.error) return {error: c.error, doc: docId};
    retained.set(p.revision, {nodes: c.nodes, parents: c.parents});
    while (retained.size > KEEP_REVISIONS) retained.delete(retained.keys().next().value);
    const regions = collectRegions();
    const text = collectText();
    const draft = p.draft ? checkDraft(p.draft) : '';
    const [title, titleCut] = cut(document.title || '', MAX_TITLE);
    const [href, hrefCut] = cut(location.href, MAX_URL);
    return {
      doc: docId,
      url: href,
      url_truncated: hrefCut,
      origin: location.origin,
      title,
      title_truncated: titleCut,
      controls: c.controls,
      control_coverage: c.coverage,
      regions: regions.regions,
      region_coverage: regions.coverage,
      text: text.parts,
      text_coverage: text.coverage,
      draft,
    };
  }

  // ---- actions (SPEC §6) -------------------------------------------------------

  // formName names a control's form for approval facts: its accessible name,
  // else its id or name attribute, else its action path.
  function formName(form) {
    if (!form) return '';
    const n = labelledBy(form) || clean(form.getAttribute('aria-label') || '');
    if (n) return cut(n, MAX_NAME)[0];
    const id = form.getAttribute('id') || form.getAttribute('name');
    if (id) return cut('#' + id, MAX_NAME)[0];
    try {
      return cut(new URL(form.action, location.href).pathname, MAX_NAME)[0];
    } catch (e) {
      return 'form';
    }
  }

  function submitsForm(el) {
    const t = (el.getAttribute('type') || '').toLowerCase();
    if (el.localName === 'button') return !!el.form && (t === '' || t === 'submit');
    if (el.localName === 'input') return !!el.form && (t === 'submit' || t === 'image');
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

  function within(node, ancestor) {
    for (let n = node; n; n = flatParent(n)) if (n === ancestor) return true;
    return false;
  }

  // retainedNode is the control a revision retained at an index, or null.
  function retainedNode(p) {
    const entry = retained.get(p.revision);
    return (entry && entry.nodes[p.index]) || null;
  }

  // prepare runs the live guards of an action on a retained control and
  // returns its independent label facts and, for pointer actions, the point
  // to click. It never reads a value.
  function prepare(p) {
    if (p.doc && p.doc !== docId) return {error: 'document_changed'};
    const el = retainedNode(p);
    if (!el) return {error: 'stale'};
    if (!el.isConnected) return {error: 'detached'};
    const role = controlRole(el) || '';
    const [name] = cut(accessibleName(el, role), MAX_NAME);
    const st = states(el, role, deepActiveElement());
    const facts = {role, name, form: formName(el.form || el.closest('form')), submit: submitsForm(el),
      file: el.localName === 'input' && (el.getAttribute('type') || '').toLowerCase() === 'file',
      editable: el.isContentEditable === true && el.localName !== 'input' && el.localName !== 'textarea',
      checked: st.checked, origin: location.origin};
    el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
    if (!visibilityChecker()(el)) return {error: 'hidden', facts};
    if (st.disabled) return {error: 'disabled', facts};
    const r = el.getClientRects()[0] || el.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    if (p.pointer) {
      const hit = hitTarget(x, y);
      if (!hit || !within(hit, el)) return {error: 'covered', facts};
    }
    if (p.editable && !(el.isContentEditable || ((el.localName === 'input' || el.localName === 'textarea') && !el.readOnly))) {
      return {error: 'not_editable', facts};
    }
    if (p.focus) {
      el.focus({preventScroll: true});
      if ((el.localName === 'input' || el.localName === 'textarea') && typeof el.setSelectionRange === 'function') {
        try { el.setSelectionRange(el.value.length, el.value.length); } catch (e) { /* types without a caret */ }
      }
      if (!within(deepActiveElement(), el)) return {error: 'unfocusable', facts};
    }
    return {facts, x, y};
  }

  // The input guard: while an action is armed, a trusted input event whose
  // target is not the armed control is stopped before any page listener
  // sees it (this world's capture listeners on window are registered before
  // the page's scripts run). A page that moves or refocuses between the
  // guard check and the dispatch cannot have the input land elsewhere. The
  // confirming event (a click; a keydown or beforeinput) proves delivery.
  const guard = {node: null, kind: '', hits: 0, confirmed: 0, blocked: 0};
  const GUARDED = {
    pointer: ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'auxclick', 'dblclick', 'contextmenu'],
    keyboard: ['keydown', 'keypress', 'keyup', 'beforeinput'],
  };
  const CONFIRMING = new Set(['click', 'keydown', 'beforeinput']);
  for (const kind of Object.keys(GUARDED)) {
    for (const type of GUARDED[kind]) {
      window.addEventListener(type, (ev) => {
        if (!guard.node || guard.kind !== kind || !ev.isTrusted) return;
        if (ev.composedPath().includes(guard.node)) {
          guard.hits++;
          if (CONFIRMING.has(type)) guard.confirmed++;
          return;
        }
        guard.blocked++;
        ev.stopImmediatePropagation();
        ev.preventDefault();
      }, true);
    }
  }

  // arm checks, at the last moment before dispatch, that the point still
  // hits the control (pointer) or that focus is still inside it (keyboard),
  // then arms the guard for it.
  function arm(p) {
    const el = retainedNode(p);
    if (!el || !el.isConnected) return {error: 'detached'};
    if (p.kind === 'pointer') {
      const hit = hitTarget(p.x, p.y);
      if (!hit || !within(hit, el)) return {error: 'covered'};
    } else if (!within(deepActiveElement(), el)) {
      return {error: 'unfocusable'};
    }
    Object.assign(guard, {node: el, kind: p.kind, hits: 0, confirmed: 0, blocked: 0});
    return {ok: true};
  }

  function disarm() {
    const r = {hits: guard.hits, confirmed: guard.confirmed, blocked: guard.blocked};
    guard.node = null;
    return r;
  }

  // selectPlan finds the option of a <select> whose visible label is label
  // and says how many ArrowDown (positive) or ArrowUp (negative) presses
  // reach it from the current choice: enabled options only, as the keys
  // move. Far targets and multiple selects are chosen directly (synthetic).
  const MAX_ARROWS = 100;
  function selectPlan(p) {
    const el = retainedNode(p);
    if (!el || !el.isConnected) return {error: 'detached'};
    if (el.localName !== 'select') return {error: 'not_select'};
    const opts = el.options;
    let target = -1;
    for (let i = 0; i < opts.length && i < 65536; i++) {
      if (clean(opts[i].label || opts[i].textContent || '') === p.label) { target = i; break; }
    }
    if (target < 0) return {error: 'no_option'};
    if (opts[target].disabled) return {error: 'disabled'};
    const from = el.selectedIndex;
    let delta = 0;
    const step = target > from ? 1 : -1;
    for (let i = from + step; from >= 0 && i !== target + step; i += step) {
      if (!opts[i].disabled) delta += step;
    }
    if (from < 0 || el.multiple || Math.abs(delta) > MAX_ARROWS) {
      opts[target].selected = true;
      el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
      el.dispatchEvent(new Event('change', {bubbles: true}));
      return {direct: true};
    }
    return {delta};
  }

  // selectedLabel reports whether the select's choice is now label.
  function selectedIs(p) {
    const el = retainedNode(p);
    const o = el && el.selectedIndex >= 0 ? el.options[el.selectedIndex] : null;
    return !!o && clean(o.label || o.textContent || '') === p.label;
  }

  // node returns a retained control itself, for CDP calls that need a handle.
  const node = retainedNode;

  Object.defineProperty(globalThis, '__veetbrowser', {
    // retainedNodes is diagnostic: how many nodes the runtime keeps alive.
    value: Object.freeze({observe, prepare, arm, disarm, selectPlan, selectedIs, node, bindDraft, docId, retainedNodes: () => {
      let n = 0;
      for (const e of retained.values()) n += e.nodes.length;
      return n;
    }}),
  });
})();
