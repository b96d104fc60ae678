// actions.js: the live guards and the page side of actions (docs/actions.md).

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

// inspect runs the read-only live guards of an action on a retained
// control and returns its independent label facts. It changes nothing in
// the page (no scroll, no focus, no event): authorization comes first.
// It never reads a value.
function inspect(p) {
  if (p.doc && p.doc !== docId) return {error: R.DocumentChanged};
  const el = retainedNode(p);
  if (!el) return {error: R.Stale};
  if (!el.isConnected) return {error: R.Detached};
  const role = controlRole(el) || pointerRoles.get(el) || '';
  let name, nameCut, form, formLabel;
  nameCap = B.MaxFactName;
  try {
    [name, nameCut] = cut(accessibleName(el, role), B.MaxFactName);
    form = el.form || el.closest('form');
    formLabel = formName(form);
  } finally {
    nameCap = B.MaxNameUnits;
  }
  const st = states(el, role, deepActiveElement());
  const facts = {role, name, name_cut: nameCut, form: formLabel, in_form: !!form, submit: submitsForm(el),
    file: el.localName === 'input' && (el.getAttribute('type') || '').toLowerCase() === 'file',
    editable: el.isContentEditable === true && el.localName !== 'input' && el.localName !== 'textarea',
    checked: st.checked, origin: location.origin, input: typedKind(el)};
  // A wheel's scroller is measured whatever the refusal: a scroll reads
  // it again once its control may have scrolled out of view.
  const measured = (r) => (p.scroller ? Object.assign(r, scrollerOf(el)) : r);
  if (!retainedVisibility(p)(el)) return measured({error: R.Hidden, facts});
  if (st.disabled) return measured({error: R.Disabled, facts});
  if (p.editable && !(el.isContentEditable || ((el.localName === 'input' || el.localName === 'textarea') && !el.readOnly))) {
    return measured({error: R.NotEditable, facts});
  }
  return measured({facts});
}

// scrollerOf measures what a wheel over el scrolls: the nearest element,
// el itself included, that scrolls vertically, else the document. Its
// height is the scroller's own viewport; top, how far it is scrolled.
function scrollerOf(el) {
  let n = el;
  for (let steps = 0; n && steps < B.ScanNodes; steps++, n = flatParent(n)) {
    if (n === document.body || n === document.documentElement) break;
    const oy = getComputedStyle(n).overflowY;
    if ((oy === 'auto' || oy === 'scroll' || oy === 'overlay') && n.scrollHeight > n.clientHeight) {
      return {height: n.clientHeight, top: n.scrollTop};
    }
  }
  return {height: window.innerHeight, top: window.scrollY};
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
  if (p.reveal !== 'none') {
    const at = p.reveal === 'nearest' ? 'nearest' : 'center';
    el.scrollIntoView({block: at, inline: at, behavior: 'instant'});
  }
  if (!retainedVisibility(p)(el)) return {error: R.Hidden, facts};
  const rect = el.getClientRects()[0] || el.getBoundingClientRect();
  let x = rect.left + rect.width / 2;
  let y = rect.top + rect.height / 2;
  if (p.reveal) {
    // Only what shows counts: the middle of the part of the control in
    // the window, and none when it is out of the window.
    const left = Math.max(rect.left, 0);
    const right = Math.min(rect.right, window.innerWidth);
    const top = Math.max(rect.top, 0);
    const bottom = Math.min(rect.bottom, window.innerHeight);
    if (left >= right || top >= bottom) return {error: R.OutOfView, facts};
    x = (left + right) / 2;
    y = (top + bottom) / 2;
  }
  if (p.pointer || p.scroller) {
    const hit = hitTarget(x, y);
    if (!hit || !within(hit, el)) return {error: R.Covered, facts};
  }
  if (p.focus) {
    // keep_selection: a control that holds the focus and took the last
    // keyboard action keeps its caret and selection (a key chord may have
    // selected its text); after a click, typing goes to the end.
    const had = p.keep_selection && lastKeyed === el && within(deepActiveElement(), el);
    if (!had) el.focus({preventScroll: true});
    if (!had && (el.localName === 'input' || el.localName === 'textarea') && typeof el.setSelectionRange === 'function') {
      try { el.setSelectionRange(el.value.length, el.value.length); } catch (e) { /* types without a caret */ }
    }
    if (!within(deepActiveElement(), el)) return {error: R.Unfocusable, facts};
  }
  return p.scroller ? Object.assign({facts, x, y}, scrollerOf(el)) : {facts, x, y};
}

// The input guard: while an action is armed, a trusted input event whose
// target is not the armed control is stopped before any page listener
// sees it (this world's capture listeners on window are registered before
// the page's scripts run). A page that moves or refocuses between the
// guard check and the dispatch cannot have the input land elsewhere. The
// confirming event (a click; a keydown or beforeinput) proves delivery.
// A hover guards the pointer's arrival (mouseenter on the control's
// ancestors passes: they hold the control), a drag only its press: the
// moves and the release that follow land wherever the drag goes. A
// context click guards its press and the contextmenu event it fires: the
// page's own menu may open under the pointer before the release.
const guard = {node: null, kind: '', hits: 0, confirmed: 0, blocked: 0};
let lastKeyed = null; // the control the last confirmed keyboard action went to
const GUARDED = {
  pointer: ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'auxclick', 'dblclick', 'contextmenu'],
  keyboard: ['keydown', 'keypress', 'keyup', 'beforeinput'],
  hover: ['pointerover', 'mouseover', 'pointermove', 'mousemove'],
  press: ['pointerdown', 'mousedown'],
  context: ['pointerdown', 'mousedown', 'contextmenu'],
};
const CONFIRMING = {
  pointer: new Set(['click']),
  keyboard: new Set(['keydown', 'beforeinput']),
  hover: new Set(['pointerover', 'mouseover', 'pointermove', 'mousemove']),
  press: new Set(['pointerdown', 'mousedown']),
  context: new Set(['contextmenu']),
};
for (const kind of Object.keys(GUARDED)) {
  for (const type of GUARDED[kind]) {
    window.addEventListener(type, (ev) => {
      if (!guard.node || guard.kind !== kind || !ev.isTrusted) return;
      if (ev.composedPath().includes(guard.node)) {
        guard.hits++;
        if (CONFIRMING[kind].has(type)) guard.confirmed++;
        return;
      }
      guard.blocked++;
      ev.stopImmediatePropagation();
      ev.preventDefault();
    }, true);
  }
}

// arm checks, at the last moment before dispatch, that the point still
// hits the control (pointer, hover, press) or that focus is still inside
// it (keyboard), then arms the guard for it. A press of the mouse ends
// the caret's claim to be the keys' (lastKeyed).
function arm(p) {
  const el = selectionNode(p);
  if (!el || !el.isConnected) return {error: R.Detached};
  if (p.kind !== 'keyboard') {
    const hit = hitTarget(p.x, p.y);
    if (!hit || !within(hit, el)) return {error: R.Covered};
  } else if (!within(deepActiveElement(), el)) {
    return {error: R.Unfocusable};
  }
  if (p.kind !== 'keyboard' && p.kind !== 'hover') lastKeyed = null;
  Object.assign(guard, {node: el, kind: p.kind, hits: 0, confirmed: 0, blocked: 0});
  if (p.snapshot) snapshotField(el);
  return {ok: true};
}

function disarm() {
  // No guard armed in this world: the document the guard was armed in was
  // replaced before the check ran (the input navigated, and the new page
  // committed first).
  if (!guard.node) return {unarmed: true, hits: 0, confirmed: 0, blocked: 0};
  const r = {hits: guard.hits, confirmed: guard.confirmed, blocked: guard.blocked};
  if (guard.kind === 'keyboard') lastKeyed = guard.confirmed > 0 && guard.blocked === 0 ? guard.node : null;
  guard.node = null;
  return r;
}

// selectPlan finds the option of a single-choice <select> whose visible
// label is label and plans the trusted keys that choose it: arrows from
// the current choice, or Home/End and arrows from the nearer end, within
// B.MaxSelectKeys; past that, typing its label when no other enabled
// option's label starts with it (the browser's type-ahead). No path sets a
// choice from script. Multiple-choice lists are refused.
function selectPlan(p) {
  const el = retainedNode(p);
  if (!el || !el.isConnected) return {error: R.Detached};
  if (el.localName !== 'select') return {error: R.NotSelect};
  if (el.multiple) return {error: R.Multiple};
  const opts = el.options;
  const n = Math.min(opts.length, B.MaxSelectOptions);
  const labelOf = (o) => clean(o.label || o.textContent || '');
  const enabled = (o) => !o.disabled && !(o.parentElement && o.parentElement.localName === 'optgroup' && o.parentElement.disabled);
  let target = -1;
  for (let i = 0; i < n && target < 0; i++) if (labelOf(opts[i]) === p.label) target = i;
  if (target < 0) return {error: R.NoOption};
  if (!enabled(opts[target])) return {error: R.Disabled};
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
  if (plans[0].length <= B.MaxSelectKeys) return {keys: plans[0]};
  const prefix = p.label.toLowerCase();
  let matches = 0;
  for (let i = 0; i < n && matches < 2; i++) {
    if (enabled(opts[i]) && labelOf(opts[i]).toLowerCase().startsWith(prefix)) matches++;
  }
  if (matches === 1 && p.label.length <= B.MaxTypeAheadUnits) return {type: p.label};
  return {error: R.TooFar};
}

// selectedIs reports whether the select's choice is now label.
function selectedIs(p) {
  const el = retainedNode(p);
  const o = el && el.selectedIndex >= 0 ? el.options[el.selectedIndex] : null;
  return !!o && clean(o.label || o.textContent || '') === p.label;
}

// node returns a retained control itself, for CDP calls that need a handle.
const node = retainedNode;
