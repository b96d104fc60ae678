package chromium

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// TestListenerMarksInShadowRootsAndFrames (fails without the per-root and
// per-frame listener queries: the document's query enters neither): a
// help-desk page whose handler-only spans sit in an open shadow root (a
// contact card web component, which also delegates on its own root), in a
// same-origin frame (a tag sidebar) and in an out-of-process frame of
// another origin (a like widget) lists each as a generic control; the
// shadow root's delegation listener makes no target of the root's
// children, and the span in the shadow root is clicked, as the page sees.
func TestListenerMarksInShadowRootsAndFrames(t *testing.T) {
	t.Parallel()
	widget := otherOrigin(t, map[string]string{
		"/like": `<title>Like</title><p>Liked by 3 people. <span id=like>Like this</span></p>
<script>like.addEventListener('click', () => { like.textContent = 'Liked'; });</script>`,
	})
	base := sameOrigin(t, map[string]string{
		"/": `<title>Ticket #77 · Help desk</title>
<h1>Printer on floor 3 is jammed</h1>
<contact-card></contact-card>
<iframe src="/tags" title="Tags" style="width:300px;height:80px"></iframe>
<iframe src="` + widget + `like" title="Reactions" style="width:300px;height:80px"></iframe>
<p id=log>none</p>
<script>
customElements.define('contact-card', class extends HTMLElement {
  constructor() {
    super();
    const root = this.attachShadow({mode: 'open'});
    root.innerHTML = '<div class=card><b>Reporter</b> <span id=name>Dana Whit</span> <span id=mail>dana@example.test</span></div>';
    root.getElementById('name').addEventListener('click', (e) => { log.textContent = 'card opened ' + e.isTrusted; });
    root.addEventListener('mouseup', () => {});
  }
});
</script>`,
		"/tags": `<title>Tags</title><p>Tags: <span id=tag>urgent</span></p>
<script>tag.addEventListener('pointerdown', () => {});</script>`,
	})
	s, obs := openReal(t, base, true)
	obs = observeUntil(t, s, obs, func(o *observation.Observation) bool { return hasControl(o, "Like this") && hasControl(o, "urgent") })
	role := func(name string) string {
		for _, c := range obs.Controls {
			if c.Name == name {
				return c.Role
			}
		}
		return ""
	}
	for _, name := range []string{"Dana Whit", "urgent", "Like this"} {
		if role(name) != "generic" {
			t.Errorf("%s is not a generic control: %q", name, roleNames(obs))
		}
	}
	if frameOf(obs, "urgent") <= 0 || frameOf(obs, "Like this") <= 0 || frameOf(obs, "Dana Whit") != 0 {
		t.Errorf("frames of the targets: %d %d %d", frameOf(obs, "urgent"), frameOf(obs, "Like this"), frameOf(obs, "Dana Whit"))
	}
	if hasControl(obs, "dana@example.test") || hasControl(obs, "Reporter") {
		t.Errorf("a listener on the shadow root made targets of its children: %q", roleNames(obs))
	}
	ctx := browsertest.Context(t, time.Minute)
	if _, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Dana Whit").Ref}, allowAll); err != nil {
		t.Fatal(err)
	}
	if got := evalMain(t, s, "log.textContent"); got != "card opened true" {
		t.Errorf("after the click the page logged %q", got)
	}
}

// TestListenerRootsAtTheirBound: the listeners of a document's first
// observation.ListenerRoots open shadow roots are read, one more's not: a
// list of badge components, each a shadow root holding one handler-only
// span, lists the spans of the first ListenerRoots badges only.
func TestListenerRootsAtTheirBound(t *testing.T) {
	t.Parallel()
	n := observation.ListenerRoots + 1
	_, obs := openRealPages(t, `<title>Team</title><h1>Team badges</h1><div id=list></div>
<script>
customElements.define('team-badge', class extends HTMLElement {
  connectedCallback() {
    const root = this.attachShadow({mode: 'open'});
    root.innerHTML = '<span>badge ' + this.dataset.n + '</span>';
    root.firstChild.addEventListener('click', () => {});
  }
});
for (let i = 1; i <= `+strconv.Itoa(n)+`; i++) list.insertAdjacentHTML('beforeend', '<p><team-badge data-n="' + i + '"></team-badge></p>');
</script>`, true)
	last := fmt.Sprintf("badge %d", observation.ListenerRoots)
	if !hasControl(obs, "badge 1") || !hasControl(obs, last) {
		t.Errorf("the badges at the bound are not targets: %q", names(obs))
	}
	if past := fmt.Sprintf("badge %d", n); hasControl(obs, past) {
		t.Errorf("%s, past the bound, is a target", past)
	}
}

// TestListenerMarksAtTheRealBound: at most observation.WindowSize
// listener elements of a document are marked, the first in document
// order. A toolbar button holds n-2 spans with click listeners (inside a
// control they are the button, never targets, but they come first among
// the listeners), then two handler-only spans follow: with 4,096 listener
// elements both are targets, with 4,097 the last is not.
func TestListenerMarksAtTheRealBound(t *testing.T) {
	t.Parallel()
	for _, n := range []int{observation.WindowSize, observation.WindowSize + 1} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			t.Parallel()
			_, obs := openRealPages(t, `<title>Editor</title><div role=toolbar><button id=fmt>`+
				browsertest.Repeat(n-2, `<span class=glyph>·</span>`)+`Format</button></div>
<p>Comments: <span class=c>first comment</span> <span class=c>last comment</span></p>
<script>document.querySelectorAll('.glyph, .c').forEach((s) => s.addEventListener('click', () => {}));</script>`, true)
			if !hasControl(obs, "first comment") {
				t.Fatalf("%d listener elements: the 4,096th is not a target: %q", n, names(obs))
			}
			if got := hasControl(obs, "last comment"); got != (n <= observation.WindowSize) {
				t.Fatalf("%d listener elements: the last is a target: %v", n, got)
			}
		})
	}
}

// TestListenerMarksFollowTheFrame: a frame's listener marks, kept between
// observations of its document, follow the page as the top document's do:
// in a same-origin frame (a kanban board embedded in a project page), a
// listener the frame's script adds later makes a target, one it removes
// unmakes it, whether an action's view or an observation asked for again
// (whose frame collector call goes beside the frame's marking, and is
// made again when the marking changed a mark) sees it.
func TestListenerMarksFollowTheFrame(t *testing.T) {
	t.Parallel()
	base := sameOrigin(t, map[string]string{
		"/": `<title>Project Atlas</title><header><a href="/">Projects</a></header>
<main><h1>Atlas</h1><p>Sprint 14, ends Friday.</p>
<iframe src="/board" title="Board" style="width:420px;height:160px;border:0"></iframe></main>`,
		"/board": `<title>Board</title>
<p>Cards: <span id="a">Card A</span>, <span id="b">Card B</span></p>
<button id="swap">Swap handlers</button>
<script>
const f = () => {};
document.getElementById('a').addEventListener('click', f);
document.getElementById('swap').addEventListener('click', () => {
  document.getElementById('a').removeEventListener('click', f);
  document.getElementById('b').addEventListener('mousedown', f);
});
window.swapBack = () => {
  document.getElementById('b').removeEventListener('mousedown', f);
  document.getElementById('a').addEventListener('click', f);
};
</script>`,
	})
	s, obs := openReal(t, base, true)
	obs = observeUntil(t, s, obs, func(o *observation.Observation) bool { return hasControl(o, "Swap handlers") })
	if !hasControl(obs, "Card A") || hasControl(obs, "Card B") || frameOf(obs, "Card A") <= 0 {
		t.Fatalf("before: %q", roleNames(obs))
	}
	ctx := browsertest.Context(t, time.Minute)
	if _, err := s.Observe(ctx, observation.Request{}); err != nil { // marks kept from the first
		t.Fatal(err)
	}
	obs, err := s.Observe(ctx, observation.Request{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Swap handlers").Ref}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Observation; hasControl(got, "Card A") || !hasControl(got, "Card B") {
		t.Fatalf("after: %q", roleNames(got))
	}
	if obs, err = s.Observe(ctx, observation.Request{}); err != nil {
		t.Fatal(err)
	}
	if hasControl(obs, "Card A") || !hasControl(obs, "Card B") {
		t.Fatalf("observed again: %q", roleNames(obs))
	}
	evalMain(t, s, `document.querySelector('iframe').contentWindow.swapBack()`)
	if obs, err = s.Observe(ctx, observation.Request{}); err != nil {
		t.Fatal(err)
	}
	if !hasControl(obs, "Card A") || hasControl(obs, "Card B") {
		t.Fatalf("after the frame swapped back: %q", roleNames(obs))
	}
}
