// choices.js: tool version 1.9.0's choices in a multiple-choice list and
// text selection (docs/realpages.md). The page plans and verifies; the
// runtime clicks and drags with trusted input. Nothing is set from script:
// a list is only scrolled, as a wheel would, to show an option.

let choices = null; // the planned choices: {el, toggles: [option], want: Set(option)}
let selecting = null; // the planned selection: {el, text}

// A list's options are a <select>'s, or an ARIA listbox's role=option
// elements; an ARIA option is labelled as its control is named, chosen by
// aria-selected, disabled by aria-disabled.
const nativeOption = (o) => o.localName === 'option';
const optionLabel = (o) => clean(nativeOption(o) ? o.label || o.textContent || '' : accessibleName(o, 'option'));
const optionEnabled = (o) => nativeOption(o) ? !o.disabled && !(o.parentElement && o.parentElement.localName === 'optgroup' && o.parentElement.disabled) : o.getAttribute('aria-disabled') !== 'true';
const optionChosen = (o) => nativeOption(o) ? o.selected : o.getAttribute('aria-selected') === 'true';

// ariaListbox: el is an ARIA listbox (not a <select>); multiChoice: a
// list that takes several choices, native or ARIA.
const ariaListbox = (el) => el.localName !== 'select' && firstRole(el) === 'listbox';
const multiChoice = (el) => (el.localName === 'select' ? el.multiple : el.getAttribute('aria-multiselectable') === 'true' && firstRole(el) === 'listbox');

// listOptions are a list's first B.MaxSelectOptions options: a select's,
// or the role=option elements among an ARIA listbox's first
// B.MaxSelectOptions descendant elements (not those of a listbox inside it).
function listOptions(el) {
  if (el.localName === 'select') return Array.prototype.slice.call(el.options, 0, B.MaxSelectOptions);
  const out = [];
  const w = document.createTreeWalker(el, NodeFilter.SHOW_ELEMENT, {acceptNode: (n) => (firstRole(n) === 'listbox' ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT)});
  let seen = 0;
  for (let n = w.nextNode(); n && seen < B.MaxSelectOptions; n = w.nextNode(), seen++) if (firstRole(n) === 'option') out.push(n);
  return out;
}

// chosenOptions are a multiple-choice list's chosen options, as a control
// of 1.9.0 shows them: the labels of the first B.MaxChosen, each cut to
// B.MaxChosenUnits, and how many more (of its listOptions).
function chosenOptions(el) {
  const chosen = [];
  let more = 0;
  for (const o of listOptions(el)) {
    if (!optionChosen(o)) continue;
    if (chosen.length < B.MaxChosen) chosen.push(cut(optionLabel(o), B.MaxChosenUnits)[0]);
    else more++;
  }
  return more > 0 ? {chosen, chosen_more: more} : chosen.length > 0 ? {chosen} : {};
}

// choicesPlan plans the modifier clicks that make a multiple-choice
// list's chosen options (a <select multiple>, or an ARIA listbox with
// aria-multiselectable) the set asked for: mode set (exactly the labels),
// add or remove. Each label names the first option showing it. A disabled
// option that would have to change, or more than B.MaxSelectChoices
// clicks, is refused.
function choicesPlan(p) {
  choices = null;
  const el = retainedNode(p);
  if (!el || !el.isConnected) return {error: R.Detached};
  if (el.localName !== 'select' && !ariaListbox(el)) return {error: R.NotSelect};
  if (!multiChoice(el)) return {error: R.Single};
  const opts = listOptions(el);
  const labels = opts.map(optionLabel);
  const named = new Set();
  for (const label of p.labels) {
    const i = labels.indexOf(label);
    if (i < 0) return {error: R.NoOption, label};
    named.add(opts[i]);
  }
  const want = new Set();
  const toggles = [];
  for (const o of opts) {
    const was = optionChosen(o);
    const chosen = p.mode === 'set' ? named.has(o) : p.mode === 'add' ? was || named.has(o) : was && !named.has(o);
    if (chosen) want.add(o);
    if (chosen === was) continue;
    if (!optionEnabled(o)) return {error: R.Disabled, label: optionLabel(o).slice(0, B.MaxNameUnits)};
    if (toggles.length === B.MaxSelectChoices) return {error: R.TooFar};
    toggles.push(o);
  }
  choices = {el, toggles, want, opts};
  return {toggles: toggles.length};
}

// choicePoint shows the toggle-th option to toggle in its list, scrolling
// the list as a wheel does (an ARIA option: its scrolling ancestors and the
// page, as for any control), and answers the middle of the option, which
// must hit the list (an ARIA option: the option itself).
function choicePoint(p) {
  const el = retainedNode(p);
  if (!el || !el.isConnected || !choices || choices.el !== el || !choices.toggles[p.toggle]) return {error: R.Detached};
  const o = choices.toggles[p.toggle];
  const native = nativeOption(o);
  if (native) {
    const box = el.getBoundingClientRect();
    const top = box.top + el.clientTop;
    const bottom = top + el.clientHeight;
    const r = o.getBoundingClientRect();
    if (r.top < top) el.scrollTop -= top - r.top;
    else if (r.bottom > bottom) el.scrollTop += r.bottom - bottom;
  } else {
    if (!o.isConnected) return {error: R.Detached};
    o.scrollIntoView({block: 'nearest', inline: 'nearest', behavior: 'instant'});
  }
  const r = o.getBoundingClientRect();
  if (r.width <= 0 || r.height <= 0) return {error: R.Hidden};
  const x = r.left + r.width / 2;
  const y = r.top + r.height / 2;
  const hit = hitTarget(x, y);
  if (!hit || !within(hit, native ? el : o)) return {error: R.Covered};
  return {x, y};
}

// choicesAre: the list's chosen options are exactly the planned set, and
// no option came or went meanwhile.
function choicesAre(p) {
  const el = retainedNode(p);
  if (!el || !choices || choices.el !== el) return false;
  const opts = listOptions(el);
  if (opts.length !== choices.opts.length) return false;
  return opts.every((o, i) => o === choices.opts[i] && optionChosen(o) === choices.want.has(o));
}

// textSpan finds the text to select in a control: its visible text, or
// the first occurrence of p.text in it, spaces collapsed, within
// B.MaxSelectTextUnits. It answers the points a drag goes from (inside
// the first character, near its start) and to (inside the last, near its
// end); both must hit the control. With p.page (no control), it finds the
// first occurrence of p.text in the document's visible text, within
// B.TextNodes text nodes and B.TextUnits units, outside every control
// (text in a control is selected by its ref), shows its start as a
// person scrolls to it, and both ends must hit the text itself.
function textSpan(p) {
  selecting = null;
  const el = p.page ? document.body : retainedNode(p);
  if (!el || !el.isConnected) return {error: R.Detached};
  const units = p.page ? B.TextUnits : B.MaxSelectTextUnits;
  const want0 = clean(p.text || '');
  let flat = '';
  const atNode = []; // the text node of flat[i] (an index into nodes) and its offset
  const atOff = [];
  const nodes = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const visible = visibilityChecker();
  let start = -1;
  for (let t = walker.nextNode(), n = 0; t && flat.length < units && n < B.TextNodes; t = walker.nextNode(), n++) {
    if (!t.parentElement || !visible(t.parentElement)) continue;
    nodes.push(t);
    for (let i = 0; i < t.data.length && flat.length < units; i++) {
      const space = /\s/.test(t.data[i]);
      if (space && (flat === '' || flat.endsWith(' '))) continue;
      flat += space ? ' ' : t.data[i];
      atNode.push(nodes.length - 1);
      atOff.push(i);
    }
    if (p.page && want0 && (start = flat.indexOf(want0, Math.max(0, flat.length - t.data.length - want0.length))) >= 0) break;
  }
  const want = clean(p.text || flat);
  if (!p.page) start = want === '' ? -1 : flat.indexOf(want);
  if (start < 0) return {error: R.NoText};
  const end = start + want.length - 1;
  // A drag whose ends share a control or a pointer target would click it:
  // such text is selected by that control's ref.
  const inControl = (i) => {
    for (let e = nodes[atNode[i]].parentElement; e; e = flatParent(e)) if (e.nodeType === 1 && (controlRole(e) || pointerSignal(e))) return true;
    return false;
  };
  if (p.page) {
    if (inControl(start) || inControl(end)) return {error: R.InControl};
    const from = nodes[atNode[start]].parentElement;
    if (from.getBoundingClientRect().top < 0 || from.getBoundingClientRect().bottom > window.innerHeight) from.scrollIntoView({block: 'center', behavior: 'instant'});
  }
  const box = (i) => {
    const range = document.createRange();
    range.setStart(nodes[atNode[i]], atOff[i]);
    range.setEnd(nodes[atNode[i]], atOff[i] + 1);
    return range.getClientRects()[0] || null;
  };
  const first = box(start);
  const last = box(end);
  if (!first || !last) return {error: R.NoText};
  const x1 = first.left + first.width * 0.2;
  const y1 = first.top + first.height / 2;
  const x2 = last.right - last.width * 0.2;
  const y2 = last.top + last.height / 2;
  for (const [x, y, i] of [[x1, y1, start], [x2, y2, end]]) {
    if (x < 0 || y < 0 || x >= window.innerWidth || y >= window.innerHeight) return {error: R.OffScreen};
    const hit = hitTarget(x, y);
    if (!hit || !(p.page ? within(nodes[atNode[i]], hit) : within(hit, el))) return {error: R.Covered};
  }
  // A drag over page text is guarded on the element its press lands in.
  selecting = {el: p.page ? nodes[atNode[start]].parentElement : el, text: want, page: !!p.page};
  return {x1, y1, x2, y2};
}

// selectionNode is the element a guard or check of p is about: the
// control, or (p.selection) the element where the planned page-text
// selection starts.
function selectionNode(p) {
  return p.selection ? (selecting && selecting.page ? selecting.el : null) : retainedNode(p);
}

// textSelected: the page's selection is now the planned text, spaces
// collapsed. A verdict only: the selected text never leaves the page.
function textSelected(p) {
  const el = selectionNode(p);
  if (!el || !selecting || selecting.el !== el) return false;
  const sel = window.getSelection();
  return !!sel && clean(sel.toString()) === selecting.text;
}
