package chromium

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// searchForm posts what it holds; the server records each post.
const searchForm = `<form method="post" action="/search"><label>Query <input name="q"></label><button>Search</button></form>`

// TestPressSendsOneKey: press dispatches one trusted key to the focused
// control; Enter in a form field submits the form, exactly once.
func TestPressSendsOneKey(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	site, s, obs := openEffects(t, map[string]string{"/": searchForm})
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActPress, Ref: find(t, obs, "Query").Ref, Key: "k"}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if got := evalMain(t, s, "document.querySelector('input').value"); got != "k" {
		t.Fatalf("after pressing k the field holds %q", got)
	}
	res, err = s.Act(ctx, browser.Action{Kind: browser.ActPress, Ref: find(t, res.Observation, "Query").Ref, Key: "Enter"}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if !res.NavigationStarted || !res.NavigationDone || res.Observation.Title != "done" {
		t.Fatalf("Enter did not submit: %+v, title %q", res, res.Observation.Title)
	}
	if got, want := site.Seen(), []string{"post /search q=k"}; !slices.Equal(got, want) {
		t.Fatalf("server saw %q, want %q", got, want)
	}
	// A key press needs a key, and a key it knows.
	obs, err = s.Navigate(ctx, site.url)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Act(ctx, browser.Action{Kind: browser.ActPress, Ref: find(t, obs, "Query").Ref}, allowAll)
	wantCode(t, err, errcode.InvalidArgument)
	_, err = s.Act(ctx, browser.Action{Kind: browser.ActPress, Ref: find(t, obs, "Query").Ref, Key: "NoSuchKey"}, allowAll)
	wantCode(t, err, errcode.InvalidArgument)
	if got := site.Seen(); len(got) != 1 {
		t.Fatalf("a refused press reached the server: %q", got)
	}
}

// TestTypeWithSubmit: type inserts the text, then submit presses Enter:
// the form is posted once with exactly that text.
func TestTypeWithSubmit(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	site, s, obs := openEffects(t, map[string]string{"/": searchForm})
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Query").Ref, Text: "späť 🙂", Submit: true}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if !res.NavigationStarted || !res.NavigationDone || res.Observation.Title != "done" {
		t.Fatalf("the form was not submitted: %+v, title %q", res, res.Observation.Title)
	}
	if got, want := site.Seen(), []string{"post /search q=späť 🙂"}; !slices.Equal(got, want) {
		t.Fatalf("server saw %q, want %q", got, want)
	}
}

// TestInputThePageCutsShortIsUncertain: a control that removes itself as
// the press reaches it takes the press but not the release, which lands
// elsewhere and is stopped: the click may or may not have had its effect,
// so the action is action_uncertain and is not retried.
func TestInputThePageCutsShortIsUncertain(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	site, s, obs := openEffects(t, map[string]string{"/": `<button>Vanish</button>
<script>
const b = document.querySelector('button');
b.addEventListener('mousedown', () => { navigator.sendBeacon('/effect?e=down'); b.remove(); });
b.addEventListener('click', () => navigator.sendBeacon('/effect?e=click'));
</script>`})
	_, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Vanish").Ref}, allowAll)
	wantCode(t, err, errcode.ActionUncertain)
	// The press was delivered once and never again.
	waitFor(t, func() bool { return slices.Contains(site.Seen(), "down") }, site.Seen)
	time.Sleep(300 * time.Millisecond)
	if got := site.Seen(); !slices.Equal(got, []string{"down"}) {
		t.Fatalf("server saw %q, want one press and no click", got)
	}
	if _, err := s.Observe(ctx, observation.Request{}); err != nil {
		t.Fatalf("the session after an uncertain action: %v", err)
	}
}

// TestNavigationFailedKeepsTheSession: a site that refuses connections is
// navigation_failed, named by its network error, and the session goes on.
func TestNavigationFailedKeepsTheSession(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/"
	l.Close()
	s, _ := openPage(t, "<button>before</button>")
	_, err = s.Navigate(ctx, closed)
	wantCode(t, err, errcode.NavigationFailed)
	if _, msg := errcode.Public(err); !strings.Contains(msg, "net::ERR_CONNECTION_REFUSED") {
		t.Fatalf("public message %q does not name the network error", msg)
	}
	wantGoesOn(t, ctx, s, browsertest.Serve(t, "<button>after</button>"), "after", "a failed navigation")
}

// TestCancelledCallsSayCancelled: a caller that gives up, while its call
// waits on a site or on the operation lock, gets cancelled, and the session
// serves the next call.
func TestCancelledCallsSayCancelled(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	arrived := make(chan struct{}, 1)
	release := make(chan struct{})
	defer close(release)
	base := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			select {
			case arrived <- struct{}{}:
			default:
			}
			<-release
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<button>fine</button>"))
	}))
	s := openSession(t)

	call, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := s.Navigate(call, base+"slow")
		done <- err
	}()
	select {
	case <-arrived:
	case <-ctx.Done():
		t.Fatal("the request never reached the site")
	}
	// A second call waits for the lock, and is cancelled with the first.
	waiting := make(chan error, 1)
	go func() {
		_, err := s.Observe(call, observation.Request{})
		waiting <- err
	}()
	cancel()
	for _, ch := range []chan error{done, waiting} {
		select {
		case err := <-ch:
			wantCode(t, err, errcode.Cancelled)
		case <-ctx.Done():
			t.Fatal("a cancelled call did not return")
		}
	}
	wantGoesOn(t, ctx, s, base, "fine", "cancelled calls")
}

// TestSummaryNodeBound: a region summary inspects 256 descendant nodes; a
// region of exactly 256 is whole, one of 257 is flagged truncated.
func TestSummaryNodeBound(t *testing.T) {
	t.Parallel()
	pairs := observation.SummaryNodes / 2 // each span is an element and its text
	for _, extra := range []string{"", "z"} {
		_, obs := openPage(t, `<div role="status">`+strings.Repeat("<span>.</span>", pairs)+extra+`</div>`)
		g := obs.Regions[0]
		want := strings.Repeat(".", pairs)
		if extra == "" && (g.SummaryTruncated || g.Summary != want) {
			t.Fatalf("256 nodes: summary %d chars, truncated %v", len(g.Summary), g.SummaryTruncated)
		}
		if extra != "" && (!g.SummaryTruncated || g.Summary != want) {
			t.Fatalf("257 nodes: summary %d chars, truncated %v", len(g.Summary), g.SummaryTruncated)
		}
	}
}

// TestDraftEditorBounds: the draft check reads an editor of up to 256 nodes
// and 4,096 text units; one node or one unit more is oversized, which
// invalidates the receipt.
func TestDraftEditorBounds(t *testing.T) {
	t.Parallel()
	const editor = `<div contenteditable="true" aria-label="Composer" id="ed"></div>`
	typed := func(t *testing.T, text string) (*Session, *observation.Observation) {
		t.Helper()
		s, obs := openPage(t, editor)
		res, err := s.Act(browsertest.Context(t, time.Minute), browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Composer").Ref, Text: text}, allowAll)
		if err != nil {
			t.Fatal(err)
		}
		return s, res.Observation
	}
	state := func(o *observation.Observation) string {
		if o.Draft == nil {
			return ""
		}
		return o.Draft.State
	}
	for _, n := range []int{observation.DraftEditorUnits, observation.DraftEditorUnits + 1} {
		_, obs := typed(t, strings.Repeat("u", n))
		want := "match"
		if n > observation.DraftEditorUnits {
			want = "oversized"
		}
		if state(obs) != want {
			t.Fatalf("%d units typed: draft %q, want %q", n, state(obs), want)
		}
	}
	for _, n := range []int{observation.DraftEditorNodes, observation.DraftEditorNodes + 1} {
		s, _ := typed(t, "Hi")
		// Empty inline elements add nodes and no text: fill the editor up
		// to n nodes, counting what typing made.
		mainWorld(t, s, `{
  const ed = document.getElementById('ed');
  const walker = document.createTreeWalker(ed);
  let have = 0;
  while (walker.nextNode()) have++;
  for (let i = have; i < `+strconv.Itoa(n)+`; i++) ed.append(document.createElement('span'));
}`)
		obs, err := s.Observe(browsertest.Context(t, time.Minute), observation.Request{})
		if err != nil {
			t.Fatal(err)
		}
		want := "match"
		if n > observation.DraftEditorNodes {
			want = "oversized"
		}
		if state(obs) != want {
			t.Fatalf("%d editor nodes: draft %q, want %q", n, state(obs), want)
		}
	}
}

// TestLaunchedBrowserIsPrivateAndQuiet: the launched browser carries the
// switches that stop its own calls home, and its HOME, XDG dirs, TMPDIR and
// profile all lie inside its one private directory.
func TestLaunchedBrowserIsPrivateAndQuiet(t *testing.T) {
	pid := shared.Get(t).Process()
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
	for _, want := range []string{"--headless", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-domain-reliability",
		"--disable-client-side-phishing-detection", "--disable-default-apps", "--metrics-recording-only",
		"--disable-breakpad", "--no-pings"} {
		if !slices.Contains(args, want) {
			t.Errorf("the browser was launched without %s", want)
		}
	}
	features := ""
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--disable-features="); ok {
			features = v
		}
	}
	for _, want := range []string{"Translate", "OptimizationHints", "AutofillServerCommunication"} {
		if !slices.Contains(strings.Split(features, ","), want) {
			t.Errorf("--disable-features=%q lacks %s", features, want)
		}
	}
	if slices.Contains(args, "--no-sandbox") != (os.Geteuid() == 0) {
		t.Errorf("--no-sandbox given %v, running as root %v", slices.Contains(args, "--no-sandbox"), os.Geteuid() == 0)
	}

	profile := ""
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--user-data-dir="); ok {
			profile = v
		}
	}
	private := filepath.Dir(profile)
	if profile == "" || !strings.HasPrefix(filepath.Base(private), "veetbrowser-") || filepath.Dir(private) != filepath.Clean(os.TempDir()) {
		t.Fatalf("profile %q is not in a private temp dir", profile)
	}
	raw, err = os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range strings.Split(string(raw), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "TMPDIR"} {
		if v := env[k]; v != private && !strings.HasPrefix(v, private+string(filepath.Separator)) {
			t.Errorf("%s=%q is outside the private dir %s", k, v, private)
		}
		if fi, err := os.Stat(env[k]); err != nil || !fi.IsDir() {
			t.Errorf("%s=%q is not a directory: %v", k, env[k], err)
		}
	}
}
