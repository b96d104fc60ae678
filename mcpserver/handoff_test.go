package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/controlroom"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/replay"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
	"github.com/veetbot/veetbrowser/viewer"
)

// bankSite is a bank's sign-in step that asks for the code sent to the
// user's phone: a large code field in the middle of the page (so that a
// click at a quarter of the picture's height lands in it whatever the
// window's size), a Verify button, a menu and a footer. The site keeps
// the codes it is sent; its answer never repeats the code.
type bankSite struct {
	url   string
	mu    sync.Mutex
	codes []string
}

func serveBank(t *testing.T) *bankSite {
	b := &bankSite{}
	b.url = browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/verify" {
			r.ParseForm()
			b.mu.Lock()
			b.codes = append(b.codes, r.Form.Get("code"))
			b.mu.Unlock()
			fmt.Fprint(w, `<!doctype html><title>Accounts</title><main><h1>Welcome back, Ana</h1><p>Checking ending 4411: $2,310.07</p></main>`)
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Verify it's you</title><style>
body { margin: 0; font: 16px sans-serif; }
#code { position: fixed; left: 10%; top: 15%; width: 80%; height: 20%; font: 40px monospace; }
form button { position: fixed; left: 10%; top: 50%; }
</style>
<header><nav aria-label="Bank"><a href="/help">Help</a> <a href="/security">Security</a></nav></header>
<main><form method="post" action="/verify" aria-label="Two-step verification">
<input id="code" name="code" autocomplete="one-time-code" aria-label="Code sent to your phone">
<button>Verify</button></form></main><footer>Member FDIC</footer>`)
	}))
	return b
}

// typeThroughPicture is the person, in the control room: a click on the
// code field in the page's picture, the code and Enter; it waits until
// the site got exactly code.
func (b *bankSite) typeThroughPicture(t *testing.T, person context.Context, code string) {
	t.Helper()
	xy, err := chromedp.Run(person, chromedp.Evaluate[[]float64](`(() => { const r = document.querySelector('img.driven').getBoundingClientRect();
		return [r.x + r.width * 0.5, r.y + r.height * 0.25] })()`))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(person, chromedp.MouseClickXY(xy[0], xy[1])); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(person, chromedp.KeyEvent(code+kb.Enter)); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); len(b.got()) == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if got := b.got(); len(got) != 1 || got[0] != code {
		html, _ := chromedp.Run(person, chromedp.Evaluate[string](`document.body.outerHTML`))
		t.Fatalf("the site got %q\n%s", got, html)
	}
}

func (b *bankSite) got() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.codes...)
}

// TestHandoffToAPersonInTheControlRoom: the agent calls browser_handoff
// on a two-step sign-in; while the person holds the page the agent's
// calls are human_in_control; the person, in a second real Chromium,
// clicks the code field in the control room's picture, types the code,
// presses Enter and hands back; the site gets the code; the agent's view
// is of the new page, says the person had it, and its older ref is
// stale_reference; the code is in no record, view or log, and the
// session replays byte-identically.
func TestHandoffToAPersonInTheControlRoom(t *testing.T) {
	t.Parallel()
	const canary = "ZQ7W4RK9XPL"
	g := rig(t)
	ctx, st, cs, room, srv := g.ctx, g.st, g.cs, g.room, g.srv
	var views []string
	agent := func(name string, args any) (string, bool) {
		text, isErr := call(t, cs, name, args)
		views = append(views, text)
		return text, isErr
	}
	site := serveBank(t)
	if text, isErr := agent("browser_navigate", map[string]any{"url": site.url}); isErr {
		t.Fatal(text)
	}
	text, _ := agent("browser_find", map[string]any{"query": "Verify"})
	verify := refOf(t, text, "Verify")
	person := person(t, srv.URL, room)

	done := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "browser_handoff",
			Arguments: map[string]any{"reason": "Enter the code sent to your phone", "timeout_s": 120}})
		if err != nil {
			done <- "call failed: " + err.Error()
			return
		}
		done <- fmt.Sprintf("%v %s", res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}()
	waitFor(t, person, `document.querySelector('.handoff button.handback') && document.querySelector('img.driven').naturalWidth > 0`)
	if reason := textOf(t, person, `.handoff .reason`); reason != "Enter the code sent to your phone" {
		t.Fatalf("the room shows the reason %q", reason)
	}
	if text, isErr := agent("browser_observe", map[string]any{}); !isErr || !strings.Contains(text, `"human_in_control"`) {
		t.Fatalf("observe while the person holds the page: %s", text)
	}

	// The person clicks the code field in the picture, types and submits.
	site.typeThroughPicture(t, person, canary)
	select {
	case got := <-done:
		t.Fatalf("the handoff ended before Hand back: %s", got)
	default:
	}
	clickOn(t, person, `.handoff button.handback`)
	got := <-done
	views = append(views, got)
	if !strings.HasPrefix(got, "false ") || !strings.Contains(got, "Welcome back, Ana") ||
		!strings.Contains(got, `"handoff":{"held_s":`) || !strings.Contains(got, `"ended":"handed_back"`) {
		t.Fatalf("the handoff's view: %s", got)
	}
	if text, isErr := agent("browser_act", map[string]any{"kind": "click", "ref": verify}); !isErr || !strings.Contains(text, `"stale_reference"`) {
		t.Fatalf("a ref from before the handoff: %s", text)
	}
	waitFor(t, person, `!document.querySelector('.handoff')`)

	// The record says who held the page and for how long, never what
	// they typed; the session replays.
	sums, err := st.Sessions(ctx, store.ListOptions{})
	if err != nil || len(sums) != 1 {
		t.Fatalf("sessions: %v %v", sums, err)
	}
	var handoff struct {
		Handoff *struct{ By, Ended, Input string }
	}
	err = st.Calls(ctx, sums[0].ID, func(c store.Call) error {
		if c.Tool == "browser_handoff" {
			return json.Unmarshal(c.Action, &handoff)
		}
		return nil
	})
	if err != nil || handoff.Handoff == nil || handoff.Handoff.By != "control_room" || handoff.Handoff.Ended != "handed_back" || handoff.Handoff.Input != "person input" {
		t.Fatalf("the handoff's record: %+v %v", handoff.Handoff, err)
	}
	rep, err := replay.Session(ctx, st, sums[0].ID, replay.Options{})
	if err != nil || !rep.Identical() {
		t.Fatalf("replay: %v %+v", err, rep)
	}
	var page bytes.Buffer
	if err := viewer.WriteHTML(ctx, &page, st, sums[0].ID, nil); err != nil || !strings.Contains(page.String(), "held by a person (control_room)") {
		t.Fatalf("the timeline does not show the handoff: %v", err)
	}
	views = append(views, page.String())
	g.nowhere(t, canary, views)
}

// roomRig is an MCP server with a control room, its sessions recorded in
// a store on disk, its log kept, and a client connected to it.
type roomRig struct {
	ctx    context.Context
	dbPath string
	st     store.Store
	room   *controlroom.Room
	srv    *httptest.Server
	s      *Server
	cs     *mcp.ClientSession
	logMu  sync.Mutex
	logs   bytes.Buffer
}

func rig(t *testing.T) *roomRig {
	g := &roomRig{ctx: browsertest.Context(t, 3*time.Minute), dbPath: filepath.Join(t.TempDir(), "artifacts.db")}
	st, err := storespec.Open(g.ctx, g.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	g.st = st
	t.Cleanup(func() { st.Close() })
	rt, err := veetbrowser.New(shared.Get(t), veetbrowser.Options{Store: st, ActionScreenshots: true})
	if err != nil {
		t.Fatal(err)
	}
	g.room = controlroom.New(controlroom.Options{})
	g.srv = httptest.NewServer(g.room)
	t.Cleanup(g.srv.Close)
	g.s, err = New(rt, Options{Room: g.room, Logger: slog.New(slog.NewTextHandler(lockedWriter{&g.logMu, &g.logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.s.Close(context.Background()) })
	sT, cT := mcp.NewInMemoryTransports()
	if _, err := g.s.MCP.Connect(g.ctx, sT, nil); err != nil {
		t.Fatal(err)
	}
	g.cs, err = mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(g.ctx, cT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.cs.Close() })
	return g
}

// nowhere ends the rig's sessions and checks that what the person typed
// is in none of the views, the log or the artifact files.
func (g *roomRig) nowhere(t *testing.T, canary string, views []string) {
	t.Helper()
	g.s.Close(context.Background())
	for _, v := range views {
		if strings.Contains(v, canary) {
			t.Fatalf("a view holds what the person typed: %s", v)
		}
	}
	g.logMu.Lock()
	if strings.Contains(g.logs.String(), canary) {
		t.Errorf("the log holds what the person typed")
	}
	g.logMu.Unlock()
	g.st.Close()
	files, _ := filepath.Glob(g.dbPath + "*")
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if bytes.Contains(b, []byte(canary)) {
			t.Errorf("%s holds what the person typed", filepath.Base(f))
		}
	}
	if len(files) == 0 {
		t.Fatal("no artifact files")
	}
}

// lockedWriter serializes a log's writes.
type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestHandoffWithoutAControlRoom: with no person to hand to,
// browser_handoff is handoff_unavailable and the page stays the agent's.
func TestHandoffWithoutAControlRoom(t *testing.T) {
	t.Parallel()
	cs := connect(t, Options{})
	site := serveBank(t)
	if text, isErr := call(t, cs, "browser_navigate", map[string]any{"url": site.url}); isErr {
		t.Fatal(text)
	}
	if text, isErr := call(t, cs, "browser_handoff", map[string]any{"reason": "Enter the code"}); !isErr || !strings.Contains(text, `"handoff_unavailable"`) {
		t.Fatalf("browser_handoff without a control room: %s", text)
	}
	if text, isErr := call(t, cs, "browser_observe", map[string]any{}); isErr {
		t.Fatalf("observe after a refused handoff: %s", text)
	}
}
