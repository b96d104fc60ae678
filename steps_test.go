package veetbrowser_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/replay"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/tools"
)

// The pages of the steps tests: a shop's checkout with its header,
// sidebar and footer, whose every input and click the page reports to the
// server by a synchronous request, so that the server's log holds each
// step that reached the page before the step's input returns.

const shopChrome = `<header><nav aria-label="Shop"><a href="/">Home</a> <a href="/deals">Deals</a> <a href="/help">Help</a></nav>
<input type=search aria-label="Search the shop"></header>
<aside><h2>Order summary</h2><p>Walnut desk lamp × 1 — €89.00</p><p>Shipping — €4.90</p></aside>
<footer><p>© Lumen Home GmbH · <a href="/privacy">Privacy</a> · <a href="/terms">Terms</a></p></footer>
<script>
function report(what) { const x = new XMLHttpRequest(); x.open('POST', '/log', false); x.send(what); }
addEventListener('input', (e) => report('input:' + e.target.id), true);
addEventListener('click', (e) => { const b = e.target.closest('button'); if (b) report('click:' + b.id); }, true);
</script>`

const checkoutPage = `<!doctype html><title>Checkout</title>` + shopChrome + `
<main><h1>Shipping details</h1>
<form id=ship aria-label="Shipping" action="/placed" method=post>
<p><label>Full name <input id=name name=name autocomplete=name></label></p>
<p><label>Email <input id=email name=email type=email></label></p>
<p><label>Country <select id=country name=country><option>Austria</option><option>Germany</option><option>Switzerland</option></select></label></p>
<p><label><input id=gift name=gift type=checkbox> Gift wrap</label></p>
<p><label>Delivery date <input id=date name=date type=date></label></p>
<p><label>Promo code <input id=promo name=promo disabled></label></p>
<p><button id=place>Place order</button></p>
</form>
<section aria-label="Saved items"><h2>Saved for later</h2><ul id=saved><li>Brass hook</li></ul>
<button id=add type=button onclick="saved.innerHTML += '<li>Linen throw</li>'; history.pushState({}, '', '#saved')">Add linen throw</button>
<button id=rebuild type=button onclick="ship.outerHTML = ship.outerHTML">Reset form</button></section>
</main>`

const accountPage = `<!doctype html><title>Account</title>` + shopChrome + `
<main><h1>Your addresses</h1><form aria-label="Addresses" onsubmit="return false">` +
	`%s</form></main>`

func accountFields() string {
	var b strings.Builder
	for i := 1; i <= 17; i++ {
		fmt.Fprintf(&b, "<p><label>Address line %d <input id=line%d></label></p>\n", i, i)
	}
	return fmt.Sprintf(accountPage, b.String())
}

// reviewPage keeps an unsaved review: leaving it asks to stay.
const reviewPage = `<!doctype html><title>Write a review</title>` + shopChrome + `
<main><h1>Walnut desk lamp</h1><a href="/">Back to product</a>
<form aria-label="Review" onsubmit="return false"><p><label>Review <textarea id=review></textarea></label></p>
<p><label>Rating <select id=rating><option>5 stars</option><option>4 stars</option></select></label></p></form></main>
<script>addEventListener('beforeunload', (e) => { if (review.value) { e.preventDefault(); e.returnValue = ''; } });</script>`

// shopSite serves the pages and logs what they report.
type shopSite struct {
	mu  sync.Mutex
	log []string
}

func (s *shopSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/log":
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.log = append(s.log, string(b))
		s.mu.Unlock()
	case "/placed":
		r.ParseForm()
		s.mu.Lock()
		s.log = append(s.log, "placed:"+strings.Join(browsertest.Fields(r.PostForm), "&"))
		s.mu.Unlock()
		fmt.Fprint(w, `<!doctype html><title>Order placed</title><h1>Thank you</h1><p>Order 1042 is placed.</p><a href="/">Continue shopping</a>`)
	case "/account":
		fmt.Fprint(w, accountFields())
	case "/review":
		fmt.Fprint(w, reviewPage)
	default:
		fmt.Fprint(w, checkoutPage)
	}
}

// seen is the server's log, each run of one event (the keystrokes of one
// type) once, and resets it.
func (s *shopSite) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Compact(s.log)
	s.log = nil
	return out
}

// stepsRig is a 1.9.0 session on a shopSite, recorded, driven by JSON as
// a model does.
type stepsRig struct {
	t    *testing.T
	site *shopSite
	base string
	st   store.Store
	s    *veetbrowser.Session
	ctx  context.Context
	view projection.View
	size int // bytes of the newest view
}

func newStepsRig(t *testing.T, opts veetbrowser.SessionOptions) *stepsRig {
	t.Helper()
	site := &shopSite{}
	base := browsertest.ServeHandler(t, site)
	st, _ := openSQLite(t)
	opts.Surface = "test"
	_, s := grantedSession(t, st, base, opts)
	return &stepsRig{t: t, site: site, base: base, st: st, s: s, ctx: browsertest.Context(t, 3*time.Minute)}
}

// call runs a tool and keeps its view; it returns the error code ("" for
// none).
func (r *stepsRig) call(tool, args string) string {
	r.t.Helper()
	res, err := r.s.Call(r.ctx, tool, json.RawMessage(args))
	if err != nil {
		return string(errcode.Of(err))
	}
	r.view, r.size = projection.View{}, len(res.View)
	if err := res.DecodeView(&r.view); err != nil {
		r.t.Fatal(err)
	}
	return ""
}

func (r *stepsRig) open(path string) {
	r.t.Helper()
	if code := r.call(tools.Navigate, fmt.Sprintf(`{"url":%q}`, r.base+strings.TrimPrefix(path, "/"))); code != "" {
		r.t.Fatalf("navigate: %s", code)
	}
	r.site.seen()
}

func (r *stepsRig) ref(name string) string {
	r.t.Helper()
	for _, c := range r.view.Controls {
		if c.Name == name {
			return c.Ref
		}
	}
	r.t.Fatalf("no control %q in %+v", name, r.view.Controls)
	return ""
}

// steps runs browser_act with these steps, each a JSON object whose
// {ref:NAME} is replaced by the ref of the control NAME in the newest
// view.
func (r *stepsRig) steps(steps ...string) string {
	r.t.Helper()
	for i, s := range steps {
		if a, b, ok := strings.Cut(s, "{ref:"); ok {
			name, rest, _ := strings.Cut(b, "}")
			steps[i] = a + fmt.Sprintf("%q", r.ref(name)) + rest
		}
	}
	return r.call(tools.Act, `{"steps":[`+strings.Join(steps, ",")+`]}`)
}

func (r *stepsRig) wantLog(want ...string) {
	r.t.Helper()
	if got := r.site.seen(); !slices.Equal(got, want) {
		r.t.Fatalf("the server saw %q, want %q", got, want)
	}
}

func (r *stepsRig) wantSteps(words []string, stopped *projection.Stopped) {
	r.t.Helper()
	if !slices.Equal(r.view.Steps, words) {
		r.t.Fatalf("steps %q, want %q", r.view.Steps, words)
	}
	got := r.view.Stopped
	if (got == nil) != (stopped == nil) || got != nil && (got.Step != stopped.Step || got.Code != stopped.Code) {
		r.t.Fatalf("stopped %+v, want %+v", got, stopped)
	}
}

// recordedSteps lists the steps recorded since the newest navigation, as
// "step/of:outcome".
func (r *stepsRig) recordedSteps() []string {
	r.t.Helper()
	var out []string
	r.st.Calls(r.ctx, r.s.ID(), func(c store.Call) error {
		var a struct{ Step, Of int }
		switch {
		case c.Tool == tools.Navigate:
			out = nil
		case c.Tool == tools.Act && json.Unmarshal(c.Arguments, &a) == nil && a.Step > 0:
			out = append(out, fmt.Sprintf("%d/%d:%s", a.Step, a.Of, c.Outcome))
		}
		return nil
	})
	return out
}

// replayed: every recorded view of the session re-derives byte for byte.
func (r *stepsRig) replayed() {
	r.t.Helper()
	rep, err := replay.Session(context.Background(), r.st, r.s.ID(), replay.Options{})
	if err != nil {
		r.t.Fatal(err)
	}
	if !rep.Identical() {
		r.t.Fatalf("replay differs: %+v", rep.First)
	}
}

// TestStepsSixteenAcceptedSeventeenRefused: sixteen steps fill sixteen
// fields in one call, each reaching the page, and the view lists sixteen
// outcomes (and still fits the smallest budget); seventeen are
// invalid_argument and nothing of them is recorded or reaches the page.
func TestStepsSixteenAcceptedSeventeenRefused(t *testing.T) {
	t.Parallel()
	r := newStepsRig(t, veetbrowser.SessionOptions{})
	r.open("/account")
	var steps, want []string
	for i := 1; i <= 17; i++ {
		steps = append(steps, fmt.Sprintf(`{"kind":"type","ref":{ref:Address line %d},"text":"%d Elm St"}`, i, i))
		want = append(want, fmt.Sprintf("input:line%d", i))
	}
	var before int
	r.st.Calls(r.ctx, r.s.ID(), func(store.Call) error { before++; return nil })
	if code := r.steps(slices.Clone(steps)...); code != "invalid_argument" {
		t.Fatalf("17 steps: %q", code)
	}
	r.wantLog()
	var after int
	r.st.Calls(r.ctx, r.s.ID(), func(store.Call) error { after++; return nil })
	if after != before {
		t.Fatalf("17 steps were recorded: %d calls, then %d", before, after)
	}
	if code := r.steps(steps[:16]...); code != "" {
		t.Fatalf("16 steps: %q", code)
	}
	r.wantLog(want[:16]...)
	r.wantSteps(slices.Repeat([]string{projection.StepDispatched}, 16), nil)
	r.replayed()
	rep, err := replay.Session(r.ctx, r.st, r.s.ID(), replay.Options{Budget: projection.MinBudget})
	if err != nil || !rep.AllFit {
		t.Fatalf("at %d bytes: %+v %v", projection.MinBudget, rep, err)
	}
}

// TestStepsRefusedMiddleStopsTheRest: step 3 of 5 targets a disabled
// field, a stale ref, or a control the re-render of step 2 replaced; the
// server saw steps 1 and 2 and nothing after, and the view says which step
// stopped and why. The same refusal as a first step is the call's error.
func TestStepsRefusedMiddleStopsTheRest(t *testing.T) {
	t.Parallel()
	r := newStepsRig(t, veetbrowser.SessionOptions{})
	r.open("/")
	name, email, country := `{"kind":"type","ref":{ref:Full name},"text":"Ada Lovelace"}`, `{"kind":"type","ref":{ref:Email},"text":"ada@example.test"}`, `{"kind":"select","ref":{ref:Country},"option":"Germany"}`
	gift, date := `{"kind":"check","ref":{ref:Gift wrap}}`, `{"kind":"type","ref":{ref:Delivery date},"text":"2026-12-24"}`
	if code := r.steps(name, email, `{"kind":"type","ref":{ref:Promo code},"text":"WINTER"}`, gift, date); code != "" {
		t.Fatal(code)
	}
	r.wantLog("input:name", "input:email")
	r.wantSteps([]string{"ok", "ok"}, &projection.Stopped{Step: 3, Code: "not_actionable"})
	if got := r.recordedSteps(); !slices.Equal(got, []string{"1/5:ok", "2/5:ok", "3/5:not_actionable"}) {
		t.Fatalf("recorded steps %q", got)
	}
	if !strings.Contains(r.view.Stopped.Message, "disabled") {
		t.Fatalf("message %q", r.view.Stopped.Message)
	}

	stale := r.ref("Gift wrap") // of the view before the next
	r.open("/")
	if code := r.steps(name, email, fmt.Sprintf(`{"kind":"check","ref":%q}`, stale), country, date); code != "" {
		t.Fatal(code)
	}
	r.wantLog("input:name", "input:email")
	r.wantSteps([]string{"ok", "ok"}, &projection.Stopped{Step: 3, Code: "stale_reference"})

	// A re-render that replaces the form: its old fields' refs are stale,
	// as for single actions.
	r.open("/")
	if code := r.steps(name, `{"kind":"click","ref":{ref:Reset form}}`, email, country, gift); code != "" {
		t.Fatal(code)
	}
	r.wantLog("input:name", "click:rebuild")
	r.wantSteps([]string{"ok", "ok"}, &projection.Stopped{Step: 3, Code: "stale_reference"})

	r.open("/")
	if code := r.steps(`{"kind":"type","ref":{ref:Promo code},"text":"WINTER"}`, name); code != "not_actionable" {
		t.Fatalf("refused first step: %q", code)
	}
	r.wantLog()
	r.replayed()
}

// stepApprover answers the approvals it is asked for in turn.
type stepApprover struct {
	mu      sync.Mutex
	answers []bool
	asked   []policy.Facts
}

func (a *stepApprover) Approve(_ context.Context, f policy.Facts) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, f)
	yes := len(a.answers) > 0 && a.answers[0]
	if len(a.answers) > 0 {
		a.answers = a.answers[1:]
	}
	return yes, nil
}

func (a *stepApprover) names() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, f := range a.asked {
		out = append(out, f.Name)
	}
	return out
}

const draftPage = `<!doctype html><title>New post</title>` + shopChrome + `
<main><h1>New post</h1><form aria-label="Post" onsubmit="return false">
<p><label>Title <input id=title></label></p>
<p><button id=publish type=button>Publish</button> <button id=delete type=button>Delete draft</button></p></form></main>`

// TestStepsApprovalPerConsequentialStep: two consequential steps ask two
// approvals, each with its own step's facts, never one for the call; when
// the second is declined, the call stops there and the second click never
// reaches the page.
func TestStepsApprovalPerConsequentialStep(t *testing.T) {
	t.Parallel()
	approver := &stepApprover{answers: []bool{true, true}}
	site := &shopSite{}
	mux := http.NewServeMux()
	mux.Handle("/", site)
	mux.HandleFunc("/post", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, draftPage) })
	base := browsertest.ServeHandler(t, mux)
	st, _ := openSQLite(t)
	_, s := grantedSession(t, st, base, veetbrowser.SessionOptions{Surface: "test", Approver: approver})
	r := &stepsRig{t: t, site: site, base: base, st: st, s: s, ctx: browsertest.Context(t, 3*time.Minute)}
	r.open("/post")
	steps := []string{`{"kind":"type","ref":{ref:Title},"text":"Winter sale"}`, `{"kind":"click","ref":{ref:Publish}}`, `{"kind":"click","ref":{ref:Delete draft}}`}
	if code := r.steps(slices.Clone(steps)...); code != "" {
		t.Fatal(code)
	}
	r.wantLog("input:title", "click:publish", "click:delete")
	r.wantSteps([]string{"ok", "ok", "ok"}, nil)
	if got := approver.names(); !slices.Equal(got, []string{"Publish", "Delete draft"}) {
		t.Fatalf("approvals asked for %q", got)
	}

	approver.mu.Lock()
	approver.answers, approver.asked = []bool{true, false}, nil
	approver.mu.Unlock()
	r.open("/post")
	if code := r.steps(steps...); code != "" {
		t.Fatal(code)
	}
	r.wantLog("input:title", "click:publish")
	r.wantSteps([]string{"ok", "ok"}, &projection.Stopped{Step: 3, Code: "approval_required"})
	if got := approver.names(); !slices.Equal(got, []string{"Publish", "Delete draft"}) {
		t.Fatalf("approvals asked for %q", got)
	}
	// Each step's authorization is in its own record.
	var judged []string
	r.st.Calls(r.ctx, r.s.ID(), func(c store.Call) error {
		var a struct {
			Authorization *struct {
				Facts          policy.Facts `json:"facts"`
				ApprovalNeeded bool         `json:"approval_needed"`
				Refused        string       `json:"refused"`
			} `json:"authorization"`
		}
		if c.Action != nil && json.Unmarshal(c.Action, &a) == nil && a.Authorization != nil && a.Authorization.ApprovalNeeded {
			judged = append(judged, a.Authorization.Facts.Name+":"+c.Outcome)
		}
		return nil
	})
	want := []string{"Publish:ok", "Delete draft:ok", "Publish:ok", "Delete draft:approval_required"}
	if !slices.Equal(judged, want) {
		t.Fatalf("recorded authorizations %q, want %q", judged, want)
	}
	r.replayed()
}

// TestStepsNavigationEndsTheSequence: a step that loads a new document
// ends the call after it (the next step's ref is of the old document),
// with one observation of the new page; a step that re-renders the same
// document (a list grows, the URL's fragment changes) keeps the other
// refs valid, and the call goes on, as does one after a navigation the
// page cancelled to keep an unsaved review.
func TestStepsNavigationEndsTheSequence(t *testing.T) {
	t.Parallel()
	r := newStepsRig(t, veetbrowser.SessionOptions{Approver: &stepApprover{answers: []bool{true}}})
	r.open("/")
	if code := r.steps(`{"kind":"type","ref":{ref:Full name},"text":"Ada Lovelace"}`, `{"kind":"click","ref":{ref:Place order}}`,
		`{"kind":"type","ref":{ref:Email},"text":"ada@example.test"}`); code != "" {
		t.Fatal(code)
	}
	r.wantLog("input:name", "click:place", "placed:country=Austria&date=&email=&name=Ada Lovelace")
	r.wantSteps([]string{"ok", "navigated"}, &projection.Stopped{Step: 3, Code: "document_changed"})
	if r.view.Title != "Order placed" {
		t.Fatalf("observed %q", r.view.Title)
	}
	// Step 3 was not started: no intent of it was written.
	if got := r.recordedSteps(); !slices.Equal(got, []string{"1/3:ok", "2/3:ok"}) {
		t.Fatalf("recorded steps %q", got)
	}

	r.open("/")
	if code := r.steps(`{"kind":"click","ref":{ref:Add linen throw}}`, `{"kind":"type","ref":{ref:Full name},"text":"Ada"}`,
		`{"kind":"check","ref":{ref:Gift wrap}}`); code != "" {
		t.Fatal(code)
	}
	r.wantLog("click:add", "input:name", "input:gift")
	r.wantSteps([]string{"ok", "ok", "ok"}, nil)
	if !strings.HasSuffix(r.view.URL, "#saved") || !strings.Contains(strings.Join(r.view.Text, " "), "Linen throw") {
		t.Fatalf("the re-render is not in the view: %s %q", r.view.URL, r.view.Text)
	}

	r.open("/review")
	if code := r.steps(`{"kind":"click","ref":{ref:Review}}`, `{"kind":"type","ref":{ref:Review},"text":"Warm light, solid base."}`,
		`{"kind":"click","ref":{ref:Back to product}}`, `{"kind":"select","ref":{ref:Rating},"option":"4 stars"}`); code != "" {
		t.Fatal(code)
	}
	r.wantLog("input:review", "input:rating")
	r.wantSteps([]string{"ok", "ok", "navigation_cancelled", "ok"}, nil)
	if r.view.Title != "Write a review" {
		t.Fatalf("observed %q", r.view.Title)
	}
	r.replayed()
}
