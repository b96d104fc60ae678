package suite

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/tools"
)

// Scenarios of views that say what changed (tool version 1.9.0,
// docs/changes.md): the agent acts on a long list through the deltas its
// actions return, with the refs they give and the refs of earlier views.

func changesScenarios() []scenario {
	return []scenario{
		{
			// A task list of 200: add a task, tick it by the ref the add's
			// delta gave, then clear it by a ref of the view before both.
			id: "delta-long-list",
			pages: map[string]func() string{"": static(`<title>Tasks · Homebase</title>
<header><h1>My tasks</h1></header>
<main><label>New task <input id="task" autocomplete="off"></label>
<button type="button" id="add">Add</button> <button type="button" id="clear">Clear completed</button>
<ul id="list">` + strings.Repeat(`<li><label><input type="checkbox"> Read the chapter notes</label></li>`, 200) + `</ul></main>
<footer>© Homebase · <a href="#help">Help</a></footer>
<script>
const list = document.getElementById('list');
document.getElementById('add').addEventListener('click', () => {
  const f = document.getElementById('task');
  const li = document.createElement('li');
  li.innerHTML = '<label><input type="checkbox"> </label>';
  li.firstChild.append(f.value);
  li.querySelector('input').addEventListener('change', e => { if (e.target.checked) report('done:' + li.textContent.trim()); });
  list.append(li);
  f.value = '';
});
document.getElementById('clear').addEventListener('click', () => {
  const done = [...list.querySelectorAll('input:checked')];
  for (const c of done) c.closest('li').remove();
  report('cleared:' + done.length);
});
</script>`)},
			expected: []string{"done:Return library books", "cleared:1"},
			run: func(ctx context.Context, a *agent, _ string) error {
				if err := a.act(ctx, "New task", map[string]any{"kind": "type", "text": "Return library books"}); err != nil {
					return err
				}
				v, err := a.call(ctx, tools.Observe, struct{}{})
				if err != nil {
					return err
				}
				add, clear := refNamed(v, "Add"), refNamed(v, "Clear completed")
				if add == "" || clear == "" {
					return fmt.Errorf("the first view shows no Add or Clear completed: %+v", v.Controls)
				}
				if v, err = a.call(ctx, tools.Act, map[string]any{"kind": "click", "ref": add}); err != nil {
					return err
				}
				d := v.Changes
				if d == nil {
					return fmt.Errorf("adding a task to a list of 200 gave no delta")
				}
				i := slices.IndexFunc(d.Added, func(c projection.Control) bool { return c.Name == "Return library books" })
				if i < 0 {
					return fmt.Errorf("the delta does not name the new task: %+v", d)
				}
				if _, err := a.call(ctx, tools.Act, map[string]any{"kind": "check", "ref": d.Added[i].Ref}); err != nil {
					return err
				}
				_, err = a.call(ctx, tools.Act, map[string]any{"kind": "click", "ref": clear})
				return err
			},
		},
	}
}

// refNamed is the ref of the first control of v named name, or "".
func refNamed(v projection.View, name string) string {
	if i := slices.IndexFunc(v.Controls, func(c projection.Control) bool { return c.Name == name }); i >= 0 {
		return v.Controls[i].Ref
	}
	return ""
}
