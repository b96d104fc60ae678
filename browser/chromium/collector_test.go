package chromium

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/collect"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

var shared = browsertest.Shared[*Provider]{Launch: func() (*Provider, error) {
	return Launch(context.Background(), Options{})
}}

func TestMain(m *testing.M) { browsertest.Main(m, &shared) }

func openSession(t testing.TB) *Session {
	t.Helper()
	ctx := browsertest.Context(t, time.Minute)
	bs, err := shared.Get(t).NewSession(ctx, browser.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bs.Close(context.Background()) })
	return bs.(*Session)
}

// openPage serves html and returns a session on it with its first observation.
func openPage(t testing.TB, html string) (*Session, *observation.Observation) {
	t.Helper()
	s := openSession(t)
	obs, err := s.Navigate(browsertest.Context(t, time.Minute), browsertest.Serve(t, html))
	if err != nil {
		t.Fatal(err)
	}
	return s, obs
}

func names(obs *observation.Observation) []string {
	out := make([]string, len(obs.Controls))
	for i, c := range obs.Controls {
		out[i] = c.Name
	}
	return out
}

func wantCode(t *testing.T, err error, code errcode.Code) {
	t.Helper()
	if got := errcode.Of(err); got != code {
		t.Fatalf("error %v: code %q, want %q", err, got, code)
	}
}

func TestOrderIsShadowFirstDepthFirst(t *testing.T) {
	_, obs := openPage(t, `
<button>L1</button>
<div id="host"><button>slotted light child</button></div>
<button>L2</button>
<div id="closed"><button>light child of closed host</button></div>
<iframe srcdoc="<button>in frame</button>"></iframe>
<button>L3</button>
<script>
const root = document.getElementById('host').attachShadow({mode: 'open'});
root.innerHTML = '<button>S1</button><div id="inner"></div><slot></slot><button>S3</button>';
root.getElementById('inner').attachShadow({mode: 'open'}).innerHTML = '<button>S2 nested</button>';
document.getElementById('closed').attachShadow({mode: 'closed'}).innerHTML = '<button>in closed root</button><slot></slot>';
</script>`)
	want := []string{"L1", "S1", "S2 nested", "S3", "slotted light child", "L2", "light child of closed host", "L3"}
	if got := names(obs); !slices.Equal(got, want) {
		t.Fatalf("order:\n got %q\nwant %q", got, want)
	}
}

func TestHiddenControlsNeverAppear(t *testing.T) {
	_, obs := openPage(t, `
<style>
  .clip { overflow: hidden; width: 50px; height: 20px; position: relative; }
  .clip button { position: absolute; left: 200px; }
  .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  .scroller { height: 40px; overflow: auto; }
</style>
<button>visible plain</button>
<button style="display:none">hidden display</button>
<button style="visibility:hidden">hidden visibility</button>
<button style="visibility:collapse">hidden collapse</button>
<div hidden><button>hidden attribute</button></div>
<div hidden style="display:block"><button>hidden attribute overridden by css</button></div>
<div inert><button>hidden inert</button></div>
<div aria-hidden="true"><button>hidden aria</button></div>
<button style="width:0;height:0;padding:0;border:0;overflow:hidden">hidden zero size</button>
<button style="opacity:0">hidden opacity</button>
<div style="opacity:0"><button>hidden opacity ancestor</button></div>
<div class="clip"><button>hidden clipped</button></div>
<button style="position:absolute;left:-9999px">hidden offscreen</button>
<button class="sr">hidden sr-only</button>
<button style="opacity:0.5">visible translucent</button>
<div class="scroller"><div style="height:200px"></div><button>visible in scroller</button></div>
<button style="margin-top:3000px">visible below fold</button>`)
	for _, n := range names(obs) {
		if strings.HasPrefix(n, "hidden") {
			t.Errorf("hidden control %q appeared", n)
		}
	}
	want := []string{"visible plain", "visible translucent", "visible in scroller", "visible below fold"}
	if got := names(obs); !slices.Equal(got, want) {
		t.Fatalf("visible controls:\n got %q\nwant %q", got, want)
	}
}

// namePage has one control per naming source; ids give Chromium's own
// accessible name to compare with.
const namePage = `
<span id="a">First</span><span id="b">Second</span>
<button id="c1" aria-labelledby="a b">content ignored</button>
<button id="c2" aria-label="Label wins">content ignored</button>
<label for="c3">For label</label><input id="c3" value="NEVER">
<label>Wrapping label <input id="c4" type="checkbox"></label>
<button id="c5">Text <b>content</b></button>
<button id="c6" title="Title only"></button>
<button id="c7"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="Alt text"></button>
<input id="c8" placeholder="Placeholder only">
<a id="c9" href="/x">Link  text
  spread</a>
<input id="c10" type="submit" value="Send it">
<select id="c11" aria-label="Choice"><option>One</option></select>
<div id="c12" role="switch" aria-checked="true" tabindex="0">Dark mode</div>
<label for="c13">Outer</label><textarea id="c13" aria-labelledby="a">NEVER</textarea>
`

func TestNamesFollowChromium(t *testing.T) {
	s, obs := openPage(t, namePage)
	want := []string{"First Second", "Label wins", "For label", "Wrapping label", "Text content", "Title only",
		"Alt text", "Placeholder only", "Link text spread", "Send it", "Choice", "Dark mode", "First"}
	if got := names(obs); !slices.Equal(got, want) {
		t.Fatalf("names:\n got %q\nwant %q", got, want)
	}
	// Chromium's accessibility tree is the reference.
	ctx := browsertest.Context(t, time.Minute)
	for i, c := range obs.Controls {
		id := fmt.Sprintf("c%d", i+1)
		ax := chromiumName(t, ctx, s, id)
		if ax != c.Name {
			t.Errorf("#%s: name %q, Chromium says %q", id, c.Name, ax)
		}
	}
	roles := []string{"button", "button", "textbox", "checkbox", "button", "button", "button", "textbox", "link", "button", "combobox", "switch", "textbox"}
	for i, c := range obs.Controls {
		if c.Role != roles[i] {
			t.Errorf("control %d %q: role %q, want %q", i, c.Name, c.Role, roles[i])
		}
	}
	if !obs.Controls[11].Checked {
		t.Error("switch with aria-checked=true is not checked")
	}
}

// chromiumName asks Chromium's accessibility tree for the name of #id.
func chromiumName(t *testing.T, ctx context.Context, s *Session, id string) string {
	t.Helper()
	res, err := cdp.Call(ctx, s.tab.target, runtime.Evaluate, runtime.EvaluateParams{Expression: "document.getElementById(" + fmt.Sprintf("%q", id) + ")"})
	if err != nil || res.Result.ObjectID == "" {
		t.Fatalf("resolving #%s: %v", id, err)
	}
	defer cdp.Call(ctx, s.tab.target, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: res.Result.ObjectID})
	tree, err := cdp.Call(ctx, s.tab.target, accessibility.GetPartialAXTree, accessibility.GetPartialAXTreeParams{ObjectID: res.Result.ObjectID, FetchRelatives: ptr(false)})
	if err != nil || len(tree.Nodes) == 0 {
		t.Fatalf("AX tree of #%s: %v", id, err)
	}
	n := tree.Nodes[0]
	if n.Name == nil {
		return ""
	}
	var name string
	json.Unmarshal(n.Name.Value, &name)
	return name
}

func TestCanariesNeverLeave(t *testing.T) {
	s, obs := openPage(t, `
<label>Email <input value="CANARY-INPUT"></label>
<textarea aria-label="Notes">CANARY-TEXTAREA</textarea>
<input type="password" aria-label="Password" value="CANARY-PASSWORD">
<div contenteditable="true" aria-label="Draft">CANARY-EDITABLE</div>
<button data-secret="CANARY-DATA">Go</button>
<select aria-label="Pick"><option selected>CANARY-OPTION</option></select>
<div id="ed" contenteditable="true">CANARY-LABELLED-BY-EDITOR</div><button aria-labelledby="ed">Fallback</button>
<script>document.querySelector('input').value = 'CANARY-TYPED';</script>`)
	obs2, err := s.Observe(browsertest.Context(t, time.Minute), observation.Request{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []*observation.Observation{obs, obs2} {
		b, _ := json.Marshal(o)
		if strings.Contains(string(b), "CANARY") {
			t.Fatalf("a canary leaked: %s", b)
		}
		if len(o.Controls) != 8 {
			t.Fatalf("got %d controls, want 8: %q", len(o.Controls), names(o))
		}
	}
}

func buttons(n int, attrs string) string {
	return browsertest.Repeat(n, "<button "+attrs+">b%d</button>\n")
}

func TestVisibleControlBound(t *testing.T) {
	ctx := browsertest.Context(t, 2*time.Minute)
	for _, n := range []int{observation.MaxControls, observation.MaxControls + 1} {
		s, obs := openPage(t, buttons(n, ""))
		if len(obs.Controls) != observation.MaxControls {
			t.Fatalf("%d buttons: %d controls", n, len(obs.Controls))
		}
		cov := obs.ControlCoverage
		if n == observation.MaxControls {
			if cov.ScanLimitReached || cov.Cursor != "" || cov.Limit != "" {
				t.Fatalf("%d buttons: coverage %+v, want complete", n, cov)
			}
			continue
		}
		if !cov.ScanLimitReached || cov.Limit != observation.LimitControls || cov.Cursor == "" || cov.Scanned != observation.MaxControls {
			t.Fatalf("%d buttons: coverage %+v, want the control limit and a cursor", n, cov)
		}
		next, err := s.Observe(ctx, observation.Request{Cursor: cov.Cursor})
		if err != nil {
			t.Fatal(err)
		}
		if got := names(next); !slices.Equal(got, []string{"b256"}) || next.ControlCoverage.Cursor != "" {
			t.Fatalf("after the cursor: %q %+v", got, next.ControlCoverage)
		}
	}
}

func TestDensePageAcquiresAtMostOneLookahead(t *testing.T) {
	s, obs := openPage(t, buttons(12000, ""))
	cov := obs.ControlCoverage
	if len(obs.Controls) != observation.MaxControls || cov.Scanned != observation.MaxControls || !cov.ScanLimitReached {
		t.Fatalf("12,000 buttons: %d controls, coverage %+v", len(obs.Controls), cov)
	}
	// Hidden candidates make the scan examine the whole window.
	_, hidden := openPage(t, buttons(12000, "hidden"))
	if c := hidden.ControlCoverage; c.Scanned != observation.WindowSize || c.Limit != observation.LimitWindow || c.Cursor == "" {
		t.Fatalf("12,000 hidden buttons: coverage %+v", c)
	}
	res := rawCollect(t, s, collect.Params{Revision: "probe"})
	if a := res.ControlCoverage.Acquired; a > observation.MaxAcquired || a < observation.MaxControls {
		t.Fatalf("acquired %d handles, want at most %d", a, observation.MaxAcquired)
	}
	hs, _ := openPage(t, buttons(12000, "hidden"))
	if a := rawCollect(t, hs, collect.Params{Revision: "probe"}).ControlCoverage.Acquired; a != observation.MaxAcquired {
		t.Fatalf("hidden page: acquired %d handles, want exactly %d", a, observation.MaxAcquired)
	}
}

// rawCollect runs the collector directly, to see what never leaves Go.
func rawCollect(t *testing.T, s *Session, p collect.Params) *collect.Result {
	t.Helper()
	raw, err := s.tab.evaluate(browsertest.Context(t, time.Minute), collect.Expression(p))
	if err != nil {
		t.Fatal(err)
	}
	res, err := collect.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestCandidateWindowBound(t *testing.T) {
	ctx := browsertest.Context(t, time.Minute)
	// Exactly one window of hidden candidates: complete, no cursor.
	_, obs := openPage(t, buttons(observation.WindowSize, "hidden"))
	if c := obs.ControlCoverage; c.Scanned != observation.WindowSize || c.ScanLimitReached || c.Cursor != "" {
		t.Fatalf("%d hidden: coverage %+v", observation.WindowSize, c)
	}
	// One more candidate, visible, lies past the window: an empty window
	// still returns a cursor, and the cursor reaches it.
	s, obs := openPage(t, buttons(observation.WindowSize, "hidden")+"<button>past the window</button>")
	c := obs.ControlCoverage
	if len(obs.Controls) != 0 || c.Limit != observation.LimitWindow || c.Cursor == "" {
		t.Fatalf("window+1: %d controls, coverage %+v", len(obs.Controls), c)
	}
	next, err := s.Observe(ctx, observation.Request{Cursor: c.Cursor})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(next); !slices.Equal(got, []string{"past the window"}) || next.ControlCoverage.Offset != observation.WindowSize {
		t.Fatalf("after the cursor: %q %+v", got, next.ControlCoverage)
	}
}

func TestReferencesAreBoundToSessionAndRevision(t *testing.T) {
	ctx := browsertest.Context(t, time.Minute)
	url := browsertest.Serve(t, buttons(300, ""))
	s1, s2 := openSession(t), openSession(t)
	o1, err := s1.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	o2, err := s2.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if o1.Controls[0].Ref == o2.Controls[0].Ref || o1.Revision == o2.Revision {
		t.Fatal("two sessions issued the same reference")
	}
	_, err = s2.Observe(ctx, observation.Request{After: o1.Controls[0].Ref})
	wantCode(t, err, errcode.ForeignReference)
	_, err = s2.Observe(ctx, observation.Request{Cursor: o1.ControlCoverage.Cursor})
	wantCode(t, err, errcode.ForeignReference)

	ref := o1.Controls[3].Ref
	swap := byte('a')
	if ref[2] == 'a' {
		swap = 'b'
	}
	mangled := ref[:2] + string(swap) + ref[3:]
	_, err = s1.Observe(ctx, observation.Request{After: mangled})
	wantCode(t, err, errcode.UnknownReference)
	_, err = s1.Observe(ctx, observation.Request{After: "not a reference"})
	wantCode(t, err, errcode.UnknownReference)
	_, err = s1.Observe(ctx, observation.Request{After: o1.ControlCoverage.Cursor})
	wantCode(t, err, errcode.InvalidArgument)
	_, err = s1.Observe(ctx, observation.Request{After: ref, Cursor: o1.ControlCoverage.Cursor})
	wantCode(t, err, errcode.InvalidArgument)

	// A failed request publishes nothing: the references still hold.
	o1b, err := s1.Observe(ctx, observation.Request{After: ref})
	if err != nil {
		t.Fatal(err)
	}
	if o1b.ControlCoverage.Offset != 4 || o1b.Controls[0].Name != "b4" {
		t.Fatalf("after b3: offset %d, first %q", o1b.ControlCoverage.Offset, o1b.Controls[0].Name)
	}
	// Now o1 is older than the newest revision.
	_, err = s1.Observe(ctx, observation.Request{After: ref})
	wantCode(t, err, errcode.StaleReference)
}

func TestCloseLeavesNothingBehind(t *testing.T) {
	before := tempDirs(t)
	p, err := Launch(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	pid := p.Process()
	if pid == 0 {
		t.Fatal("no browser process")
	}
	ctx := browsertest.Context(t, time.Minute)
	s, err := p.NewSession(ctx, browser.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Navigate(ctx, browsertest.Serve(t, "<button>x</button>")); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if processAlive(pid) {
		t.Fatalf("browser process %d survived Close", pid)
	}
	for d := range tempDirs(t) {
		if !before[d] {
			t.Fatalf("temp dir %s survived Close", d)
		}
	}
	if _, err := s.Observe(ctx, observation.Request{}); errcode.Of(err) != errcode.BrowserUnavailable {
		t.Fatalf("observe after Close: %v", err)
	}
}

func tempDirs(t *testing.T) map[string]bool {
	matches, err := filepath.Glob(filepath.Join(os.TempDir(), "veetbrowser-*"))
	if err != nil {
		t.Fatal(err)
	}
	m := make(map[string]bool)
	for _, d := range matches {
		m[d] = true
	}
	return m
}

func processAlive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}

// TestNameBound: a canonical name keeps 1,024 UTF-16 units; one more is cut
// and flagged, and an emoji straddling the bound is never split.
func TestNameBound(t *testing.T) {
	n := observation.MaxNameUnits
	_, obs := openPage(t, "<button>"+strings.Repeat("a", n)+"</button><button>"+strings.Repeat("b", n+1)+
		"</button><button>"+strings.Repeat("c", n-1)+"😀</button>")
	c := obs.Controls
	if len(c[0].Name) != n || c[0].NameTruncated {
		t.Fatalf("name at the bound: %d units, truncated %v", len(c[0].Name), c[0].NameTruncated)
	}
	if len(c[1].Name) != n || !c[1].NameTruncated {
		t.Fatalf("name one past the bound: %d units, truncated %v", len(c[1].Name), c[1].NameTruncated)
	}
	if c[2].Name != strings.Repeat("c", n-1) || !c[2].NameTruncated {
		t.Fatalf("an emoji across the bound: %q…, truncated %v", c[2].Name[len(c[2].Name)-4:], c[2].NameTruncated)
	}
}
