// styles.js: what an observation reads of the layout once: computed styles
// and boxes (docs/observation.md).

// styles memoizes each element's computed style for one observation
// (observe sets it, then clears it), and rects each element's box: nothing
// changes the layout while the collectors run, each getComputedStyle call
// builds a new declaration, and each read of a declaration's property or
// of a box computes it again.
let styles = null;
let rects = null;
function styleOf(el) {
  if (styles === null) return getComputedStyle(el);
  let st = styles.get(el);
  if (st === undefined) {
    st = new Style(getComputedStyle(el));
    styles.set(el, st);
  }
  return st;
}

function rectOf(el) {
  if (rects === null) return el.getBoundingClientRect();
  let r = rects.get(el);
  if (r === undefined) {
    r = el.getBoundingClientRect();
    rects.set(el, r);
  }
  return r;
}

// Style is a computed style whose properties are each read from the
// declaration once: the collectors read the same few of them (these) many
// times per element, and each read of the declaration serializes the
// value anew. A field per property (null until read) gives every Style
// one shape.
class Style {
  constructor(d) {
    this.d = d;
    this.display_ = null;
    this.visibility_ = null;
    this.contentVisibility_ = null;
    this.whiteSpace_ = null;
    this.fontSize_ = null;
    this.position_ = null;
    this.overflowX_ = null;
    this.overflowY_ = null;
    this.clip_ = null;
    this.clipPath_ = null;
    this.transform_ = null;
    this.scale_ = null;
    this.backgroundImage_ = null;
    this.direction_ = null;
    this.cursor_ = null;
  }
  get display() { return this.display_ === null ? (this.display_ = this.d.display) : this.display_; }
  get visibility() { return this.visibility_ === null ? (this.visibility_ = this.d.visibility) : this.visibility_; }
  get contentVisibility() { return this.contentVisibility_ === null ? (this.contentVisibility_ = this.d.contentVisibility) : this.contentVisibility_; }
  get whiteSpace() { return this.whiteSpace_ === null ? (this.whiteSpace_ = this.d.whiteSpace) : this.whiteSpace_; }
  get fontSize() { return this.fontSize_ === null ? (this.fontSize_ = this.d.fontSize) : this.fontSize_; }
  get position() { return this.position_ === null ? (this.position_ = this.d.position) : this.position_; }
  get overflowX() { return this.overflowX_ === null ? (this.overflowX_ = this.d.overflowX) : this.overflowX_; }
  get overflowY() { return this.overflowY_ === null ? (this.overflowY_ = this.d.overflowY) : this.overflowY_; }
  get clip() { return this.clip_ === null ? (this.clip_ = this.d.clip) : this.clip_; }
  get clipPath() { return this.clipPath_ === null ? (this.clipPath_ = this.d.clipPath) : this.clipPath_; }
  get transform() { return this.transform_ === null ? (this.transform_ = this.d.transform) : this.transform_; }
  get scale() { return this.scale_ === null ? (this.scale_ = this.d.scale) : this.scale_; }
  get backgroundImage() { return this.backgroundImage_ === null ? (this.backgroundImage_ = this.d.backgroundImage) : this.backgroundImage_; }
  get direction() { return this.direction_ === null ? (this.direction_ = this.d.direction) : this.direction_; }
  get cursor() { return this.cursor_ === null ? (this.cursor_ = this.d.cursor) : this.cursor_; }
}
