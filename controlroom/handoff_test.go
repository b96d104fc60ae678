package controlroom

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
)

// postTo posts body to path as the room's page does.
func postTo(t *testing.T, c *http.Client, base, path, origin, csrf, body string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
	req.Header.Set("Origin", origin)
	req.Header.Set("X-CSRF-Token", csrf)
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestHandoffTakesInputOnlyWhileHeld: a person's input reaches the
// session only while a handoff is on, only from the room's own page; Hand
// back ends the handoff once, and input after it is refused.
func TestHandoffTakesInputOnlyWhileHeld(t *testing.T) {
	r, base, c := room(t, Options{})
	p := r.Add("one")
	live := &fakeLive{}
	p.SetLive(live)
	csrf := state(t, c, base).CSRF
	input, click := "/pages/"+p.id+"/input", `{"kind":"click","x":0.5,"y":0.25}`
	if code := postTo(t, c, base, input, base, csrf, click); code != http.StatusConflict {
		t.Fatalf("input while the agent holds the page: %d", code)
	}
	if code := postTo(t, c, base, "/pages/"+p.id+"/handback", base, csrf, `{}`); code != http.StatusConflict {
		t.Fatalf("hand back with no handoff: %d", code)
	}
	type ended struct {
		end veetbrowser.HandoffEnd
		err error
	}
	done := make(chan ended, 1)
	go func() {
		end, err := p.Handoff(context.Background(), "Solve the CAPTCHA", time.Minute)
		done <- ended{end, err}
	}()
	for st := state(t, c, base); st.Pages[0].Handoff == nil; st = state(t, c, base) {
		time.Sleep(5 * time.Millisecond)
	}
	if h := state(t, c, base).Pages[0].Handoff; h.Reason != "Solve the CAPTCHA" {
		t.Fatalf("the room shows the reason %q", h.Reason)
	}
	if _, err := p.Handoff(context.Background(), "again", time.Minute); errcode.Of(err) != errcode.HumanInControl {
		t.Fatalf("a second handoff: %v", err)
	}
	if code := postTo(t, c, base, input, "http://127.0.0.2:8080", csrf, click); code != http.StatusForbidden {
		t.Fatalf("input from another site: %d", code)
	}
	for _, body := range []string{click, `{"kind":"text","text":"4"}`, `{"kind":"key","key":"Enter"}`} {
		if code := postTo(t, c, base, input, base, csrf, body); code != http.StatusNoContent {
			t.Fatalf("input %s: %d", body, code)
		}
	}
	if code := postTo(t, c, base, input, base, csrf, `{"kind":"text","keys":"x"}`); code != http.StatusBadRequest {
		t.Fatalf("an unknown field: %d", code)
	}
	live.mu.Lock()
	got := live.input
	live.mu.Unlock()
	want := []browser.PersonInput{{Kind: browser.PersonClick, X: 0.5, Y: 0.25}, {Kind: browser.PersonText, Text: "4"}, {Kind: browser.PersonKey, Key: "Enter"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("the session got %+v", got)
	}
	select {
	case e := <-done:
		t.Fatalf("the handoff ended before Hand back: %+v", e)
	default:
	}
	if code := postTo(t, c, base, "/pages/"+p.id+"/handback", base, csrf, `{}`); code != http.StatusNoContent {
		t.Fatalf("hand back: %d", code)
	}
	if e := <-done; e.err != nil || !e.end.HandedBack || e.end.By != SourceControlRoom {
		t.Fatalf("the handoff ended %+v", e)
	}
	if code := postTo(t, c, base, "/pages/"+p.id+"/handback", base, csrf, `{}`); code != http.StatusConflict {
		t.Fatalf("a second hand back: %d", code)
	}
	if code := postTo(t, c, base, input, base, csrf, click); code != http.StatusConflict {
		t.Fatalf("input after hand back: %d", code)
	}
	if st := state(t, c, base); st.Pages[0].Handoff != nil {
		t.Fatal("the room still shows the handoff")
	}
}

// TestHandoffTimesOut: no Hand back within the timeout ends the handoff,
// not handed back, and the person's input is refused after it.
func TestHandoffTimesOut(t *testing.T) {
	r, base, c := room(t, Options{})
	p := r.Add("one")
	p.SetLive(&fakeLive{})
	end, err := p.Handoff(context.Background(), "Enter the code", 100*time.Millisecond)
	if err != nil || end.HandedBack {
		t.Fatalf("timeout: %+v %v", end, err)
	}
	if code := postTo(t, c, base, "/pages/"+p.id+"/input", base, state(t, c, base).CSRF, `{"kind":"key","key":"Enter"}`); code != http.StatusConflict {
		t.Fatalf("input after the timeout: %d", code)
	}
}

// TestStreamSharesOneScreencast: the watchers of a page share one
// screencast, MaxWatchers of them and one past is refused, each gets
// multipart JPEG frames, and the screencast stops when the last leaves.
func TestStreamSharesOneScreencast(t *testing.T) {
	r, base, c := room(t, Options{})
	p := r.Add("one")
	live := &fakeLive{}
	p.SetLive(live)
	var stops []context.CancelFunc
	for i := range MaxWatchers + 1 {
		ctx, cancel := context.WithCancel(context.Background())
		stops = append(stops, cancel)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/pages/"+p.id+"/stream", nil)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if i == MaxWatchers {
			if res.StatusCode != http.StatusTooManyRequests {
				t.Fatalf("one watcher past the bound: %s", res.Status)
			}
			res.Body.Close()
			continue
		}
		if !strings.HasPrefix(res.Header.Get("Content-Type"), "multipart/x-mixed-replace") {
			t.Fatalf("stream: %s %s", res.Status, res.Header.Get("Content-Type"))
		}
		if i == 0 {
			buf := make([]byte, 64)
			n, _ := io.ReadAtLeast(res.Body, buf, 40)
			if !strings.Contains(string(buf[:n]), "Content-Type: image/jpeg") {
				t.Fatalf("the stream's first part: %q", buf[:n])
			}
		}
	}
	if n := live.casts.Load(); n != 1 {
		t.Fatalf("%d screencasts for %d watchers", n, MaxWatchers)
	}
	for _, stop := range stops {
		stop()
	}
	for deadline := time.Now().Add(10 * time.Second); live.casts.Load() != 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if n := live.casts.Load(); n != 0 {
		t.Fatalf("%d screencasts after every watcher left", n)
	}
}

// TestTakeOverOnlyFromTheRoomsOwnPage: Take over needs the room's own
// Origin and CSRF token; it makes the session hold the page for the
// person (who may then drive it), once; Hand back gives it back through
// the session, and input after it is refused.
func TestTakeOverOnlyFromTheRoomsOwnPage(t *testing.T) {
	r, base, c := room(t, Options{})
	p := r.Add("one")
	live := &fakeLive{}
	p.SetLive(live)
	csrf := state(t, c, base).CSRF
	take, input := "/pages/"+p.id+"/takeover", "/pages/"+p.id+"/input"
	if code := postTo(t, c, base, take, "http://127.0.0.2:8080", csrf, `{}`); code != http.StatusForbidden {
		t.Fatalf("take over from another site: %d", code)
	}
	if code := postTo(t, c, base, take, base, "", `{}`); code != http.StatusForbidden {
		t.Fatalf("take over without the CSRF token: %d", code)
	}
	if live.taken.Load() != 0 {
		t.Fatal("a refused takeover reached the session")
	}
	if code := postTo(t, c, base, take, base, csrf, `{}`); code != http.StatusNoContent {
		t.Fatalf("take over: %d", code)
	}
	if h := state(t, c, base).Pages[0].Handoff; h == nil || !h.Takeover || live.taken.Load() != 1 {
		t.Fatalf("after Take over the room shows %+v, the session %d", h, live.taken.Load())
	}
	if code := postTo(t, c, base, take, base, csrf, `{}`); code != http.StatusConflict {
		t.Fatalf("a second take over: %d", code)
	}
	if _, err := p.Handoff(context.Background(), "Solve the CAPTCHA", time.Minute); errcode.Of(err) != errcode.HumanInControl {
		t.Fatalf("a handoff while a person took the page over: %v", err)
	}
	if code := postTo(t, c, base, input, base, csrf, `{"kind":"text","text":"4"}`); code != http.StatusNoContent {
		t.Fatalf("input during the takeover: %d", code)
	}
	if code := postTo(t, c, base, "/pages/"+p.id+"/handback", base, csrf, `{}`); code != http.StatusNoContent {
		t.Fatalf("hand back: %d", code)
	}
	if live.taken.Load() != 0 || state(t, c, base).Pages[0].Handoff != nil {
		t.Fatal("Hand back did not give the page back")
	}
	if code := postTo(t, c, base, input, base, csrf, `{"kind":"text","text":"4"}`); code != http.StatusConflict {
		t.Fatalf("input after hand back: %d", code)
	}
}
