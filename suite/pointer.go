package suite

// Scenarios of tool version 1.9.0's pointer targets: what a page makes
// clickable without an ARIA role. A handler-only span in a paragraph, a
// file tree whose nodes are spans under one delegated listener, and a
// jQuery-UI-style sortable list driven by mouse events: none of them has a
// ref before 1.9.0.

func pointerScenarios() []scenario {
	return []scenario{
		{
			// A link-like span in prose whose only sign is a listener.
			id: "pointer-span",
			pages: map[string]func() string{"": static(`<title>Sign up</title>
<article><h1>Create your account</h1>
<p>By signing up you agree to our <span id="terms">terms and conditions</span> and to our
<span class="muted">privacy notice</span>, which we may update.</p></article>
<div id="modal" hidden><h2>Terms and conditions</h2><p>1. Be kind.</p></div>
<script>
document.getElementById('terms').addEventListener('click', () => {
  document.getElementById('modal').hidden = false;
  report('terms');
});
</script>`)},
			expected: []string{"terms"},
			run:      clicks("terms and conditions"),
		},
		{
			// A file tree: folders expand and files open through one
			// listener on the tree, as jQuery's delegated on() does; the
			// nodes are spans the stylesheet gives a pointer cursor.
			id: "tree-leaf",
			pages: map[string]func() string{"": static(`<title>Files</title>
<style>
  .tree, .tree ul { list-style: none; padding-left: 18px; }
  .tree ul { display: none; }
  .tree li.open > ul { display: block; }
  .caret, .file { cursor: pointer; user-select: none; }
  .caret::before { content: "▸ "; }
  .open > .caret::before { content: "▾ "; }
</style>
<h1>Project files</h1>
<ul class="tree" id="tree">
  <li><span class="caret">src</span>
    <ul><li><span class="file" data-path="src/main.go">main.go</span></li></ul></li>
  <li><span class="caret">docs</span>
    <ul>
      <li><span class="caret">api</span>
        <ul><li><span class="file" data-path="docs/api/auth.md">auth.md</span></li>
            <li><span class="file" data-path="docs/api/errors.md">errors.md</span></li></ul></li>
      <li><span class="file" data-path="docs/readme.md">readme.md</span></li>
    </ul></li>
</ul>
<p id="opened" role="status"></p>
<script>
document.getElementById('tree').addEventListener('click', (e) => {
  const caret = e.target.closest('.caret');
  if (caret) { caret.parentElement.classList.toggle('open'); return; }
  const file = e.target.closest('.file');
  if (!file) return;
  document.getElementById('opened').textContent = 'Opened ' + file.dataset.path;
  report('open:' + file.dataset.path);
});
</script>`)},
			expected: []string{"open:docs/api/auth.md"},
			// A folder's name holds its caret: its name from content takes
			// the ::before text, as a screen reader reads it.
			run: clicks("▸ docs", "▸ api", "auth.md"),
		},
		{
			// A jQuery-UI-style sortable: plain items under a ui-sortable
			// list, moved with mouse events; the page saves the order.
			id: "sortable-drag",
			pages: map[string]func() string{"": static(`<title>Priorities</title>
<style>
  #sortable { list-style: none; margin: 0; padding: 0; width: 300px; }
  #sortable li { margin: 4px 0; padding: 10px; height: 24px; border: 1px solid #c5c5c5; background: #f6f6f6; user-select: none; }
</style>
<h1>Order your priorities</h1><p>Drag an item to change its place.</p>
<ul id="sortable" class="ui-sortable">
  <li class="ui-state-default ui-sortable-handle" data-id="1">Item 1</li>
  <li class="ui-state-default ui-sortable-handle" data-id="2">Item 2</li>
  <li class="ui-state-default ui-sortable-handle" data-id="3">Item 3</li>
  <li class="ui-state-default ui-sortable-handle" data-id="4">Item 4</li>
</ul>
<script>
const list = document.getElementById('sortable');
let held = null;
list.addEventListener('mousedown', (e) => {
  held = e.target.closest('li');
  if (held) e.preventDefault();
});
document.addEventListener('mousemove', (e) => {
  if (!held || !(e.buttons & 1)) return;
  const items = [...list.children];
  const over = items.find((el) => { const r = el.getBoundingClientRect(); return e.clientY >= r.top && e.clientY < r.bottom; });
  if (!over || over === held) return;
  if (items.indexOf(held) < items.indexOf(over)) over.after(held); else over.before(held);
});
document.addEventListener('mouseup', () => {
  if (!held) return;
  held = null;
  fetch('order', {method: 'POST', body: [...list.children].map((el) => el.dataset.id).join(',')});
});
</script>`)},
			handlers: orderHandlers,
			expected: []string{"order:3,1,2,4"},
			run:      dragOnto("Item 3", "Item 1"),
		},
	}
}
