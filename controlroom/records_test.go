package controlroom

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/replay"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
	"github.com/veetbot/veetbrowser/viewer"
)

var shared = browsertest.Shared[*chromium.Provider]{Launch: func() (*chromium.Provider, error) {
	return chromium.Launch(context.Background(), chromium.Options{})
}}

func TestMain(m *testing.M) { browsertest.Main(m, &shared) }

// mailSite is a compose page: a "Send" button submitting the message and
// a "Delete draft" button; the site counts what reaches it. Its password
// field (re-entered to send, as some mail sites ask) holds a canary.
type mailSite struct {
	url           string
	mu            sync.Mutex
	sent, deleted int
}

func serveMail(t *testing.T) *mailSite {
	m := &mailSite{}
	m.url = browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		defer m.mu.Unlock()
		switch r.URL.Path {
		case "/send":
			m.sent++
			fmt.Fprint(w, `<!doctype html><title>Sent</title><main><h1>Message sent</h1></main>`)
		case "/delete":
			m.deleted++
		default:
			fmt.Fprint(w, `<!doctype html><title>Compose</title><style>
body { margin: 0; background: #fff; font: 16px sans-serif; }
#pw { position: absolute; left: 40px; top: 40px; width: 480px; height: 80px; font: bold 60px monospace; color: #000; background: #fff; border: 0; }
form { position: absolute; top: 160px; left: 40px; }
</style>
<nav aria-label="Mail"><a href="/inbox">Inbox</a> <a href="/sent">Sent</a></nav>
<input id=pw type=password aria-label="Confirm your password">
<form method=post action=/send aria-label="New message"><label>To <input name=to value="ana@example.com"></label>
<label>Message <textarea name=body>See you at noon</textarea></label><button>Send</button>
<button type=button onclick="fetch('/delete', {method: 'POST'})">Delete draft</button></form>
<script>pw.value = 'WWWWWWWWWWWWWW';</script>`)
		}
	}))
	return m
}

func (m *mailSite) counts() (int, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sent, m.deleted
}

// act clicks the control named name.
func act(ctx context.Context, s *veetbrowser.Session, name string) error {
	res, err := s.Call(ctx, "browser_find", json.RawMessage(`{"query":`+fmt.Sprintf("%q", name)+`}`))
	if err != nil {
		return err
	}
	view := string(res.View)
	i := strings.Index(view, `"name":"`+name+`"`)
	if i < 0 {
		return fmt.Errorf("no %q in %s", name, view)
	}
	ref := view[strings.LastIndex(view[:i], `"ref":"`)+7:]
	ref = ref[:strings.IndexByte(ref, '"')]
	_, err = s.Call(ctx, "browser_act", json.RawMessage(`{"kind":"click","ref":"`+ref+`"}`))
	return err
}

// answerWhenAsked waits for page p's approval in the room and answers it
// as the room's page does.
func answerWhenAsked(t *testing.T, c *http.Client, base string, p *Page, decision string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		st := state(t, c, base)
		for _, pj := range st.Pages {
			if pj.ID == p.id && len(pj.Approvals) == 1 {
				a := pj.Approvals[0]
				if code := post(t, c, base, a.ID, base, st.CSRF, `{"decision":"`+decision+`","digest":"`+a.Digest+`"}`); code != http.StatusNoContent {
					t.Fatalf("answer: %d", code)
				}
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("no approval was asked")
}

// TestApprovalsAreRecordedAndReplay: a pre-approved Send, a Delete the
// person denies in the control room and one they approve are recorded
// with who approved them, shown by the viewer's timeline, and replayed
// byte-identically; the site sees the send and one delete. The room's
// picture of the page is a masked JPEG.
func TestApprovalsAreRecordedAndReplay(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, 2*time.Minute)
	dbPath := filepath.Join(t.TempDir(), "artifacts.db")
	st, err := storespec.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	// Unmasked screenshots for the records: the room's picture is masked
	// all the same.
	rt, err := veetbrowser.New(shared.Get(t), veetbrowser.Options{Store: st, UnmaskedScreenshots: true})
	if err != nil {
		t.Fatal(err)
	}
	r, base, c := room(t, Options{})
	p := r.Add("compose")
	site := serveMail(t)
	s, err := rt.NewSession(ctx, veetbrowser.SessionOptions{Approver: p,
		Grant: policy.Grant{Origins: []string{strings.TrimSuffix(site.url, "/")}, Approve: []string{policy.ApproveSend}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	p.SetLive(s)
	if _, err := s.Navigate(ctx, site.url); err != nil {
		t.Fatal(err)
	}
	r.interval = 0
	code, pic := get(t, c, base+"/pages/"+p.id+"/picture")
	if code != http.StatusOK {
		t.Fatalf("picture: %d", code)
	}
	checkMasked(t, []byte(pic))

	for _, decision := range []string{"deny", "approve"} {
		done := make(chan error, 1)
		go func() { done <- act(ctx, s, "Delete draft") }()
		answerWhenAsked(t, c, base, p, decision)
		if err := <-done; (decision == "deny") != (errcode.Of(err) == errcode.ApprovalRefused) || (decision == "approve" && err != nil) {
			t.Fatalf("%s: the delete gave %v", decision, err)
		}
	}
	if err := act(ctx, s, "Send"); err != nil {
		t.Fatalf("pre-approved send: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for sent, deleted := site.counts(); (sent == 0 || deleted == 0) && time.Now().Before(deadline); sent, deleted = site.counts() {
		time.Sleep(20 * time.Millisecond)
	}
	if sent, deleted := site.counts(); sent != 1 || deleted != 1 {
		t.Fatalf("the site got %d sends, %d deletes", sent, deleted)
	}

	var got []string
	err = st.Calls(ctx, s.ID(), func(call store.Call) error {
		var a struct {
			Authorization *struct {
				Approval, Refused string
			}
		}
		if json.Unmarshal(call.Action, &a) == nil && a.Authorization != nil {
			got = append(got, a.Authorization.Approval+"/"+a.Authorization.Refused)
		}
		return nil
	})
	if want := []string{"/approval_refused", "control_room/", "pre_approved:send/"}; err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("recorded approvals %q, want %q (%v)", got, want, err)
	}
	rep, err := replay.Session(ctx, st, s.ID(), replay.Options{})
	if err != nil || !rep.Identical() {
		t.Fatalf("replay: %v %+v", err, rep)
	}
	var page bytes.Buffer
	if err := viewer.WriteHTML(ctx, &page, st, s.ID(), nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"given (control_room)", "given (pre_approved:send)", "approval_refused"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the timeline does not show %q", want)
		}
	}
	// Nothing of the room (its login token, its address) is in a record.
	for _, f := range []string{dbPath, dbPath + "-wal"} {
		b, _ := os.ReadFile(f)
		for _, secret := range []string{r.token, strings.TrimPrefix(base, "http://")} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds the control room's %q", filepath.Base(f), secret)
			}
		}
	}
}

// checkMasked decodes the room's picture and checks that the password
// field, its value drawn big and black on white, is painted over in one
// flat colour: no dark value pixel survives in its box.
func checkMasked(t *testing.T, pic []byte) {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(pic))
	if err != nil {
		t.Fatalf("the picture is not a JPEG: %v", err)
	}
	scale := float64(img.Bounds().Dx()) / 1280 // the launched window's width
	box := image.Rect(int(60*scale), int(50*scale), int(500*scale), int(110*scale))
	dark := 0
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if (r+g+b)/3 < 0x4000 {
				dark++
			}
		}
	}
	if dark > 0 {
		t.Fatalf("%d dark pixels of the password's value show in the picture", dark)
	}
}
