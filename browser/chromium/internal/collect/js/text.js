// text.js: readable text (docs/regions-and-text.md).

const CELL_TAGS = new Set(['td', 'th']);
const PRE_SPACE = new Set(['pre', 'pre-wrap', 'break-spaces', 'pre-line']);

// The text walk's entries: [node, kind, flat parent, pre, any, offset]:
// kind 0 a node of the flat tree, SLOTTED a candidate among the light
// children of a slot's host (any: one was assigned; the entry for null ends
// the scan, and an empty slot shows its own children), CLOSING the end of
// a block or cell; pre: the parent keeps whitespace; offset: units of a
// text node already read. Each level holds one pending sibling, so a walk
// can be rebuilt at any node from its ancestors (resumeTextWalk).
const SLOTTED = 'slotted';
const CLOSING = 1;

// collectText walks the flat tree of the main document (open shadow roots
// in place of their hosts' light children, slots expanded to what they
// render) iteratively, never reading innerText, a value or an attribute,
// with a walk of its own: its entries carry flat parents and whitespace.
//
// opts, all optional:
//  reading: the reading walk (tool version 1.6.0), which leaves out the text
//    of navigation landmarks. A bound never splits a part: the part it interrupts is left to the next walk, unless it is
//    the walk's first, larger than a whole window; that one is cut
//    (last_cut) and the next walk continues it (first_continues). starts
//    says where each part begins, then where a bound stopped the walk
//    (null if none did): the points a later walk resumes from.
//  from: a point of starts to resume at; skip: UTF-16 units of the first
//    part the reader already has (a surrogate pair is never split).
//  nodes, units, bytes: other bounds than an observation's.
//  frames (1.7.0): frames lists where each visible frame's text goes:
//    {frame: its key, index: the number of parts before it}.
//  root, skipRoot (1.9.0, focus.js): walk only root's subtree; skip skipRoot's.
//  onPart(text, start, index): takes each part instead of the result
//    (find); STOP ends the walk after that part, stop is then where the
//    next part begins. It implies reading.
// It returns {parts, starts, stop, coverage}, or {error} if from cannot resume.
function collectText(vis, opts = {}) {
  const onPart = opts.onPart || null;
  const reading = opts.reading === true || onPart !== null;
  const maxNodes = opts.nodes || B.TextNodes;
  const maxUnits = opts.units || B.TextUnits;
  const maxBytes = opts.bytes || B.TextBytes;
  const parts = [], starts = [], frameMarks = [], framePoints = {};
  let produced = 0, line = '';
  let lineCost = 0, lineStart = null; // reading: the line's cost as a part (or more), where it began
  let joined = false; // the line continues a part an earlier walk cut: its start stays as it is
  let skip = opts.skip > 0 ? opts.skip : 0;
  let bytes = 0, visits = 0, units = 0, omitted = 0;
  let nodeLimit = false, unitLimit = false, byteLimit = false;
  let done = false, stop = null, firstContinues = false, lastCut = false;
  let pendingBreak = false, pendingSep = ''; // a block boundary, or a cell's separator, waits for the next text
  let lastSpace = true; // collapse whitespace across inline boundaries
  let cur = null, curOff = 0, curParent = null; // the node being read, its offset and flat parent
  let lineScrolled = false, scrolledParts = 0; // tool version 1.9.0: text read in scroll containers
  const here = () => ({node: cur, offset: curOff, parent: curParent});

  // flush ends the line and says whether it gave a part; one with text from
  // a scroll container counts as read there (vis.scrolled, 1.9.0).
  function flush() {
    const sc = lineScrolled;
    lineScrolled = false;
    return flushLine() && (!sc || ++scrolledParts > 0);
  }

  function flushLine() {
    let t = line.replace(/[ \t]+\n/g, '\n');
    t = joined ? t.trimEnd() : t.trim();
    const start = lineStart;
    let cont = joined;
    line = '';
    lastSpace = true;
    lineCost = 0;
    lineStart = null;
    joined = false;
    if (skip && t) {
      t = dropUnits(t, skip);
      skip = 0;
      cont = t !== '';
    }
    if (!t) return false;
    if (reading) return produce(t, start, cont);
    if (byteLimit) return false;
    const size = partCost(t);
    if (bytes + size > maxBytes) {
      const kept = cutCost(t, maxBytes - bytes);
      if (kept) {
        parts.push(kept);
        bytes += partCost(kept);
      }
      // Known omission: the rest of this part, never past the bound.
      omitted = Math.min(size - (kept ? partCost(kept) : 0), maxBytes - bytes);
      byteLimit = done = true;
      return !!kept;
    }
    parts.push(t);
    bytes += size;
    return true;
  }

  // produce takes a reading part. The line's cost was admitted as it grew
  // (fits), and normalizing only removes characters.
  function produce(t, start, cont) {
    if (cont && produced === 0) firstContinues = true;
    bytes += partCost(t);
    produced++;
    if (!onPart) {
      parts.push(t);
      starts.push(start);
    } else if (onPart(t, start, produced - 1) === STOP) {
      done = true;
    }
    return true;
  }

  function emit(raw, pre, scrolled) {
    if (pendingBreak) {
      flush();
      pendingBreak = false;
      pendingSep = '';
      if (done) { stop = here(); return; }
    }
    if (scrolled) lineScrolled = true;
    let sep = '';
    if (pendingSep) {
      if (line || joined) sep = pendingSep;
      pendingSep = '';
      lastSpace = true;
    }
    let t = raw;
    let lead = false;
    if (!pre) {
      t = raw.replace(/[\t\n\r\f ]+/g, ' ');
      lead = lastSpace && t.startsWith(' ');
      if (lead) t = t.slice(1);
    }
    const add = sep + t;
    if (reading && add) {
      if (!fits(add, raw, pre, sep, lead)) return;
      if (!line && !joined) lineStart = here();
    }
    line += add;
    if (pre) lastSpace = /\s$/.test(raw);
    else if (t) lastSpace = t.endsWith(' ');
  }

  // fits admits add to a reading line within the byte bound, or ends the
  // walk: a line after whole parts is left to the next walk, which resumes
  // at its start; the window's first line keeps what fits and is cut.
  function fits(add, raw, pre, sep, lead) {
    const cost = partCost(add) - B.TextPartOverhead;
    if (bytes + B.TextPartOverhead + lineCost + cost <= maxBytes) {
      lineCost += cost;
      return true;
    }
    byteLimit = true;
    if (produced > 0) return rollback();
    const kept = cutCost(add, maxBytes - bytes - lineCost);
    if (kept && !line && !joined) lineStart = here();
    line += kept;
    const pt = here();
    const k = kept.length - sep.length;
    if (k > 0) {
      pt.offset += pre ? k : rawOffset(raw, k, lead);
      lastSpace = pre ? /\s$/.test(kept) : kept.endsWith(' ');
    } else if (!kept) {
      pendingSep = sep;
    }
    cutAt(pt);
    return false;
  }

  // rollback leaves the line to the next walk.
  function rollback() {
    done = true;
    stop = lineStart || here();
    line = '';
    return false;
  }

  // cutAt ends the walk inside the window's first part: what the line holds
  // is that part's cut, and pt carries what the next walk needs to continue
  // the part exactly (the whitespace held back, a pending cell separator,
  // whether whitespace collapses).
  function cutAt(pt) {
    done = true;
    const t = line.replace(/[ \t]+\n/g, '\n');
    const kept = t.trimEnd();
    if (!kept && !joined) { stop = pt; return; } // the part has not begun
    Object.assign(pt, {joined: true, carry: t.slice(kept.length), sep: pendingSep, space: lastSpace});
    line = kept;
    if (flush()) lastCut = true;
    stop = pt;
  }

  // endAt ends a walk that the node or unit bound stopped before pt.
  function endAt(pt) {
    done = true;
    if (!reading) return;
    if (pendingBreak) flush(); // the line is whole
    if (!line && !joined) stop = pt;
    else if (produced > 0) rollback();
    else cutAt(pt);
  }

  let stack = [[opts.root || document.documentElement, 0, null, false, false, 0]];
  const from = opts.from || null;
  let skipFrame = !!(from && opts.afterFrame);
  if (from) {
    const r = resumeTextWalk(from, maxNodes, opts.root || null);
    if (r.error) return {error: r.error};
    stack = r.stack;
    visits = r.visits;
    if (from.joined) {
      line = from.carry;
      lineCost = partCost(line) - B.TextPartOverhead;
      lineStart = from;
      joined = true;
      pendingSep = from.sep;
      lastSpace = from.space;
    }
  }
  while (stack.length && !done) {
    const [n, kind, parent, pre, any, offset] = stack.pop();
    if (kind === CLOSING) {
      if (CELL_TAGS.has(n.localName)) pendingSep = '\t';
      else pendingBreak = true;
      continue;
    }
    if (!n) {
      if (kind === SLOTTED && !any) stack.push([parent.firstChild, 0, parent, pre, false, 0]);
      continue;
    }
    if (visits >= maxNodes) {
      nodeLimit = true;
      endAt({node: n, offset, parent, scan: kind === SLOTTED, any});
      break;
    }
    visits++;
    if (kind === SLOTTED) {
      // Each check of the host's light children counts as a visit.
      const assigned = n.assignedSlot === parent;
      stack.push([n.nextSibling, SLOTTED, parent, pre, any || assigned, 0]);
      if (!assigned) continue;
    } else if (parent) {
      stack.push([n.nextSibling, 0, parent, pre, false, 0]);
    }
    cur = n; curOff = offset; curParent = parent;
    if (skipFrame && n === from.node) { skipFrame = false; continue; } // resumed right after it
    if (n.nodeType === 3) {
      // The parent's visibility checker facts say whether its text shows.
      if (!parent || !vis.showsText(parent)) continue;
      let data = offset ? n.data.slice(offset) : n.data;
      if (units + data.length > maxUnits) {
        data = cut(data, maxUnits - units)[0];
        unitLimit = true;
      }
      units += data.length;
      emit(data, pre, !!vis.scrolled && /\S/.test(data) && vis.scrolled(parent));
      if (unitLimit && !done) endAt({node: n, offset: offset + data.length, parent});
      continue;
    }
    if (opts.frames && FRAME_TAGS.has(n.localName) && frameShown(n, vis)) {
      // A frame is a boundary, like a block: its text goes between.
      if (line || joined) flush();
      pendingBreak = false, pendingSep = '';
      if (done) { stop = here(); break; }
      const key = frameKeys.get(n) || '';
      frameMarks.push({frame: key, index: parts.length});
      if (key) framePoints[key] = here(); // a later walk resumes right after it
      continue;
    }
    if (n.nodeType !== 1 || n === opts.skipRoot || excludedSubtree(n)) continue;
    if (reading && navigationLandmark(n)) continue; // menus: the control and region streams
    const tag = n.localName;
    // Each element's style is read once, on the way down.
    const st = styleOf(n);
    const display = st.display;
    // Not rendered: display:none, content-visibility:hidden (a collapsed
    // <details>' content, hidden="until-found"), or no style at all (a
    // host's light child no slot takes).
    if (display === 'none' || display === '' || st.contentVisibility === 'hidden') continue;
    if (tag === 'br') { if (parent && vis.showsText(parent)) emit('\n', true); continue; }
    const block = blockDisplay(display);
    const cell = CELL_TAGS.has(tag) || display === 'table-cell';
    if (block && !cell) pendingBreak = true;
    if (block || cell) stack.push([n, CLOSING]);
    pushFlatChildren(stack, n, PRE_SPACE.has(st.whiteSpace));
  }
  if (!reading || !done) flush();
  if (reading) starts.push(stop);
  const coverage = {version: B.TextCoverageV1, scope: B.TextScope, scanned_nodes: visits,
    inspected_units: units, node_limit_reached: nodeLimit, text_limit_reached: unitLimit,
    byte_limit_reached: byteLimit, omitted_bytes: omitted};
  if (from) coverage.resumed = true;
  if (firstContinues) coverage.first_continues = true;
  if (lastCut) coverage.last_cut = true;
  if (scrolledParts > 0) coverage.in_scroll_containers = scrolledParts;
  return opts.frames ? {parts, starts, stop, coverage, frames: frameMarks, points: framePoints} : {parts, starts, stop, coverage};
}
