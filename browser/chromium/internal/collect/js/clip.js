// clip.js: what clips a box: overflow, scroll containers, clip paths and
// flattening transforms (docs/observation.md, docs/realpages.md).

// scrollClip is the clip a scroll container e leaves its content, given
// acc, the clip its ancestors leave it. Once its box shows within acc,
// on an axis it scrolls its content shows from the start of its scroll
// range on (content before that start cannot be scrolled to), whatever
// its ancestors clip: scrolling brings it into the box. On the other
// axis, its box clips, as overflow hidden does. The result is marked
// scroll; on the axes it scrolls, the off-document test gives way to it.
function scrollClip(e, st, acc) {
  const r = rectOf(e);
  const box = {l: r.left, t: r.top, r: r.right, b: r.bottom};
  const within = acc ? intersect(acc, box) : box;
  if (within.r <= within.l || within.b <= within.t) return 'none';
  const out = Object.assign({}, within, {scroll: true, sx: !!(acc && acc.sx), sy: !!(acc && acc.sy)});
  if (scrollsOn(e, st.overflowX, 'x')) {
    const start = r.left + e.clientLeft - e.scrollLeft;
    // Right to left, the range starts at the right (scrollLeft <= 0).
    if (st.direction === 'rtl') [out.l, out.r] = [-Infinity, start + e.clientWidth];
    else [out.l, out.r] = [start, Infinity];
    out.sx = true;
  }
  if (scrollsOn(e, st.overflowY, 'y')) {
    [out.t, out.b] = [r.top + e.clientTop - e.scrollTop, Infinity];
    out.sy = true;
  }
  return out;
}

// viewportScroller: e's overflow is the viewport's, the document's own
// scrolling (the root's, or the body's when the root's is visible), not
// a box's: `html { overflow-y: scroll }` makes no scroll container.
function viewportScroller(e) {
  if (e === document.documentElement) return true;
  if (e !== document.body) return false;
  const root = styleOf(document.documentElement);
  return root.overflowX === 'visible' && root.overflowY === 'visible';
}

// scrollsOn: e scrolls on the axis: overflow auto or scroll there, with
// more content than its box.
function scrollsOn(e, overflow, axis) {
  if (overflow !== 'auto' && overflow !== 'scroll') return false;
  return axis === 'x' ? e.scrollWidth > e.clientWidth : e.scrollHeight > e.clientHeight;
}

// intersect keeps a's scroll marks (scrollClip): a clip inside a scroll
// container is still inside it.
function intersect(a, b) {
  const out = {l: Math.max(a.l, b.l), t: Math.max(a.t, b.t), r: Math.min(a.r, b.r), b: Math.min(a.b, b.b)};
  return a.scroll ? Object.assign(out, {scroll: true, sx: a.sx, sy: a.sy}) : out;
}

// collapsed: the element and everything in it paint nothing: a clip
// rect or clip-path of zero area, or a transform that flattens it
// (scale(0) on either axis).
function collapsed(st, el) {
  const v = cssArgs(st.clip, 'rect');
  if (v && v.length === 4 && (v[1] - v[3] <= 0 || v[2] - v[0] <= 0)) return true;
  const t = st.transform;
  const m = cssArgs(t, 'matrix');
  if (m && m.length === 6 && m[0] * m[3] - m[1] * m[2] === 0) return true;
  const m3 = cssArgs(t, 'matrix3d');
  if (m3 && m3.length === 16 && m3[0] * m3[5] - m3[1] * m3[4] === 0) return true;
  const sc = st.scale;
  if (sc && sc !== 'none' && sc.split(/\s+/).slice(0, 2).some((x) => parseFloat(x) === 0)) return true;
  return degenerateClipPath(st.clipPath, el);
}

// cssArgs is the list of numbers of a computed value written fn(a, b, …)
// (or fn(a b …)): the clip rect and transform matrices; null for any other
// value.
function cssArgs(value, fn) {
  if (!value || !value.startsWith(fn + '(')) return null;
  return value.slice(fn.length + 1, -1).split(/[ ,]+/).map(parseFloat);
}

// degenerateClipPath: a basic-shape clip-path that leaves no area:
// circle(0), ellipse with a zero radius, an inset whose sides meet, a
// polygon of zero area. Lengths other than px and % are not resolved:
// such shapes count as visible.
function degenerateClipPath(cp, el) {
  if (!cp || cp === 'none') return false;
  const m = /^(circle|ellipse|inset|polygon)\((.*)\)/.exec(cp);
  if (!m) return false;
  let w = 0;
  let h = 0;
  if (m[1] === 'inset' || m[2].includes('%')) {
    const r = rectOf(el);
    w = r.width;
    h = r.height;
  }
  const len = (s, basis) => {
    if (/^-?[\d.]+px$/.test(s)) return parseFloat(s);
    if (/^-?[\d.]+%$/.test(s)) return parseFloat(s) * basis / 100;
    return s === '0' ? 0 : NaN;
  };
  const args = m[2].split(' at ')[0].trim();
  switch (m[1]) {
    case 'circle':
      return len(args.split(/\s+/)[0], Math.hypot(w, h) / Math.SQRT2) === 0;
    case 'ellipse': {
      const [rx, ry] = args.split(/\s+/);
      return len(rx, w) === 0 || len(ry, h) === 0;
    }
    case 'inset': {
      const v = args.split(' round ')[0].trim().split(/\s+/);
      const [t, r = t, b = t, l = r] = v;
      return len(t, h) + len(b, h) >= h || len(l, w) + len(r, w) >= w;
    }
    case 'polygon': {
      const pts = args.replace(/^(nonzero|evenodd)\s*,\s*/, '').split(',').map((pt) => {
        const [x, y] = pt.trim().split(/\s+/);
        return [len(x, w), len(y, h)];
      });
      let area = 0;
      for (let i = 0; i < pts.length; i++) {
        const [x1, y1] = pts[i];
        const [x2, y2] = pts[(i + 1) % pts.length];
        area += x1 * y2 - x2 * y1;
      }
      return area === 0;
    }
  }
  return false;
}
