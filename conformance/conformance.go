// Package conformance is the one suite every provider of sessions passes:
// the local runtime, a browser attached over CDP, and a session hosted by a
// sidecar. Each provider's test calls Run with a Provider that opens its
// sessions; everything provider-specific lives in Provider.Open.
//
// The suite drives sessions only as a model or an MCP client would: tools by
// name with JSON arguments (veetbrowser.Caller.Call). It judges what a client
// of any provider sees alike: the model view, the canonical observation and
// the error code. Effects are checked where they land: on the loopback
// server of the page, or in the next view.
package conformance

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
)

// Provider opens sessions for the suite: local, cdp, hosted.
type Provider struct {
	Name string
	// Open opens one session with these options; the suite closes it (and
	// Open's t.Cleanup may too).
	Open func(t *testing.T, opts veetbrowser.SessionOptions) veetbrowser.Caller
}

// scenario is one subtest of the suite.
type scenario struct {
	name string
	run  func(t *testing.T, p Provider)
}

// scenarios run in parallel, each with sessions of its own on the
// provider's shared browser.
var scenarios = []scenario{
	{"navigation", navigation},
	{"observe after", observeAfter},
	{"observe offsets", observeOffsets},
	{"observe cursor", observeCursor},
	{"reading", reading},
	{"find", find},
	{"actions", actions},
	{"dialogs", dialogs},
	{"guards", guards},
	{"references", references},
	{"approvals", approvals},
	{"beforeunload", beforeunload},
	{"upload", upload},
	{"errors", errorsScenario},
	{"close", closeScenario},
}

// Run runs the suite against p. Crash recovery runs first and alone: it
// crashes a hung renderer on purpose, and no other page may share that
// renderer. Then every other scenario runs in parallel.
func Run(t *testing.T, p Provider) {
	t.Run("crash recovery", func(t *testing.T) { crashRecovery(t, p) })
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			s.run(t, p)
		})
	}
}

// callTimeout bounds one scenario's calls: generous, for a loaded machine.
const callTimeout = 3 * time.Minute

// session is one session of a scenario, driven by tool name.
type session struct {
	t      *testing.T
	c      veetbrowser.Caller
	ctx    context.Context
	budget int
}

func open(t *testing.T, p Provider, opts veetbrowser.SessionOptions) *session {
	t.Helper()
	c := p.Open(t, opts)
	t.Cleanup(func() { c.Close(context.Background()) })
	budget := opts.Budget
	if budget == 0 {
		budget = projection.DefaultBudget
	}
	return &session{t: t, c: c, ctx: browsertest.Context(t, callTimeout), budget: budget}
}

// call runs tool with args as a model would: args is sent as is when it
// is a json.RawMessage, otherwise as its JSON. A result's view must fit the
// budget and be the view of the session's version and of the canonical
// observation that comes with it.
func (s *session) call(tool string, args any) (*veetbrowser.Result, projection.View, error) {
	s.t.Helper()
	raw, ok := args.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(args); err != nil {
			s.t.Fatal(err)
		}
	}
	res, err := s.c.Call(s.ctx, tool, raw)
	if err != nil {
		return res, projection.View{}, err
	}
	if len(res.View) > s.budget {
		s.t.Fatalf("%s: a view of %d bytes over the %d budget", tool, len(res.View), s.budget)
	}
	var v projection.View
	if err := json.Unmarshal(res.View, &v); err != nil {
		s.t.Fatalf("%s: the view is not JSON: %v", tool, err)
	}
	if want := s.c.Version().Name; v.Version != want {
		s.t.Fatalf("%s: a view of version %q in a session of %q", tool, v.Version, want)
	}
	if res.Observation == nil || res.Observation.Revision != v.Revision {
		s.t.Fatalf("%s: the canonical observation is not the view's (revision %q)", tool, v.Revision)
	}
	return res, v, nil
}

// do calls tool and fails the test on an error.
func (s *session) do(tool string, args any) projection.View {
	s.t.Helper()
	_, v, err := s.call(tool, args)
	if err != nil {
		s.t.Fatalf("%s %s: %v", tool, show(args), err)
	}
	return v
}

// refused calls tool and wants it refused with code.
func (s *session) refused(code errcode.Code, tool string, args any) {
	s.t.Helper()
	_, _, err := s.call(tool, args)
	if got := errcode.Of(err); got != code {
		s.t.Fatalf("%s %s: %v (code %q), want %q", tool, show(args), err, got, code)
	}
}

func (s *session) navigate(url string) projection.View {
	s.t.Helper()
	return s.do("browser_navigate", map[string]string{"url": url})
}

func (s *session) observe() projection.View {
	s.t.Helper()
	return s.do("browser_observe", map[string]string{})
}

// act calls browser_act with the action's JSON arguments.
func (s *session) act(a map[string]any) projection.View {
	s.t.Helper()
	return s.do("browser_act", a)
}

func show(args any) string {
	if raw, ok := args.(json.RawMessage); ok {
		return cut(string(raw))
	}
	b, _ := json.Marshal(args)
	return cut(string(b))
}

func cut(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// ref returns the ref of the view's control named name.
func ref(t *testing.T, v projection.View, name string) string {
	t.Helper()
	return control(t, v, name).Ref
}

func control(t *testing.T, v projection.View, name string) projection.Control {
	t.Helper()
	for _, c := range v.Controls {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no control %q among %q", name, names(v))
	return projection.Control{}
}

func names(v projection.View) []string {
	var n []string
	for _, c := range v.Controls {
		n = append(n, c.Name)
	}
	return n
}

// origin is the origin of a URL served by browsertest: it ends in "/".
func origin(url string) string { return strings.TrimSuffix(url, "/") }

// report is a page script: report(e) tells the site's server that e
// happened in the page.
const report = `<script>function report(e) { navigator.sendBeacon('/effect?e=' + encodeURIComponent(e)); }</script>`

// site serves pages on 127.0.0.1 and records, in order, what reaches its
// server besides them: each /effect (its e) and each other request (method,
// path and its form, sorted). A scenario may add handlers of its own to mux.
type site struct {
	url   string
	mux   *http.ServeMux
	pages map[string]string
	browsertest.Events
}

func newSite(t *testing.T, pages map[string]string) *site {
	s := &site{pages: pages, mux: http.NewServeMux()}
	s.mux.Handle("/", s)
	s.url = browsertest.ServeHandler(t, s.mux)
	return s
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if page, ok := s.pages[r.URL.Path]; ok && r.Method == http.MethodGet {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
		return
	}
	switch r.URL.Path {
	case "/favicon.ico":
		http.NotFound(w, r)
		return
	case "/effect":
		s.Record(r.URL.Query().Get("e"))
		return
	}
	r.ParseMultipartForm(1 << 20)
	form := browsertest.Fields(r.Form)
	if r.MultipartForm != nil {
		for k, files := range r.MultipartForm.File {
			for _, f := range files {
				var b []byte
				if body, err := f.Open(); err == nil {
					b, _ = io.ReadAll(body)
					body.Close()
				}
				form = append(form, fmt.Sprintf("%s=%s:%q", k, f.Filename, b))
			}
		}
	}
	s.Record(strings.TrimSpace(r.Method + " " + r.URL.Path + " " + strings.Join(form, "&")))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, "<title>Done</title><p>Received.</p>")
}

// waitFor waits until the server has seen exactly want.
func (s *site) waitFor(t *testing.T, want ...string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !slices.Equal(s.Seen(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("the server saw %q, want %q", s.Seen(), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// still checks that the server has seen exactly want, after the time an
// effect in flight would need to arrive.
func (s *site) still(t *testing.T, want ...string) {
	t.Helper()
	time.Sleep(300 * time.Millisecond)
	if got := s.Seen(); !slices.Equal(got, want) {
		t.Fatalf("the server saw %q, want %q", got, want)
	}
}

// approver answers approvals with yes or no and keeps the facts it was
// asked about.
type approver struct {
	yes bool

	mu    sync.Mutex
	asked []policy.Facts
}

func (a *approver) Approve(_ context.Context, f policy.Facts) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, f)
	return a.yes, nil
}

func (a *approver) facts() []policy.Facts {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.asked)
}
