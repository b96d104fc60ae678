// values.js: field values on request (tool version 1.9.0, the read_values
// grant; docs/realpages.md). The only place the collector reads a form
// value, and only for a field that is not a credential or payment field;
// every value is cut to B.MaxValueUnits here, before it crosses to Go.

// Input types whose value is never read: credentials, files and the
// buttons whose value is their label (already their name).
const NO_VALUE_TYPES = new Set(['password', 'hidden', 'file', 'checkbox', 'radio', 'button', 'submit',
  'reset', 'image']);

// credentialToken: autocomplete tokens of a credential or payment field.
function credentialToken(t) {
  return t === 'current-password' || t === 'new-password' || t === 'one-time-code' || t.startsWith('cc-');
}

const CREDENTIAL_SET = new Set(B.CredentialWords);

// saysCredential is policy.SaysCredential: a credential word or phrase as
// whole words (camelCase and snake_case split), or a word of a spaceless
// script anywhere.
function saysCredential(s) {
  if (!s) return false;
  for (const w of B.CredentialSpaceless) {
    if (s.includes(w)) return true;
  }
  const words = s.replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2').toLowerCase().split(/[^\p{L}\p{M}\p{N}]+/u).filter((w) => w !== '');
  for (let i = 0; i < words.length; i++) {
    for (let j = i + 1; j <= Math.min(i + 4, words.length); j++) {
      if (CREDENTIAL_SET.has(words.slice(i, j).join(' '))) return true;
    }
  }
  return false;
}

// credentialField: the field is a credential or payment field by its
// type, its autocomplete tokens, its name or id, or its accessible name.
function credentialField(el, name) {
  if (el.localName === 'input' && (el.getAttribute('type') || '').toLowerCase() === 'password') return true;
  const ac = (el.getAttribute('autocomplete') || '').toLowerCase().split(/\s+/);
  if (ac.some(credentialToken)) return true;
  return saysCredential(el.getAttribute('name')) || saysCredential(el.id) || saysCredential(name);
}

// fieldValue is the current value of an editable control as a person sees
// it, or null when it has none to show: an input's or textarea's value, a
// single-choice select's chosen option label, an editing host's text
// ({text, more}: hostText).
function fieldValue(el, role) {
  switch (el.localName) {
    case 'input':
      return NO_VALUE_TYPES.has((el.getAttribute('type') || '').toLowerCase()) ? null : el.value;
    case 'textarea':
      return el.value;
    case 'select': {
      if (el.multiple) return null; // the options' selected states say it
      const o = el.selectedIndex >= 0 ? el.options[el.selectedIndex] : null;
      return o ? o.label : '';
    }
  }
  return role === 'textbox' && el.isContentEditable ? hostText(el) : null;
}

// hostText is an editing host's text, read node by node (at most
// B.DraftEditorNodes, as the draft check reads an editor) and only one unit
// past B.MaxValueUnits, so that a long editor is never read whole; an
// editor the node bound stopped ends with more: its value is cut.
function hostText(el) {
  let text = '';
  const read = walk(el.firstChild, {max: B.DraftEditorNodes}, (n) => {
    if (n.nodeType === 3) text += n.data;
    else if (n.nodeType !== 1) return SKIP;
    else if (n.localName === 'br' || (blockTag(n) && text !== '')) text += '\n';
    return text.length > B.MaxValueUnits ? STOP : undefined;
  });
  return {text, more: read.bound};
}

// withValue adds the field's value, cut, to a collected control; nothing
// for a credential field or a control without a value.
function withValue(ctl, el, role) {
  if (credentialField(el, ctl.name)) return;
  const v = fieldValue(el, role);
  if (v === null) return;
  const host = typeof v === 'object';
  const [value, truncated] = cut(host ? v.text : v, B.MaxValueUnits);
  ctl.value = value;
  if (truncated || (host && v.more)) ctl.value_truncated = true;
}
