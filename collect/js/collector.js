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
  // size. It bounds one observation, not the page: a scan that stops at it
  // retains the last node it visited, and a cursor resumes the walk there.
  const SCAN_NODES = 262144;
  const MAX_NAME = 1024; // UTF-16 units of a control name kept in the canonical record
  // Approval facts keep a control's name whole up to MAX_FACT_NAME units (a
  // person approves what the page states, not a cut of it). nameCap is what
  // the naming functions read up to: MAX_NAME, except while inspect reads facts.
  const MAX_FACT_NAME = 8192;
  let nameCap = MAX_NAME;
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

  // walkElements continues a depth-first walk of the main document and its
  // open shadow roots, shadow children before light children, from stack
  // (the nodes still to visit, the next on top); a fresh walk starts with
  // [document.documentElement]. fn returns true to stop. The stack holds at
  // most one pending sibling per level. It visits at most maxNodes nodes and
  // reports whether that bound, not the end of the document or fn, stopped
  // it, and the last node it visited.
  function walkElements(fn, maxNodes, stack) {
    let visits = 0;
    let last = null;
    while (stack.length) {
      const n = stack.pop();
      if (!n) continue;
      if (visits >= maxNodes) return {bound: true, last};
      visits++;
      last = n;
      const next = n.nextSibling;
      if (next) stack.push(next);
      if (n.nodeType !== 1) continue;
      if (fn(n)) return {bound: false, last};
      const light = n.firstChild;
      if (light) stack.push(light);
      const sr = n.shadowRoot; // null for closed roots: they stay outside coverage
      if (sr && sr.firstChild) stack.push(sr.firstChild);
    }
    return {bound: false, last};
  }

  // walkParent is a node's parent in walkElements' traversal: the host of
  // the shadow root it is a child of, else its parent node.
  function walkParent(n) {
    const p = n.parentNode;
    return p && p.nodeType === 11 ? p.host || null : p;
  }

  // resumeStack rebuilds the stack walkElements held right after it visited
  // point.node, from the node's live ancestors: each level's pending sibling
  // (and, in a shadow tree, the host's light children). The point must still
  // be where it was retained: connected, under the same parent, and inside
  // the traversal (no closed root on the way up). The climb is bounded like
  // a scan.
  function resumeStack(point) {
    const n = point.node;
    if (!n.isConnected) return {error: 'anchor_detached'};
    if (walkParent(n) !== point.parent) return {error: 'anchor_moved'};
    const root = document.documentElement;
    const levels = [];
    for (let c = n; c !== root;) {
      const p = c.parentNode;
      if (!p || levels.length >= SCAN_NODES) return {error: 'anchor_moved'};
      if (p.nodeType === 9) {
        // A sibling of the root element: the walk reaches only those after it.
        if (!root || !(root.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING)) return {error: 'anchor_moved'};
        break;
      }
      if (p.nodeType === 11) {
        const host = p.host;
        if (!host || host.shadowRoot !== p) return {error: 'anchor_moved'}; // a closed root
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
    if (n.nextSibling) stack.push(n.nextSibling);
    if (n.nodeType === 1) {
      if (n.firstChild) stack.push(n.firstChild);
      const sr = n.shadowRoot;
      if (sr && sr.firstChild) stack.push(sr.firstChild);
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

  // ---- names (accname 1.2 and HTML-AAM, as Chromium applies them) -----------

  // Walk entries of textAlternative: a node with flags, a string to add, a
  // title held back until its element's content turns out empty, or SPACE.
  const SPACE = {};
  const IN_REF = 1; // inside an aria-labelledby traversal: no further aria-labelledby
  const WITH_HIDDEN = 2; // hidden nodes count: the directly referenced node is hidden
  const TEXT_HIDDEN = 4; // the parent is visibility:hidden, so its own text is not rendered
  const HTML_NS = 'http://www.w3.org/1999/xhtml'; // SVG and MathML elements have no ::before

  // textAlternative reads the text alternative of root in flat-tree order
  // (accname 2B-2I), bounded by NAME_NODES nodes, aria-labelledby targets
  // included, and nameCap+1 units. how says what root is:
  //  'content': the control being named; accessibleName consulted its own
  //    attributes, only its content is read;
  //  'labelledby': the control whose aria-labelledby targets are read (''
  //    without a target). Each target counts with its own aria-label,
  //    native alternative, content and title, follows no aria-labelledby
  //    further, and keeps its hidden descendants only if the target itself
  //    is hidden (accname 2A);
  //  'label': a label of skip, read whole without skip.
  // Form values and editable content are never read (accname 2E would).
  function textAlternative(root, how, skip) {
    const parts = [];
    let units = 0;
    let solid = 0; // strings added that are not all whitespace
    let visits = 0;
    const add = (t, spaced) => {
      const d = t.slice(0, nameCap + 1 - units); // never more than a name can keep
      if (spaced) parts.push(' ');
      parts.push(d);
      if (spaced) parts.push(' ');
      units += d.length;
      if (d.trim()) solid++;
    };
    const stack = [];
    if (how === 'labelledby') {
      if (!pushTargets(stack, root)) return '';
    } else {
      stack.push({n: root, f: 0});
    }
    while (stack.length && visits < NAME_NODES && units <= nameCap) {
      const e = stack.pop();
      if (e === SPACE) { parts.push(' '); continue; }
      if (e.text !== undefined) {
        if (e.unless === undefined || e.unless === solid) add(e.text, e.spaced);
        continue;
      }
      const n = e.n;
      visits++;
      const f = e.target && hiddenTarget(n) ? e.f | WITH_HIDDEN : e.f;
      if (n.nodeType === 3) {
        if (!(f & TEXT_HIDDEN)) add(n.data);
        continue;
      }
      if (n.nodeType !== 1 || n === skip || valueBearing(n)) continue;
      const tag = n.localName;
      const whole = n === root && how === 'content';
      if (tag === 'script' || tag === 'style' || tag === 'template' || tag === 'noscript') continue;
      const st = getComputedStyle(n);
      const contents = st.display === 'contents';
      // checkVisibility says false for display:contents (no box of its own,
      // slots included), yet its children are rendered.
      const rendered = st.display !== 'none' && (contents || n.checkVisibility());
      if (!(f & WITH_HIDDEN) && !whole && (!rendered || n.getAttribute('aria-hidden') === 'true')) continue;
      // A visibility:hidden element adds nothing of its own, but a
      // descendant may be visible again.
      const invisible = st.visibility !== 'visible' && !(f & WITH_HIDDEN);
      const inner = (f & (IN_REF | WITH_HIDDEN)) | (invisible ? TEXT_HIDDEN : 0);
      if (!whole && !invisible) {
        if (!(f & IN_REF) && pushTargets(stack, n)) continue;
        // Chromium takes no name from a slot's aria-label: a slot is not
        // rendered, the content assigned to it is.
        const label = tag === 'slot' ? '' : n.getAttribute('aria-label');
        if (label && label.trim()) { add(label, true); continue; }
        const alt = nativeAlternative(n);
        if (alt !== null) { add(alt, true); continue; }
        if (tag === 'br') { parts.push(' '); continue; }
      }
      const block = !whole && blockLike(st.display);
      if (block) {
        parts.push(' ');
        stack.push(SPACE);
      }
      // A title names an element whose content gives nothing (accname 2I).
      const title = whole || invisible ? '' : n.getAttribute('title');
      if (title && title.trim()) stack.push({text: title, spaced: true, unless: solid});
      // Reading ::before and ::after makes the engine resolve their style,
      // dearer than a node: each read counts as a visit.
      const pseudo = rendered && n.namespaceURI === HTML_NS && visits + 2 <= NAME_NODES;
      if (pseudo) visits += 2;
      const after = pseudo ? generatedText(n, '::after') : null;
      if (after) stack.push(after);
      const kids = flatChildren(n, NAME_NODES - visits);
      visits += kids.visits;
      for (let i = kids.nodes.length - 1; i >= 0; i--) stack.push({n: kids.nodes[i], f: inner});
      const before = pseudo ? generatedText(n, '::before') : null;
      if (before) stack.push(before);
    }
    return clean(parts.join(''));
  }

  // labelledByIds is an element's aria-labelledby, or the aria-labeledby
  // spelling browsers also accept.
  function labelledByIds(el) {
    const ids = el.getAttribute('aria-labelledby');
    return (ids === null ? el.getAttribute('aria-labeledby') || '' : ids).trim();
  }

  // pushTargets puts the elements el's aria-labelledby references (at most
  // MAX_LABEL_IDS ids) on a textAlternative stack, first on top, and says
  // whether there was any.
  function pushTargets(stack, el) {
    const ids = labelledByIds(el);
    if (!ids) return false;
    const root = el.getRootNode();
    const targets = [];
    for (const id of ids.split(/\s+/, MAX_LABEL_IDS)) {
      const ref = root.getElementById ? root.getElementById(id) : document.getElementById(id);
      if (ref) targets.push(ref);
    }
    for (let i = targets.length - 1; i >= 0; i--) {
      stack.push(SPACE);
      stack.push({n: targets[i], f: IN_REF, target: true});
    }
    return targets.length > 0;
  }

  // hiddenTarget: an aria-labelledby target that is itself hidden, whose
  // hidden descendants then count too (accname 2A). A display:contents
  // target has no box of its own but is not hidden.
  function hiddenTarget(el) {
    if (el.nodeType !== 1) return false;
    if (el.closest('[aria-hidden="true"]')) return true;
    if (getComputedStyle(el).display === 'contents') return false;
    return !el.checkVisibility({visibilityProperty: true});
  }

  // nativeAlternative is the text alternative an element's markup defines
  // for it (accname 2D), or null: an image's alt, an SVG's <title> (the
  // text of its first NAME_NODES children).
  function nativeAlternative(el) {
    const tag = el.localName;
    if (tag === 'img' || tag === 'area') return el.getAttribute('alt');
    if (tag !== 'svg') return null;
    let title = el.firstElementChild;
    for (let i = 0; title && title.localName !== 'title' && i < NAME_NODES; i++) title = title.nextElementSibling;
    if (!title || title.localName !== 'title') return null;
    let text = '';
    for (let c = title.firstChild, i = 0; c && i < NAME_NODES && text.length <= nameCap; c = c.nextSibling, i++) {
      if (c.nodeType === 3) text += c.data.slice(0, nameCap + 1 - text.length);
    }
    return text;
  }

  function blockLike(display) {
    // Chromium separates inline-block, inline-flex and the like with spaces too.
    return display !== 'inline' && display !== 'contents' && display !== 'none';
  }

  // generatedText is the walk entry for el's ::before or ::after content
  // (accname 2F.ii), or null. Only the simple form is read: quoted strings,
  // or the alternative text after '/' (CSS Content 3). Counters, quotes,
  // images and attr() give nothing: attributes are not prose. At most
  // GENERATED_SCAN characters of the serialized value are parsed.
  const GENERATED_SCAN = 16 * (MAX_NAME + 1);
  function generatedText(el, which) {
    const st = getComputedStyle(el, which);
    const c = st.content;
    if (!c || c[0] !== '"' || st.display === 'none' || st.visibility !== 'visible') return null;
    const end = Math.min(c.length, GENERATED_SCAN);
    let text = '';
    let alt = null;
    let i = 0;
    while (i < end) {
      const ch = c[i];
      if (ch === ' ') { i++; continue; }
      if (ch === '/' && alt === null) { alt = ''; i++; continue; }
      if (ch !== '"') return null;
      let s = '';
      for (i++; i < end && c[i] !== '"';) {
        if (c[i] !== '\\') { s += c[i++]; continue; }
        const hex = /^[0-9a-fA-F]{1,6} ?/.exec(c.slice(i + 1, i + 8));
        if (hex) {
          const cp = parseInt(hex[0], 16);
          s += cp > 0 && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) ? String.fromCodePoint(cp) : '\ufffd';
          i += 1 + hex[0].length;
        } else {
          s += c[i + 1] || '';
          i += 2;
        }
      }
      i++;
      if (alt === null) text += s; else alt += s;
    }
    const t = alt === null ? text : alt;
    return t ? {text: t.slice(0, nameCap + 1), spaced: blockLike(st.display)} : null;
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


  const MAX_LABEL_IDS = 16;

  // labelledBy is the text of the elements el's aria-labelledby references.
  function labelledBy(el) {
    return textAlternative(el, 'labelledby');
  }

  // accessibleName follows the order Chromium applies to the sources SPEC
  // §3.1 names (accname 1.2 with HTML-AAM). Input values are never read; a
  // button input's value attribute is its printed label, not user data.
  function accessibleName(el, role) {
    let name = labelledBy(el);
    if (name) return name;
    name = clean(el.getAttribute('aria-label') || '');
    if (name) return name;
    const tag = el.localName;
    const type = tag === 'input' ? (el.getAttribute('type') || '').toLowerCase() : '';
    if (tag === 'img' || tag === 'area' || type === 'image') {
      name = clean(el.getAttribute('alt') || '');
      if (name) return name;
    }
    // HTML-AAM: a button input's labels come before its value.
    name = labelsText(el);
    if (name) return name;
    if (type === 'button' || type === 'submit' || type === 'reset') {
      name = clean(el.getAttribute('value') || '');
      if (name) return name;
      if (type === 'submit') return 'Submit';
      if (type === 'reset') return 'Reset';
    }
    if (NAME_FROM_CONTENT.has(role) || tag === 'summary') {
      name = textAlternative(el, 'content');
      if (name) return name;
    }
    name = clean(el.getAttribute('title') || '');
    if (name) return name;
    if (type === 'image') return 'Submit';
    return clean(el.getAttribute('placeholder') || el.getAttribute('aria-placeholder') || '');
  }

  // labelsText joins the text of el's <label> elements in document order,
  // at most MAX_LABEL_IDS of them; a label never includes el's own content.
  function labelsText(el) {
    if (!el.labels) return '';
    const parts = [];
    let units = 0;
    for (const label of el.labels) {
      if (parts.length >= MAX_LABEL_IDS || units > nameCap) break;
      const text = textAlternative(label, 'label', el);
      parts.push(text);
      units += text.length;
    }
    return clean(parts.join(' '));
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

  // visibilityChecker is the one definition of hidden for every collector.
  // Its facts are memoized per element for one collection, and every
  // ancestor fact is computed top-down along the flat tree once, so shared
  // ancestors are inspected once and no check walks further up than the
  // nearest ancestor already known.
  //
  // The function it returns says whether an element is a visible box
  // (controls, regions, action guards); its showsText says whether the text
  // children of an element are visibly rendered (readable text, summaries).
  function visibilityChecker() {
    const hiddenMemo = new Map(); // bit 1: hidden, inert or aria-hidden; bit 2: inside the blocking modal dialog
    const clipMemo = new Map();
    const textMemo = new Map();
    const renderedMemo = new Map();
    const sx = window.scrollX;
    const sy = window.scrollY;
    const modal = blockingModal();

    // blockingModal is the modal dialog (showModal) that makes the rest of
    // the document inert: the topmost one, whose backdrop covers the
    // viewport, found by hit-testing its corner (bounded: one hit test and
    // one ancestor climb), or null.
    function blockingModal() {
      let n = hitTarget(0, 0);
      for (let steps = 0; n && steps < SCAN_NODES; steps++, n = flatParent(n)) {
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
        if (e.hasAttribute('hidden') || e.hasAttribute('inert') || e.getAttribute('aria-hidden') === 'true') bits |= 1;
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
          const st = getComputedStyle(e);
          if (collapsed(st, e)) {
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

    // outside: the box lies entirely outside the clip its ancestors leave,
    // or left of or above the document (the off-screen hiding idiom).
    function outside(el, r) {
      if (r.right + sx <= 0 || r.bottom + sy <= 0) return true;
      const p = flatParent(el);
      const clip = p ? clipOf(p) : null;
      if (clip === 'none') return true;
      return !!clip && (r.right <= clip.l || r.left >= clip.r || r.bottom <= clip.t || r.top >= clip.b);
    }

    function visible(el) {
      if (!el.checkVisibility({opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true})) return false;
      if (hiddenSubtree(el)) return false;
      const r = el.getBoundingClientRect();
      if (!(r.width > 0 && r.height > 0)) return false;
      const style = getComputedStyle(el);
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
      for (let s = st; n; s = n && getComputedStyle(n)) {
        const m = renderedMemo.get(n);
        if (m !== undefined) { v = m; break; }
        if (s.display !== 'contents') {
          v = n.checkVisibility({opacityProperty: true, visibilityProperty: true});
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
      const st = getComputedStyle(el);
      v = st.display !== '' && st.fontSize !== '0px' && rendered(el, st) && !hiddenSubtree(el) &&
        !(el.localName === 'details' && !el.open) && clipOf(el) !== 'none';
      if (v && st.display !== 'contents') {
        const r = el.getBoundingClientRect();
        const positioned = st.position === 'absolute' || st.position === 'fixed';
        // A box outside its clip hides its text; a static box of zero size
        // still shows text overflowing it, so only positioned boxes count
        // as off the document.
        if (positioned || r.width > 0 || r.height > 0) v = !outside(el, r);
      }
      if (v) v = laidOutText(el);
      textMemo.set(el, v);
      return v;
    }

    // laidOutText: the first non-blank text child of el has a layout box.
    // A host's text children are all slotted or none (only the default slot
    // takes text), so one child answers for all; other elements' text is
    // laid out whenever they are.
    function laidOutText(el) {
      let c = el.firstChild;
      for (let i = 0; c && i < NAME_NODES; i++, c = c.nextSibling) {
        if (c.nodeType === 3 && /\S/.test(c.data)) {
          const range = document.createRange();
          range.selectNodeContents(c);
          return range.getClientRects().length > 0;
        }
      }
      return true;
    }

    visible.showsText = showsText;
    return visible;
  }

  function intersect(a, b) {
    return {l: Math.max(a.l, b.l), t: Math.max(a.t, b.t), r: Math.min(a.r, b.r), b: Math.min(a.b, b.b)};
  }

  // collapsed: the element and everything in it paint nothing: a clip
  // rect or clip-path of zero area, or a transform that flattens it
  // (scale(0) on either axis).
  function collapsed(st, el) {
    const c = st.clip;
    if (c && c.startsWith('rect(')) {
      const v = c.slice(5, -1).split(/[ ,]+/).map(parseFloat);
      if (v.length === 4 && (v[1] - v[3] <= 0 || v[2] - v[0] <= 0)) return true;
    }
    const t = st.transform;
    if (t && t.startsWith('matrix(')) {
      const m = t.slice(7, -1).split(',').map(parseFloat);
      if (m.length === 6 && m[0] * m[3] - m[1] * m[2] === 0) return true;
    } else if (t && t.startsWith('matrix3d(')) {
      const m = t.slice(9, -1).split(',').map(parseFloat);
      if (m.length === 16 && m[0] * m[5] - m[1] * m[4] === 0) return true;
    }
    const sc = st.scale;
    if (sc && sc !== 'none' && sc.split(/\s+/).slice(0, 2).some((x) => parseFloat(x) === 0)) return true;
    return degenerateClipPath(st.clipPath, el);
  }

  // degenerateClipPath: a basic-shape clip-path that leaves no area:
  // circle(0), ellipse with a zero radius, an inset whose sides meet, a
  // polygon of zero area. Lengths other than px and % are not resolved:
  // such shapes count as visible.
  function degenerateClipPath(cp, el) {
    if (!cp || cp === 'none') return false;
    const m = /^(circle|ellipse|inset|polygon)\((.*)\)/.exec(cp);
    if (!m) return false;
    let w = 0;
    let h = 0;
    if (m[1] === 'inset' || m[2].includes('%')) {
      const r = el.getBoundingClientRect();
      w = r.width;
      h = r.height;
    }
    const len = (s, basis) => {
      if (/^-?[\d.]+px$/.test(s)) return parseFloat(s);
      if (/^-?[\d.]+%$/.test(s)) return parseFloat(s) * basis / 100;
      return s === '0' ? 0 : NaN;
    };
    const args = m[2].split(' at ')[0].trim();
    switch (m[1]) {
      case 'circle':
        return len(args.split(/\s+/)[0], Math.hypot(w, h) / Math.SQRT2) === 0;
      case 'ellipse': {
        const [rx, ry] = args.split(/\s+/);
        return len(rx, w) === 0 || len(ry, h) === 0;
      }
      case 'inset': {
        const v = args.split(' round ')[0].trim().split(/\s+/);
        const [t, r = t, b = t, l = r] = v;
        return len(t, h) + len(b, h) >= h || len(l, w) + len(r, w) >= w;
      }
      case 'polygon': {
        const pts = args.replace(/^(nonzero|evenodd)\s*,\s*/, '').split(',').map((pt) => {
          const [x, y] = pt.trim().split(/\s+/);
          return [len(x, w), len(y, h)];
        });
        let area = 0;
        for (let i = 0; i < pts.length; i++) {
          const [x1, y1] = pts[i];
          const [x2, y2] = pts[(i + 1) % pts.length];
          area += x1 * y2 - x2 * y1;
        }
        return area === 0;
      }
    }
    return false;
  }

  // blankText: a control drawn with a zero font size shows no label, unless
  // it draws something besides its own text: a native check box, radio,
  // slider, colour well or image, a background image, or, among its first
  // NAME_NODES nodes, a replaced element or an element that sets a font
  // size again (the idiom that zeroes a container's spacing).
  const BLANK_EXEMPT_INPUTS = new Set(['checkbox', 'radio', 'range', 'color', 'image']);
  const REPLACED = new Set(['img', 'svg', 'picture', 'video', 'canvas', 'object', 'embed', 'iframe']);
  function blankText(el, st) {
    if (st.fontSize !== '0px' || st.backgroundImage !== 'none') return false;
    if (REPLACED.has(el.localName)) return false;
    if (el.localName === 'input' && BLANK_EXEMPT_INPUTS.has((el.getAttribute('type') || '').toLowerCase())) return false;
    const stack = [el.firstChild];
    for (let visits = 0; stack.length && visits < NAME_NODES;) {
      const n = stack.pop();
      if (!n) continue;
      visits++;
      if (n.nextSibling) stack.push(n.nextSibling);
      if (n.nodeType !== 1) continue;
      if (REPLACED.has(n.localName) || getComputedStyle(n).fontSize !== '0px') return false;
      stack.push(n.firstChild);
    }
    return true;
  }

  // ---- controls (ADR-0157) -----------------------------------------------------

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
  function collectControls(p, revision) {
    const maxVisible = Math.min(p.max_visible || MAX_VISIBLE, MAX_VISIBLE);
    const windowSize = Math.min(p.window || WINDOW, WINDOW);
    const maxOffset = Math.min(p.max_offset === undefined ? MAX_OFFSET : p.max_offset, MAX_OFFSET);
    let start = p.offset || 0;
    let anchor = null;
    let origin = null; // the retained point the walk resumes after; null: the document's start
    if (p.after) {
      const entry = retained.get(p.after.revision);
      if (!entry) return {error: 'anchor_unknown'};
      anchor = entry.nodes[p.after.index];
      if (!anchor) return {error: 'anchor_unknown'};
      if (!anchor.isConnected) return {error: 'anchor_detached'};
      if (flatParent(anchor) !== entry.parents[p.after.index]) return {error: 'anchor_moved'};
      origin = entry.origin;
      start = -1;
    } else if (p.resume) {
      const entry = retained.get(p.resume.revision);
      origin = entry && (p.resume.from === 'stop' ? entry.stop : entry.origin);
      if (!origin) return {error: 'anchor_unknown'};
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
    const acquired = [];
    const walk = walkElements((el) => {
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
    }, SCAN_NODES, stack);
    if (start < 0) return {error: 'anchor_moved'};
    terminal.coverage.offset = start;
    if (start > maxOffset) return terminal;

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
    // The node bound leaves unknown content: more, resumed by a cursor from
    // the last node visited (every candidate before it was counted).
    const stopped = walk.bound && scanned === acquired.length;
    const more = acquired.length > scanned || stopped;
    let lim = '';
    if (more) lim = controls.length >= maxVisible ? 'controls' : acquired.length > scanned ? 'window' : 'nodes';
    if (more && start + scanned > maxOffset) lim = 'offset';
    // from says where the next window's walk starts: '' the document's
    // start, 'origin' this scan's origin, 'stop' where the node bound ended it.
    const from = stopped ? 'stop' : origin ? 'origin' : '';
    const stop = stopped ? {node: walk.last, parent: walkParent(walk.last), position} : null;
    return {controls, nodes, parents, origin, stop,
      coverage: {offset: start, scanned, more, limit: lim, acquired: acquired.length, from}};
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
        const parent = flatParent(n);
        if (!parent || !visible.showsText(parent)) continue;
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

    // The stack holds [node, mark, parent, pre]: parent is the node's
    // flat-tree parent, whose visibility checker facts say whether its text
    // shows; pre: whitespace is kept. Each element's style is read once, on
    // the way down.
    const CLOSE = 1;
    const vis = visibilityChecker();
    const root = document.documentElement;
    const stack = [[root, 0, null, false]];
    while (stack.length && !byteLimit) {
      const [n, mark, parent, pre] = stack.pop();
      if (mark === CLOSE) {
        if (CELL_TAGS.has(n.localName)) pendingSep = '\t';
        else pendingBreak = true;
        continue;
      }
      if (visits >= TEXT_NODES) { nodeLimit = true; break; }
      visits++;
      if (n.nodeType === 3) {
        if (!parent || !vis.showsText(parent)) continue;
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
      // Not rendered: display:none, content-visibility:hidden (a collapsed
      // <details>' content, hidden="until-found"), or no style at all (a
      // host's light child no slot takes).
      if (display === 'none' || display === '' || st.contentVisibility === 'hidden') continue;
      if (tag === 'br') { if (parent && vis.showsText(parent)) emit('\n', true); continue; }
      const ws = st.whiteSpace;
      const kidPre = ws === 'pre' || ws === 'pre-wrap' || ws === 'break-spaces' || ws === 'pre-line';
      const block = display !== 'inline' && display !== 'contents' && !display.startsWith('inline');
      const cell = CELL_TAGS.has(tag) || display === 'table-cell';
      if (block && !cell) pendingBreak = true;
      if (block || cell) stack.push([n, CLOSE]);
      // Children, last first, from the flat tree; slot assignment checks
      // count against the visit budget.
      const kids = flatChildren(n, TEXT_NODES - visits);
      visits += kids.visits;
      if (kids.more) nodeLimit = true; // children the budget left unread
      for (let i = kids.nodes.length - 1; i >= 0; i--) stack.push([kids.nodes[i], 0, n, kidPre]);
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
    // A revision retains its controls and the points its anchors and
    // cursors resume from.
    retained.set(p.revision, {nodes: c.nodes, parents: c.parents, origin: c.origin || null, stop: c.stop || null});
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

  // formName names a control's form for approval facts by its accessible
  // name only (aria-labelledby, aria-label, title), never by attribute
  // prose such as its id, name or action URL; an unnamed form is ''.
  function formName(form) {
    if (!form) return '';
    const n = labelledBy(form) || clean(form.getAttribute('aria-label') || '') || clean(form.getAttribute('title') || '');
    return cut(n, nameCap)[0];
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

  // inspect runs the read-only live guards of an action on a retained
  // control and returns its independent label facts. It changes nothing in
  // the page (no scroll, no focus, no event): authorization comes first.
  // It never reads a value.
  function inspect(p) {
    if (p.doc && p.doc !== docId) return {error: 'document_changed'};
    const el = retainedNode(p);
    if (!el) return {error: 'stale'};
    if (!el.isConnected) return {error: 'detached'};
    const role = controlRole(el) || '';
    let name, nameCut, form, formLabel;
    nameCap = MAX_FACT_NAME;
    try {
      [name, nameCut] = cut(accessibleName(el, role), MAX_FACT_NAME);
      form = el.form || el.closest('form');
      formLabel = formName(form);
    } finally {
      nameCap = MAX_NAME;
    }
    const st = states(el, role, deepActiveElement());
    const facts = {role, name, name_cut: nameCut, form: formLabel, in_form: !!form, submit: submitsForm(el),
      file: el.localName === 'input' && (el.getAttribute('type') || '').toLowerCase() === 'file',
      editable: el.isContentEditable === true && el.localName !== 'input' && el.localName !== 'textarea',
      checked: st.checked, origin: location.origin};
    if (!visibilityChecker()(el)) return {error: 'hidden', facts};
    if (st.disabled) return {error: 'disabled', facts};
    if (p.editable && !(el.isContentEditable || ((el.localName === 'input' || el.localName === 'textarea') && !el.readOnly))) {
      return {error: 'not_editable', facts};
    }
    return {facts};
  }

  // prepare runs, once the action is authorized, the guards again and what
  // needs the page touched: the control is scrolled into view, hit-tested
  // at the point a pointer action will click, or focused for keyboard input
  // with the caret at its end.
  function prepare(p) {
    const r = inspect(p);
    if (r.error) return r;
    const el = retainedNode(p);
    const facts = r.facts;
    el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
    if (!visibilityChecker()(el)) return {error: 'hidden', facts};
    const rect = el.getClientRects()[0] || el.getBoundingClientRect();
    const x = rect.left + rect.width / 2;
    const y = rect.top + rect.height / 2;
    if (p.pointer) {
      const hit = hitTarget(x, y);
      if (!hit || !within(hit, el)) return {error: 'covered', facts};
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

  // selectPlan finds the option of a single-choice <select> whose visible
  // label is label and plans the trusted keys that choose it: arrows from
  // the current choice, or Home/End and arrows from the nearer end, within
  // MAX_SELECT_KEYS; past that, typing its label when no other enabled
  // option's label starts with it (the browser's type-ahead). No path sets a
  // choice from script. Multiple-choice lists are refused.
  const MAX_SELECT_KEYS = 100;
  function selectPlan(p) {
    const el = retainedNode(p);
    if (!el || !el.isConnected) return {error: 'detached'};
    if (el.localName !== 'select') return {error: 'not_select'};
    if (el.multiple) return {error: 'multiple'};
    const opts = el.options;
    const n = Math.min(opts.length, 65536);
    const labelOf = (o) => clean(o.label || o.textContent || '');
    const enabled = (o) => !o.disabled && !(o.parentElement && o.parentElement.localName === 'optgroup' && o.parentElement.disabled);
    let target = -1;
    for (let i = 0; i < n && target < 0; i++) if (labelOf(opts[i]) === p.label) target = i;
    if (target < 0) return {error: 'no_option'};
    if (!enabled(opts[target])) return {error: 'disabled'};
    let before = 0; // enabled options before the target
    let after = 0; // and after it
    for (let i = 0; i < n; i++) {
      if (i !== target && enabled(opts[i])) i < target ? before++ : after++;
    }
    const plans = [['Home', before], ['End', after]].map(([k, m]) => [k].concat(Array(m).fill(k === 'Home' ? 'ArrowDown' : 'ArrowUp')));
    const from = el.selectedIndex;
    if (from >= 0 && from < n) {
      const step = target > from ? 1 : -1;
      let moves = 0;
      for (let i = from + step; i !== target + step; i += step) if (enabled(opts[i])) moves++;
      plans.push(Array(moves).fill(step > 0 ? 'ArrowDown' : 'ArrowUp'));
    }
    plans.sort((a, b) => a.length - b.length);
    if (plans[0].length <= MAX_SELECT_KEYS) return {keys: plans[0]};
    const prefix = p.label.toLowerCase();
    let matches = 0;
    for (let i = 0; i < n && matches < 2; i++) {
      if (enabled(opts[i]) && labelOf(opts[i]).toLowerCase().startsWith(prefix)) matches++;
    }
    if (matches === 1 && p.label.length <= 64) return {type: p.label};
    return {error: 'too_far'};
  }

  // selectedIs reports whether the select's choice is now label.
  function selectedIs(p) {
    const el = retainedNode(p);
    const o = el && el.selectedIndex >= 0 ? el.options[el.selectedIndex] : null;
    return !!o && clean(o.label || o.textContent || '') === p.label;
  }

  // node returns a retained control itself, for CDP calls that need a handle.
  const node = retainedNode;

  Object.defineProperty(globalThis, '__veetbrowser', {
    // retainedNodes is diagnostic: how many nodes the runtime keeps alive.
    value: Object.freeze({observe, inspect, prepare, arm, disarm, selectPlan, selectedIs, node, bindDraft, docId, retainedNodes: () => {
      let n = 0;
      for (const e of retained.values()) n += e.nodes.length;
      return n;
    }}),
  });
})();
