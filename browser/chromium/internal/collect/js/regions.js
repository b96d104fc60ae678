// regions.js: the semantic regions of the main document (docs/regions-and-text.md):
// dialogs, alerts, statuses, forms and headings, each with a bounded
// summary of its visible text; in reading mode also the landmarks, named,
// in open shadow roots too.

// Kinds in priority order: the first five are every version's, the
// landmarks after them are reading mode's.
const KIND_ORDER = ['dialog', 'alert', 'status', 'form', 'heading', 'navigation', 'main', 'banner',
  'contentinfo', 'complementary', 'search', 'region'];
const KIND_RANK = new Map(KIND_ORDER.map((k, i) => [k, i]));
// HTML-AAM: the landmarks elements map to without an explicit role.
const LANDMARK_TAGS = new Map([['nav', 'navigation'], ['main', 'main'], ['header', 'banner'],
  ['footer', 'contentinfo'], ['aside', 'complementary'], ['search', 'search'], ['section', 'region']]);
// A header or footer inside these is no banner or contentinfo.
const SECTIONING_TAGS = new Set(['article', 'aside', 'main', 'nav', 'section']);
const SECTIONING_ROLES = new Set(['article', 'complementary', 'main', 'navigation', 'region']);

function firstRole(el) {
  return attrsOf(el).firstRole;
}

function regionKind(el) {
  const role = firstRole(el);
  if (role === 'dialog' || role === 'alertdialog' || (el.localName === 'dialog' && el.open)) return 'dialog';
  if (role === 'alert') return 'alert';
  if (role === 'status') return 'status';
  if (role === 'form' || el.localName === 'form') return 'form';
  if (role === 'heading' || /^h[1-6]$/.test(el.localName)) return 'heading';
  return null;
}

// landmarkKind is a region's kind in reading mode: an explicit role that
// names a kind first, then the five as regionKind says, then the landmark
// the element maps to when it has no role (HTML-AAM). A header or footer
// is a banner or contentinfo only outside sectioning content; a section
// (like role=region) is a region only when it is named, which the caller
// checks.
function landmarkKind(el, sectioned) {
  const role = firstRole(el);
  if (role === 'alertdialog') return 'dialog';
  if (KIND_RANK.has(role)) return role;
  const kind = regionKind(el);
  if (kind || role) return kind;
  const tag = LANDMARK_TAGS.get(el.localName) || null;
  if ((tag === 'banner' || tag === 'contentinfo') && sectioned(flatParent(el))) return null;
  return tag;
}

// navigationLandmark: a nav element without another role, or an element
// with the navigation role. Reading leaves its text to the control stream
// (its links) and the region stream (its summary): menus of hundreds of
// links would otherwise fill the text of a page's first views.
function navigationLandmark(el) {
  const role = firstRole(el);
  return role === 'navigation' || (role === '' && el.localName === 'nav');
}

// sectionedIn says whether an element is, or is inside, sectioning content
// (or an element with a sectioning role), in the flat tree. Answers are
// memoized along each climb, so ancestors are inspected once per scan.
function sectionedIn() {
  const memo = new Map();
  return (el) => {
    const chain = [];
    let v = false;
    for (let a = el; a && a.nodeType === 1 && chain.length < B.ScanNodes; a = flatParent(a)) {
      const m = memo.get(a);
      if (m !== undefined) { v = m; break; }
      chain.push(a);
      if (SECTIONING_TAGS.has(a.localName) || SECTIONING_ROLES.has(firstRole(a))) { v = true; break; }
    }
    for (const a of chain) memo.set(a, v);
    return v;
  };
}

// regionName is a region's accessible name from aria-labelledby, then
// aria-label, bounded like a control's name: [name, truncated].
function regionName(el) {
  return cut(labelledBy(el) || clean(el.getAttribute('aria-label') || ''), B.MaxNameUnits);
}

// summarize reads the visible text under a region, bounded in nodes
// (B.SummaryNodes) and units (B.SummaryUnits); truncated covers both
// bounds. It builds the normalized summary as it goes, so each text node
// costs its own length once and at most B.SummaryUnits + 1 are kept.
function summarize(root, visible) {
  let text = '';
  const append = (raw) => {
    let t = raw.replace(/\s+/g, ' ');
    if ((text === '' || text.endsWith(' ')) && t.startsWith(' ')) t = t.slice(1);
    text += t;
    return text.length > B.SummaryUnits + 1;
  };
  const opts = {max: B.SummaryNodes, leave: () => append(' ')};
  const read = walk(root.firstChild, opts, (n) => {
    if (n.nodeType === 3) {
      const parent = flatParent(n);
      if (!parent || !visible.showsText(parent)) return;
      // Never read more of one text node than the summary could keep.
      const room = B.SummaryUnits + 2 - text.length;
      const full = append(n.data.length > room ? n.data.slice(0, room) : n.data);
      return full || n.data.length > room ? STOP : undefined;
    }
    if (n.nodeType !== 1 || excludedSubtree(n)) return SKIP;
    if (n.localName === 'button' || blockTag(n)) {
      append(' ');
      return CLOSE;
    }
  });
  const [summary, cutText] = cut(text.trim(), B.SummaryUnits);
  return [summary, read.bound || read.stopped || cutText];
}

function byPriority(a, b) {
  return KIND_RANK.get(a.kind) - KIND_RANK.get(b.kind) || a.order - b.order;
}

// region is the published form of a match; named adds its name.
function region(m, visibleEl, named) {
  const [summary, truncated] = summarize(m.el, visibleEl);
  const r = {kind: m.kind, summary, summary_truncated: truncated};
  if (m.kind === 'heading') {
    const lvl = parseInt(m.el.getAttribute('aria-level') || m.el.localName.slice(1), 10);
    if (lvl >= 1 && lvl <= 9) r.level = lvl;
  } else if (named) {
    const [name, nameCut] = m.name || regionName(m.el);
    if (name) r.name = name;
    if (nameCut) r.name_truncated = true;
  }
  return r;
}

function collectRegions(visibleEl) {
  const matches = [];
  // No shadow roots, no frames.
  const scan = walk(document.documentElement, {max: B.RegionScanNodes}, (n) => {
    if (n.nodeType !== 1) return SKIP;
    if (excludedSubtree(n) && n.localName !== 'form') return SKIP;
    const kind = regionKind(n);
    if (kind && visibleEl(n)) matches.push({kind, el: n, order: matches.length});
  });
  matches.sort(byPriority);
  const kept = matches.slice(0, B.MaxRegions);
  const coverage = {version: B.RegionCoverageV1, scope: B.RegionScope, scanned_nodes: scan.visits,
    node_limit_reached: scan.bound, omitted: Math.max(0, matches.length - B.MaxRegions)};
  return {regions: kept.map((m) => region(m, visibleEl, false)), coverage: countScrolled(coverage, kept, visibleEl)};
}

// countScrolled adds to a region coverage how many of the kept regions lie
// in a scroll container (visibleEl.scrolled, tool version 1.9.0); omitted
// when none do, as for controls and text.
function countScrolled(coverage, kept, visibleEl) {
  const n = visibleEl.scrolled ? kept.filter((m) => visibleEl.scrolled(m.el)).length : 0;
  if (n > 0) coverage.in_scroll_containers = n;
  return coverage;
}

// readRegions is the region stream of reading mode. A window is the
// visible matches of a scan of at most B.RegionScanNodes nodes (the shared
// shadow walk: open shadow roots too), by priority then document order;
// the first B.MaxRegions are returned and the whole sorted list is
// retained, with the node the scan would have visited next if the bound
// stopped it. p.regions continues a retained revision's stream at an
// index: the rest of its list (each match checked again: connected and
// visible), or at the list's end a new scan from that node.
function readRegions(p, visibleEl) {
  const coverage = {version: B.RegionCoverageV1, scope: B.ReadingScope, scanned_nodes: 0, node_limit_reached: false, omitted: 0};
  if (p.regions_ended) return {regions: [], retained: null, coverage: Object.assign(coverage, {ended: true})};
  let stack = [document.documentElement];
  let matches = null;
  let stop = null;
  if (p.regions) {
    const entry = retained.get(p.regions.revision);
    const r = entry && entry.regions;
    const i = p.regions.index;
    if (!r || !(i >= 0 && i <= r.matches.length) || (i === r.matches.length && !r.stop)) return {error: R.AnchorUnknown};
    coverage.resumed = true;
    if (i < r.matches.length) {
      matches = r.matches.slice(i).filter((m) => m.el.isConnected && visibleEl(m.el));
      stop = r.stop;
    } else {
      const s = resumeBefore(r.stop);
      if (s.error) return {error: s.error};
      stack = s.stack;
    }
  }
  if (!matches) {
    matches = [];
    const sectioned = sectionedIn();
    // A frame's scan shares the observation's node bound (tool version 1.7.0).
    const max = Math.min(p.region_nodes || B.RegionScanNodes, B.RegionScanNodes);
    const scan = walk(null, {stack, max, shadow: true}, (n) => {
      if (n.nodeType !== 1) return SKIP;
      if (excludedSubtree(n) && n.localName !== 'form') return SKIP;
      const kind = landmarkKind(n, sectioned);
      if (!kind || !visibleEl(n)) return;
      const m = {kind, el: n, order: matches.length, name: null};
      if (kind === 'region' && !(m.name = regionName(n))[0]) return;
      matches.push(m);
    });
    matches.sort(byPriority);
    coverage.scanned_nodes = scan.visits;
    if (scan.bound) stop = {node: scan.next, parent: walkParent(scan.next)};
  }
  coverage.node_limit_reached = stop !== null;
  const most = Math.min(p.max_regions === undefined ? B.MaxRegions : p.max_regions, B.MaxRegions);
  coverage.omitted = Math.max(0, matches.length - most);
  const kept = matches.slice(0, most);
  return {regions: kept.map((m) => region(m, visibleEl, true)), retained: {matches, stop}, coverage: countScrolled(coverage, kept, visibleEl)};
}
