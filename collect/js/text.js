// text.js: readable text (docs/regions-and-text.md), and the measures every job applies
// to strings: whitespace, UTF-16 units and the serialized byte cost.

function clean(s) {
  return s.replace(/\s+/g, ' ').trim();
}

// cut keeps at most max UTF-16 units without splitting a surrogate pair
// (Go: observation.CutUTF16).
function cut(s, max) {
  if (s.length <= max) return [s, false];
  let end = max;
  if (isHigh(s.charCodeAt(end - 1)) && isLow(s.charCodeAt(end))) end--;
  return [s.slice(0, end), true];
}

function isHigh(c) {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLow(c) {
  return c >= 0xdc00 && c <= 0xdfff;
}

// The text byte bound counts each part as serialized: a JSON string
// (UTF-8, with quotes, backslashes and control characters escaped) and
// its separator (Go: observation.TextPartCost). charCost is one UTF-16
// unit's share of that, or a surrogate pair's; a lone surrogate reaches Go
// as U+FFFD.
function charCost(s, i) {
  const c = s.charCodeAt(i);
  if (c === 0x22 || c === 0x5c || c === 0x08 || c === 0x0c || c === 0x0a || c === 0x0d || c === 0x09) return [2, 1];
  if (c < 0x20) return [6, 1];
  if (c < 0x80) return [1, 1];
  if (c < 0x800) return [2, 1];
  if (isHigh(c) && isLow(s.charCodeAt(i + 1))) return [4, 2];
  return [3, 1];
}

function partCost(s) {
  let n = B.TextPartOverhead;
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
  let n = B.TextPartOverhead;
  for (let i = 0; i < s.length;) {
    const [w, step] = charCost(s, i);
    if (n + w > max) return s.slice(0, i);
    n += w;
    i += step;
  }
  return s;
}

// Subtrees that give no prose: non-rendered, embedded documents, form
// values and editable content.
const NO_TEXT = new Set(['script', 'style', 'template', 'noscript', 'iframe', 'frame', 'object', 'embed',
  'input', 'textarea', 'select', 'option', 'datalist', 'head', 'title', 'meta', 'link']);
const VALUE_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton']);

// excludedSubtree: content that never becomes prose or summary text.
function excludedSubtree(el) {
  if (NO_TEXT.has(el.localName)) return true;
  if (el.hasAttribute('hidden') || el.hasAttribute('inert') || el.getAttribute('aria-hidden') === 'true') return true;
  return valueBearing(el);
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

const CELL_TAGS = new Set(['td', 'th']);

// collectText walks the flat tree of the main document (open shadow roots
// in place of their hosts' light children, slots expanded to what they
// render) iteratively. It never reads innerText, a value or an attribute.
// It keeps a walk of its own rather than the shared walk: each entry
// carries its flat-tree parent and whitespace mode, children come from the
// flat tree, and block and cell ends are marks of two kinds; threading that
// through the shared walk would cost a closure call and an object per node
// on the hottest walk of an observation.
function collectText(vis) {
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
    if (bytes + size > B.TextBytes) {
      const kept = cutCost(t, B.TextBytes - bytes);
      if (kept) {
        parts.push(kept);
        bytes += partCost(kept);
      }
      // Known omission: the rest of this part, never past the bound.
      omitted = Math.min(size - (kept ? partCost(kept) : 0), B.TextBytes - bytes);
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
  const CLOSING = 1;
  const root = document.documentElement;
  const stack = [[root, 0, null, false]];
  while (stack.length && !byteLimit) {
    const [n, mark, parent, pre] = stack.pop();
    if (mark === CLOSING) {
      if (CELL_TAGS.has(n.localName)) pendingSep = '\t';
      else pendingBreak = true;
      continue;
    }
    if (visits >= B.TextNodes) { nodeLimit = true; break; }
    visits++;
    if (n.nodeType === 3) {
      if (!parent || !vis.showsText(parent)) continue;
      let data = n.data;
      if (units + data.length > B.TextUnits) {
        data = cut(data, B.TextUnits - units)[0];
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
    const block = blockDisplay(display);
    const cell = CELL_TAGS.has(tag) || display === 'table-cell';
    if (block && !cell) pendingBreak = true;
    if (block || cell) stack.push([n, CLOSING]);
    // Children, last first, from the flat tree; slot assignment checks
    // count against the visit budget.
    const kids = flatChildren(n, B.TextNodes - visits);
    visits += kids.visits;
    if (kids.more) nodeLimit = true; // children the budget left unread
    for (let i = kids.nodes.length - 1; i >= 0; i--) stack.push([kids.nodes[i], 0, n, kidPre]);
  }
  flush();
  return {parts, coverage: {version: B.TextCoverageV1, scope: B.TextScope, scanned_nodes: visits,
    inspected_units: units, node_limit_reached: nodeLimit, text_limit_reached: unitLimit,
    byte_limit_reached: byteLimit, omitted_bytes: omitted}};
}
