package veetbrowser_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/replay"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/tools"
)

// todoPage is a task list of 200 tasks, each a checkbox named by its task,
// under a site header and an "Add" form, with a footer: adding a task
// appends one checkbox, "Clear completed" removes the checked ones,
// "Import" appends n tasks at once, "Next page" replaces every task, and
// "Archive" loads another document.
func todoPage() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><title>Tasks · Homebase</title>
<header><nav><a href="#inbox">Inbox</a> <a href="#today">Today</a> <a href="/archive">Archive</a></nav></header>
<main><h1>My tasks</h1>
<div id="add"><label>New task <input id="task" autocomplete="off"></label>
<button type="button" onclick="const f = document.getElementById('task'); add(f.value); f.value = ''">Add</button></div>
<p><button type="button" onclick="clearDone()">Clear completed</button>
<button type="button" onclick="more(32)">Import 32 tasks</button>
<button type="button" onclick="more(33)">Import 33 tasks</button>
<button type="button" onclick="nextPage()">Next page</button></p>
<ul id="list">`)
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&b, `<li><label><input type="checkbox"> Task %d: read chapter %d notes</label></li>`, i, 4000+i)
	}
	b.WriteString(`</ul></main><footer>© Homebase · <a href="#help">Help</a></footer>
<script>
const list = document.getElementById('list');
function add(text) {
  const li = document.createElement('li');
  li.innerHTML = '<label><input type="checkbox"> </label>';
  li.firstChild.append(text);
  list.append(li);
}
function clearDone() { for (const c of [...list.querySelectorAll('input:checked')]) c.closest('li').remove(); }
function more(n) { for (let i = 1; i <= n; i++) add('Imported task ' + i); }
function nextPage() {
  list.replaceChildren();
  for (let i = 201; i <= 400; i++) add('Task ' + i + ': review invoice ' + (9000 + i));
}
</script>`)
	return b.String()
}

type changesFixture struct {
	ctx context.Context
	s   *veetbrowser.Session
	url string
}

func openTodo(t *testing.T) (*changesFixture, *veetbrowser.Result, func() *replay.Report) {
	t.Helper()
	st, _ := openSQLite(t)
	url := browsertest.ServePages(t, map[string]string{"/": todoPage(), "/archive": `<!doctype html><title>Archive</title><h1>Archive</h1><p>No archived tasks.</p><a href="/">Back</a>`})
	ctx := browsertest.Context(t, 2*time.Minute)
	rt := newRuntime(t, st)
	origin := strings.TrimSuffix(url, "/")
	s := openSession(t, rt, veetbrowser.SessionOptions{Grant: policy.Grant{Origins: []string{origin}}})
	res, err := s.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	rep := func() *replay.Report {
		rep, err := replay.Session(ctx, st, s.ID(), replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	return &changesFixture{ctx, s, url}, res, rep
}

func (f *changesFixture) act(t *testing.T, a browser.Action) (*veetbrowser.Result, projection.View) {
	t.Helper()
	res, err := f.s.Act(f.ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	var v projection.View
	if err := res.DecodeView(&v); err != nil {
		t.Fatal(err)
	}
	return res, v
}

// TestChangesAddOneOfTwoHundred: on a list of 200 tasks, adding one
// returns a delta that names the new task's checkbox with its ref (which
// acts), is at least 5× smaller than the full view of the same
// observation, repeats no unchanged control, keeps the refs of the first
// view valid for unchanged controls, and replays byte for byte.
func TestChangesAddOneOfTwoHundred(t *testing.T) {
	t.Parallel()
	f, first, rep := openTodo(t)
	if strings.Contains(string(first.View), `"changes"`) {
		t.Fatalf("the first view of a page is a delta: %s", first.View)
	}
	f.act(t, browser.Action{Kind: browser.ActType, Ref: veetbrowser.RefOf(t, first, "New task"), Text: "Return library books"})
	res, v := f.act(t, browser.Action{Kind: browser.ActClick, Ref: veetbrowser.RefOf(t, first, "Add")})
	c := v.Changes
	if c == nil {
		t.Fatalf("no changes in the view after adding a task: %s", res.View)
	}
	if len(c.Added) != 1 || c.Added[0].Name != "Return library books" || c.Added[0].Role != "checkbox" || c.AddedOmitted != 0 {
		t.Fatalf("added: %+v (omitted %d), want the new task's checkbox: %s", c.Added, c.AddedOmitted, res.View)
	}
	if strings.Contains(string(res.View), "Task 7:") {
		t.Errorf("the delta repeats an unchanged control: %s", res.View)
	}
	full, err := fullView(res, projection.DefaultBudget)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.View)*5 > len(full) {
		t.Errorf("delta %d bytes, full view %d: not 5× smaller", len(res.View), len(full))
	}
	t.Logf("full view %d bytes, delta %d bytes (%.1f×)", len(full), len(res.View), float64(len(full))/float64(len(res.View)))

	// The new ref acts, and so does a ref of the first view for a control
	// the deltas did not repeat.
	_, v = f.act(t, browser.Action{Kind: browser.ActCheck, Ref: c.Added[0].Ref})
	if v.Changes == nil || !hasChanged(v.Changes, "Return library books", true) {
		t.Fatalf("checking the new task: %+v", v.Changes)
	}
	_, v = f.act(t, browser.Action{Kind: browser.ActCheck, Ref: veetbrowser.RefOf(t, first, "Task 7: read chapter 4007 notes")})
	if v.Changes == nil || !hasChanged(v.Changes, "Task 7: read chapter 4007 notes", true) {
		t.Fatalf("checking task 7 by its first ref: %+v", v.Changes)
	}
	if r := rep(); !r.Identical() || len(r.Views) != 5 {
		t.Fatalf("replay: identical %v, %d views, first difference %+v", r.Identical(), len(r.Views), r.First)
	}
}

// fullView is the full view of res's observation, as 1.9.0 projects it
// without a base.
func fullView(res *veetbrowser.Result, budget int) ([]byte, error) {
	opts := tools.ViewOptions(tools.Newest(), budget, 0, 0)
	opts.Next = res.Observation.NextKey
	return projection.Project(res.Observation, opts)
}

func hasChanged(c *projection.Changes, name string, checked bool) bool {
	for _, x := range c.Changed {
		if x.Name == name && x.Checked == checked {
			return true
		}
	}
	return false
}

// TestChangesRemovedAndFallback: clearing completed tasks lists the removed
// checkboxes by role and name; replacing every task (most controls
// changed) and loading another document return the full view; each
// replays byte for byte.
func TestChangesRemovedAndFallback(t *testing.T) {
	t.Parallel()
	f, first, rep := openTodo(t)
	for _, n := range []int{3, 9} {
		f.act(t, browser.Action{Kind: browser.ActCheck, Ref: veetbrowser.RefOf(t, first, fmt.Sprintf("Task %d: read chapter %d notes", n, 4000+n))})
	}
	res, v := f.act(t, browser.Action{Kind: browser.ActClick, Ref: veetbrowser.RefOf(t, first, "Clear completed")})
	if v.Changes == nil || len(v.Changes.Removed) != 2 || v.Changes.Removed[0].Name != "Task 3: read chapter 4003 notes" ||
		v.Changes.Removed[1].Role != "checkbox" || len(v.Changes.Added) != 0 {
		t.Fatalf("removed: %s", res.View)
	}
	if len(v.Changes.TextRemoved) != 2 {
		t.Errorf("text removed: %q", v.Changes.TextRemoved)
	}
	res, v = f.act(t, browser.Action{Kind: browser.ActClick, Ref: veetbrowser.RefOf(t, first, "Next page")})
	if v.Changes != nil || len(v.Controls) == 0 {
		t.Fatalf("every task replaced, yet a delta: %s", res.View)
	}
	res, v = f.act(t, browser.Action{Kind: browser.ActClick, Ref: veetbrowser.RefOf(t, res, "Archive")})
	if v.Changes != nil || v.Title != "Archive" {
		t.Fatalf("a new document, yet a delta: %s", res.View)
	}
	if r := rep(); !r.Identical() || len(r.Views) != 6 {
		t.Fatalf("replay: identical %v, %d views, first difference %+v", r.Identical(), len(r.Views), r.First)
	}
}

// TestChangesListBound: importing 32 tasks shows all 32 (the bound);
// importing 33 shows 32 and counts the 33rd as omitted; browser_observe
// without changes then shows the full view.
func TestChangesListBound(t *testing.T) {
	t.Parallel()
	for _, n := range []int{projection.ChangeControls, projection.ChangeControls + 1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			f, first, rep := openTodo(t)
			res, v := f.act(t, browser.Action{Kind: browser.ActClick, Ref: veetbrowser.RefOf(t, first, fmt.Sprintf("Import %d tasks", n))})
			if v.Changes == nil || len(v.Changes.Added) != min(n, projection.ChangeControls) || v.Changes.AddedOmitted != n-len(v.Changes.Added) {
				t.Fatalf("import %d: %s", n, res.View)
			}
			if got := v.Changes.TextAddedOmitted + len(v.Changes.TextAdded); got != n {
				t.Errorf("text added %d + omitted %d, want %d", len(v.Changes.TextAdded), v.Changes.TextAddedOmitted, n)
			}
			raw, _ := json.Marshal(map[string]bool{"changes": true})
			asked, err := f.s.Call(f.ctx, "browser_observe", raw)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(asked.View), `"changes":{"since"`) || !strings.Contains(string(asked.View), `"unchanged":`) {
				t.Errorf("observe {changes: true} on an unchanged page: %s", asked.View)
			}
			whole, err := f.s.Observe(f.ctx, veetbrowser.ObserveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(whole.View), `"changes"`) {
				t.Errorf("observe without changes gave a delta: %s", whole.View)
			}
			if r := rep(); !r.Identical() {
				t.Fatalf("replay: first difference %+v", r.First)
			}
		})
	}
}

// BenchmarkChangesView adds one task to the list of 200 and reports the
// bytes of the action's view: 1.8.0's (full), 1.9.0's full view of the
// same observation, and 1.9.0's delta, at 1 and 8 KiB.
func BenchmarkChangesView(b *testing.B) {
	url := browsertest.ServePages(b, map[string]string{"/": todoPage()})
	for _, budget := range []int{1024, 8192} {
		b.Run(fmt.Sprint(budget), func(b *testing.B) {
			ctx := browsertest.Context(b, 10*time.Minute)
			rt, err := veetbrowser.New(veetbrowser.SharedProvider(b), veetbrowser.Options{Budget: budget, Store: store.Discard})
			if err != nil {
				b.Fatal(err)
			}
			defer rt.Close(context.Background())
			grant := policy.Grant{Origins: []string{strings.TrimSuffix(url, "/")}}
			var old, full, delta int
			for b.Loop() {
				for _, version := range []string{"1.8.0", "1.9.0"} {
					s, err := rt.NewSession(ctx, veetbrowser.SessionOptions{Version: version, Grant: grant})
					if err != nil {
						b.Fatal(err)
					}
					res, err := s.Navigate(ctx, url)
					if err == nil {
						res, err = s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: veetbrowser.RefOf(b, res, "New task"), Text: "Return library books"})
					}
					if err == nil {
						res, err = s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: veetbrowser.RefOf(b, res, "Add")})
					}
					if err != nil {
						b.Fatal(err)
					}
					if version == "1.8.0" {
						old = len(res.View)
					} else {
						delta = len(res.View)
						view, err := fullView(res, budget)
						if err != nil {
							b.Fatal(err)
						}
						full = len(view)
					}
					s.Close(context.Background())
				}
			}
			b.ReportMetric(float64(old), "1.8.0-bytes")
			b.ReportMetric(float64(full), "full-bytes")
			b.ReportMetric(float64(delta), "delta-bytes")
			b.ReportMetric(float64(full)/float64(delta), "full/delta")
		})
	}
}
