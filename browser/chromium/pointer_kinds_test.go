package chromium

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// textOf is the observation's text, its parts joined by newlines.
func textOf(obs *observation.Observation) string {
	var b strings.Builder
	for _, p := range obs.Text {
		b.WriteString(p.Text + "\n")
	}
	return b.String()
}

// contacts is an address book: a single click highlights a contact, a
// double click opens its card; the file pane's entries open their own
// menu on a right click.
const contacts = `<title>Contacts</title>
<style>body{font:14px sans-serif} .row{padding:4px 8px;cursor:default} .row.sel{background:#cde}
#menu{position:absolute;display:none;border:1px solid #999;background:#fff} #menu.open{display:block}</style>
<main><h1>Contacts</h1>
<div role=listbox aria-label="People">
  <div class=row role=option>Ada Lovelace</div>
  <div class=row role=option>Grace Hopper</div>
  <div class=row role=option>Alan Turing</div>
</div>
<section id=card hidden><h2 id=cardname></h2><p>Phone: 555-0100</p></section>
<h2>Shared files</h2>
<ul role=tree aria-label=Files><li role=treeitem>budget.xlsx</li><li role=treeitem>notes.txt</li></ul>
<div id=menu role=menu><div role=menuitem>Rename</div><div role=menuitem>Download</div></div>
<p id=log>none</p></main>
<script>
const log = document.getElementById('log');
for (const row of document.querySelectorAll('.row')) {
  row.addEventListener('click', () => { document.querySelectorAll('.row').forEach((r) => r.classList.remove('sel')); row.classList.add('sel'); });
  row.addEventListener('dblclick', (e) => {
    card.hidden = false; cardname.textContent = row.textContent;
    log.textContent = 'dblclick ' + row.textContent + ' trusted=' + e.isTrusted;
  });
}
for (const item of document.querySelectorAll('[role=treeitem]')) {
  item.addEventListener('contextmenu', (e) => {
    e.preventDefault();
    menu.style.left = e.clientX + 'px'; menu.style.top = e.clientY + 'px'; menu.classList.add('open');
    log.textContent = 'menu for ' + item.textContent + ' button=' + e.button + ' trusted=' + e.isTrusted;
  });
}
</script>`

// TestDoubleAndContextClick (kinds unknown before 1.9.0): a double click
// opens a contact's card, and a right click opens the page's own menu
// for a file, each as trusted input the page's handlers see.
func TestDoubleAndContextClick(t *testing.T) {
	t.Parallel()
	s, obs := openRealPages(t, contacts, true)
	ctx := browsertest.Context(t, time.Minute)
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActDblClick, Ref: find(t, obs, "Grace Hopper").Ref}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if got := evalMain(t, s, "log.textContent"); got != "dblclick Grace Hopper trusted=true" {
		t.Fatalf("after dblclick the page logged %q", got)
	}
	if !has(res.Observation, "Grace Hopper") || !strings.Contains(textOf(res.Observation), "555-0100") {
		t.Errorf("the card does not show after the double click: %q", textOf(res.Observation))
	}
	obs = res.Observation
	res, err = s.Act(ctx, browser.Action{Kind: browser.ActContextClick, Ref: find(t, obs, "notes.txt").Ref}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if got := evalMain(t, s, "log.textContent"); got != "menu for notes.txt button=2 trusted=true" {
		t.Fatalf("after context_click the page logged %q", got)
	}
	if !has(res.Observation, "Rename") {
		t.Errorf("the page's menu does not show after the context click: %q", names(res.Observation))
	}
}

// composer is a mail composer: a rich-text message and a subject line.
const composer19 = `<title>New message</title>
<style>body{font:15px sans-serif} [contenteditable]{border:1px solid #aaa;min-height:4em;padding:6px}</style>
<main><h1>New message</h1>
<label>Subject <input id=subject></label>
<div id=msg contenteditable role=textbox aria-label="Message">Hello team, the meeting moves to Thursday at ten.</div>
<p class=nosel style="user-select:none"><span role=button tabindex=0 aria-label="Signature">Sent from my desk</span></p>
</main>`

// TestSelectTextCopyPaste (kind unknown before 1.9.0): select_text
// selects a part of an editor's text by a trusted drag, verified in the
// page; Control+C and Control+V then copy it into another field. Text the
// page keeps from being selected is reported, never claimed.
func TestSelectTextCopyPaste(t *testing.T) {
	t.Parallel()
	s, obs := openRealPages(t, composer19, true)
	ctx := browsertest.Context(t, time.Minute)
	msg := find(t, obs, "Message").Ref
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActSelectText, Ref: msg, Text: "the meeting moves to Thursday"}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if got := evalMain(t, s, "getSelection().toString()"); got != "the meeting moves to Thursday" {
		t.Fatalf("the page's selection is %q", got)
	}
	obs = res.Observation
	for _, step := range []struct{ name, key string }{{"Message", "Control+C"}, {"Subject", "Control+V"}} {
		r, err := s.Act(ctx, browser.Action{Kind: browser.ActPress, Ref: find(t, obs, step.name).Ref, Key: step.key}, allowAll)
		if err != nil {
			t.Fatalf("%s: %v", step.key, err)
		}
		obs = r.Observation
	}
	if got := evalMain(t, s, "subject.value"); got != "the meeting moves to Thursday" {
		t.Errorf("after copy and paste the subject holds %q", got)
	}
	// The whole text, by default.
	if _, err := s.Act(ctx, browser.Action{Kind: browser.ActSelectText, Ref: find(t, obs, "Message").Ref}, allowAll); err != nil {
		t.Fatal(err)
	}
	if got := evalMain(t, s, "getSelection().toString()"); got != "Hello team, the meeting moves to Thursday at ten." {
		t.Errorf("the whole text selects as %q", got)
	}
	obs, _ = s.Observe(ctx, observation.Request{})
	for _, c := range []struct {
		name, text string
		code       errcode.Code
	}{
		{"Message", "Friday", errcode.NotActionable}, // not in the control
		{"Subject", "", errcode.NotActionable},       // a field shows no text nodes: Control+A selects it
		{"Signature", "", errcode.ActionUncertain},   // user-select: none: the drag lands, nothing selects
	} {
		_, err := s.Act(ctx, browser.Action{Kind: browser.ActSelectText, Ref: find(t, obs, c.name).Ref, Text: c.text}, allowAll)
		if errcode.Of(err) != c.code {
			t.Errorf("select_text %q: %v, want %s", c.text, err, c.code)
		}
		obs, _ = s.Observe(ctx, observation.Request{})
	}
}

// dangerZone is an account page: deleting the account submits a form, and
// a cookie banner covers one of the links.
const dangerZone = `<title>Account</title>
<main><h1>Danger zone</h1>
<form method=post action=delete aria-label="Delete account"><button>Delete my account</button></form>
<p><a href="#" id=covered>Privacy settings</a></p>
<div style="position:fixed;left:0;right:0;top:0;height:100vh;background:rgba(0,0,0,.2)" aria-hidden=true></div>
<p id=log>none</p></main>
<script>
for (const type of ['mousedown', 'click', 'dblclick', 'contextmenu', 'submit']) {
  document.addEventListener(type, (e) => { log.textContent = type; }, true);
}
</script>`

// TestNewPointerKindsKeepTheGuards: a double click, a context click or a
// text selection on a submit button needs the approval a click needs, and
// one on a covered control is refused; in either case nothing reaches the
// page.
func TestNewPointerKindsKeepTheGuards(t *testing.T) {
	t.Parallel()
	s, obs := openRealPages(t, dangerZone, true)
	ctx := browsertest.Context(t, time.Minute)
	var classes []string
	deny := func(_ context.Context, class string, f policy.Facts) (policy.Permit, error) {
		classes = append(classes, class)
		if policy.Consequential(f) {
			return policy.Permit{}, errcode.New(errcode.ApprovalRequired, "needs approval")
		}
		return policy.Permit{}, nil
	}
	for _, k := range []browser.ActionKind{browser.ActDblClick, browser.ActContextClick, browser.ActSelectText} {
		_, err := s.Act(ctx, browser.Action{Kind: k, Ref: find(t, obs, "Delete my account").Ref}, deny)
		if errcode.Of(err) != errcode.ApprovalRequired {
			t.Errorf("%s on the delete button: %v, want approval_required", k, err)
		}
		_, err = s.Act(ctx, browser.Action{Kind: k, Ref: find(t, obs, "Privacy settings").Ref}, deny)
		if errcode.Of(err) != errcode.NotActionable {
			t.Errorf("%s on a covered link: %v, want not_actionable", k, err)
		}
	}
	if got := evalMain(t, s, "log.textContent"); got != "none" {
		t.Errorf("a refused action reached the page: %q", got)
	}
	for _, c := range classes {
		if c != policy.ClassClick {
			t.Errorf("authorized as %q, want %q", c, policy.ClassClick)
		}
	}
}
