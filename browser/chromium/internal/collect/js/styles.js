// styles.js: what an observation reads once: computed styles, boxes and
// the attributes several passes ask about (docs/observation.md).

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

// attrs memoizes, for one observation like styles, the attributes that the
// control, region and text passes each ask about of the same elements
// (role, the hidden family, contenteditable, class): each getAttribute is
// a call into the DOM, and on a page of regions most were repeats.
let attrs = null;
function attrsOf(el) {
  if (attrs === null) return new Attrs(el);
  let a = attrs.get(el);
  if (a === undefined) {
    a = new Attrs(el);
    attrs.set(el, a);
  }
  return a;
}

// Attrs reads each attribute once, when first asked; an element without
// attributes (most of a page) answers every one without reading any.
class Attrs {
  constructor(el) {
    this.el = el;
    this.any = el.hasAttributes();
    this.role_ = this.any ? null : '';
    this.firstRole_ = this.any ? null : '';
    this.hidden_ = this.any ? null : false;
    this.editable_ = this.any ? undefined : null;
    this.cls_ = this.any ? undefined : null;
  }
  // role: the role attribute trimmed and lowercased, '' without one.
  get role() { return this.role_ === null ? (this.role_ = (this.el.getAttribute('role') || '').trim().toLowerCase()) : this.role_; }
  // firstRole: the role attribute's first token.
  get firstRole() { return this.firstRole_ === null ? (this.firstRole_ = this.role.split(/\s+/)[0]) : this.firstRole_; }
  // hidden: the element is hidden, inert or aria-hidden by its attributes.
  get hidden() {
    if (this.hidden_ === null) {
      const el = this.el;
      this.hidden_ = el.hasAttribute('hidden') || el.hasAttribute('inert') || el.getAttribute('aria-hidden') === 'true';
    }
    return this.hidden_;
  }
  // editable: the contenteditable attribute, or null.
  get editable() { return this.editable_ === undefined ? (this.editable_ = this.el.getAttribute('contenteditable')) : this.editable_; }
  // cls: the class attribute, or null.
  get cls() { return this.cls_ === undefined ? (this.cls_ = this.el.getAttribute('class')) : this.cls_; }
}

// shown holds, for one observation like styles, the elements whose
// checkVisibility with opacity, visibility and content-visibility:auto
// said true (a visible box): every check with fewer of those options then
// says true too, so that no pass asks again. Names ask this check first for
// the same reason: a region's name is read before its heading is checked.
let shown = null;
function checkedVisible(el) {
  if (shown !== null && shown.has(el)) return true;
  const v = el.checkVisibility({opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true});
  if (v && shown !== null) shown.add(el);
  return v;
}

// shownBox: el passed checkedVisible in this observation.
function shownBox(el) {
  return shown !== null && shown.has(el);
}

// pseudoRules says, for one observation like styles, whether the document's
// style sheets hold a rule that can give a ::before or ::after content (null
// until a name asks). Without one, no element of the document has content a
// name reads there (the browser's own sheet gives only quotes, which names
// do not read), and a name need not resolve its elements' pseudo-element
// styles, once most of a name's cost.
let pseudoRules = null;

// generatesContent: el may have ::before or ::after content a name reads.
// Outside an observation, and for an element a shadow tree's sheets may
// style (its content, a host, a slotted node, a custom element, whose
// closed root no one sees), the answer is yes: its pseudo-elements are read.
function generatesContent(el) {
  if (styles === null) return true;
  if (pseudoRules === null) pseudoRules = pseudoRuleIn(document);
  return pseudoRules || el.shadowRoot !== null || el.assignedSlot !== null || el.localName.includes('-') || el.getRootNode() !== document;
}

// PSEUDO_SELECTOR finds ::before or ::after in a serialized selector (which
// spells the legacy :before as ::before, and unescapes).
const PSEUDO_SELECTOR = /:(?:before|after)\b/i;

// pseudoRuleIn: a style sheet of doc, or one it imports, has a rule whose
// selector names ::before or ::after, at any depth of grouping (@media,
// @supports, @layer, nesting). A sheet whose rules cannot be read (another
// origin's) and a scan past B.PseudoRuleScan rules count as having one.
function pseudoRuleIn(doc) {
  const lists = [...doc.styleSheets, ...doc.adoptedStyleSheets];
  let read = 0;
  while (lists.length) {
    let rules;
    try {
      rules = lists.pop().cssRules;
    } catch {
      return true;
    }
    for (let i = 0; i < rules.length; i++) {
      if (++read > B.PseudoRuleScan) return true;
      const r = rules[i];
      if (r.selectorText !== undefined && PSEUDO_SELECTOR.test(r.selectorText)) return true;
      if (r.cssRules && r.cssRules.length) lists.push(r);
      if (r.styleSheet) lists.push(r.styleSheet);
    }
  }
  return false;
}
