package suite

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/tools"
)

// Scenarios of tool version 1.8.0's interactions: a sign-in popup, a menu
// that opens on hover, a feed that loads on scroll and a list sorted by
// dragging. Each needs the new tools to reach its effect at all.

// htmlPage writes a page a handler serves itself.
func htmlPage(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, "<!doctype html><html><head><meta charset=\"utf-8\"></head><body>"+body+"</body></html>")
}

// The popup sign-in's account: the agent is told it, as a user would tell it.
const (
	signInUser     = "ada"
	signInPassword = "correct horse battery"
)

// The infinite feed: ten items a page, four pages. Item 40 is the last,
// so that opening it shows the end of the feed, not a fifth page.
const (
	feedPage  = 10
	feedPages = 4
)

// feedItem is one item of the feed: a heading and its Open button, whose
// name says which item it opens. An item is taller than a tenth of the
// viewport, so that one page is taller than the viewport and a page loads
// only when the agent scrolls to it.
func feedItem(n int) string {
	return fmt.Sprintf(`<article class="item"><h2>Item %[1]d</h2><p>Story number %[1]d of the feed.</p>`+
		`<button data-e="open:%[1]d" aria-label="Open Item %[1]d">Open</button></article>`, n)
}

func interactionScenarios() []scenario {
	return []scenario{
		{
			// A sign-in in a popup: the popup posts the form, tells its
			// opener who signed in and closes itself.
			id: "popup-sign-in",
			pages: map[string]func() string{
				"": static(`<h1>Account</h1><p id="who" role="status">Not signed in</p>
<button onclick="window.open('signin', 'signin', 'width=420,height=360')">Sign in</button>
<script>
window.addEventListener('message', (e) => {
  if (e.origin === location.origin && e.data && e.data.signedIn) document.getElementById('who').textContent = 'Signed in as ' + e.data.signedIn;
});
</script>`),
				"signin": static(`<title>Sign in</title><form method="post" action="session" aria-label="Sign in">
<label>User name <input name="user" autocomplete="username"></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button>Sign in</button></form>`),
			},
			handlers: map[string]handler{"session": func(w http.ResponseWriter, r *http.Request, record func(string)) {
				if r.Method != http.MethodPost {
					http.Error(w, "sign in with POST", http.StatusMethodNotAllowed)
					return
				}
				r.ParseForm()
				user := r.PostForm.Get("user")
				if user != signInUser || r.PostForm.Get("password") != signInPassword {
					record("signin-refused")
					htmlPage(w, `<p role="alert">Wrong user name or password</p>`)
					return
				}
				record("signin:" + user)
				htmlPage(w, `<p role="status">Signed in</p>
<script>opener.postMessage({signedIn: 'Ada'}, location.origin); window.close();</script>`)
			}},
			expected: []string{"signin:" + signInUser},
			approve:  []string{"Sign in"},
			run: func(ctx context.Context, a *agent, base string) error {
				// A lone tab's view says nothing of tabs: the list names it.
				if _, err := a.call(ctx, tools.Tabs, map[string]string{"action": "list"}); err != nil {
					return err
				}
				first := a.view.Tabs.Active
				if err := a.click(ctx, "Sign in"); err != nil {
					return err
				}
				popup, err := a.openedTab(ctx, first)
				if err != nil {
					return err
				}
				if _, err := a.call(ctx, tools.Tabs, map[string]string{"action": "select", "tab": popup}); err != nil {
					return err
				}
				for _, f := range [][2]string{{"User name", signInUser}, {"Password", signInPassword}} {
					if err := a.act(ctx, f[0], map[string]any{"kind": "type", "text": f[1]}); err != nil {
						return fmt.Errorf("typing into %s: %w", f[0], err)
					}
				}
				// The submit once, never again: the popup closes under it,
				// and the opener has a Sign in button of its own.
				ref, err := a.find(ctx, "Sign in")
				if err != nil {
					return err
				}
				if _, err := a.call(ctx, tools.Act, map[string]any{"kind": "click", "ref": ref}); err != nil {
					return err
				}
				return a.waitBack(ctx, first, "Signed in as")
			},
		},
		{
			// A menu whose items show only while the pointer is over it.
			id: "hover-menu",
			pages: map[string]func() string{"": static(`<style>
.menu, .sub { list-style: none; margin: 0; padding: 0; }
.menu > li { display: inline-block; position: relative; margin-right: 24px; }
.sub { display: none; position: absolute; top: 100%; left: 0; background: #fff; border: 1px solid #999; }
.has-sub:hover .sub { display: block; }
</style>
<nav aria-label="Main"><ul class="menu">
<li><a href="./">Home</a></li>
<li class="has-sub"><button aria-haspopup="true">Analytics</button>
<ul class="sub"><li><a href="dashboards">Dashboards</a></li><li><a href="reports">Reports</a></li></ul></li>
<li><a href="help">Help</a></li>
</ul></nav>
<h1>Welcome</h1><p>Point at Analytics for its pages.</p>`)},
			handlers: map[string]handler{
				"reports":    visit("reports"),
				"dashboards": visit("dashboards"),
				"help":       visit("help"),
			},
			expected: []string{"visit:reports"},
			run: func(ctx context.Context, a *agent, base string) error {
				if _, err := a.find(ctx, "Reports"); err == nil {
					return fmt.Errorf("the submenu shows before the hover")
				}
				if err := a.act(ctx, "Analytics", map[string]any{"kind": "hover"}); err != nil {
					return err
				}
				if !a.shows("Reports") {
					return fmt.Errorf("the hover's view does not show the submenu")
				}
				return a.click(ctx, "Reports")
			},
		},
		{
			// A feed that fetches its next page when its end comes into
			// view: the agent scrolls until item 40 exists, then opens it.
			id: "infinite-scroll",
			pages: map[string]func() string{"": func() string {
				var b strings.Builder
				b.WriteString(`<style>.item { height: 150px; margin: 0; border-bottom: 1px solid #ccc; }</style>
<h1>Feed</h1><div id="feed">`)
				for n := 1; n <= feedPage; n++ {
					b.WriteString(feedItem(n))
				}
				b.WriteString(`</div><p id="more">Loading more items</p>
<script>
let page = 1, busy = false;
async function more() {
  if (busy) return;
  busy = true;
  const res = await fetch('feed?page=' + (page + 1));
  document.getElementById('feed').insertAdjacentHTML('beforeend', await res.text());
  page++;
  if (res.headers.get('Feed-End')) {
    loader.disconnect();
    document.getElementById('more').textContent = 'End of the feed';
  }
  busy = false;
}
const loader = new IntersectionObserver((entries) => { if (entries.some((e) => e.isIntersecting)) more(); });
loader.observe(document.getElementById('more'));
</script>`)
				return b.String()
			}},
			handlers: map[string]handler{"feed": func(w http.ResponseWriter, r *http.Request, record func(string)) {
				page, err := strconv.Atoi(r.URL.Query().Get("page"))
				if err != nil || page < 2 || page > feedPages {
					http.Error(w, "no such page", http.StatusNotFound)
					return
				}
				record("page:" + strconv.Itoa(page))
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				if page == feedPages {
					w.Header().Set("Feed-End", "1")
				}
				for n := (page-1)*feedPage + 1; n <= page*feedPage; n++ {
					fmt.Fprint(w, feedItem(n))
				}
			}},
			expected: []string{"page:2", "page:3", "page:4", "open:40"},
			run: func(ctx context.Context, a *agent, base string) error {
				for scrolls := 0; ; scrolls++ {
					ref, err := a.findControl(ctx, "Item 40", "Open Item 40")
					if err != nil {
						return err
					}
					if ref != "" {
						_, err := a.call(ctx, tools.Act, map[string]any{"kind": "click", "ref": ref})
						return err
					}
					if scrolls == 20 {
						return fmt.Errorf("item 40 did not load in %d scrolls", scrolls)
					}
					if _, err := a.call(ctx, tools.Act, map[string]any{"kind": "scroll"}); err != nil {
						return err
					}
				}
			},
		},
		{
			// A list sorted by dragging with pointer events; the page saves
			// the new order.
			id: "drag-reorder",
			pages: map[string]func() string{"": static(`<style>
#tasks { margin: 0; padding: 0; width: 320px; }
.task { height: 44px; line-height: 44px; padding: 0 8px; border: 1px solid #999; margin: 4px 0; user-select: none; touch-action: none; }
</style>
<h1>Tasks</h1><p>Drag a task to reorder the list.</p>
<div id="tasks">
<div class="task" role="button" tabindex="0" data-id="1">First task</div>
<div class="task" role="button" tabindex="0" data-id="2">Second task</div>
<div class="task" role="button" tabindex="0" data-id="3">Third task</div>
<div class="task" role="button" tabindex="0" data-id="4">Fourth task</div>
</div>
<script>
const list = document.getElementById('tasks');
let held = null;
list.addEventListener('pointerdown', (e) => {
  held = e.target.closest('.task');
  if (held) e.preventDefault();
});
document.addEventListener('pointermove', (e) => {
  if (!held || !(e.buttons & 1)) return;
  const tasks = [...list.children];
  const over = tasks.find((el) => { const r = el.getBoundingClientRect(); return e.clientY >= r.top && e.clientY < r.bottom; });
  if (!over || over === held) return;
  if (tasks.indexOf(held) < tasks.indexOf(over)) over.after(held); else over.before(held);
});
document.addEventListener('pointerup', () => {
  if (!held) return;
  held = null;
  fetch('order', {method: 'POST', body: [...list.children].map((el) => el.dataset.id).join(',')});
});
</script>`)},
			handlers: orderHandlers,
			expected: []string{"order:3,1,2,4"},
			run:      dragOnto("Third task", "First task"),
		},
	}
}

// visit serves a page of the site and records that it was visited.
func visit(name string) handler {
	return func(w http.ResponseWriter, r *http.Request, record func(string)) {
		record("visit:" + name)
		htmlPage(w, "<h1>"+name+"</h1>")
	}
}

// openedTab returns the tab the last action opened, from the view's tabs
// record; when the popup was not adopted yet, from the tab list.
func (a *agent) openedTab(ctx context.Context, first string) (string, error) {
	for range 20 {
		if t := a.view.Tabs; t != nil {
			if len(t.Opened) > 0 {
				return t.Opened[0], nil
			}
			for _, tab := range t.List {
				if tab.ID != first {
					return tab.ID, nil
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
		if _, err := a.call(ctx, tools.Tabs, map[string]string{"action": "list"}); err != nil {
			return "", err
		}
	}
	return "", fmt.Errorf("no tab opened: %+v", a.view.Tabs)
}

// waitBack waits for the popup to close, which makes the first tab active
// again, and then for text on it.
func (a *agent) waitBack(ctx context.Context, first, text string) error {
	for range 20 {
		if a.view.Tabs != nil && a.view.Tabs.Active == first {
			_, err := a.call(ctx, tools.Wait, map[string]any{"text": text, "timeout_ms": 5000})
			return err
		}
		time.Sleep(100 * time.Millisecond)
		if _, err := a.call(ctx, tools.Tabs, map[string]string{"action": "list"}); err != nil {
			return err
		}
	}
	return fmt.Errorf("the popup did not close: %+v", a.view.Tabs)
}

// findControl searches the page with browser_find, following next, and
// returns the ref of the control named name, or "" when there is none.
func (a *agent) findControl(ctx context.Context, query, name string) (string, error) {
	args := map[string]string{"query": query}
	for range 50 {
		v, err := a.call(ctx, tools.Find, args)
		if err != nil {
			return "", err
		}
		for _, c := range v.Controls {
			if c.Name == name {
				return c.Ref, nil
			}
		}
		if v.Next == nil || v.Next.Cursor == "" {
			return "", nil
		}
		args["cursor"] = v.Next.Cursor
	}
	return "", fmt.Errorf("browser_find did not end")
}

// orderHandlers record the order a sortable list posts.
var orderHandlers = map[string]handler{"order": func(w http.ResponseWriter, r *http.Request, record func(string)) {
	b, _ := io.ReadAll(io.LimitReader(r.Body, 256))
	record("order:" + string(b))
}}

// dragOnto drags the control named item onto the one named onto. Both refs
// come from one view: a second observation would make the first stale.
func dragOnto(item, onto string) func(ctx context.Context, a *agent, base string) error {
	return func(ctx context.Context, a *agent, base string) error {
		from, err := a.find(ctx, item)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(a.view.Controls, func(c projection.Control) bool { return c.Name == onto })
		if i < 0 {
			return fmt.Errorf("%s is not in the view with %s", onto, item)
		}
		_, err = a.call(ctx, tools.Act, map[string]any{"kind": "drag", "ref": from, "to": a.view.Controls[i].Ref})
		return err
	}
}
