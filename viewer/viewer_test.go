package viewer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/jpeg"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
)

var shared = browsertest.Shared[*chromium.Provider]{Launch: func() (*chromium.Provider, error) {
	return chromium.Launch(context.Background(), chromium.Options{})
}}

func TestMain(m *testing.M) { browsertest.Main(m, &shared) }

// Canaries: text the agent types (into a text field and a password field)
// and text the page hides. None may ever reach the viewer's HTML.
const (
	typedCanary    = "CANARYTYPEDq7x3k"
	passwordCanary = "CANARYPASSWORDm2v9"
	hiddenCanary   = "CANARYHIDDENz5w1"
)

const formPage = `<!DOCTYPE html><html><head><title>Account</title></head><body>
<main><h1>Account settings</h1>
<label>Nickname <input id="nick" type="text"></label>
<label>Password <input id="pw" type="password"></label>
<div hidden>` + hiddenCanary + ` hidden div</div>
<span style="display:none">` + hiddenCanary + ` display none</span>
<button type="button" id="publish" onclick="document.getElementById('out').innerHTML='<p>Published</p><button type=button>Undo</button>'">Publish</button>
<button type="button">Delete account</button>
<div id="out"></div>
</main></body></html>`

// step is one call of the recorded session and the outcome it had.
type step struct {
	Tool, Outcome string
}

// approveOnly approves the actions on controls of one name.
type approveOnly string

func (a approveOnly) Approve(_ context.Context, f policy.Facts) (bool, error) {
	return f.Name == string(a), nil
}

// recordSession records a short session on a loopback form in a fresh
// SQLite store: navigate, observe, type a canary into a text field and a
// password field, a click an approver allows (the page adds controls), a
// click it refuses, and an act on an unknown reference.
func recordSession(t *testing.T) (store.Store, string, []step) {
	t.Helper()
	ctx := browsertest.Context(t, 3*time.Minute)
	st, err := storespec.Open(ctx, filepath.Join(t.TempDir(), "artifacts.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rt, err := veetbrowser.New(shared.Get(t), veetbrowser.Options{Store: st, Budget: 2048, ActionScreenshots: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	s, err := rt.NewSession(ctx, veetbrowser.SessionOptions{Approver: approveOnly("Publish")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())

	var steps []step
	var obs *observation.Observation
	call := func(tool string, args any) {
		raw, _ := json.Marshal(args)
		res, err := s.Call(ctx, tool, raw)
		outcome := store.OutcomeOK
		if err != nil {
			outcome = string(errcode.Of(err))
		} else {
			obs = res.Observation
		}
		steps = append(steps, step{tool, outcome})
	}
	ref := func(name string) string {
		for _, c := range obs.Controls {
			if c.Name == name {
				return c.Ref
			}
		}
		t.Fatalf("no control %q in %+v", name, obs.Controls)
		return ""
	}
	call("browser_navigate", map[string]string{"url": browsertest.Serve(t, formPage)})
	call("browser_observe", map[string]string{})
	call("browser_act", map[string]string{"kind": "type", "ref": ref("Nickname"), "text": typedCanary})
	call("browser_act", map[string]string{"kind": "type", "ref": ref("Password"), "text": passwordCanary})
	call("browser_act", map[string]string{"kind": "click", "ref": ref("Publish")})
	call("browser_act", map[string]string{"kind": "click", "ref": ref("Delete account")})
	call("browser_act", map[string]string{"kind": "click", "ref": "not-a-ref"})
	call("browser_screenshot", map[string]any{"full_page": true})
	want := []step{{"browser_navigate", "ok"}, {"browser_observe", "ok"}, {"browser_act", "ok"}, {"browser_act", "ok"}, {"browser_act", "ok"},
		{"browser_act", "approval_required"}, {"browser_act", "unknown_reference"}, {"browser_screenshot", "ok"}}
	for i, w := range want {
		if steps[i] != w {
			t.Fatalf("step %d: %+v, want %+v (all: %+v)", i+1, steps[i], w, steps)
		}
	}
	return st, s.ID(), steps
}

// fakeImages holds one PNG, a screenshot of call seq.
type fakeImages struct{ seq int64 }

// onePixelPNG is a 1×1 PNG.
var onePixelPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")

const fakeImageID = 7

func (f fakeImages) Images(context.Context, string) ([]Image, error) {
	return []Image{{ID: fakeImageID, Seq: f.seq, Revision: "r-test"}}, nil
}

func (f fakeImages) Image(_ context.Context, _ string, id int64) (string, []byte, error) {
	if id != fakeImageID {
		return "", nil, errcode.New(errcode.NotFound, "no screenshot %d", id)
	}
	return "image/png", onePixelPNG, nil
}

// serve starts the viewer on 127.0.0.1 and returns its base URL.
func serve(t *testing.T, st store.Store, opts Options) string {
	t.Helper()
	h, err := NewHandler(st, opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Listen("127.0.0.1:0", opts.Token != "")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

func get(t *testing.T, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

// TestViewerShowsRecordedSessionInChromium: a session recorded by a real
// browser is listed on the index and its page, opened by a veetbrowser
// session, lists every call with its tool and outcome; the screenshot of
// one call is an <img> whose URL serves the PNG.
func TestViewerShowsRecordedSessionInChromium(t *testing.T) {
	t.Parallel()
	st, id, steps := recordSession(t)
	base := serve(t, st, Options{Images: StoreImages(st)})

	ctx := browsertest.Context(t, 3*time.Minute)
	rt, err := veetbrowser.New(shared.Get(t), veetbrowser.Options{Store: store.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background())
	s, err := rt.NewSession(ctx, veetbrowser.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())

	res, err := s.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	var link string
	for _, c := range res.Observation.Controls {
		if c.Role == "link" && c.Name == id {
			link = c.Ref
		}
	}
	if link == "" {
		t.Fatalf("the index has no link to session %s: %+v", id, res.Observation.Controls)
	}
	if !strings.Contains(pageText(res.Observation), "ok=6") {
		t.Errorf("the index does not count the outcomes: %s", pageText(res.Observation))
	}
	res, err = s.Act(ctx, actClick(link))
	if err != nil {
		t.Fatal(err)
	}
	text := pageText(res.Observation)
	if !strings.Contains(res.Observation.URL, "/sessions/"+id) {
		t.Fatalf("the link led to %s", res.Observation.URL)
	}
	for i, st := range steps {
		want := fmt.Sprintf("%d. %s: %s", i+1, st.Tool, st.Outcome)
		if !strings.Contains(text, want) {
			t.Errorf("the session page does not list %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, fmt.Sprintf("%d. ", len(steps)+1)) {
		t.Errorf("the session page lists a call the session did not make")
	}
	for _, want := range []string{`refers to textbox "Nickname"`, `refers to button "Delete account"`, "redacted (16 bytes)",
		"byte-identical to the recorded view", `+ button "Undo"`, "approval_required", "given (approver)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the session page lacks %q:\n%s", want, text)
		}
	}

	// The screenshots the runtime stored (one after each action that
	// succeeded, and browser_screenshot's): an <img> each in the page, and
	// each URL serves a JPEG that decodes.
	blobs, err := st.Blobs(ctx, id)
	if err != nil || len(blobs) != 4 {
		t.Fatalf("stored screenshots: %d, %v; want 4", len(blobs), err)
	}
	_, page := get(t, base+"sessions/"+id)
	for _, b := range blobs {
		path := fmt.Sprintf("/sessions/%s/images/%d", id, b.ID)
		if !bytes.Contains(page, []byte(`<img src="`+path+`"`)) {
			t.Fatalf("no image %s in the page", path)
		}
		ir, img := get(t, strings.TrimSuffix(base, "/")+path)
		if ir.StatusCode != 200 || ir.Header.Get("Content-Type") != "image/jpeg" || ir.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("image: %d %q nosniff=%q", ir.StatusCode, ir.Header.Get("Content-Type"), ir.Header.Get("X-Content-Type-Options"))
		}
		if cfg, err := jpeg.DecodeConfig(bytes.NewReader(img)); err != nil || cfg.Width == 0 {
			t.Fatalf("image %d does not load: %v", b.ID, err)
		}
	}
	const fakeImageID = 1 << 40
	if r, _ := get(t, strings.TrimSuffix(base, "/")+fmt.Sprintf("/sessions/%s/images/%d", id, fakeImageID+1)); r.StatusCode != 404 {
		t.Errorf("an unknown image: %d", r.StatusCode)
	}
}

func actClick(ref string) veetbrowser.Action { return veetbrowser.Action{Kind: "click", Ref: ref} }

func pageText(o *observation.Observation) string {
	var b strings.Builder
	for _, p := range o.Text {
		b.WriteString(p.Text)
		b.WriteString("\n")
	}
	return b.String()
}

// TestViewerHTMLHoldsNoTypedOrHiddenText: neither the typed text (a text
// field and a password field) nor the page's hidden text appears in the
// index, the session page or the self-contained file, while the typed
// steps themselves are shown.
func TestViewerHTMLHoldsNoTypedOrHiddenText(t *testing.T) {
	t.Parallel()
	st, id, _ := recordSession(t)
	base := serve(t, st, Options{Images: fakeImages{seq: 3}})
	_, index := get(t, base)
	_, page := get(t, base+"sessions/"+id)
	path := filepath.Join(t.TempDir(), "session.html")
	if err := WriteFile(browsertest.Context(t, time.Minute), path, st, id, fakeImages{seq: 3}); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, html := range map[string][]byte{"index": index, "session page": page, "file": file} {
		for _, canary := range []string{typedCanary, passwordCanary, hiddenCanary} {
			if bytes.Contains(bytes.ToUpper(html), []byte(strings.ToUpper(canary))) {
				t.Errorf("the %s holds %s", name, canary)
			}
		}
	}
	for name, html := range map[string][]byte{"session page": page, "file": file} {
		if bytes.Count(html, []byte("redacted (")) != 2 || !bytes.Contains(html, []byte("3. browser_act: ")) {
			t.Errorf("the %s does not show the two typed steps", name)
		}
	}
	if !bytes.Contains(index, []byte(id)) {
		t.Errorf("the index does not list the session")
	}
}

// TestWriteFileIsSelfContained: the file embeds the screenshot as a data:
// URI, declares a policy that loads nothing from elsewhere, links to no
// other page, and replaces a file in place whole, leaving no temp file.
func TestWriteFileIsSelfContained(t *testing.T) {
	t.Parallel()
	st, id, steps := recordSession(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "session.html")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.Context(t, time.Minute)
	if err := WriteFile(ctx, path, st, id, fakeImages{seq: 2}); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	html := string(file)
	if !strings.Contains(html, `<img src="data:image/png;base64,`) {
		t.Errorf("the screenshot is not embedded")
	}
	if !strings.Contains(html, `http-equiv="Content-Security-Policy"`) || strings.Contains(html, `href="/`) || strings.Contains(html, `src="/`) {
		t.Errorf("the file is not self-contained")
	}
	for i, s := range steps {
		if want := fmt.Sprintf("%d. %s: <span class=\"code\">%s</span>", i+1, s.Tool, s.Outcome); !strings.Contains(html, want) {
			t.Errorf("the file lacks %q", want)
		}
	}
	if !strings.HasSuffix(strings.TrimSpace(html), "</html>") {
		t.Errorf("the file is not whole")
	}
	// A failure (an unknown session) leaves the old file and no temp file.
	if err := WriteFile(ctx, path, st, "nosuchsession", nil); err == nil {
		t.Fatal("an unknown session was written")
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, file) {
		t.Errorf("a failed write changed the file")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d entries, want the file alone", len(entries))
	}
}
