package veetbrowser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/replay"
	"github.com/veetbot/veetbrowser/tools"
)

// dashboardPage is an account dashboard that logs three messages, throws
// once, fetches four URLs of its API (one a 404) and then tries to leave
// for an origin outside the task's grant, which the navigation check
// blocks. Its session cookie, an Authorization header, a request body and
// a token in a query are logCanaries.
const dashboardPage = `<!doctype html><html><head><title>Acme · Dashboard</title><link rel="icon" href="data:,">
<style>body{font-family:sans-serif;margin:0}header{background:#224;color:#fff;padding:8px}
nav a{color:#fff;margin-right:12px}main{display:flex}aside{width:180px;padding:8px;background:#eee}
section{flex:1;padding:12px}footer{padding:8px;color:#666;border-top:1px solid #ccc}</style></head>
<body><header><strong>Acme</strong><nav><a href="/">Home</a><a href="/billing">Billing</a><a href="/team">Team</a></nav></header>
<main><aside><h3>Projects</h3><ul><li>Website</li><li>Mobile app</li></ul></aside>
<section><h1>Your profile</h1><form onsubmit="return false"><label>Display name <input name="name" value="Ada"></label>
<button>Save profile</button></form><div id="status">Loading…</div>
<article><h2>Activity</h2><p>Three deploys this week.</p></article></section></main>
<footer>© Acme Inc · <a href="/privacy">Privacy</a></footer>
<script>
(async () => {
  console.log('app started', {build: 42, env: 'test'});
  console.warn('deprecated option:', 'legacyMode');
  await fetch('/api/user');
  const missing = await fetch('/api/missing');
  await fetch('/api/feed?page=2&token=CANARY-TOKEN');
  await fetch('/api/save', {method: 'POST', headers: {'Authorization': 'Bearer CANARY-AUTH', 'Content-Type': 'application/json'},
    body: JSON.stringify({note: 'CANARY-BODY'})});
  console.error('profile failed to load:', missing.status);
  setTimeout(() => { throw new Error('render crashed at widget 3'); }, 0);
  setTimeout(() => { location.href = location.origin.replace('127.0.0.1', '127.0.0.2') + '/elsewhere'; }, 1000);
  document.getElementById('status').textContent = 'Ready';
})();
</script></body></html>`

var logCanaries = []string{"CANARY-TOKEN", "CANARY-AUTH", "CANARY-BODY", "CANARY-COOKIE"}

func dashboardSite(t *testing.T) string {
	return browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		switch r.URL.Path {
		case "/":
			http.SetCookie(w, &http.Cookie{Name: "sid", Value: "CANARY-COOKIE", Path: "/"})
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, dashboardPage)
		case "/api/missing":
			http.Error(w, `{"error":"no such profile"}`, http.StatusNotFound)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"ok":true}`)
		}
	}))
}

// logView calls tool and decodes its view.
func logView(t *testing.T, ctx context.Context, s veetbrowser.Caller, tool string, args any) (projection.LogView, []byte) {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := s.Call(ctx, tool, raw)
	if err != nil {
		t.Fatalf("%s %s: %v", tool, raw, err)
	}
	var v projection.LogView
	if err := json.Unmarshal(res.View, &v); err != nil {
		t.Fatal(err)
	}
	return v, res.View
}

// settledNetwork reads the network log until it holds n entries, none
// pending: the page's requests end after its load.
func settledNetwork(t *testing.T, ctx context.Context, s veetbrowser.Caller, n int) (projection.LogView, []byte) {
	t.Helper()
	for {
		v, raw := logView(t, ctx, s, tools.Network, map[string]any{})
		pending := false
		for _, e := range v.Entries {
			pending = pending || e.Pending
		}
		if len(v.Entries) >= n && !pending {
			return v, raw
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the network log did not settle: %s", raw)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestConsoleAndNetworkListThePage: the dashboard's console lists its three
// messages and its exception, in order, with their levels and the
// exception's first stack frame; its network log lists the document, the
// four fetches with their statuses (one 404) and the navigation the grant
// blocked. No canary is in any view or in the store, and the record
// replays byte for byte. A 1.9.0 session has neither tool.
func TestConsoleAndNetworkListThePage(t *testing.T) {
	t.Parallel()
	st, dump := openSQLite(t)
	base := dashboardSite(t)
	rt, s := grantedSession(t, st, base, veetbrowser.SessionOptions{})
	ctx := browsertest.Context(t, time.Minute)
	if _, err := s.Navigate(ctx, base); err != nil {
		t.Fatal(err)
	}
	net, netRaw := settledNetwork(t, ctx, s, 6)
	type req struct {
		method, path, typ string
		status            int
		blocked           bool
	}
	want := []req{{"GET", "/", "Document", 200, false}, {"GET", "/api/user", "Fetch", 200, false},
		{"GET", "/api/missing", "Fetch", 404, false}, {"GET", "/api/feed?page=2&token=…", "Fetch", 200, false},
		{"POST", "/api/save", "Fetch", 200, false}, {"GET", "/elsewhere", "Document", 0, true}}
	if len(net.Entries) != len(want) {
		t.Fatalf("network: %s", netRaw)
	}
	for i, e := range net.Entries {
		got := req{e.Method, strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(e.URL, base), strings.Replace(base, "127.0.0.1", "127.0.0.2", 1)), "/"), e.Type, e.Status, e.Blocked}
		got.path = "/" + got.path
		if got != want[i] {
			t.Errorf("request %d: %+v, want %+v", i, got, want[i])
		}
	}
	if last := net.Entries[5]; last.Failure == "" || net.Entries[1].Bytes == 0 || net.Entries[1].Initiator != "script" {
		t.Errorf("blocked failure %q, fetch bytes %d initiator %q", last.Failure, net.Entries[1].Bytes, net.Entries[1].Initiator)
	}

	con, conRaw := logView(t, ctx, s, tools.Console, map[string]any{})
	type msg struct {
		level, text string
		exception   bool
	}
	wantMsgs := []msg{{"log", `app started {build: 42, env: "test"}`, false}, {"warning", "deprecated option: legacyMode", false},
		{"error", "profile failed to load: 404", false}, {"error", "Uncaught Error: render crashed at widget 3", true}}
	if len(con.Entries) != len(wantMsgs) || con.Trust != observation.Trust {
		t.Fatalf("console: %s", conRaw)
	}
	for i, e := range con.Entries {
		if got := (msg{e.Level, e.Text, e.Exception}); got != wantMsgs[i] {
			t.Errorf("message %d: %+v, want %+v", i, got, wantMsgs[i])
		}
	}
	if at := con.Entries[3].At; !strings.HasPrefix(at, base) || !strings.Contains(at, ":") {
		t.Errorf("exception at %q", at)
	}
	errs, _ := logView(t, ctx, s, tools.Console, map[string]any{"level": "error"})
	if len(errs.Entries) != 2 || errs.Coverage.FilteredOut != 2 {
		t.Errorf("errors only: %+v", errs)
	}
	fetches, _ := logView(t, ctx, s, tools.Network, map[string]any{"filter": "fetch"})
	api, _ := logView(t, ctx, s, tools.Network, map[string]any{"filter": "/api/m"})
	if len(fetches.Entries) != 4 || len(api.Entries) != 1 || api.Entries[0].Status != 404 {
		t.Errorf("filters: %d fetches, %+v", len(fetches.Entries), api.Entries)
	}

	for _, c := range logCanaries {
		if bytes.Contains(netRaw, []byte(c)) || bytes.Contains(conRaw, []byte(c)) || bytes.Contains(dump(), []byte(c)) {
			t.Errorf("%s is in a view or the store", c)
		}
	}
	rep, err := replay.Session(ctx, st, s.ID(), replay.Options{})
	if err != nil || !rep.Identical() || rep.Skipped != 0 {
		t.Fatalf("replay: %+v, %v", rep, err)
	}

	old := openSession(t, rt, veetbrowser.SessionOptions{Version: "1.9.0"})
	for _, tool := range []string{tools.Console, tools.Network} {
		if _, err := old.Call(ctx, tool, nil); errcode.Of(err) != errcode.InvalidArgument {
			t.Errorf("1.9.0 %s: %v", tool, err)
		}
	}
}
