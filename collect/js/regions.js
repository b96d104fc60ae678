// regions.js: the semantic regions of the main document (docs/regions-and-text.md):
// dialogs, alerts, statuses, forms and headings, each with a bounded
// summary of its visible text.

const KIND_ORDER = ['dialog', 'alert', 'status', 'form', 'heading'];

function regionKind(el) {
  const role = (el.getAttribute('role') || '').trim().toLowerCase().split(/\s+/)[0];
  if (role === 'dialog' || role === 'alertdialog' || (el.localName === 'dialog' && el.open)) return 'dialog';
  if (role === 'alert') return 'alert';
  if (role === 'status') return 'status';
  if (role === 'form' || el.localName === 'form') return 'form';
  if (role === 'heading' || /^h[1-6]$/.test(el.localName)) return 'heading';
  return null;
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

function collectRegions(visibleEl) {
  const matches = [];
  // No shadow roots, no frames.
  const scan = walk(document.documentElement, {max: B.RegionScanNodes}, (n) => {
    if (n.nodeType !== 1) return SKIP;
    if (excludedSubtree(n) && n.localName !== 'form') return SKIP;
    const kind = regionKind(n);
    if (kind && visibleEl(n)) matches.push({kind, el: n, order: matches.length});
  });
  matches.sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || a.order - b.order);
  const regions = [];
  for (const m of matches.slice(0, B.MaxRegions)) {
    const [summary, truncated] = summarize(m.el, visibleEl);
    const r = {kind: m.kind, summary, summary_truncated: truncated};
    if (m.kind === 'heading') {
      const lvl = parseInt(m.el.getAttribute('aria-level') || m.el.localName.slice(1), 10);
      if (lvl >= 1 && lvl <= 9) r.level = lvl;
    }
    regions.push(r);
  }
  return {regions, coverage: {version: B.RegionCoverageV1, scope: B.RegionScope, scanned_nodes: scan.visits,
    node_limit_reached: scan.bound, omitted: Math.max(0, matches.length - B.MaxRegions)}};
}
