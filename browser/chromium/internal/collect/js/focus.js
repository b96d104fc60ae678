// focus.js: the page's main content, for the main-first reading order
// (tool version 1.9.0, docs/reading.md).

// mainContent finds the element a main-first reading reads first, by one
// deterministic rule over at most B.FocusScanNodes elements in document
// order (light DOM; open shadow roots are not entered): the first article
// (<article> or role=article) inside the first main landmark (<main> or
// role=main), else that landmark; else the first article; else the
// element with the most <p> children (the first of equals), if it has at
// least two. null: the page has none.
function mainContent() {
  let main = null, article = null, dense = null, most = 1, visits = 0;
  const counts = new Map();
  const is = (n, role, tag) => { const r = firstRole(n); return r === role || (r === '' && n.localName === tag); };
  let n = document.documentElement;
  while (n && visits < B.FocusScanNodes) {
    visits++;
    if (!main && is(n, 'main', 'main')) {
      main = n;
      article = null; // only an article inside main counts now
    } else if (!article && is(n, 'article', 'article')) {
      article = n;
      if (main) break;
    }
    const up = n.parentElement;
    if (!main && n.localName === 'p' && up) {
      const c = (counts.get(up) || 0) + 1;
      counts.set(up, c);
      if (c > most) { most = c; dense = up; }
    }
    // Document order, iteratively: first child, else the next sibling of
    // the nearest ancestor that has one; past main's subtree, stop.
    if (n.firstElementChild) { n = n.firstElementChild; continue; }
    while (n && !n.nextElementSibling && n !== main) n = n.parentElement;
    if (!n || n === main) break;
    n = n.nextElementSibling;
  }
  if (main) return article || main;
  return article || dense;
}
