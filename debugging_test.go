package veetbrowser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/pages"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/replay"
	"github.com/veetbot/veetbrowser/tools"
)

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
	base := browsertest.ServeHandler(t, pages.Dashboard())
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

	for _, c := range pages.DashboardCanaries {
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

// feedPage is a news feed whose script logs n messages ("m0", "m1", … or,
// with a length, that many "x" each) in batches, as a chatty app does, so
// that the page keeps responding while it logs.
func feedPage(n, length int) string {
	return fmt.Sprintf(`<!doctype html><title>Feed</title><link rel="icon" href="data:,">
<header><nav><a href="/">Top</a> <a href="/new">New</a></nav></header>
<main><article><h1>Today</h1><p>Stories load as you scroll.</p></article></main><aside>Trending</aside>
<script>let i = 0; (function batch() {
  for (let k = 0; k < 100 && i < %d; k++, i++) console.log(%d > 0 ? 'x'.repeat(%d) : 'm' + i);
  if (i < %d) setTimeout(batch, 0);
})();</script>`, n, length, length, n)
}

// loggedAll waits until the console log has counted n messages, kept or
// dropped.
func loggedAll(t *testing.T, ctx context.Context, s veetbrowser.Caller, n int) {
	t.Helper()
	for {
		v, raw := logView(t, ctx, s, tools.Console, map[string]any{})
		if c := v.Coverage; c.Dropped+c.Shown+c.Remaining >= n {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the page did not log %d messages: %.300s", n, raw)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// readAll follows a log's next from the start and returns every entry it
// showed, in order, each view's coverage, and the number of views.
func readAll(t *testing.T, ctx context.Context, s veetbrowser.Caller, tool string, budget int) ([]observation.LogEntry, projection.LogCoverage, int) {
	t.Helper()
	var all []observation.LogEntry
	var cov projection.LogCoverage
	args := map[string]any{}
	for views := 1; ; views++ {
		v, raw := logView(t, ctx, s, tool, args)
		if len(raw) > budget {
			t.Fatalf("view %d is %d bytes, over %d", views, len(raw), budget)
		}
		all = append(all, v.Entries...)
		if views == 1 {
			cov = v.Coverage
		}
		if v.Next == nil {
			return all, cov, views
		}
		if len(v.Entries) == 0 {
			t.Fatalf("a view with next shows nothing: %s", raw)
		}
		args = map[string]any{"cursor": v.Next.Cursor}
	}
}

// TestConsoleBounds: a document keeps 1,000 messages whole and drops the
// oldest of 1,001 (counted, with why); a message of 2,048 units is kept
// whole, one of 2,049 cut to 2,048 with the flag; the log starts over at
// each navigation, and a cursor of the document left is stale_reference.
func TestConsoleBounds(t *testing.T) {
	t.Parallel()
	st, _ := openSQLite(t)
	base := browsertest.ServePages(t, map[string]string{
		"/1000": feedPage(observation.MaxLogEntries, 0), "/1001": feedPage(observation.MaxLogEntries+1, 0),
		"/2048": feedPage(1, observation.MaxLogText), "/2049": feedPage(1, observation.MaxLogText+1)})
	_, s := grantedSession(t, st, base, veetbrowser.SessionOptions{Budget: 64 << 10})
	ctx := browsertest.Context(t, 2*time.Minute)
	for _, c := range []struct {
		page            string
		entries, first  int
		dropped, missed int
	}{{"1000", 1000, 0, 0, 0}, {"1001", 1000, 1, 1, 1}} {
		if _, err := s.Navigate(ctx, base+c.page); err != nil {
			t.Fatal(err)
		}
		loggedAll(t, ctx, s, c.entries+c.dropped)
		all, cov, _ := readAll(t, ctx, s, tools.Console, 64<<10)
		if len(all) != c.entries || all[0].Text != fmt.Sprint("m", c.first) || all[len(all)-1].Text != fmt.Sprint("m", c.entries+c.first-1) ||
			cov.Dropped != c.dropped || cov.Missed != c.missed || (c.dropped > 0) != (cov.DroppedWhy != "") {
			t.Errorf("%s: %d entries, first %+v, coverage %+v", c.page, len(all), all[0], cov)
		}
	}
	for _, c := range []struct {
		page  string
		units int
		cut   bool
	}{{"2048", 2048, false}, {"2049", 2048, true}} {
		if _, err := s.Navigate(ctx, base+c.page); err != nil {
			t.Fatal(err)
		}
		loggedAll(t, ctx, s, 1)
		v, raw := logView(t, ctx, s, tools.Console, map[string]any{})
		if len(v.Entries) != 1 || observation.UTF16Len(v.Entries[0].Text) != c.units || v.Entries[0].Cut != c.cut || v.Coverage.ViewCut != 0 {
			t.Errorf("%s: %.200s", c.page, raw)
		}
	}
	if _, err := s.Call(ctx, tools.Console, json.RawMessage(`{"cursor":"l1.1"}`)); errcode.Of(err) != errcode.StaleReference {
		t.Errorf("a cursor of the document left: %v", err)
	}
	for _, bad := range []string{`{"cursor":"e1"}`, `{"level":"fatal"}`, `{"filter":"x"}`, `{"cursor":""}`} {
		if _, err := s.Call(ctx, tools.Console, json.RawMessage(bad)); errcode.Of(err) != errcode.InvalidArgument {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// TestConsoleReadThroughNext: a page that logs 10,000 messages is read
// completely through next at the smallest budget: the 1,000 it keeps, in
// order, each once, and the 9,000 dropped counted.
func TestConsoleReadThroughNext(t *testing.T) {
	t.Parallel()
	st, _ := openSQLite(t)
	base := browsertest.Serve(t, feedPage(10000, 0))
	_, s := grantedSession(t, st, base, veetbrowser.SessionOptions{Budget: projection.MinBudget})
	ctx := browsertest.Context(t, 2*time.Minute)
	if _, err := s.Navigate(ctx, base); err != nil {
		t.Fatal(err)
	}
	loggedAll(t, ctx, s, 10000)
	all, cov, views := readAll(t, ctx, s, tools.Console, projection.MinBudget)
	if len(all) != observation.MaxLogEntries || cov.Dropped != 9000 || cov.Missed != 9000 || cov.Remaining+cov.Shown != 1000 {
		t.Fatalf("%d entries, coverage %+v", len(all), cov)
	}
	for i, e := range all {
		if e.Text != fmt.Sprint("m", 9000+i) {
			t.Fatalf("entry %d is %q", i, e.Text)
		}
	}
	t.Logf("1000 entries in %d views of ≤ %d bytes", views, projection.MinBudget)
}

// shopPage is a responsive shop: on a narrow screen its navigation links
// are hidden behind a menu button, and a script writes what the page's
// Intl and Date see.
const shopPage = `<!doctype html><html><head><title>Shop</title><link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>.burger{display:none} @media (max-width: 600px) { .links{display:none} .burger{display:inline-block} }
header{display:flex;justify-content:space-between;padding:8px;background:#eee}</style></head>
<body><header><strong>Shop</strong><button class="burger" aria-label="Open menu">☰</button>
<nav class="links"><a href="/men">Men</a> <a href="/women">Women</a> <a href="/sale">Sale</a></nav></header>
<main><h1>New arrivals</h1><p id="env"></p></main><footer>© Shop</footer>
<script>const o = Intl.DateTimeFormat().resolvedOptions();
document.getElementById('env').textContent = 'zone ' + o.timeZone + ' locale ' + o.locale + ' date ' +
  new Date(Date.UTC(2024, 0, 1, 12)).toLocaleString() + ' offset ' + new Date(0).getTimezoneOffset();</script></body></html>`

// TestEmulatePhone: at phone size the shop's view shows its menu button
// and not its links, the screenshot is portrait, and the page's Intl and
// Date see the locale and the time zone; back at desktop size the links
// return. Bad settings are invalid_argument.
func TestEmulatePhone(t *testing.T) {
	t.Parallel()
	st, _ := openSQLite(t)
	base := browsertest.Serve(t, shopPage)
	_, s := grantedSession(t, st, base, veetbrowser.SessionOptions{})
	ctx := browsertest.Context(t, time.Minute)
	names := func(res *veetbrowser.Result) string {
		var b strings.Builder
		for _, c := range res.Observation.Controls {
			b.WriteString(c.Name + "|")
		}
		return b.String()
	}
	desk, err := s.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	if n := names(desk); strings.Contains(n, "Open menu") || !strings.Contains(n, "Sale") {
		t.Fatalf("desktop controls: %s", n)
	}
	if _, err := s.Emulate(ctx, veetbrowser.EmulateOptions{Device: "iphone-15", Locale: "de-DE", Timezone: "Asia/Tokyo"}); err != nil {
		t.Fatal(err)
	}
	phone, err := s.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	if n := names(phone); !strings.Contains(n, "Open menu") || strings.Contains(n, "Sale") {
		t.Errorf("phone controls: %s", n)
	}
	var text strings.Builder
	for _, p := range phone.Observation.Text {
		text.WriteString(p.Text)
	}
	if env := text.String(); !strings.Contains(env, "zone Asia/Tokyo locale de-DE") || !strings.Contains(env, "1.1.2024, 21:00:00") ||
		!strings.Contains(env, "offset -540") {
		t.Errorf("the page sees %q", env)
	}
	shot, err := s.Call(ctx, tools.Screenshot, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sum veetbrowser.ShotSummary
	if err := json.Unmarshal(shot.View, &sum); err != nil || sum.Shot.Height <= sum.Shot.Width {
		t.Errorf("phone screenshot %s", shot.View)
	}
	back, err := s.Emulate(ctx, veetbrowser.EmulateOptions{Device: "desktop"})
	if err != nil {
		t.Fatal(err)
	}
	if n := names(back); strings.Contains(n, "Open menu") || !strings.Contains(n, "Sale") {
		t.Errorf("desktop again: %s", n)
	}
	for _, bad := range []string{`{}`, `{"width":239}`, `{"width":3841}`, `{"device":"nokia"}`, `{"color_scheme":"blue"}`,
		`{"locale":"de_DE!"}`, `{"timezone":"Mars/Olympus"}`} {
		if _, err := s.Call(ctx, tools.Emulate, json.RawMessage(bad)); errcode.Of(err) != errcode.InvalidArgument {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if _, err := s.Call(ctx, tools.Emulate, json.RawMessage(`{"width":240,"height":3840}`)); err != nil {
		t.Errorf("the bounds themselves: %v", err)
	}
}
