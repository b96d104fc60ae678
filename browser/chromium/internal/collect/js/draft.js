// draft.js: the draft receipt (docs/regions-and-text.md): a live equality check of the
// agent's own submitted draft that returns a verdict, never the text.

let draftEditor = null; // WeakRef: one receipt at a time, never keeping the editor alive

// bindDraft binds the receipt to a retained editor and says whether it
// was already bound to it (the agent typed into it again).
function bindDraft(p) {
  const el = retainedNode(p);
  if (!el) return {ok: false};
  const same = !!draftEditor && draftEditor.deref() === el;
  draftEditor = new WeakRef(el);
  return {ok: true, same};
}

// checkDraft compares the bound editor with the known value and returns
// only the verdict: the editor's text never leaves the page. An editor of
// more than B.DraftEditorNodes nodes or B.DraftEditorUnits text units is
// oversized.
function checkDraft(p, visible) {
  const el = draftEditor && draftEditor.deref();
  if (!el || !el.isConnected) return R.DraftGone;
  if (!visible(el)) return R.DraftHidden;
  const type = (el.getAttribute('type') || '').toLowerCase();
  const ac = (el.getAttribute('autocomplete') || '').toLowerCase();
  if (type === 'password' || ac.includes('password') || ac.includes('one-time-code') || ac.startsWith('cc-')) return R.DraftCredential;
  const text = editorText(el);
  if (text === null) return R.DraftOversized;
  return clean(text) === clean(p.value) ? R.DraftMatch : R.DraftChanged;
}

// editorText is a rich-text editor's text, block ends as line breaks, or
// null past B.DraftEditorNodes nodes or B.DraftEditorUnits text units.
function editorText(el) {
  let units = 0;
  let text = '';
  const read = walk(el.firstChild, {max: B.DraftEditorNodes}, (n) => {
    if (n.nodeType === 3) {
      units += n.data.length;
      if (units > B.DraftEditorUnits) return STOP;
      text += n.data;
    } else if (n.nodeType === 1) {
      if (n.localName === 'br' || blockTag(n)) text += '\n';
    } else {
      return SKIP;
    }
  });
  return read.bound || read.stopped ? null : text;
}
