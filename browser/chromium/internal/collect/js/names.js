// names.js: accessible names (accname 1.2 and HTML-AAM, as Chromium applies
// them) for controls, and for the approval facts of actions.

// nameCap is what the naming functions read up to: B.MaxNameUnits, except
// while inspect reads approval facts, which keep a control's name whole up
// to B.MaxFactName units (a person approves what the page states, not a cut
// of it).
let nameCap = B.MaxNameUnits;

const NAME_FROM_CONTENT = new Set([
  'button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox',
  'menuitemradio', 'option', 'treeitem', 'generic',
]);

// Walk entries of textAlternative: a node with flags, a string to add, a
// title held back until its element's content turns out empty, or SPACE.
// It keeps a walk of its own rather than the shared walk: its entries carry
// flags and held-back strings, its children come from the flat tree (slots
// expanded), and reading pseudo-elements costs visits.
const SPACE = {};
const IN_REF = 1; // inside an aria-labelledby traversal: no further aria-labelledby
const WITH_HIDDEN = 2; // hidden nodes count: the directly referenced node is hidden
const TEXT_HIDDEN = 4; // the parent is visibility:hidden, so its own text is not rendered
const HTML_NS = 'http://www.w3.org/1999/xhtml'; // SVG and MathML elements have no ::before

// nameBudget is the node budget of one name: B.NameNodes nodes, shared by
// every source the name reads (aria-labelledby targets, each <label>,
// content), so a name never reads more however many sources it has.
function nameBudget() {
  return {visits: 0};
}

// textAlternative reads the text alternative of root in flat-tree order
// (accname 2B-2I), bounded by the nodes left in budget (a nameBudget, by
// default a fresh one) and nameCap+1 units. how says what root is:
//  'content': the control being named; accessibleName consulted its own
//    attributes, only its content is read;
//  'labelledby': the control whose aria-labelledby targets are read (''
//    without a target). Each target counts with its own aria-label,
//    native alternative, content and title, follows no aria-labelledby
//    further, and keeps its hidden descendants only if the target itself
//    is hidden (accname 2A);
//  'label': a label of skip, read whole without skip.
// Form values and editable content are never read (accname 2E would).
function textAlternative(root, how, skip, budget = nameBudget()) {
  const parts = [];
  let units = 0;
  let solid = 0; // strings added that are not all whitespace
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
  while (stack.length && budget.visits < B.NameNodes && units <= nameCap) {
    const e = stack.pop();
    if (e === SPACE) { parts.push(' '); continue; }
    if (e.text !== undefined) {
      if (e.unless === undefined || e.unless === solid) add(e.text, e.spaced);
      continue;
    }
    const n = e.n;
    budget.visits++;
    const f = e.target && hiddenTarget(n) ? e.f | WITH_HIDDEN : e.f;
    if (n.nodeType === 3) {
      if (!(f & TEXT_HIDDEN)) add(n.data);
      continue;
    }
    if (n.nodeType !== 1 || n === skip || valueBearing(n)) continue;
    const tag = n.localName;
    const whole = n === root && how === 'content';
    if (tag === 'script' || tag === 'style' || tag === 'template' || tag === 'noscript') continue;
    const st = styleOf(n);
    const contents = st.display === 'contents';
    // checkVisibility says false for display:contents (no box of its own,
    // slots included), yet its children are rendered.
    const rendered = st.display !== 'none' && (contents || checkedVisible(n) || n.checkVisibility());
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
    const block = !whole && spacedBox(st.display);
    if (block) {
      parts.push(' ');
      stack.push(SPACE);
    }
    // A title names an element whose content gives nothing (accname 2I).
    const title = whole || invisible ? '' : n.getAttribute('title');
    if (title && title.trim()) stack.push({text: title, spaced: true, unless: solid});
    // Reading ::before and ::after makes the engine resolve their style,
    // dearer than a node: each read counts as a visit, also where no rule
    // can give them content and they are not read, so that a name stops
    // at the same node either way.
    const pseudo = rendered && n.namespaceURI === HTML_NS && budget.visits + 2 <= B.NameNodes;
    if (pseudo) budget.visits += 2;
    const generated = pseudo && generatesContent(n);
    const after = generated ? generatedText(n, '::after') : null;
    if (after) stack.push(after);
    const kids = flatChildren(n, B.NameNodes - budget.visits);
    budget.visits += kids.visits;
    for (let i = kids.nodes.length - 1; i >= 0; i--) stack.push({n: kids.nodes[i], f: inner});
    const before = generated ? generatedText(n, '::before') : null;
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
// B.MaxLabelIDs ids) on a textAlternative stack, first on top, and says
// whether there was any.
function pushTargets(stack, el) {
  const ids = labelledByIds(el);
  if (!ids) return false;
  const root = el.getRootNode();
  const targets = [];
  for (const id of ids.split(/\s+/, B.MaxLabelIDs)) {
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
  if (styleOf(el).display === 'contents') return false;
  return !checkedVisible(el) && !el.checkVisibility({visibilityProperty: true});
}

// nativeAlternative is the text alternative an element's markup defines
// for it (accname 2D), or null: an image's alt, an SVG's <title> (the
// text of its first B.NameNodes children).
function nativeAlternative(el) {
  const tag = el.localName;
  if (tag === 'img' || tag === 'area') return el.getAttribute('alt');
  if (tag !== 'svg') return null;
  let title = el.firstElementChild;
  for (let i = 0; title && title.localName !== 'title' && i < B.NameNodes; i++) title = title.nextElementSibling;
  if (!title || title.localName !== 'title') return null;
  let text = '';
  for (let c = title.firstChild, i = 0; c && i < B.NameNodes && text.length <= nameCap; c = c.nextSibling, i++) {
    if (c.nodeType === 3) text += c.data.slice(0, nameCap + 1 - text.length);
  }
  return text;
}

// spacedBox: a box an accessible name separates from its neighbours with
// spaces: a block, and (as Chromium does) an atomic inline.
function spacedBox(display) {
  return blockDisplay(display) || atomicInline(display);
}

// generatedText is the walk entry for el's ::before or ::after content
// (accname 2F.ii), or null. Only the simple form is read: quoted strings,
// or the alternative text after '/' (CSS Content 3). Counters, quotes,
// images and attr() give nothing: attributes are not prose. At most
// B.GeneratedScan characters of the serialized value are parsed.
function generatedText(el, which) {
  const st = getComputedStyle(el, which);
  const c = st.content;
  if (!c || c[0] !== '"' || st.display === 'none' || st.visibility !== 'visible') return null;
  const end = Math.min(c.length, B.GeneratedScan);
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
  return t ? {text: t.slice(0, nameCap + 1), spaced: spacedBox(st.display)} : null;
}

// labelledBy is the text of the elements el's aria-labelledby references,
// read within budget (a fresh one by default).
function labelledBy(el, budget) {
  return textAlternative(el, 'labelledby', undefined, budget);
}

// accessibleName follows the order Chromium applies to the sources SPEC
// §3.1 names (accname 1.2 with HTML-AAM). Input values are never read; a
// button input's value attribute is its printed label, not user data.
function accessibleName(el, role) {
  const budget = nameBudget();
  let name = labelledBy(el, budget);
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
  name = labelsText(el, budget);
  if (name) return name;
  if (type === 'button' || type === 'submit' || type === 'reset') {
    name = clean(el.getAttribute('value') || '');
    if (name) return name;
    if (type === 'submit') return 'Submit';
    if (type === 'reset') return 'Reset';
  }
  if (NAME_FROM_CONTENT.has(role) || tag === 'summary' || pointerRoles.get(el) === role) {
    name = textAlternative(el, 'content', undefined, budget);
    if (name) return name;
  }
  name = clean(el.getAttribute('title') || '');
  if (name) return name;
  if (type === 'image') return 'Submit';
  return clean(el.getAttribute('placeholder') || el.getAttribute('aria-placeholder') || '');
}

// labelsText joins the text of el's <label> elements in document order,
// at most B.MaxLabelIDs of them, all read within the name's budget; a
// label never includes el's own content.
function labelsText(el, budget) {
  // Only a label around el, or one naming its id, labels it; the first read
  // of el.labels walks the whole tree, which a scan would pay per control.
  if (!el.labels || (!el.id && !el.closest('label'))) return '';
  const parts = [];
  let units = 0;
  for (const label of el.labels) {
    if (parts.length >= B.MaxLabelIDs || units > nameCap || budget.visits >= B.NameNodes) break;
    const text = textAlternative(label, 'label', el, budget);
    parts.push(text);
    units += text.length;
  }
  return clean(parts.join(' '));
}
