package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/pages"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/tools"
)

// navigation: a page loads and its view has its URL and title; a URL
// outside the grant is refused before anything is requested from its
// server, and so is a link that redirects there.
func navigation(t *testing.T, p Provider) {
	var foreignHits atomic.Int64
	foreign := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		foreignHits.Add(1)
		fmt.Fprint(w, `<button>Foreign</button>`)
	}))
	home := newSite(t, map[string]string{
		"/":       `<title>Home page</title><button>Hello</button><a href="/away">Away</a><a href="/second">Second</a>`,
		"/second": `<title>Second page</title><p>The second page.</p>`,
	})
	home.mux.HandleFunc("GET /away", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, foreign, http.StatusFound) })
	url := home.url

	s := open(t, p, veetbrowser.SessionOptions{Grant: policy.Grant{Origins: []string{origin(url)}}})
	res, v, err := s.call("browser_navigate", map[string]string{"url": url})
	if err != nil {
		t.Fatal(err)
	}
	if v.URL != url || v.Title != "Home page" || res.Observation.URL != url || res.Observation.Title != "Home page" {
		t.Fatalf("view url %q title %q, observation url %q title %q", v.URL, v.Title, res.Observation.URL, res.Observation.Title)
	}
	control(t, v, "Hello")
	v = s.act(map[string]any{"kind": "click", "ref": ref(t, v, "Second")})
	if v.URL != url+"second" || v.Title != "Second page" || v.Action == nil || !v.Action.NavigationDone {
		t.Fatalf("after the link: url %q title %q action %+v", v.URL, v.Title, v.Action)
	}

	s.refused(errcode.ForeignOrigin, "browser_navigate", map[string]string{"url": foreign})
	v = s.navigate(url)
	s.refused(errcode.ForeignOrigin, "browser_act", map[string]any{"kind": "click", "ref": ref(t, v, "Away")})
	if v = s.observe(); v.URL != url {
		t.Fatalf("after the refused redirect the page is %q", v.URL)
	}
	if n := foreignHits.Load(); n != 0 {
		t.Fatalf("the server outside the grant got %d requests", n)
	}
	home.still(t)
}

// buttonPage serves n buttons named "button number i".
func buttonPage(t *testing.T, n int) string {
	return browsertest.Serve(t, browsertest.Repeat(n, "<button>button number %d</button>"))
}

func wantButtons(t *testing.T, seen []string, n int) {
	t.Helper()
	if len(seen) != n {
		t.Fatalf("saw %d controls, want %d: %q", len(seen), n, seen)
	}
	for i, name := range seen {
		if want := fmt.Sprintf("button number %d", i); name != want {
			t.Fatalf("control %d is %q, want %q", i, name, want)
		}
	}
}

// follow passes each view's next back to browser_observe until a view has
// none, and returns the names of the controls seen and the views.
func follow(t *testing.T, s *session, v projection.View) ([]string, []projection.View) {
	t.Helper()
	seen, views := names(v), []projection.View{v}
	for v.Next != nil {
		if len(views) > 500 {
			t.Fatal("the continuation does not end")
		}
		v = s.do("browser_observe", v.Next) // passed back unchanged
		seen = append(seen, names(v)...)
		views = append(views, v)
	}
	return seen, views
}

// observeAfter: 1.2.0's after continues right after the last control
// shown; a version without continuation refuses it.
func observeAfter(t *testing.T, p Provider) {
	url := buttonPage(t, 100)
	s := open(t, p, veetbrowser.SessionOptions{Version: "1.5.0", Budget: projection.MinBudget})
	v := s.navigate(url)
	if len(v.Controls) == 0 || v.Next == nil || v.Next.After != v.Controls[len(v.Controls)-1].Ref {
		t.Fatalf("a 1 KiB view of 100 controls: %d shown, next %+v", len(v.Controls), v.Next)
	}
	seen, views := follow(t, s, v)
	wantButtons(t, seen, 100)
	for i, v := range views[:len(views)-1] {
		if v.Next.After == "" || v.Next.Cursor != "" {
			t.Fatalf("view %d: next %+v, want after", i, v.Next)
		}
	}

	old := open(t, p, veetbrowser.SessionOptions{Version: "1.0.0", Budget: projection.MinBudget})
	v = old.navigate(url)
	old.refused(errcode.ExpansionUnsupported, "browser_observe", map[string]string{"after": v.Controls[0].Ref})
}

// observeOffsets: 1.1.0 pages with element offsets.
func observeOffsets(t *testing.T, p Provider) {
	s := open(t, p, veetbrowser.SessionOptions{Version: "1.1.0", Budget: projection.MinBudget})
	v := s.navigate(buttonPage(t, 100))
	seen, calls := names(v), 1
	for v.NextElementOffset != nil {
		if calls++; calls > 100 {
			t.Fatal("the offsets do not end")
		}
		v = s.do("browser_observe", map[string]int{"element_offset": *v.NextElementOffset})
		seen = append(seen, names(v)...)
	}
	if calls < 2 {
		t.Fatal("100 controls fit one 1 KiB view")
	}
	wantButtons(t, seen, 100)
}

// observeCursor: a cursor continues past a window of candidates with no
// visible control in it, and past the controls one observation keeps.
func observeCursor(t *testing.T, p Provider) {
	hidden := browsertest.Serve(t, `<div hidden>`+browsertest.Repeat(observation.WindowSize+1000, "<button>h%d</button>")+`</div><button>past the window</button>`)
	s := open(t, p, veetbrowser.SessionOptions{Version: "1.5.0", Budget: projection.MinBudget})
	v := s.navigate(hidden)
	if c := v.ControlCoverage; len(v.Controls) != 0 || v.Next == nil || v.Next.Cursor == "" || c == nil || c.Limit != observation.LimitWindow {
		t.Fatalf("a window of hidden candidates: controls %q, next %+v, coverage %+v", names(v), v.Next, c)
	}
	if seen, _ := follow(t, s, v); !slices.Equal(seen, []string{"past the window"}) {
		t.Fatalf("past the hidden window: %q", seen)
	}

	const n = observation.MaxControls + 44
	big := open(t, p, veetbrowser.SessionOptions{Version: "1.5.0", Budget: 64 << 10})
	v = big.navigate(buttonPage(t, n))
	if c := v.ControlCoverage; len(v.Controls) != observation.MaxControls || v.Next == nil || v.Next.Cursor == "" || c == nil || c.Limit != observation.LimitControls {
		t.Fatalf("%d controls: %d shown, next %+v, coverage %+v", n, len(v.Controls), v.Next, c)
	}
	seen, _ := follow(t, big, v)
	wantButtons(t, seen, n)
}

// reading: 1.6.0's one cursor reads a long article to its end, every
// paragraph once, whole and in order.
func reading(t *testing.T, p Provider) {
	a := pages.NewArticle(pages.ArticleOptions{Paragraphs: 300, NavLinks: 40})
	s := open(t, p, veetbrowser.SessionOptions{Version: "1.6.0", Budget: 4096})
	v := s.navigate(browsertest.Serve(t, a.HTML))
	var text []string
	views := 0
	for {
		views++
		for i, part := range v.Text {
			if i == 0 && v.TextContinues {
				if len(text) == 0 {
					t.Fatalf("view %d continues a part no view cut", views)
				}
				text[len(text)-1] += part
				continue
			}
			text = append(text, part)
		}
		if v.Next == nil {
			break
		}
		if v.Next.Cursor == "" || v.Next.After != "" {
			t.Fatalf("view %d: next %+v, want one cursor", views, v.Next)
		}
		if views > 1000 {
			t.Fatal("the reading does not end")
		}
		v = s.do("browser_observe", v.Next)
	}
	if err := a.CheckRead(text); err != nil {
		t.Fatalf("%d views: %v", views, err)
	}
	if views < 5 {
		t.Fatalf("the article was read in %d views of 4 KiB", views)
	}
}

// find: browser_find finds a phrase deep in an article, and its match's
// next resumes browser_observe at that paragraph; a control found acts like
// an observed one.
func find(t *testing.T, p Provider) {
	const plant = "the lighthouse keeper's ledger"
	const at = 250
	a := pages.NewArticle(pages.ArticleOptions{Paragraphs: 300, NavLinks: 40, Plant: plant, PlantAt: at})
	s := open(t, p, veetbrowser.SessionOptions{Version: "1.6.0", Budget: 2048})
	s.navigate(browsertest.Serve(t, a.HTML))
	v := s.do("browser_find", map[string]string{"query": "Lighthouse KEEPER ledger"})
	if len(v.Matches) != 1 || !strings.Contains(v.Matches[0].Text, plant) || v.Matches[0].Next == nil || v.Next != nil {
		t.Fatalf("find gave matches %+v, next %+v", v.Matches, v.Next)
	}
	v = s.do("browser_observe", v.Matches[0].Next)
	if len(v.Text) == 0 || v.Text[0] == "" || !strings.HasPrefix(a.Paragraphs[at], v.Text[0]) {
		t.Fatalf("reading from the match starts with %q, want paragraph %d %q", v.Text, at, a.Paragraphs[at])
	}
	v = s.do("browser_find", map[string]string{"query": "search"})
	s.act(map[string]any{"kind": "type", "ref": ref(t, v, "Search"), "text": "valley"})
}

// actions: each kind of browser_act reaches the page, as its server or the
// next view sees.
func actions(t *testing.T, p Provider) {
	st := newSite(t, map[string]string{"/": report + `<title>Actions</title>
<button onclick="report('clicked')">Ping</button>
<label>Shortcut <input onkeydown="report('key:' + event.key)"></label>
<label>Plan <select onchange="report('plan:' + this.value)"><option>Free</option><option>Pro plan</option></select></label>
<label><input type="checkbox" onchange="report('terms:' + this.checked)"> Accept terms</label>
<label><input type="checkbox" checked onchange="report('news:' + this.checked)"> Newsletter</label>
<form action="/search"><label>Query <input name="q"></label></form>`})
	yes := &approver{yes: true}
	s := open(t, p, veetbrowser.SessionOptions{Approver: yes})
	v := s.navigate(st.url)
	var want []string
	step := func(a map[string]any, effect string) {
		t.Helper()
		v = s.act(a)
		if v.Action == nil || !v.Action.Dispatched {
			t.Fatalf("%v: outcome %+v", a, v.Action)
		}
		want = append(want, effect)
		st.waitFor(t, want...)
	}
	step(map[string]any{"kind": "click", "ref": ref(t, v, "Ping")}, "clicked")
	step(map[string]any{"kind": "press", "ref": ref(t, v, "Shortcut"), "key": "Escape"}, "key:Escape")
	step(map[string]any{"kind": "select", "ref": ref(t, v, "Plan"), "option": "Pro plan"}, "plan:Pro plan")
	step(map[string]any{"kind": "check", "ref": ref(t, v, "Accept terms")}, "terms:true")
	step(map[string]any{"kind": "uncheck", "ref": ref(t, v, "Newsletter")}, "news:false")
	if !control(t, v, "Accept terms").Checked || control(t, v, "Newsletter").Checked {
		t.Fatalf("the checkboxes in the view: %+v", v.Controls)
	}
	// A state that already holds dispatches nothing.
	v = s.act(map[string]any{"kind": "check", "ref": ref(t, v, "Accept terms")})
	if v.Action == nil || v.Action.Dispatched {
		t.Fatalf("checking a checked box: outcome %+v", v.Action)
	}
	st.still(t, want...)
	if n := len(yes.facts()); n != 0 {
		t.Fatalf("the approver was asked %d times before anything consequential", n)
	}

	// Typing with submit submits the form: consequential, approved.
	const text = `Zoë "Z" 李`
	v = s.act(map[string]any{"kind": "type", "ref": ref(t, v, "Query"), "text": text, "submit": true})
	if v.Action == nil || !v.Action.NavigationDone || v.Title != "Done" {
		t.Fatalf("after type with submit: title %q, outcome %+v", v.Title, v.Action)
	}
	st.waitFor(t, append(want, "GET /search q="+text)...)
	if asked := yes.facts(); len(asked) != 1 || !asked[0].Submit || asked[0].Name != "Query" {
		t.Fatalf("the approver was asked %+v, want the query's submit once", asked)
	}
}

// dialogs: alert, confirm and prompt are observed and answered.
func dialogs(t *testing.T, p Provider) {
	st := newSite(t, map[string]string{"/": report + `
<button onclick="alert('Hello there'); report('alert closed')">Greet</button>
<button onclick="report('confirm:' + confirm('Keep going?'))">Ask</button>
<button onclick="report('prompt:' + prompt('Your name?', ''))">Name</button>`})
	s := open(t, p, veetbrowser.SessionOptions{})
	v := s.navigate(st.url)
	var want []string
	raise := func(button, kind, message string) {
		t.Helper()
		v = s.act(map[string]any{"kind": "click", "ref": ref(t, v, button)})
		if d := v.Dialog; d == nil || d.Type != kind || d.Message != message || v.Action == nil || !v.Action.DialogOpened {
			t.Fatalf("after %s: dialog %+v, outcome %+v", button, d, v.Action)
		}
	}
	answer := func(a map[string]any, effect string) {
		t.Helper()
		a["kind"] = "dialog"
		if v = s.act(a); v.Dialog != nil {
			t.Fatalf("the dialog is still open: %+v", v.Dialog)
		}
		want = append(want, effect)
		st.waitFor(t, want...)
	}
	raise("Greet", "alert", "Hello there")
	st.still(t) // the page waits on its alert
	answer(map[string]any{}, "alert closed")
	raise("Ask", "confirm", "Keep going?")
	answer(map[string]any{"accept": true}, "confirm:true")
	raise("Ask", "confirm", "Keep going?")
	answer(map[string]any{}, "confirm:false")
	raise("Name", "prompt", "Your name?")
	answer(map[string]any{"accept": true, "text": "Ada"}, "prompt:Ada")
	s.refused(errcode.NotActionable, "browser_act", map[string]any{"kind": "dialog"})
}

// guards: disabled, covered, hidden and removed controls are refused, and
// a reference of an older revision is stale; nothing refused reaches the
// page's server.
func guards(t *testing.T, p Provider) {
	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	st := newSite(t, map[string]string{
		"/": report + `<button onclick="report('ok')">OK</button>
<button disabled onclick="report('disabled')">Disabled</button>
<div style="position:relative"><button onclick="report('covered')">Covered</button><div style="position:absolute;inset:0;background:rgba(0,0,0,.01)"></div></div>
<button id="later" onclick="report('later')">Later hidden</button>
<button id="gone" onclick="report('gone')">Later removed</button>
<script>addEventListener('load', async () => {
  await fetch('/change');
  document.getElementById('later').style.display = 'none';
  document.getElementById('gone').remove();
  report('changed');
});</script>`,
		"/other": `<button>OK</button>`,
	})
	// The page changes itself when the test says so: /change answers then.
	st.mux.HandleFunc("GET /change", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})

	s := open(t, p, veetbrowser.SessionOptions{})
	v := s.navigate(st.url)
	click := func(v projection.View, name string) map[string]any {
		return map[string]any{"kind": "click", "ref": ref(t, v, name)}
	}
	if !control(t, v, "Disabled").Disabled {
		t.Fatal("the disabled button is not disabled in the view")
	}
	s.refused(errcode.NotActionable, "browser_act", click(v, "Disabled"))
	s.refused(errcode.NotActionable, "browser_act", click(v, "Covered"))
	once.Do(func() { close(release) })
	st.waitFor(t, "changed")
	s.refused(errcode.NotActionable, "browser_act", click(v, "Later hidden"))
	s.refused(errcode.StaleReference, "browser_act", click(v, "Later removed"))
	st.still(t, "changed")

	// A newer observation makes the older one's references stale.
	fresh := s.observe()
	s.refused(errcode.StaleReference, "browser_act", click(v, "OK"))
	s.act(click(fresh, "OK"))
	st.waitFor(t, "changed", "ok")
	// So does a new document.
	s.navigate(st.url + "other")
	s.refused(errcode.StaleReference, "browser_act", click(fresh, "OK"))
	st.still(t, "changed", "ok")
}

// references: a reference of another session is foreign, one no session
// issued is unknown; neither acts.
func references(t *testing.T, p Provider) {
	st := newSite(t, map[string]string{"/": report + `<button onclick="report('one')">One</button>`})
	a := open(t, p, veetbrowser.SessionOptions{})
	b := open(t, p, veetbrowser.SessionOptions{})
	va, vb := a.navigate(st.url), b.navigate(st.url)
	theirs := ref(t, vb, "One")
	a.refused(errcode.ForeignReference, "browser_act", map[string]any{"kind": "click", "ref": theirs})
	a.refused(errcode.ForeignReference, "browser_observe", map[string]string{"after": theirs})
	a.refused(errcode.UnknownReference, "browser_act", map[string]any{"kind": "click", "ref": "nonsense"})
	a.refused(errcode.UnknownReference, "browser_observe", map[string]string{"cursor": "nonsense"})
	st.still(t)
	a.act(map[string]any{"kind": "click", "ref": ref(t, va, "One")})
	st.waitFor(t, "one")
}

// approvals: a consequential action is refused without an approver, and
// nothing is dispatched; an approver's yes dispatches it once; a stored
// approval dispatches it without asking, once.
func approvals(t *testing.T, p Provider) {
	st := newSite(t, map[string]string{"/": `<title>Account</title><form method="post" action="/delete"><button>Delete account</button></form>`})
	facts := policy.Facts{Origin: origin(st.url), Role: "button", Name: "Delete account", Submit: true}
	del := func(s *session) (*veetbrowser.Result, projection.View, error) {
		t.Helper()
		v := s.navigate(st.url)
		return s.call("browser_act", map[string]any{"kind": "click", "ref": ref(t, v, "Delete account")})
	}
	wantRefused := func(err error) {
		t.Helper()
		if errcode.Of(err) != errcode.ApprovalRequired {
			t.Fatalf("deleting: %v, want approval_required", err)
		}
	}

	_, _, err := del(open(t, p, veetbrowser.SessionOptions{}))
	wantRefused(err)
	st.still(t)

	no := &approver{}
	_, _, err = del(open(t, p, veetbrowser.SessionOptions{Approver: no}))
	wantRefused(err)
	st.still(t)
	if asked := no.facts(); !slices.Equal(asked, []policy.Facts{facts}) {
		t.Fatalf("the approver was asked %+v, want %+v", asked, facts)
	}

	yes := &approver{yes: true}
	_, v, err := del(open(t, p, veetbrowser.SessionOptions{Approver: yes}))
	if err != nil {
		t.Fatal(err)
	}
	if v.Title != "Done" || !slices.Equal(yes.facts(), []policy.Facts{facts}) {
		t.Fatalf("approved: title %q, asked %+v", v.Title, yes.facts())
	}
	st.waitFor(t, "POST /delete")

	// A stored approval is spent without asking; the next one asks.
	asked := &approver{}
	s := open(t, p, veetbrowser.SessionOptions{Approver: asked})
	s.c.Approve(facts)
	if _, _, err := del(s); err != nil {
		t.Fatalf("with a stored approval: %v", err)
	}
	st.waitFor(t, "POST /delete", "POST /delete")
	if n := len(asked.facts()); n != 0 {
		t.Fatalf("a stored approval asked the approver %d times", n)
	}
	_, _, err = del(s)
	wantRefused(err)
	st.still(t, "POST /delete", "POST /delete")
	if n := len(asked.facts()); n != 1 {
		t.Fatalf("after the stored approval was spent the approver was asked %d times, want once", n)
	}
}

// beforeunload: leaving a draft that the page guards is cancelled, and
// the draft and the page stay.
func beforeunload(t *testing.T, p Provider) {
	st := newSite(t, map[string]string{"/": `<title>Composer</title>
<div contenteditable="true" aria-label="Post text" id="ed"></div>
<script>addEventListener('beforeunload', (e) => {
  if (document.getElementById('ed').textContent) { e.preventDefault(); e.returnValue = ''; }
});</script>`})
	s := open(t, p, veetbrowser.SessionOptions{})
	v := s.navigate(st.url)
	v = s.act(map[string]any{"kind": "type", "ref": ref(t, v, "Post text"), "text": "my unsaved draft ✍️"})
	if v.Draft == nil || v.Draft.State != "match" {
		t.Fatalf("the draft after typing: %+v", v.Draft)
	}
	// /other is no page of the site: a request for it would be recorded.
	s.refused(errcode.NavigationCancelled, "browser_navigate", map[string]string{"url": st.url + "other"})
	v = s.observe()
	if v.URL != st.url || v.Title != "Composer" || v.Draft == nil || v.Draft.State != "match" {
		t.Fatalf("after the cancelled navigation: url %q title %q draft %+v", v.URL, v.Title, v.Draft)
	}
	st.still(t)
}

// upload: a file under the upload root reaches the page's server, byte
// for byte; paths outside the root, a control that is no file input and a
// session without a root are refused.
func upload(t *testing.T, p Provider) {
	st := newSite(t, map[string]string{"/": `<label>Attachment <input type="file" onchange="
  const f = new FormData(); f.append('file', this.files[0]); fetch('/upload', {method: 'POST', body: f});"></label>
<button>Other</button>`})
	base := t.TempDir()
	root := filepath.Join(base, "root")
	const content = "conformance bytes ✓\n\x00\xff"
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	for path, content := range map[string]string{filepath.Join(root, "report.txt"): content, filepath.Join(base, "secret.txt"): "secret"} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := open(t, p, veetbrowser.SessionOptions{UploadRoot: root})
	v := s.navigate(st.url)
	file := ref(t, v, "Attachment")
	for _, path := range []string{"../secret.txt", filepath.Join(base, "secret.txt"), "missing.txt"} {
		s.refused(errcode.UploadRefused, "browser_upload", map[string]any{"ref": file, "paths": []string{path}})
	}
	st.still(t)
	v = s.do("browser_upload", map[string]any{"ref": file, "paths": []string{"report.txt"}})
	st.waitFor(t, fmt.Sprintf("POST /upload file=report.txt:%q", content))
	s.refused(errcode.UploadRefused, "browser_upload", map[string]any{"ref": ref(t, v, "Other"), "paths": []string{"report.txt"}})

	none := open(t, p, veetbrowser.SessionOptions{})
	v = none.navigate(st.url)
	none.refused(errcode.UploadRefused, "browser_upload", map[string]any{"ref": ref(t, v, "Attachment"), "paths": []string{"report.txt"}})
	st.still(t, fmt.Sprintf("POST /upload file=report.txt:%q", content))
}

// errorsScenario: malformed calls are invalid_argument, and the session
// works on after them.
func errorsScenario(t *testing.T, p Provider) {
	st := newSite(t, map[string]string{"/": report + `<button onclick="report('one')">One</button>`})
	s := open(t, p, veetbrowser.SessionOptions{Version: "1.6.0"})
	v := s.navigate(st.url)
	one := ref(t, v, "One")
	for _, c := range []struct {
		tool string
		args any
	}{
		{"browser_navigate", rawJSON(`{"url":`)},
		{"browser_navigate", rawJSON(`["` + st.url + `"]`)},
		{"browser_navigate", rawJSON(`null`)},
		{"browser_navigate", map[string]any{"url": st.url, "bogus": 1}},
		{"browser_navigate", map[string]any{}},
		{"browser_teleport", map[string]any{}},
		{"browser_act", map[string]any{"kind": "click"}},
		{"browser_act", map[string]any{"ref": one}},
		{"browser_observe", map[string]string{"after": one, "cursor": "x"}},
		{"browser_observe", map[string]string{"after": ""}},
		{"browser_observe", map[string]int{"element_offset": 1}},
		{"browser_find", map[string]string{}},
		{"browser_upload", map[string]any{"ref": one, "paths": []string{}}},
		{"browser_act", map[string]any{"kind": "type", "ref": one, "text": strings.Repeat("a", tools.MaxArgumentBytes)}},
	} {
		s.refused(errcode.InvalidArgument, c.tool, c.args)
	}
	old := open(t, p, veetbrowser.SessionOptions{Version: "1.5.0"})
	old.navigate(st.url)
	old.refused(errcode.InvalidArgument, "browser_find", map[string]string{"query": "one"})

	st.still(t)
	s.act(map[string]any{"kind": "click", "ref": one})
	st.waitFor(t, "one")
}

func rawJSON(s string) json.RawMessage { return json.RawMessage(s) }

// crashRecovery: a renderer held by a busy loop is stopped by the hang
// guard and reported page_crashed, by every call until the next
// navigation, which works.
func crashRecovery(t *testing.T, p Provider) {
	st := newSite(t, map[string]string{
		"/hang": `<button>never</button><script>while (true) {}</script>`,
		"/fine": report + `<button onclick="report('fine')">Fine again</button>`,
	})
	s := open(t, p, veetbrowser.SessionOptions{})
	_, _, err := s.call("browser_navigate", map[string]string{"url": st.url + "hang"})
	// Where the navigation returned before the loop began, a call on the
	// page meets it.
	for tries := 0; err == nil && tries < 100; tries++ {
		time.Sleep(200 * time.Millisecond)
		_, _, err = s.call("browser_observe", map[string]string{})
	}
	if errcode.Of(err) != errcode.PageCrashed {
		t.Fatalf("a hung page: %v, want page_crashed", err)
	}
	s.refused(errcode.PageCrashed, "browser_observe", map[string]string{})
	v := s.navigate(st.url + "fine")
	s.act(map[string]any{"kind": "click", "ref": ref(t, v, "Fine again")})
	st.waitFor(t, "fine")
}

// closeScenario: after Close every call is browser_unavailable, and Close
// again is safe.
func closeScenario(t *testing.T, p Provider) {
	st := newSite(t, map[string]string{"/": `<button>One</button>`})
	s := open(t, p, veetbrowser.SessionOptions{})
	v := s.navigate(st.url)
	if err := s.c.Close(s.ctx); err != nil {
		t.Fatalf("closing: %v", err)
	}
	s.refused(errcode.BrowserUnavailable, "browser_observe", map[string]string{})
	s.refused(errcode.BrowserUnavailable, "browser_navigate", map[string]string{"url": st.url})
	s.refused(errcode.BrowserUnavailable, "browser_act", map[string]any{"kind": "click", "ref": ref(t, v, "One")})
	if err := s.c.Close(s.ctx); err != nil {
		t.Fatalf("closing twice: %v", err)
	}
}
