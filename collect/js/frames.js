// frames.js: child frames (tool version 1.7.0, docs/frames.md).

// Frame owners (tool version 1.7.0): the runtime names each child frame's
// element with the frame's key (nameFrame) before it observes, so that a
// scan can say which frame stands where. An owner is a candidate of the
// control scan in frames mode: it is visited, windowed and retained like a
// control (an anchor after it resumes after the frame), and the runtime
// puts the frame's own controls in its place.
const FRAME_TAGS = new Set(['iframe', 'frame']);
const frameKeys = new WeakMap();

function nameFrame(el, key) {
  if (el && FRAME_TAGS.has(el.localName)) frameKeys.set(el, String(key));
  return true;
}

const NO_STATES = Object.freeze({disabled: false, checked: false, selected: false, expanded: false,
  pressed: false, required: false, readonly: false, focused: false});
