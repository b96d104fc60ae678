// find.js: browser_find: the visible controls and readable text that hold every
// word of a query, and the points a later find or observation continues from.

// fold normalizes both sides of a match: compatibility decomposition, no
// combining marks, lower case, one sigma (Go: collect.QueryWords).
function fold(s) {
  return s.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().replace(/ς/g, 'σ');
}

// queryWords are the runs of letters and digits of the query's fold,
// within the query bounds Go checks before it asks.
function queryWords(q) {
  const words = fold(cut(q, B.MaxQueryUnits)[0]).match(/[\p{L}\p{N}]+/gu) || [];
  return words.slice(0, B.MaxQueryWords);
}

function holdsAll(text, words) {
  const f = fold(text);
  return words.every((w) => f.includes(w));
}

// Where a find's stream starts unless at a retained point.
const FROM_START = {};
const ENDED = {};

// find answers p = {revision, doc?, query, from?}. from = {revision,
// controls, text} continues that revision's find: each stream at its k-th
// match (the k before it were given back), where its walk stopped when k
// is its number of matches, not at all when k is -1. The revision retains
// the matching controls as its nodes (actions and anchors work on them) and,
// as text.starts, each matching part's start then the text walk's stop: an
// observation's text stream continues at match i as at part i.
function find(p) {
  if (p.doc && p.doc !== docId) return {error: R.DocumentChanged, doc: docId};
  const words = queryWords(String(p.query || ''));
  let fromControls = FROM_START;
  let fromText = FROM_START;
  if (p.from) {
    const entry = retained.get(p.from.revision);
    if (!entry || !entry.find) return {error: R.AnchorUnknown, doc: docId};
    fromControls = continuation(entry.find.controls, p.from.controls);
    fromText = continuation(entry.find.text, p.from.text);
    if (!fromControls || !fromText) return {error: R.AnchorUnknown, doc: docId};
  }
  if (!words.length) fromControls = fromText = ENDED; // nothing to look for
  const visible = visibilityChecker({scrollers: p.real_pages === true});
  const c = findControls(words, fromControls, visible, p.real_pages === true);
  if (c.error) return {error: c.error, doc: docId};
  const t = findText(words, fromText, visible);
  if (t.error) return {error: t.error, doc: docId};
  const [title, titleCut] = cut(document.title || '', B.MaxTitleUnits);
  const [href, hrefCut] = cut(location.href, B.MaxURLUnits);
  const starts = t.starts.concat([t.stop]);
  retain(p.revision, {nodes: c.nodes, parents: c.parents}, {text: {starts}}, p.real_pages === true);
  retained.get(p.revision).find = {controls: c.points.concat([c.stop]), text: starts};
  return {doc: docId, url: href, url_truncated: hrefCut, origin: location.origin, title, title_truncated: titleCut,
    controls: c.controls, matches: t.matches,
    // Each walk has its own node bound: scanned_nodes is the longer one.
    coverage: {scanned_nodes: Math.max(c.visits, t.visits), candidates: c.candidates, inspected_units: t.units,
      node_limit_reached: c.nodeLimit || t.nodeLimit, unit_limit_reached: t.unitLimit,
      offset_limit_reached: c.offsetLimit, more_controls: c.stop !== null, more_text: t.stop !== null},
  };
}

// continuation is where a stream continues at its k-th match (points: one
// per match, then the stop or null), ENDED for -1, or null: nowhere.
function continuation(points, k) {
  if (k === -1) return ENDED;
  if (!Number.isInteger(k) || k < 0 || k >= points.length) return null;
  return points[k];
}

// findControls walks the candidates as collectControls does, at most
// B.ScanNodes nodes and B.MaxOffset candidates, and keeps the visible ones
// whose name holds every word, up to B.FindMatches; a further match is where
// the next find starts. A point is {node, parent, position, at}: the walk
// visits node first when at, else resumes right after it (resumeStack).
function findControls(words, from, visible, pointer) {
  const out = {controls: [], nodes: [], parents: [], points: [], stop: null, visits: 0, candidates: 0, nodeLimit: false,
    offsetLimit: false};
  if (from === ENDED) return out;
  // With pointer targets, a point visited first is walked, not considered
  // alone: a target is taken once its subtree is walked.
  const before = pointer && from.at;
  const r = from === FROM_START ? {stack: [document.documentElement]} : before ? resumeBefore(from) : resumeStack(from);
  if (r.error) return r;
  let position = from.position || 0;
  const focused = deepActiveElement();
  const point = (n, at) => ({node: n, parent: walkParent(n), position, at});
  const stopAt = (n) => { out.stop = point(n, true); return STOP; };
  const consider = (n, role) => {
    // The candidate past a bound is where the next find starts.
    if (out.candidates === B.MaxOffset) { out.offsetLimit = true; return stopAt(n); }
    out.candidates++;
    const [name, truncated] = cut(accessibleName(n, role), B.MaxNameUnits);
    if (holdsAll(name, words) && visible(n)) {
      if (out.controls.length === B.FindMatches) return stopAt(n);
      out.points.push(point(n, true));
      out.controls.push({role, name, name_truncated: truncated, position, states: states(n, role, focused)});
      out.nodes.push(n);
      out.parents.push(flatParent(n));
    }
    position++;
  };
  const w = candidateWalk(pointer, false, consider);
  if (from.at && !before) {
    out.visits++;
    if (w.visit(from.node) === STOP) return out;
  }
  const scan = walk(null, {stack: r.stack, max: B.ScanNodes - out.visits, shadow: true, leave: w.leave}, w.visit);
  out.visits += scan.visits;
  if (scan.bound) [out.nodeLimit, out.stop] = [true, point(scan.last, false)];
  return out;
}

// findText reads parts as the reading text walk does (collectText: the
// same exclusions, visibility, whitespace and boundaries; a bound never
// splits a part but one larger than a whole walk), at most B.ScanNodes
// visits and B.FindUnits units, and keeps those that hold every word, up to
// B.FindMatches; a further match is where the next find starts. Its points
// are collectText's.
function findText(words, from, vis) {
  const out = {matches: [], starts: [], stop: null, visits: 0, units: 0, nodeLimit: false, unitLimit: false};
  if (from === ENDED) return out;
  let full = false;
  const onPart = (t, start) => {
    if (!holdsAll(t, words)) return;
    if (out.matches.length === B.FindMatches) {
      [full, out.stop] = [true, start];
      return STOP;
    }
    out.matches.push(snippet(t, words));
    out.starts.push(start);
  };
  const r = collectText(vis, {onPart, from: from === FROM_START ? null : from, nodes: B.ScanNodes, units: B.FindUnits,
    bytes: Number.MAX_SAFE_INTEGER});
  if (r.error) return r;
  if (!full) out.stop = r.stop;
  const c = r.coverage;
  [out.visits, out.units, out.nodeLimit, out.unitLimit] = [c.scanned_nodes, c.inspected_units, c.node_limit_reached, c.text_limit_reached];
  return out;
}

// snippet is at most B.SnippetUnits units of part t centered on the first
// occurrence of a word, never splitting a surrogate pair.
function snippet(t, words) {
  const f = fold(t);
  let [at, len] = [-1, 0];
  for (const w of words) {
    const i = f.indexOf(w);
    if (i >= 0 && (at < 0 || i < at)) [at, len] = [i, w.length];
  }
  const [s, e] = unfolded(t, at, at + len);
  const half = B.SnippetUnits >> 1;
  let from = Math.max(0, Math.min(((s + e) >> 1) - half, t.length - B.SnippetUnits));
  let to = Math.min(t.length, from + B.SnippetUnits);
  if (from > 0 && isLow(t.charCodeAt(from)) && isHigh(t.charCodeAt(from - 1))) from++;
  if (to < t.length && isHigh(t.charCodeAt(to - 1)) && isLow(t.charCodeAt(to))) to--;
  return {snippet: t.slice(from, to), cut_before: from > 0, cut_after: to < t.length};
}

// unfolded maps the range [from, to) of fold(t) back to t: ASCII folds unit
// for unit, other text is measured code point by code point.
function unfolded(t, from, to) {
  if (/^[\x00-\x7f]*$/.test(t)) return [from, to];
  let folded = 0;
  let start = -1;
  for (let i = 0; i < t.length;) {
    const step = isHigh(t.charCodeAt(i)) && isLow(t.charCodeAt(i + 1)) ? 2 : 1;
    folded += fold(t.slice(i, i + step)).length;
    if (start < 0 && folded > from) start = i;
    if (folded >= to) return [start, i + step];
    i += step;
  }
  return [Math.max(0, start), t.length];
}

// holdsText answers browser_wait's text condition p = {text}: whether one
// part of the readable text, read as findText reads it (same walk, same
// bounds, same fold), holds every word of the text. It retains nothing.
function holdsText(p) {
  const words = queryWords(String(p.text || ''));
  if (!words.length) return {holds: false};
  let holds = false;
  const onPart = (t) => {
    if (!holdsAll(t, words)) return;
    holds = true;
    return STOP;
  };
  collectText(visibilityChecker(), {onPart, nodes: B.ScanNodes, units: B.FindUnits, bytes: Number.MAX_SAFE_INTEGER});
  return {holds};
}
