// typed.js: what a type action (tool version 1.9.0) needs from the page:
// the kind of an input that takes keystrokes segment by segment, how its
// segments are ordered in this locale, and the check, after the input,
// that the field took the text. The check returns a verdict only: the
// field's value never leaves the page.

const TYPED_KINDS = new Set(['date', 'time', 'month', 'week', 'datetime-local', 'color', 'range', 'number']);

// typedKind is an input's type when it is one of the typed kinds, else ''.
function typedKind(el) {
  if (el.localName !== 'input') return '';
  const t = (el.getAttribute('type') || '').toLowerCase();
  return TYPED_KINDS.has(t) ? t : '';
}

// showsSeconds: a time field shows a seconds segment when its step is not
// a whole number of minutes, or its value holds seconds.
function showsSeconds(el) {
  const step = Number(el.getAttribute('step'));
  return (Number.isFinite(step) && step > 0 && step % 60 !== 0) || /T?\d\d:\d\d:\d\d/.test(el.value);
}

// dateFields lists, in the order the browser shows them in locale, the
// segments of a date or time field (seconds with secs). The week field
// shows its week before its year. This is the plan's guess: the runtime
// reads the field's own order from the browser when it can, since the
// field follows the browser's locale, which navigator.language (the
// page's Accept-Language) need not be.
function dateFields(kind, locale, secs) {
  const order = (opts, at) => new Intl.DateTimeFormat(locale, opts).formatToParts(at).map((x) => x.type).filter((t) => t !== 'literal');
  const at = new Date(2012, 8, 10, 2, 5, 7);
  const date = order({year: 'numeric', month: '2-digit', day: '2-digit'}, at);
  const time = order(secs ? {hour: 'numeric', minute: '2-digit', second: '2-digit'} : {hour: 'numeric', minute: '2-digit'}, at);
  return {fields: {date, time, month: order({year: 'numeric', month: 'long'}, at), week: ['week', 'year'], 'datetime-local': date.concat(time)}[kind] || []};
}

// typedPlan plans a typed input's keys: the segments of a date or time
// field; for a range, the arrows from its nearer end, within
// B.MaxSelectKeys, that reach p.value, or a refusal when no step reaches it.
function typedPlan(p) {
  const el = retainedNode(p);
  if (!el || !el.isConnected) return {error: R.Detached};
  const kind = typedKind(el);
  if (kind !== 'range') return Object.assign({kind}, dateFields(kind, navigator.language, (kind === 'time' || kind === 'datetime-local') && showsSeconds(el)));
  const num = (v, d) => (v !== '' && Number.isFinite(Number(v)) ? Number(v) : d);
  const min = num(el.min, 0);
  const max = num(el.max, 100);
  const step = el.step === 'any' ? 0 : num(el.step, 1) > 0 ? num(el.step, 1) : 1;
  const v = Number(p.value);
  const n = step ? (v - min) / step : NaN;
  if (v < min || v > max || !(Math.abs(n - Math.round(n)) < 1e-9)) return {error: R.NoValue, kind};
  const up = Math.round(n);
  const down = Math.round((max - min) / step) - up;
  if (Math.min(up, down) > B.MaxSelectKeys) return {error: R.TooFar, kind};
  const keys = up <= down ? ['Home'].concat(Array(up).fill('ArrowRight')) : ['End'].concat(Array(down).fill('ArrowLeft'));
  return {kind, keys};
}

// setColor sets a color input to p.value as the browser's own picker
// does when a person picks: the input's value setter (the collector's
// world holds the unpatched one), then the input and change events the
// picker fires. The picker is a browser window no trusted input reaches,
// so this is the one input set from script, and only for a color input;
// typedCheck verifies after.
function setColor(p) {
  const el = retainedNode(p);
  if (!el || !el.isConnected || typedKind(el) !== 'color') return R.TypedGone;
  el.value = p.value;
  el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return R.TypedMatch;
}

// fnv is the 32-bit FNV-1a digest of a string's UTF-16 units.
function fnv(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

// The field as it was right before the input: its length, where the text
// goes (the selection, or unknown for types without one), and digests of
// what stays before and after it. Never the value itself.
let fieldBefore = null;

function snapshotField(el) {
  fieldBefore = null;
  if (el.localName !== 'input' && el.localName !== 'textarea') return;
  const v = el.value;
  const start = typeof el.selectionStart === 'number' ? el.selectionStart : -1;
  const end = start >= 0 ? el.selectionEnd : -1;
  fieldBefore = {node: new WeakRef(el), len: v.length, start, end,
    head: start >= 0 ? fnv(v.slice(0, start)) : fnv(v), tail: start >= 0 ? fnv(v.slice(end)) : 0};
}

// typedCheck says whether the field took the text: a typed kind holds
// p.value (as its ISO form, or the same number); a text field holds what
// it held with p.value put in place of the selection, compared by length
// and digests. A single-line field drops line breaks, as the browser does.
function typedCheck(p) {
  const el = retainedNode(p);
  if (!el || !el.isConnected) return R.TypedGone;
  const kind = typedKind(el);
  const v = el.value;
  if (kind === 'number' || kind === 'range') return v !== '' && Number(v) === Number(p.value) ? R.TypedMatch : R.TypedChanged;
  // A color input keeps its value in lower case.
  if (kind === 'color') return v === p.value.toLowerCase() ? R.TypedMatch : R.TypedChanged;
  // A time holds no seconds when they are zero, in the shortest form.
  const short = (s) => (kind === 'time' || kind === 'datetime-local' ? s.replace(/(\d\d:\d\d):00(\.0+)?$/, '$1') : s);
  if (kind) return short(v) === short(p.value) ? R.TypedMatch : R.TypedChanged;
  const b = fieldBefore;
  fieldBefore = null;
  if (el.localName !== 'input' && el.localName !== 'textarea') {
    // A rich-text editor lays the text out in its own nodes: it holds the
    // text, whitespace aside. One past the draft's bounds is not read.
    const t = editorText(el);
    return t === null || clean(t).includes(clean(p.value)) ? R.TypedMatch : R.TypedChanged;
  }
  if (!b || b.node.deref() !== el) return R.TypedGone;
  const text = el.localName === 'textarea' ? p.value.replace(/\r\n?/g, '\n') : p.value.replace(/[\r\n]/g, '');
  const want = b.len - (b.end - b.start) + text.length;
  let ok;
  if (b.start >= 0) {
    const at = b.start + text.length;
    ok = v.length === want && v.slice(b.start, at) === text && fnv(v.slice(0, b.start)) === b.head && fnv(v.slice(at)) === b.tail;
  } else {
    ok = v.length === want && ((v.slice(b.len) === text && fnv(v.slice(0, b.len)) === b.head) || (v.slice(0, text.length) === text && fnv(v.slice(text.length)) === b.head));
  }
  if (ok) return R.TypedMatch;
  return el.maxLength >= 0 && v.length === el.maxLength && want > el.maxLength ? R.TypedCut : R.TypedChanged;
}
