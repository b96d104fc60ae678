package veetbrowser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/policy"
)

// changingSite is a page whose Publish button the server can rename or
// cover while an action waits for approval: the page polls the server's
// state. It counts the clicks that reach it and logs, in the page, any
// scroll or focus the runtime causes.
type changingSite struct {
	mu      sync.Mutex
	cover   bool
	name    string
	version int // of the state
	applied int // the newest version the page has applied
	clicks  int
	changed *sync.Cond
}

func newChangingSite() *changingSite {
	s := &changingSite{name: "Publish"}
	s.changed = sync.NewCond(&s.mu)
	return s
}

func (s *changingSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.URL.Path {
	case "/publish":
		s.clicks++
	case "/state":
		json.NewEncoder(w).Encode(map[string]any{"cover": s.cover, "name": s.name, "version": s.version})
	case "/applied":
		fmt.Sscan(r.URL.Query().Get("v"), &s.applied)
		s.changed.Broadcast()
	default:
		fmt.Fprint(w, `<!doctype html><style>#cover{position:fixed;inset:0;background:#fff;display:none}</style>
<p id=log>touched: none</p>
<form onsubmit="return false"><label>Message <input id=msg></label></form>
<div style="height:3000px"></div>
<button id=b onclick="fetch('/publish', {method: 'POST'})">Publish</button>
<div id=cover></div>
<script>
const seen = [];
const note = (what) => { if (!seen.includes(what)) { seen.push(what); log.textContent = 'touched: ' + seen.join(' '); } };
b.addEventListener('focus', () => note('focus'));
msg.addEventListener('focus', () => note('focus'));
addEventListener('scroll', () => note('scroll'));
setInterval(async () => {
  const st = await (await fetch('/state')).json();
  cover.style.display = st.cover ? 'block' : 'none';
  if (b.textContent !== st.name) b.textContent = st.name;
  fetch('/applied?v=' + st.version);
}, 20);
</script>`)
	}
}

// openChangingSite opens a session with opts on a changingSite of its own.
func openChangingSite(t *testing.T, opts SessionOptions) (*changingSite, *Session, context.Context) {
	t.Helper()
	site := newChangingSite()
	url := browsertest.ServeHandler(t, site)
	s := session(t, opts)
	ctx := browsertest.Context(t, 2*time.Minute)
	if _, err := s.Navigate(ctx, url); err != nil {
		t.Fatal(err)
	}
	return site, s, ctx
}

// set changes the state and waits until the page has applied it.
func (s *changingSite) set(cover bool, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cover, s.name = cover, name
	s.version++
	for s.applied < s.version {
		s.changed.Wait()
	}
}

func (s *changingSite) clickCount() int {
	time.Sleep(300 * time.Millisecond) // a fetch in flight would have arrived
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clicks
}

// hookApprover says yes (or no) after running a hook: what the page does
// while a person decides.
type hookApprover struct {
	mu    sync.Mutex
	asked []policy.Facts
	hook  func()
	yes   bool
}

func (a *hookApprover) Approve(_ context.Context, f policy.Facts) (bool, error) {
	a.mu.Lock()
	a.asked = append(a.asked, f)
	hook, yes := a.hook, a.yes
	a.mu.Unlock()
	if hook != nil {
		hook()
	}
	return yes, nil
}

func (a *hookApprover) set(hook func(), yes bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.hook, a.yes = hook, yes
}

func (a *hookApprover) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.asked)
}

func publishRef(t *testing.T, s *Session, ctx context.Context, name string) string {
	t.Helper()
	res, err := s.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ref(t, res, name)
}

// clickPublish observes the page and clicks Publish.
func clickPublish(t *testing.T, s *Session, ctx context.Context) error {
	t.Helper()
	_, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: publishRef(t, s, ctx, "Publish")})
	return err
}

// An approval is consumed when input is dispatched, not when it is given:
// a guard that stops the action after a person approved it keeps the
// approval for the next try.
func TestApprovalSurvivesAGuardThatStopsTheAction(t *testing.T) {
	t.Parallel()
	approver := &hookApprover{}
	site, s, ctx := openChangingSite(t, SessionOptions{Approver: approver})
	// While the person decides, an overlay covers the button.
	approver.set(func() { site.set(true, "Publish") }, true)
	wantCode(t, clickPublish(t, s, ctx), errcode.NotActionable)
	site.set(false, "Publish")
	approver.set(nil, false)
	if err := clickPublish(t, s, ctx); err != nil {
		t.Fatalf("the approval given before the guard stopped the action was lost: %v", err)
	}
	if n := approver.count(); n != 1 {
		t.Fatalf("the approver was asked %d times, want once", n)
	}
	if n := site.clickCount(); n != 1 {
		t.Fatalf("%d clicks reached the server, want 1", n)
	}
	// Single use: the next click asks again.
	wantCode(t, clickPublish(t, s, ctx), errcode.ApprovalRequired)
	if n := site.clickCount(); n != 1 {
		t.Fatalf("%d clicks reached the server, want 1", n)
	}
}

// The facts a person approved are read again after the wait: a control
// that changed meanwhile is not covered by the approval.
func TestApprovalDoesNotApplyToChangedFacts(t *testing.T) {
	t.Parallel()
	approver := &hookApprover{}
	site, s, ctx := openChangingSite(t, SessionOptions{Approver: approver})
	approver.set(func() { site.set(false, "Delete my account") }, true)
	err := clickPublish(t, s, ctx)
	wantCode(t, err, errcode.ApprovalRequired)
	if !strings.Contains(err.Error(), "Delete my account") {
		t.Fatalf("the refusal does not name the new facts: %v", err)
	}
	if n := site.clickCount(); n != 0 {
		t.Fatalf("%d clicks reached the server after the control changed", n)
	}
}

// Nothing touches the page before an action is authorized: a refused
// action neither scrolls nor focuses.
func TestRefusedActionDoesNotTouchThePage(t *testing.T) {
	t.Parallel()
	site, s, ctx := openChangingSite(t, SessionOptions{})
	wantCode(t, clickPublish(t, s, ctx), errcode.ApprovalRequired)
	_, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: publishRef(t, s, ctx, "Message"), Text: "hi", Submit: true})
	wantCode(t, err, errcode.ApprovalRequired)
	res, err := s.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Observation.Text {
		if strings.HasPrefix(p.Text, "touched:") && p.Text != "touched: none" {
			t.Fatalf("a refused action touched the page: %q", p.Text)
		}
	}
	if site.clickCount() != 0 {
		t.Fatal("a refused click reached the server")
	}
}

// Approval facts are what the page states, whole: the control's full
// accessible name up to policy.MaxFactName UTF-16 units (cut and flagged
// one past it), and the form's accessible name only, never its id, name or
// action.
func TestApprovalFactsAreWholeAndNamed(t *testing.T) {
	t.Parallel()
	long := func(n int) string { return "Publish " + strings.Repeat("é", n-len("Publish ")) }
	page := `<!doctype html>
<form id=checkout name=checkout action="/buy" onsubmit="return false"><button aria-label="` + long(policy.MaxFactName) + `">A</button></form>
<form aria-label="Profile form" onsubmit="return false"><button aria-label="` + long(policy.MaxFactName+1) + `">B</button></form>`
	url := browsertest.Serve(t, page)
	approver := &hookApprover{}
	s := session(t, SessionOptions{Approver: approver})
	ctx := browsertest.Context(t, time.Minute)
	res, err := s.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Observation.Controls {
		if !c.NameTruncated || len([]rune(c.Name)) != 1024 {
			t.Fatalf("the observation's name keeps %d units (cut %v), want 1024", len([]rune(c.Name)), c.NameTruncated)
		}
	}
	for i := range 2 {
		_, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: res.Observation.Controls[i].Ref})
		wantCode(t, err, errcode.ApprovalRequired)
		res, err = s.Observe(ctx, ObserveOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(approver.asked) != 2 {
		t.Fatalf("asked %d times", len(approver.asked))
	}
	at, past := approver.asked[0], approver.asked[1]
	if n := len([]rune(at.Name)); n != policy.MaxFactName || at.NameCut || at.Form != "" || !at.Submit {
		t.Errorf("at the bound: %d units, cut %v, form %q, submit %v", n, at.NameCut, at.Form, at.Submit)
	}
	if n := len([]rune(past.Name)); n != policy.MaxFactName || !past.NameCut || past.Form != "Profile form" {
		t.Errorf("one past the bound: %d units, cut %v, form %q", n, past.NameCut, past.Form)
	}
}
