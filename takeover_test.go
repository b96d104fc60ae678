package veetbrowser_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/store"
)

// blockingApprover holds a consequential action in its approval (inside
// the agent's page call) until it is told the answer.
type blockingApprover struct {
	asked  chan struct{}
	answer chan bool
}

func (a *blockingApprover) Approve(ctx context.Context, _ policy.Facts) (bool, error) {
	a.asked <- struct{}{}
	select {
	case yes := <-a.answer:
		if !yes {
			return false, errcode.New(errcode.ApprovalRefused, "refused")
		}
		return true, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// TestTakeOverWaitsForTheAgentsCallAndStalesItsRefs: a takeover pressed
// while the agent's action waits for its approval waits for that call
// (or, when its own wait ends first, is refused and the agent keeps the
// page); once it holds the page the agent's calls are human_in_control
// and say a person took it over; Hand back, with the page unchanged,
// still makes the agent's older ref stale_reference, records the
// takeover, and the agent's next observe works.
func TestTakeOverWaitsForTheAgentsCallAndStalesItsRefs(t *testing.T) {
	t.Parallel()
	var posts atomic.Int32
	base := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posts.Add(1)
			fmt.Fprint(w, `<!doctype html><title>Sent</title><main><h1>Message sent</h1></main>`)
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Compose</title>
<header><nav aria-label="Mail"><a href="/inbox">Inbox</a> <a href="/sent">Sent</a></nav></header>
<main><form method="post" aria-label="New message"><label>To <input name="to"></label>
<label>Subject <input name="subject"></label><button>Send</button></form></main><footer>Mail, 2026</footer>`)
	}))
	st, _ := openSQLite(t)
	ap := &blockingApprover{asked: make(chan struct{}, 1), answer: make(chan bool, 1)}
	_, s := grantedSession(t, st, base, veetbrowser.SessionOptions{Approver: ap})
	ctx := browsertest.Context(t, 2*time.Minute)
	nav, err := s.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	send := nav.Observation.Controls[len(nav.Observation.Controls)-1].Ref
	acted := make(chan error, 1)
	go func() {
		_, err := s.Act(ctx, veetbrowser.Action{Kind: veetbrowser.Click, Ref: send})
		acted <- err
	}()
	<-ap.asked

	// A takeover whose wait ends before the agent's call does is refused,
	// and the agent keeps the page.
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	if err := s.TakeOver(short); errcode.Of(err) != errcode.Timeout {
		t.Fatalf("a takeover while the agent's call runs on: %v", err)
	}
	cancel()
	taken := make(chan error, 1)
	go func() { taken <- s.TakeOver(ctx) }()
	select {
	case err := <-taken:
		t.Fatalf("the takeover did not wait for the agent's call: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	ap.answer <- false
	if err := <-acted; errcode.Of(err) != errcode.ApprovalRefused {
		t.Fatalf("the agent's action: %v", err)
	}
	if err := <-taken; err != nil {
		t.Fatalf("the takeover once the agent's call ended: %v", err)
	}
	_, err = s.Observe(ctx, veetbrowser.ObserveOptions{})
	if errcode.Of(err) != errcode.HumanInControl || !strings.Contains(err.Error(), "took the page over") {
		t.Fatalf("observe while a person took the page over: %v", err)
	}
	if err := s.TakeOver(ctx); errcode.Of(err) != errcode.HumanInControl {
		t.Fatalf("a second takeover: %v", err)
	}
	if err := s.PersonInput(ctx, veetbrowser.PersonInput{Kind: "key", Key: "Tab"}); err != nil {
		t.Fatalf("the person's input: %v", err)
	}
	if err := s.HandBack(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	if err := s.HandBack(ctx, "test"); errcode.Of(err) != errcode.NotActionable {
		t.Fatalf("a second hand back: %v", err)
	}
	if _, err := s.Act(ctx, veetbrowser.Action{Kind: veetbrowser.Click, Ref: nav.Observation.Controls[0].Ref}); errcode.Of(err) != errcode.StaleReference {
		t.Fatalf("a ref from before the takeover: %v", err)
	}
	if obs, err := s.Observe(ctx, veetbrowser.ObserveOptions{}); err != nil || obs.Observation.Title != "Compose" {
		t.Fatalf("observe after the takeover: %v", err)
	}
	if posts.Load() != 0 {
		t.Fatal("a refused Send reached the site")
	}
	var events int
	err = st.Calls(ctx, s.ID(), func(c store.Call) error {
		if c.Tool == veetbrowser.EventTakeover {
			events++
			if !strings.Contains(string(c.Action), `"input":"person input"`) || !strings.Contains(string(c.Action), `"by":"test"`) {
				t.Errorf("the takeover's record: %s", c.Action)
			}
		}
		return nil
	})
	if err != nil || events != 1 {
		t.Fatalf("%d takeover records: %v", events, err)
	}
}
