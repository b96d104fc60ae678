package veetbrowser_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/replay"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/tools"
)

// TestInteractionToolsByTheirJSON drives tool version 1.8.0's tools by
// their JSON arguments, as a model does: a link opens a tab, which the
// agent lists, selects, waits in and closes; history steps move between
// pages. Every call is recorded with its outcome, and replay re-derives
// every view byte for byte.
func TestInteractionToolsByTheirJSON(t *testing.T) {
	t.Parallel()
	st, _ := openSQLite(t)
	base := browsertest.ServePages(t, map[string]string{
		"/":       `<title>Start</title><a href="/later" target="_blank">Open later</a> <a href="/second">Second</a>`,
		"/later":  `<title>Later</title><p id=p></p><script>setTimeout(() => p.textContent = 'Report ready', 800)</script>`,
		"/second": `<title>Second</title><p>The second page.</p>`,
	})
	_, s := grantedSession(t, st, base, veetbrowser.SessionOptions{Surface: "test", Version: "1.8.0"})
	if s.Version().Name != "1.8.0" {
		t.Fatalf("version %s", s.Version().Name)
	}
	ctx := browsertest.Context(t, 2*time.Minute)
	var view projection.View
	call := func(tool, args, outcome string) {
		t.Helper()
		res, err := s.Call(ctx, tool, json.RawMessage(args))
		if got := string(errcode.Of(err)); err == nil && outcome != "ok" || err != nil && got != outcome {
			t.Fatalf("%s %s: %v, want %s", tool, args, err, outcome)
		}
		if res != nil {
			view = projection.View{}
			if err := res.DecodeView(&view); err != nil {
				t.Fatal(err)
			}
		}
	}
	ref := func(name string) string {
		for _, c := range view.Controls {
			if c.Name == name {
				return c.Ref
			}
		}
		t.Fatalf("no %q in %+v", name, view.Controls)
		return ""
	}
	call(tools.Navigate, fmt.Sprintf(`{"url":%q}`, base), "ok")
	if view.Tabs != nil {
		t.Fatalf("a lone tab with nothing to report: %+v", view.Tabs)
	}
	call(tools.Act, fmt.Sprintf(`{"kind":"click","ref":%q}`, ref("Open later")), "ok")
	if view.Tabs == nil || len(view.Tabs.Opened) != 1 {
		t.Fatalf("the new tab is not in the view: %+v", view.Tabs)
	}
	later, first := view.Tabs.Opened[0], view.Tabs.Active
	call(tools.Tabs, `{"action":"list"}`, "ok")
	if view.Tabs.Count != 2 || len(view.Tabs.List) != 2 {
		t.Fatalf("list: %+v", view.Tabs)
	}
	call(tools.Tabs, fmt.Sprintf(`{"action":"select","tab":%q}`, later), "ok")
	if view.Title != "Later" || view.Tabs.Active != later {
		t.Fatalf("selected: %q %+v", view.Title, view.Tabs)
	}
	call(tools.Wait, `{"text":"report ready","timeout_ms":10000}`, "ok")
	if !strings.Contains(strings.Join(view.Text, " "), "Report ready") {
		t.Fatalf("waited view: %v", view.Text)
	}
	call(tools.Wait, `{"text":"never there","timeout_ms":300}`, "timeout")
	call(tools.Tabs, fmt.Sprintf(`{"action":"close","tab":%q}`, later), "ok")
	if view.Tabs.Active != first || view.Tabs.Count != 1 || view.Title != "Start" {
		t.Fatalf("after close: %q %+v", view.Title, view.Tabs)
	}
	call(tools.Act, fmt.Sprintf(`{"kind":"click","ref":%q}`, ref("Second")), "ok")
	call(tools.Navigate, `{"history":"back"}`, "ok")
	if view.Title != "Start" {
		t.Fatalf("back: %q", view.Title)
	}
	call(tools.Navigate, `{"history":"forward"}`, "ok")
	call(tools.Navigate, `{"history":"reload"}`, "ok")
	if view.Title != "Second" {
		t.Fatalf("forward and reload: %q", view.Title)
	}
	call(tools.Navigate, `{"history":"sideways"}`, "invalid_argument")

	var got []string
	if err := st.Calls(ctx, s.ID(), func(c store.Call) error { got = append(got, c.Tool+":"+c.Outcome); return nil }); err != nil {
		t.Fatal(err)
	}
	want := "browser_navigate:ok browser_act:ok browser_tabs:ok browser_tabs:ok browser_wait:ok browser_wait:timeout " +
		"browser_tabs:ok browser_act:ok browser_navigate:ok browser_navigate:ok browser_navigate:ok"
	if strings.Join(got, " ") != want {
		t.Fatalf("recorded %v", got)
	}
	rep, err := replay.Session(context.Background(), st, s.ID(), replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Identical() || len(rep.Views) != 10 {
		t.Fatalf("replay: identical %v, %d views, first difference %+v", rep.Identical(), len(rep.Views), rep.First)
	}
}
