package veetbrowser_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/tools"
)

// person is a Handoffer a test drives: held says when the page is theirs;
// back hands it back.
type person struct {
	held chan struct{}
	back chan bool // true: handed back; false: let it time out
}

func (p *person) Handoff(ctx context.Context, reason string, timeout time.Duration) (veetbrowser.HandoffEnd, error) {
	p.held <- struct{}{}
	end := veetbrowser.HandoffEnd{By: "test"}
	select {
	case end.HandedBack = <-p.back:
		return end, nil
	case <-ctx.Done():
		return end, ctx.Err()
	}
}

// TestHandoffHoldsEveryPageCall: while a person holds the page every page
// call of the agent is human_in_control and reaches nothing, while the
// person's own input and picture do; after hand-back the view is of the
// page the person left, says how it ended, and the older ref is stale;
// the person's input is refused once the agent holds the page again.
func TestHandoffHoldsEveryPageCall(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	base := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			r.ParseForm()
			mu.Lock()
			got = append(got, r.Form.Get("q"))
			mu.Unlock()
			fmt.Fprint(w, `<!doctype html><title>Results</title><main><h1>Results</h1></main>`)
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Search</title><style>#q { position: fixed; left: 10%; top: 10%; width: 80%; height: 20%; }</style>
<header><nav aria-label="Site"><a href="/about">About</a></nav></header>
<main><form method="post" aria-label="Search"><input id="q" name="q" aria-label="Search terms"><button>Search</button></form></main>`)
	}))
	st, _ := openSQLite(t)
	p := &person{held: make(chan struct{}), back: make(chan bool)}
	_, s := grantedSession(t, st, base, veetbrowser.SessionOptions{Handoff: p})
	ctx := browsertest.Context(t, 2*time.Minute)
	nav, err := s.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	ref := nav.Observation.Controls[len(nav.Observation.Controls)-1].Ref // Search
	type result struct {
		res *veetbrowser.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := s.Handoff(ctx, veetbrowser.HandoffOptions{Reason: "Solve the puzzle"})
		done <- result{res, err}
	}()
	<-p.held
	for _, c := range []struct{ tool, args string }{
		{tools.Navigate, `{"url":"` + base + `"}`}, {tools.Observe, `{}`}, {tools.Act, `{"kind":"click","ref":"` + ref + `"}`},
		{tools.Find, `{"query":"Search"}`}, {tools.Wait, `{"text":"Results","timeout_ms":100}`}, {tools.Screenshot, `{}`},
		{tools.Tabs, `{"action":"list"}`}, {tools.Console, `{}`}, {tools.Network, `{}`}, {tools.Emulate, `{"width":800}`},
		{tools.Handoff, `{"reason":"again"}`},
	} {
		if _, err := s.Call(ctx, c.tool, json.RawMessage(c.args)); errcode.Of(err) != errcode.HumanInControl {
			t.Errorf("%s while a person holds the page: %v", c.tool, err)
		}
	}
	if pic, err := s.Picture(ctx); err != nil || len(pic) == 0 {
		t.Fatalf("the person's picture: %v", err)
	}
	for _, in := range []veetbrowser.PersonInput{{Kind: "click", X: 0.5, Y: 0.2}, {Kind: "text", Text: "tide tables"}, {Kind: "key", Key: "Enter"}} {
		if err := s.PersonInput(ctx, in); err != nil {
			t.Fatalf("the person's %s: %v", in.Kind, err)
		}
	}
	if err := s.PersonInput(ctx, veetbrowser.PersonInput{Kind: "key", Key: "NotAKey"}); errcode.Of(err) != errcode.InvalidArgument {
		t.Errorf("an unknown key: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for mu.Lock(); len(got) == 0 && time.Now().Before(deadline); mu.Lock() {
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	if len(got) != 1 || got[0] != "tide tables" {
		t.Fatalf("the site got %q", got)
	}
	mu.Unlock()
	p.back <- true
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	var view projection.View
	if err := r.res.DecodeView(&view); err != nil || view.Title != "Results" || view.Handoff == nil || view.Handoff.Ended != projection.HandedBack {
		t.Fatalf("the view after hand-back: %s", r.res.View)
	}
	if _, err := s.Act(ctx, veetbrowser.Action{Kind: veetbrowser.Click, Ref: ref}); errcode.Of(err) != errcode.StaleReference {
		t.Errorf("a ref from before the handoff: %v", err)
	}
	if err := s.PersonInput(ctx, veetbrowser.PersonInput{Kind: "text", Text: "x"}); errcode.Of(err) != errcode.NotActionable {
		t.Errorf("the person's input while the agent holds the page: %v", err)
	}

	// No hand-back: the view says the handoff timed out.
	go func() {
		res, err := s.Handoff(ctx, veetbrowser.HandoffOptions{Reason: "Sign in", Timeout: time.Second})
		done <- result{res, err}
	}()
	<-p.held
	p.back <- false
	if r := <-done; r.err != nil || !strings.Contains(string(r.res.View), `"ended":"timeout"`) {
		t.Fatalf("a handoff not handed back: %v %s", r.err, r.res.View)
	}
	if _, err := s.Handoff(ctx, veetbrowser.HandoffOptions{Reason: "x", Timeout: tools.MaxHandoff + time.Second}); errcode.Of(err) != errcode.InvalidArgument {
		t.Errorf("a timeout one second past the bound: %v", err)
	}
}
