// observe.js: the entry point of an observation, and the one object this
// world exposes to the runtime.

// observe is the one entry point Go calls for an observation. It binds the
// retained nodes to the revision Go minted only once every collector has
// run, so a failed observation never replaces the previous revision's
// nodes. One visibility checker serves all collectors: nothing moves the
// layout between them, and its caches are shared.
function observe(p) {
  styles = new Map();
  rects = new Map();
  attrs = new Map();
  shown = new Set();
  pseudoRules = null;
  try {
    return collectAll(p);
  } finally {
    styles = null;
    rects = null;
    attrs = null;
    shown = null;
    pseudoRules = null;
  }
}

// collectAll is an observation's collectors and their answer.
function collectAll(p) {
  if (p.doc && p.doc !== docId) return {error: R.DocumentChanged, doc: docId};
  const visible = visibilityChecker({scrollers: p.real_pages === true});
  const c = p.controls_ended ? endedControls() : collectControls(p, p.revision, visible);
  if (c.error) return {error: c.error, doc: docId};
  const regions = p.reading ? readRegions(p, visible) : collectRegions(visible);
  if (regions.error) return {error: regions.error, doc: docId};
  const text = p.reading ? readText(p, visible) : collectText(visible, sharedTextBounds(p));
  if (text.error) return {error: text.error, doc: docId};
  const draft = p.draft ? checkDraft(p.draft, visible) : '';
  const [title, titleCut] = cut(document.title || '', B.MaxTitleUnits);
  const [href, hrefCut] = cut(location.href, B.MaxURLUnits);
  retain(p.revision, c, p.reading ? {regions: regions.retained, text: text.starts && {starts: text.starts, frames: text.points || {}}} : null,
    p.real_pages === true);
  const frames = p.frames ? {hidden_frames: c.hidden_frames || [], text_frames: text.frames || []} : {};
  return {
    ...frames,
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
    focus: p.focus || undefined,
  };
}

// sharedTextBounds are the text walk's bounds when a frame's walk shares
// the observation's with the page and its other frames (tool version
// 1.7.0): what is left of each, never more than an observation's.
function sharedTextBounds(p) {
  if (!p.frames) return {};
  return {frames: true, nodes: Math.min(p.text_nodes || B.TextNodes, B.TextNodes),
    units: Math.min(p.text_units || B.TextUnits, B.TextUnits)};
}

// endedAt: from is the end of a retained text stream that ended there (a
// frame's document after the frame it ends with, tool version 1.7.0).
function endedAt(from) {
  const entry = from && retained.get(from.revision);
  const starts = entry && entry.text && entry.text.starts;
  return !!starts && from.index === starts.length - 1 && starts[from.index] === null && !from.units;
}

// endedControls stands for the control scan of a reading whose control
// stream already ended: nothing is scanned or retained.
function endedControls() {
  return {controls: [], nodes: [], parents: [], origin: null, stop: null,
    coverage: {offset: 0, scanned: 0, more: false, limit: '', acquired: 0, from: '', ended: true}};
}

// readText is the text stream of reading mode: from the document's start,
// or where p.text continues a retained revision's stream (at part index,
// of which units were shown; at the index past its parts, where its walk
// stopped), or nothing when the stream ended.
function readText(p, visible) {
  if (p.text_ended || endedAt(p.text)) {
    // A stream that ends where a frame's continuation left it stays ended
    // at its part 0 for the next one.
    return {parts: [], starts: p.text_ended ? null : [null], coverage: {version: B.TextCoverageV1, scope: B.TextScope, scanned_nodes: 0,
      inspected_units: 0, node_limit_reached: false, text_limit_reached: false, byte_limit_reached: false,
      omitted_bytes: 0, ended: true}};
  }
  const bytes = p.text_bytes > 0 ? Math.min(p.text_bytes, B.TextBytes) : B.TextBytes;
  // A main-first reading (1.9.0) reads the main content's subtree alone,
  // then the page without it; a page without one has nothing first.
  const main = p.focus ? mainContent() : null;
  if (p.focus === 'main' && !main) return {parts: [], starts: [null], coverage: {version: B.TextCoverageV1, scope: B.TextScope,
    scanned_nodes: 0, inspected_units: 0, node_limit_reached: false, text_limit_reached: false, byte_limit_reached: false,
    omitted_bytes: 0, byte_bound: bytes < B.TextBytes ? bytes : undefined}};
  const order = p.focus === 'main' ? {root: main} : p.focus === 'rest' ? {skipRoot: main} : {};
  const read = (opts) => {
    const text = collectText(visible, Object.assign({reading: true, bytes}, sharedTextBounds(p), order, opts));
    if (!text.error && bytes < B.TextBytes) text.coverage.byte_bound = bytes;
    return text;
  };
  if (!p.text) return read({});
  const entry = retained.get(p.text.revision);
  if (p.text.frame) {
    // Right after a frame (tool version 1.7.0): its text was read, or
    // continues inside it; the walk goes on past its element.
    const point = entry && entry.text && entry.text.frames && entry.text.frames[p.text.frame];
    if (!point) return {error: R.AnchorUnknown};
    const text = read({from: point, afterFrame: true});
    if (!text.error) text.points = Object.assign({[p.text.frame]: point}, text.points);
    return text;
  }
  const starts = entry && entry.text && entry.text.starts;
  const from = starts && p.text.index >= 0 && starts[p.text.index];
  if (!from) return {error: R.AnchorUnknown};
  // A part the previous view showed the start of is resumed without it.
  // When the new first part is that rest, its start keeps the units
  // skipped, so that this revision's part 0 is the rest, as Go sees it.
  const skip = (from.skipped || 0) + (p.text.units || 0);
  const text = read({from, skip});
  if (!text.error && skip > 0 && text.coverage.first_continues && text.starts.length > 0 && text.starts[0]) {
    text.starts[0] = Object.assign({}, text.starts[0], {skipped: skip});
  }
  return text;
}

Object.defineProperty(globalThis, '__veetbrowser', {
  // retainedNodes is diagnostic: how many nodes the runtime keeps alive.
  value: Object.freeze({observe, nameFrame, revealOwner, throughOwner, find, holdsText, inspect, prepare, arm, disarm, selectPlan, selectedIs, choicesPlan, choicePoint, choicesAre, textSpan, textSelected, typedPlan, typedCheck, setColor, node, bindDraft, markListened, listenerRoots, shot, docId, retainedNodes: () => {
    let n = 0;
    for (const e of retained.values()) n += e.nodes.length;
    return n;
  }}),
});
