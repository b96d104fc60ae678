package veetbrowser_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/tools"
)

// TestSessionOptionsAreTheirTools: History, Wait, Tabs and Screenshot with
// the runtime's option types are recorded with the arguments, and end with
// the outcomes, of the same tools called by their JSON.
func TestSessionOptionsAreTheirTools(t *testing.T) {
	t.Parallel()
	st, _ := openSQLite(t)
	base := browsertest.ServePages(t, map[string]string{
		"/":       `<title>Start</title><a href="/second">Second</a><p>Ready now.</p>`,
		"/second": `<title>Second</title><p>The second page.</p>`,
	})
	_, s := grantedSession(t, st, base, veetbrowser.SessionOptions{Surface: "test"})
	ctx := browsertest.Context(t, 2*time.Minute)
	if _, err := s.Navigate(ctx, base); err != nil {
		t.Fatal(err)
	}
	// last is the newest call recorded.
	last := func() store.Call {
		t.Helper()
		var c store.Call
		if err := st.Calls(context.Background(), s.ID(), func(call store.Call) error { c = call; return nil }); err != nil {
			t.Fatal(err)
		}
		return c
	}
	// second is where each pair starts: the second page, with the first
	// one to go back to.
	second := func() {
		t.Helper()
		if _, err := s.Navigate(ctx, base+"second"); err != nil {
			t.Fatal(err)
		}
	}
	pairs := []struct {
		method func() error
		tool   string
		args   string
	}{
		{func() error { _, err := s.History(ctx, veetbrowser.Back); return err }, tools.Navigate, `{"history":"back"}`},
		{func() error { _, err := s.History(ctx, veetbrowser.Forward); return err }, tools.Navigate, `{"history":"forward"}`},
		{func() error { _, err := s.History(ctx, veetbrowser.Reload); return err }, tools.Navigate, `{"history":"reload"}`},
		{func() error {
			_, err := s.Wait(ctx, veetbrowser.WaitOptions{Text: "second page", Timeout: 5 * time.Second})
			return err
		}, tools.Wait, `{"text":"second page","timeout_ms":5000}`},
		{func() error {
			_, err := s.Wait(ctx, veetbrowser.WaitOptions{NetworkIdle: true, Timeout: 5 * time.Second})
			return err
		}, tools.Wait, `{"network_idle":true,"timeout_ms":5000}`},
		{func() error {
			_, err := s.Wait(ctx, veetbrowser.WaitOptions{Text: "never shown", Timeout: time.Millisecond})
			return err
		}, tools.Wait, `{"text":"never shown","timeout_ms":1}`},
		{func() error {
			_, err := s.Tabs(ctx, veetbrowser.TabsOptions{Action: veetbrowser.ListTabs})
			return err
		}, tools.Tabs, `{"action":"list"}`},
		{func() error {
			_, err := s.Tabs(ctx, veetbrowser.TabsOptions{Action: veetbrowser.SelectTab, Tab: "t999"})
			return err
		}, tools.Tabs, `{"action":"select","tab":"t999"}`},
		{func() error {
			_, err := s.Tabs(ctx, veetbrowser.TabsOptions{Action: veetbrowser.CloseTab, Tab: "t999"})
			return err
		}, tools.Tabs, `{"action":"close","tab":"t999"}`},
		{func() error { _, err := s.Screenshot(ctx, veetbrowser.ScreenshotOptions{}); return err }, tools.Screenshot, `{}`},
		{func() error {
			_, err := s.Screenshot(ctx, veetbrowser.ScreenshotOptions{FullPage: true})
			return err
		}, tools.Screenshot, `{"full_page":true}`},
	}
	for _, p := range pairs {
		second()
		merr := p.method()
		m := last()
		second()
		_, cerr := s.Call(ctx, p.tool, json.RawMessage(p.args))
		c := last()
		if errcode.Of(merr) != errcode.Of(cerr) {
			t.Fatalf("%s %s: the method ends in %v, the tool in %v", p.tool, p.args, merr, cerr)
		}
		if m.Tool != c.Tool || string(m.Arguments) != string(c.Arguments) || m.Outcome != c.Outcome {
			t.Fatalf("the method recorded %s %s (%s), the tool %s %s (%s)", m.Tool, m.Arguments, m.Outcome, c.Tool, c.Arguments, c.Outcome)
		}
	}
}
