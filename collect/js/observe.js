// observe.js: the entry point of an observation, and the one object this
// world exposes to the runtime.

// observe is the one entry point Go calls for an observation. It binds the
// retained nodes to the revision Go minted, so a failed observation never
// replaces the previous revision's nodes.
function observe(p) {
  if (p.doc && p.doc !== docId) return {error: 'document_changed', doc: docId};
  const c = collectControls(p, p.revision);
  if (c.error) return {error: c.error, doc: docId};
  retain(p.revision, c);
  const regions = collectRegions();
  const text = collectText();
  const draft = p.draft ? checkDraft(p.draft) : '';
  const [title, titleCut] = cut(document.title || '', B.MaxTitleUnits);
  const [href, hrefCut] = cut(location.href, B.MaxURLUnits);
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
