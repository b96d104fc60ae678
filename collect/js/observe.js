// observe.js: the entry point of an observation, and the one object this
// world exposes to the runtime.

// observe is the one entry point Go calls for an observation. It binds the
// retained nodes to the revision Go minted only once every collector has
// run, so a failed observation never replaces the previous revision's
// nodes. One visibility checker serves all collectors: nothing moves the
// layout between them, and its caches are shared.
function observe(p) {
  if (p.doc && p.doc !== docId) return {error: 'document_changed', doc: docId};
  const visible = visibilityChecker();
  const c = collectControls(p, p.revision, visible);
  if (c.error) return {error: c.error, doc: docId};
  const regions = collectRegions(visible);
  const text = collectText(visible);
  const draft = p.draft ? checkDraft(p.draft, visible) : '';
  const [title, titleCut] = cut(document.title || '', B.MaxTitleUnits);
  const [href, hrefCut] = cut(location.href, B.MaxURLUnits);
  retain(p.revision, c);
  return {
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
  };
}

Object.defineProperty(globalThis, '__veetbrowser', {
  // retainedNodes is diagnostic: how many nodes the runtime keeps alive.
  value: Object.freeze({observe, inspect, prepare, arm, disarm, selectPlan, selectedIs, node, bindDraft, docId, retainedNodes: () => {
    let n = 0;
    for (const e of retained.values()) n += e.nodes.length;
    return n;
  }}),
});
