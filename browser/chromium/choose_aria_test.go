package chromium

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// assigneesPage is an issue tracker's assignee picker, an ARIA listbox as
// widget libraries write it: a plain click chooses only that person, a
// Control-click (or Meta-click) toggles one, and only trusted clicks count;
// the list scrolls with five of twelve in sight, one person is away
// (aria-disabled), and a single-choice priority listbox sits beside it.
var assigneesPage = func() string {
	var b strings.Builder
	b.WriteString(`<title>Issue #482 · Tracker</title>
<style>body{font:14px sans-serif;margin:2em} [role=listbox]{width:14em;height:120px;overflow:auto;border:1px solid #aaa;padding:0;margin:0;list-style:none}
[role=option]{height:24px;line-height:24px;padding:0 6px;cursor:default} [aria-selected=true]{background:#cde}</style>
<header><nav><a href="#">Issues</a> · <a href="#">Board</a></nav></header>
<main><h1>Crash when saving a draft</h1>
<div id=assignees-label>Assignees</div>
<ul role=listbox aria-multiselectable=true aria-labelledby=assignees-label id=people>`)
	for _, p := range []string{"Ann", "Bo", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hal", "Ivy", "Lee", "Max", "Zoe"} {
		attr := ` aria-selected="false"`
		switch p {
		case "Bo":
			attr = ` aria-selected="true"`
		case "Max":
			attr = ` aria-selected="false" aria-disabled="true"`
		}
		fmt.Fprintf(&b, `<li role=option%s><span class=avatar></span>%s</li>`, attr, p)
	}
	b.WriteString(`</ul>
<div id=prio-label>Priority</div>
<ul role=listbox aria-labelledby=prio-label id=prio><li role=option aria-selected=true>Low</li><li role=option aria-selected=false>High</li></ul>
<p id=log>untouched</p></main>
<script>
const people = document.getElementById('people');
people.addEventListener('click', (e) => {
  const o = e.target.closest('[role=option]');
  if (!o || !e.isTrusted || o.getAttribute('aria-disabled') === 'true') return;
  const toggle = e.ctrlKey || e.metaKey;
  for (const x of people.querySelectorAll('[role=option]')) {
    if (x === o) x.setAttribute('aria-selected', toggle ? String(x.getAttribute('aria-selected') !== 'true') : 'true');
    else if (!toggle) x.setAttribute('aria-selected', 'false');
  }
  log.textContent = [...people.querySelectorAll('[aria-selected=true]')].map((x) => x.textContent).join(',');
});
</script>`)
	return b.String()
}()

// TestSelectSeveralInAnARIAListbox (fails before the ARIA listbox: options
// on one were not_actionable): set, add and remove choose people of a
// scrolling ARIA listbox with trusted Control-clicks, people below its fold
// included, verified by aria-selected; the view's listbox shows who is
// chosen. A disabled option that would change, a missing one and a
// single-choice ARIA listbox are refused before any click.
func TestSelectSeveralInAnARIAListbox(t *testing.T) {
	t.Parallel()
	s, obs := openRealPages(t, assigneesPage, true)
	ctx := browsertest.Context(t, 2*time.Minute)
	act := func(name string, options []string, mode browser.SelectMode) error {
		t.Helper()
		res, err := s.Act(ctx, browser.Action{Kind: browser.ActSelect, Ref: find(t, obs, name).Ref, Options: options, Mode: mode}, allowAll)
		if err == nil {
			obs = res.Observation
		}
		return err
	}
	log := func() string { return evalMain(t, s, "log.textContent") }
	selected := func() string {
		return evalMain(t, s, "[...people.querySelectorAll('[aria-selected=true]')].map((x) => x.textContent).join(',')")
	}
	for _, c := range []struct {
		options []string
		mode    browser.SelectMode
		want    string
	}{
		{[]string{"Ann", "Lee", "Zoe"}, "", "Ann,Lee,Zoe"}, // Bo is cleared; Lee and Zoe are below the fold
		{[]string{"Cleo"}, browser.SelectAdd, "Ann,Cleo,Lee,Zoe"},
		{[]string{"Lee", "Gus"}, browser.SelectRemove, "Ann,Cleo,Zoe"}, // Gus was not chosen
	} {
		if err := act("Assignees", c.options, c.mode); err != nil {
			t.Fatalf("%v %s: %v", c.options, c.mode, err)
		}
		if got := selected(); got != c.want {
			t.Fatalf("%v %s: aria-selected on %q, want %q", c.options, c.mode, got, c.want)
		}
		if got := log(); got != c.want {
			t.Fatalf("%v %s: the page's handler logged %q, want %q", c.options, c.mode, got, c.want)
		}
	}
	if got := find(t, obs, "Assignees").Chosen; !slices.Equal(got, []string{"Ann", "Cleo", "Zoe"}) {
		t.Errorf("the view's listbox shows %q chosen", got)
	}
	for _, c := range []struct {
		name    string
		options []string
		words   string
	}{
		{"Assignees", []string{"Max"}, "disabled"},
		{"Assignees", []string{"Yan"}, "no option labelled"},
		{"Priority", []string{"High"}, "one choice"},
	} {
		err := act(c.name, c.options, browser.SelectSet)
		wantCode(t, err, errcode.NotActionable)
		if !strings.Contains(err.Error(), c.words) {
			t.Errorf("%s %v: %v, want it to say %q", c.name, c.options, err, c.words)
		}
	}
	if got := selected() + " " + evalMain(t, s, "prio.querySelector('[aria-selected=true]').textContent"); got != "Ann,Cleo,Zoe Low" {
		t.Errorf("a refused choice changed the lists: %q", got)
	}
}
