package chromium

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// allowAll authorizes every action: these tests are about dispatch.
func allowAll(context.Context, string, policy.Facts) (policy.Permit, error) {
	return policy.Permit{}, nil
}

// effects is a site that records what reaches its server.
type effects struct {
	browsertest.Events
	url   string
	pages map[string]string
}

func (e *effects) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/effect":
		e.Record(r.URL.Query().Get("e"))
		return
	case r.Method == http.MethodPost:
		r.ParseMultipartForm(1 << 20)
		e.Record("post " + r.URL.Path + " " + strings.Join(browsertest.Fields(r.PostForm), "&"))
		fmt.Fprint(w, "<title>done</title><p>saved</p>")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, e.pages[r.URL.Path])
}

// beacon makes a button report its click to the server.
const beacon = `<script>
document.addEventListener('click', (ev) => {
  const b = ev.target.closest('button[data-effect]');
  if (b) navigator.sendBeacon('/effect?e=' + encodeURIComponent(b.dataset.effect));
}, true);
</script>`

func serveEffects(t *testing.T, pages map[string]string) (*effects, string) {
	e := &effects{pages: pages}
	e.url = browsertest.ServeHandler(t, e)
	return e, e.url
}

// openEffects serves pages on a site of effects and returns it with a
// session on its root page and the page's first observation.
func openEffects(t *testing.T, pages map[string]string) (*effects, *Session, *observation.Observation) {
	t.Helper()
	site, base := serveEffects(t, pages)
	s := openSession(t)
	obs, err := s.Navigate(browsertest.Context(t, time.Minute), base)
	if err != nil {
		t.Fatal(err)
	}
	return site, s, obs
}

func find(t *testing.T, obs *observation.Observation, name string) observation.Control {
	t.Helper()
	for _, c := range obs.Controls {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no control %q in %q", name, names(obs))
	return observation.Control{}
}

func evalMain(t *testing.T, s *Session, expr string) string {
	t.Helper()
	res, err := cdp.Call(browsertest.Context(t, time.Minute), s.tab.Target(), runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: ptr(true)})
	if err != nil || res.ExceptionDetails != nil {
		t.Fatalf("evaluating %s: %v %v", expr, err, res.ExceptionDetails)
	}
	var v string
	json.Unmarshal(res.Result.Value, &v)
	return v
}

const composer = `<title>Composer</title>
<textarea aria-label="Post text"></textarea>
<script>
window.addEventListener('beforeunload', (e) => {
  if (document.querySelector('textarea').value) { e.preventDefault(); e.returnValue = ''; }
});
</script>`

// openDraft opens a session on the composer, followed by more, of a site
// with another page at /other, and writes text into the draft. It returns
// the session, the site's URL and the result of typing.
func openDraft(t *testing.T, more, text string) (*Session, string, *browser.ActResult) {
	t.Helper()
	_, base := serveEffects(t, map[string]string{"/": composer + more, "/other": "<title>other</title>"})
	s := openSession(t)
	return s, base, writeDraft(t, s, base, text)
}

// writeDraft opens the composer at url and types text into it after a
// trusted click (the user gesture that arms beforeunload).
func writeDraft(t *testing.T, s *Session, url, text string) *browser.ActResult {
	t.Helper()
	ctx := browsertest.Context(t, time.Minute)
	obs, err := s.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Post text").Ref}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	res, err = s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, res.Observation, "Post text").Ref, Text: text}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestBeforeunloadCancelsNavigationAndKeepsTheDraft(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, base, _ := openDraft(t, "", "my unsaved draft ✍️")
	_, err := s.Navigate(ctx, base+"other")
	wantCode(t, err, errcode.NavigationCancelled)
	if got := evalMain(t, s, "document.querySelector('textarea').value"); got != "my unsaved draft ✍️" {
		t.Fatalf("draft after the cancelled navigation: %q", got)
	}
	if got := evalMain(t, s, "document.title"); got != "Composer" {
		t.Fatalf("page after the cancelled navigation: %q", got)
	}
	// The session works on: the page is kept and observable.
	if _, err := s.Observe(ctx, observation.Request{}); err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentOperationsWaitOutsideACancelledNavigation(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, base, _ := openDraft(t, "", "draft")

	var mu sync.Mutex
	var order []string
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	var wg sync.WaitGroup
	var navErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, navErr = s.Navigate(ctx, base+"other")
		note("navigate")
	}()
	// Let the navigation take the lock, then race other operations with it.
	time.Sleep(50 * time.Millisecond)
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.Observe(ctx, observation.Request{})
			note("observe")
		}()
	}
	wg.Wait()
	wantCode(t, navErr, errcode.NavigationCancelled)
	for _, err := range errs {
		if err != nil {
			t.Fatalf("a concurrent observation failed: %v", err)
		}
	}
	if order[0] != "navigate" {
		t.Fatalf("an operation finished inside the navigation: %q", order)
	}
	if got := evalMain(t, s, "document.querySelector('textarea').value"); got != "draft" {
		t.Fatalf("draft lost: %q", got)
	}
}

func TestGuardsRefuseWithoutTouchingThePage(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	site, s, obs := openEffects(t, map[string]string{"/": beacon + `
<button data-effect="ok">OK</button>
<button data-effect="covered" id="covered">Covered</button>
<div style="position:fixed;inset:0;background:rgba(0,0,0,.01)" id="overlay"></div>
<button data-effect="disabled" disabled>Disabled</button>
<button data-effect="soon-hidden" id="soon">Soon hidden</button>
<button data-effect="removed" id="gone">Removed</button>`})
	click := func(name string) error {
		_, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, name).Ref}, allowAll)
		return err
	}
	wantCode(t, click("Covered"), errcode.NotActionable)
	wantCode(t, click("Disabled"), errcode.NotActionable)
	mainWorld(t, s, `document.getElementById('soon').style.display = 'none'; document.getElementById('gone').remove()`)
	wantCode(t, click("Soon hidden"), errcode.NotActionable)
	wantCode(t, click("Removed"), errcode.StaleReference)
	stale := find(t, obs, "OK")
	if _, err := s.Observe(ctx, observation.Request{}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: stale.Ref}, allowAll)
	wantCode(t, err, errcode.StaleReference)
	time.Sleep(300 * time.Millisecond) // a beacon would have arrived
	if got := site.Seen(); len(got) != 0 {
		t.Fatalf("refused actions reached the server: %q", got)
	}
	// With the overlay gone the same kind of click goes through, once.
	mainWorld(t, s, `document.getElementById('overlay').remove()`)
	obs, _ = s.Observe(ctx, observation.Request{})
	if err := click("Covered"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return slices.Equal(site.Seen(), []string{"covered"}) }, site.Seen)
}

func waitFor(t *testing.T, cond func() bool, state func() []string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("condition not met; server saw %q", state())
}

func TestFormInputReachesTheServerExactly(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	site, s, obs := openEffects(t, map[string]string{"/": `
<form method="post" action="/signup">
  <label>Name <input name="name"></label>
  <label>Plan <select name="plan"><option>Free</option><option>Pro plan</option></select></label>
  <label><input type="checkbox" name="terms" value="yes"> Accept terms</label>
  <label><input type="checkbox" name="news" value="yes" checked> Newsletter</label>
  <button>Sign up</button>
</form>`})
	step := func(a browser.Action) {
		t.Helper()
		res, err := s.Act(ctx, a, allowAll)
		if err != nil {
			t.Fatalf("%s: %v", a.Kind, err)
		}
		obs = res.Observation
	}
	step(browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Name").Ref, Text: `Zoë "Z" 李`})
	step(browser.Action{Kind: browser.ActSelect, Ref: find(t, obs, "Plan").Ref, Option: "Pro plan"})
	step(browser.Action{Kind: browser.ActCheck, Ref: find(t, obs, "Accept terms").Ref})
	step(browser.Action{Kind: browser.ActUncheck, Ref: find(t, obs, "Newsletter").Ref})
	if !find(t, obs, "Accept terms").Checked || find(t, obs, "Newsletter").Checked {
		t.Fatal("checkbox states not reflected in the observation")
	}
	_, err := s.Act(ctx, browser.Action{Kind: browser.ActSelect, Ref: find(t, obs, "Plan").Ref, Option: "Enterprise"}, allowAll)
	wantCode(t, err, errcode.NotActionable)
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Sign up").Ref}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if !res.NavigationStarted || !res.NavigationDone || res.Observation.Title != "done" {
		t.Fatalf("postconditions %+v, title %q", res, res.Observation.Title)
	}
	want := []string{"post /signup name=" + `Zoë "Z" 李` + "&plan=Pro plan&terms=yes"}
	if got := site.Seen(); !slices.Equal(got, want) {
		t.Fatalf("server saw %q, want %q", got, want)
	}
}

func TestDialogsAreObservedAndAnswered(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	_, s, obs := openEffects(t, map[string]string{"/": `<button onclick="document.title = confirm('Delete 3 files?') ? 'yes' : 'no'">Ask</button>`})
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Ask").Ref}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Observation.Dialog
	if !res.DialogOpened || d == nil || d.Type != "confirm" || d.Message != "Delete 3 files?" {
		t.Fatalf("dialog not observed: %+v %+v", res, d)
	}
	_, err = s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Ask").Ref}, allowAll)
	wantCode(t, err, errcode.NotActionable)
	res, err = s.Act(ctx, browser.Action{Kind: browser.ActDialog, Accept: true}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if res.Observation.Dialog != nil || res.Observation.Title != "yes" {
		t.Fatalf("after accepting: dialog %+v, title %q", res.Observation.Dialog, res.Observation.Title)
	}
	_, err = s.Act(ctx, browser.Action{Kind: browser.ActDialog}, allowAll)
	wantCode(t, err, errcode.NotActionable)
}

func TestUploadSetsFiles(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	_, s, obs := openEffects(t, map[string]string{"/": `<label>Attachment <input type="file"></label><button>Other</button>`})
	file := t.TempDir() + "/report.txt"
	writeFile(t, file, "hello")
	if _, err := s.Upload(ctx, find(t, obs, "Attachment").Ref, stageFiles(file), allowAll); err != nil {
		t.Fatal(err)
	}
	if got := evalMain(t, s, "document.querySelector('input').files[0].name"); got != "report.txt" {
		t.Fatalf("file input holds %q", got)
	}
	obs, _ = s.Observe(ctx, observation.Request{})
	_, err := s.Upload(ctx, find(t, obs, "Other").Ref, stageFiles(file), allowAll)
	wantCode(t, err, errcode.UploadRefused)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestClickNeverLandsOnAnotherElement: a page that swaps two buttons every
// few milliseconds can make a click fail, never land on the other button.
func TestClickNeverLandsOnAnotherElement(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, 2*time.Minute)
	site, base := serveEffects(t, map[string]string{"/": beacon + `
<div id="box" style="position:relative;height:40px"><button data-effect="target" style="position:absolute;top:0;width:120px;height:30px">Target</button><button data-effect="other" style="position:absolute;top:0;left:200px;width:120px;height:30px">Other</button></div>
<script>
const [a, b] = document.querySelectorAll('#box button');
let flip = false;
setInterval(() => { flip = !flip; a.style.left = flip ? '200px' : '0'; b.style.left = flip ? '0' : '200px'; }, 10);
</script>`})
	s := openSession(t)
	if _, err := s.Navigate(ctx, base); err != nil {
		t.Fatal(err)
	}
	delivered, stopped := 0, 0
	for range 30 {
		obs, err := s.Observe(ctx, observation.Request{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Target").Ref}, allowAll)
		switch errcode.Of(err) {
		case errcode.NotActionable, errcode.ActionUncertain:
			stopped++
		default:
			if err != nil {
				t.Fatal(err)
			}
			delivered++
		}
	}
	time.Sleep(300 * time.Millisecond)
	for _, e := range site.Seen() {
		if e != "target" {
			t.Fatalf("a click landed on %q", e)
		}
	}
	t.Logf("%d clicks delivered, %d stopped by the guard", delivered, stopped)
}

// TestTypingNeverLandsInAnotherField: a page that steals the focus every few
// milliseconds can make typing fail, never put the text in another field.
func TestTypingNeverLandsInAnotherField(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, 2*time.Minute)
	_, base := serveEffects(t, map[string]string{"/": `
<input aria-label="Mine" id="mine"><input aria-label="Thief" id="thief">
<script>setInterval(() => document.getElementById('thief').focus(), 2);</script>`})
	s := openSession(t)
	if _, err := s.Navigate(ctx, base); err != nil {
		t.Fatal(err)
	}
	delivered := 0
	for range 20 {
		obs, err := s.Observe(ctx, observation.Request{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Mine").Ref, Text: "x"}, allowAll)
		switch errcode.Of(err) {
		case errcode.NotActionable, errcode.ActionUncertain:
		default:
			if err != nil {
				t.Fatal(err)
			}
			delivered++
		}
	}
	if got := evalMain(t, s, "document.getElementById('thief').value"); got != "" {
		t.Fatalf("typing landed in another field: %q", got)
	}
	if got := evalMain(t, s, "document.getElementById('mine').value"); len(got) != delivered {
		t.Fatalf("%d deliveries reported, the field holds %q", delivered, got)
	}
	t.Logf("%d of 20 typings delivered", delivered)
}

func TestSameDocumentNavigationDoesNotStall(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	_, s, obs := openEffects(t, map[string]string{"/": `<a href="#below">Jump</a><div style="height:3000px"></div><h2 id="below">Below</h2>`})
	// A same-document jump is no navigation: nothing waits for a new document.
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Jump").Ref}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if res.NavigationStarted {
		t.Fatalf("a same-document jump reported a navigation: %+v", res)
	}
	if !strings.HasSuffix(res.Observation.URL, "#below") {
		t.Fatalf("URL after the jump: %s", res.Observation.URL)
	}
}

func TestSelectUsesTrustedKeys(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	_, s, obs := openEffects(t, map[string]string{"/": `
<label>Letter <select id="s"><option>A</option><option disabled>B</option><option>C</option><option selected>D</option></select></label>
<script>document.getElementById('s').addEventListener('change', (e) => { document.title = 'change trusted=' + e.isTrusted; });</script>`})
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActSelect, Ref: find(t, obs, "Letter").Ref, Option: "A"}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if got := evalMain(t, s, "document.getElementById('s').value"); got != "A" {
		t.Fatalf("selected %q", got)
	}
	if res.Observation.Title != "change trusted=true" {
		t.Fatalf("title %q: the change was not a trusted user input", res.Observation.Title)
	}
	_, err = s.Act(ctx, browser.Action{Kind: browser.ActSelect, Ref: find(t, res.Observation, "Letter").Ref, Option: "B"}, allowAll)
	wantCode(t, err, errcode.NotActionable)
}

// TestClickThatWouldLeaveADraftIsCancelled: a link away from a page with a
// draft raises beforeunload; the runtime dismisses it, reports the
// navigation cancelled at once, and the draft stays.
func TestClickThatWouldLeaveADraftIsCancelled(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, _, res := openDraft(t, `<a href="/other">Leave</a>`, "draft")
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, res.Observation, "Leave").Ref}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if !res.NavigationCancelled || res.NavigationDone || res.DialogOpened {
		t.Fatalf("postconditions: %+v", res)
	}
	if got := evalMain(t, s, "document.querySelector('textarea').value"); got != "draft" || res.Observation.Title != "Composer" {
		t.Fatalf("draft %q on %q", got, res.Observation.Title)
	}
}

// TestDialogMessageBound: a dialog's message keeps 512 UTF-16 units; one
// more is cut and flagged.
func TestDialogMessageBound(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	for _, n := range []int{observation.MaxDialogMessage, observation.MaxDialogMessage + 1} {
		_, s, obs := openEffects(t, map[string]string{"/": fmt.Sprintf(`<button onclick="alert('m'.repeat(%d))">Alert</button>`, n)})
		res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Alert").Ref}, allowAll)
		if err != nil {
			t.Fatal(err)
		}
		d := res.Observation.Dialog
		if d == nil || len(d.Message) != observation.MaxDialogMessage || d.MessageTruncated != (n > observation.MaxDialogMessage) {
			t.Fatalf("%d-unit message: %+v", n, d)
		}
	}
}

// TestDisarmAfterTheInputsNavigation: the check after a click's input runs
// in the page the click led to when that page committed first (a loaded
// machine, a fast server): no guard is armed in the new document's world,
// and the click was delivered, not uncertain (seen in a full run of
// TestInteractionToolsByTheirJSON).
func TestDisarmAfterTheInputsNavigation(t *testing.T) {
	t.Parallel()
	s, _ := openRealPages(t, `<a href="#">Somewhere</a>`, true)
	ctx := browsertest.Context(t, time.Minute)
	if err := s.disarm(ctx, true); err != nil {
		t.Fatalf("disarm in a document where no guard was armed: %v, want delivered", err)
	}
}
