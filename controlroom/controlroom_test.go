package controlroom

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/policy"
)

// fakeLive is a session whose picture is a fixed JPEG-looking body that
// counts its captures, and which keeps the person's input it gets.
type fakeLive struct {
	shots atomic.Int32
	casts atomic.Int32 // screencasts running
	taken atomic.Int32 // takeovers on
	mu    sync.Mutex
	input []browser.PersonInput
}

// Screencast sends three frames, then waits for the end of ctx.
func (f *fakeLive) Screencast(ctx context.Context, each func([]byte)) error {
	f.casts.Add(1)
	defer f.casts.Add(-1)
	for range 3 {
		each([]byte("\xff\xd8frame"))
	}
	<-ctx.Done()
	return nil
}

func (f *fakeLive) PersonInput(_ context.Context, in browser.PersonInput) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.input = append(f.input, in)
	return nil
}

func (f *fakeLive) TakeOver(context.Context) error         { f.taken.Add(1); return nil }
func (f *fakeLive) HandBack(context.Context, string) error { f.taken.Add(-1); return nil }

func (f *fakeLive) ID() string { return "s-1" }
func (f *fakeLive) Picture(context.Context) ([]byte, error) {
	f.shots.Add(1)
	return []byte("\xff\xd8picture"), nil
}

var publish = policy.Facts{Origin: "http://127.0.0.1:1", Role: "button", Name: "Publish"}

// room serves a control room and returns it, its base URL and a client
// logged in with its one-time link.
func room(t *testing.T, opts Options) (*Room, string, *http.Client) {
	t.Helper()
	r := New(opts)
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	res, err := c.Get(srv.URL + r.LoginPath())
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || len(jar.Cookies(mustURL(srv.URL))) != 1 {
		t.Fatalf("login: %s, cookies %v", res.Status, jar.Cookies(mustURL(srv.URL)))
	}
	return r, srv.URL, c
}

func mustURL(s string) *url.URL { u, _ := url.Parse(s); return u }

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func state(t *testing.T, c *http.Client, base string) stateJSON {
	t.Helper()
	code, body := get(t, c, base+"/state")
	var st stateJSON
	if code != http.StatusOK || json.Unmarshal([]byte(body), &st) != nil {
		t.Fatalf("/state: %d %s", code, body)
	}
	return st
}

// post answers approval id as the room's page does, with origin as its
// Origin header and csrf as its token.
func post(t *testing.T, c *http.Client, base, id, origin, csrf, body string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/approvals/"+id, strings.NewReader(body))
	req.Header.Set("Origin", origin)
	req.Header.Set("X-CSRF-Token", csrf)
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// waiting starts an approval on p and returns its answer channel and the
// pending approval as the room shows it.
func waiting(t *testing.T, p *Page, c *http.Client, base string) (chan error, approvalJSON) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		ok, src, err := p.ApproveFrom(context.Background(), publish)
		if err == nil && (!ok || src != SourceControlRoom) {
			err = errors.New("approved without the control room's source")
		}
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if st := state(t, c, base); len(st.Pages) == 1 && len(st.Pages[0].Approvals) == 1 {
			return done, st.Pages[0].Approvals[0]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the approval never showed")
	return nil, approvalJSON{}
}

// TestEveryRouteNeedsTheSessionCookie: without the cookie no page, route
// or picture of the room answers, and a Host that is not loopback is
// refused even with it.
func TestEveryRouteNeedsTheSessionCookie(t *testing.T) {
	r, base, c := room(t, Options{})
	p := r.Add("one")
	p.SetLive(&fakeLive{})
	for _, path := range []string{"/", "/room.js", "/state", "/pages/" + p.id + "/picture", "/pages/" + p.id + "/stream", "/sessions/x", "/nothing"} {
		if code, _ := get(t, http.DefaultClient, base+path); code != http.StatusUnauthorized {
			t.Errorf("GET %s without the cookie: %d", path, code)
		}
	}
	if code := post(t, http.DefaultClient, base, "x", base, "", `{}`); code != http.StatusUnauthorized {
		t.Errorf("POST without the cookie: %d", code)
	}
	for _, path := range []string{"/pages/" + p.id + "/input", "/pages/" + p.id + "/handback", "/pages/" + p.id + "/takeover"} {
		if code := postTo(t, http.DefaultClient, base, path, base, "", `{}`); code != http.StatusUnauthorized {
			t.Errorf("POST %s without the cookie: %d", path, code)
		}
	}
	if code, body := get(t, c, base+"/"); code != http.StatusOK || !strings.Contains(body, "control room") {
		t.Errorf("GET / with the cookie: %d", code)
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/state", nil)
	req.Host = "evil.example:80"
	if res, err := c.Do(req); err != nil || res.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("a rebound host name: %v %v", res.Status, err)
	}
}

// TestLoginTokenIsSingleUse: the login link works once; a second use, or
// a wrong token, gives no cookie.
func TestLoginTokenIsSingleUse(t *testing.T) {
	r, base, _ := room(t, Options{})
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	if code, _ := get(t, c, base+r.LoginPath()); code != http.StatusUnauthorized {
		t.Fatalf("second login: %d", code)
	}
	if code, _ := get(t, c, base+"/login?token=x"); code != http.StatusUnauthorized {
		t.Fatalf("wrong token: %d", code)
	}
	if len(jar.Cookies(mustURL(base))) != 0 {
		t.Fatal("a cookie without a valid login")
	}
	res, err := (&http.Client{}).Get(base + "/login?token=x")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	for _, ck := range res.Cookies() {
		t.Fatalf("cookie %v set by a failed login", ck)
	}
}

// TestLoginCookieIsHttpOnlyAndStrict reads the Set-Cookie of a login.
func TestLoginCookieIsHttpOnlyAndStrict(t *testing.T) {
	r := New(Options{})
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://127.0.0.1:9/"+strings.TrimPrefix(r.LoginPath(), "/"), nil))
	sc := w.Header().Get("Set-Cookie")
	if w.Code != http.StatusSeeOther || !strings.Contains(sc, "HttpOnly") || !strings.Contains(sc, "SameSite=Strict") {
		t.Fatalf("login: %d, Set-Cookie %q", w.Code, sc)
	}
}

// TestCrossSitePostIsRefused: an answer with another site's Origin, no
// Origin, or a wrong CSRF token is refused and the approval still waits;
// the page's own answer is taken once.
func TestCrossSitePostIsRefused(t *testing.T) {
	r, base, c := room(t, Options{})
	p := r.Add("one")
	done, a := waiting(t, p, c, base)
	csrf := state(t, c, base).CSRF
	body := `{"decision":"approve","digest":"` + a.Digest + `"}`
	for _, tc := range []struct{ origin, csrf string }{{"http://127.0.0.2:8080", csrf}, {"", csrf}, {base, "wrong"}, {base, ""}} {
		if code := post(t, c, base, a.ID, tc.origin, tc.csrf, body); code != http.StatusForbidden {
			t.Errorf("origin %q csrf %q: %d", tc.origin, tc.csrf, code)
		}
	}
	select {
	case err := <-done:
		t.Fatalf("a refused request answered the approval: %v", err)
	default:
	}
	if code := post(t, c, base, a.ID, base, csrf, `{"decision":"approve","digest":"other"}`); code != http.StatusConflict {
		t.Errorf("an answer naming other facts: %d", code)
	}
	if code := post(t, c, base, a.ID, base, csrf, body); code != http.StatusNoContent {
		t.Fatalf("the page's own answer: %d", code)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if code := post(t, c, base, a.ID, base, csrf, body); code != http.StatusConflict {
		t.Errorf("a second answer: %d", code)
	}
}

// TestDenyAndTimeout: Deny is approval_refused, no answer within the
// timeout approval_required, and neither blocks another page's approval.
func TestDenyAndTimeout(t *testing.T) {
	r, base, c := room(t, Options{ApprovalTimeout: 300 * time.Millisecond})
	p := r.Add("one")
	ok, _, err := p.ApproveFrom(context.Background(), publish)
	var need *policy.NeedsApproval
	if ok || errcode.Of(err) != errcode.ApprovalRequired || !errors.As(err, &need) {
		t.Fatalf("timeout: %v %v", ok, err)
	}
	r.opts.ApprovalTimeout = time.Minute
	done, a := waiting(t, p, c, base)
	q := r.Add("two")
	other := make(chan error, 1)
	go func() { _, _, err := q.ApproveFrom(context.Background(), publish); other <- err }()
	csrf := state(t, c, base).CSRF
	// The second page's approval is answered while the first still waits.
	var b approvalJSON
	for b.ID == "" {
		for _, pj := range state(t, c, base).Pages {
			if pj.ID == q.id && len(pj.Approvals) == 1 {
				b = pj.Approvals[0]
			}
		}
	}
	if code := post(t, c, base, b.ID, base, csrf, `{"decision":"deny","digest":"`+b.Digest+`"}`); code != http.StatusNoContent {
		t.Fatal(code)
	}
	if err := <-other; errcode.Of(err) != errcode.ApprovalRefused {
		t.Fatalf("deny: %v", err)
	}
	if code := post(t, c, base, a.ID, base, csrf, `{"decision":"approve","digest":"`+a.Digest+`"}`); code != http.StatusNoContent {
		t.Fatal(code)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestPendingApprovalsAreBounded: MaxPendingPerPage wait at once; one
// more is approval_required at once.
func TestPendingApprovalsAreBounded(t *testing.T) {
	r := New(Options{})
	p := r.Add("one")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for range MaxPendingPerPage {
		go p.ApproveFrom(ctx, publish)
	}
	for {
		p.mu.Lock()
		n := len(p.pending)
		p.mu.Unlock()
		if n == MaxPendingPerPage {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if _, _, err := p.ApproveFrom(ctx, publish); errcode.Of(err) != errcode.ApprovalRequired {
		t.Fatalf("one past the bound: %v", err)
	}
}

// TestPicturesAreShared: watchers share one capture a PictureInterval.
func TestPicturesAreShared(t *testing.T) {
	r, base, c := room(t, Options{})
	r.interval = time.Hour // not a timing test: every request falls within one interval
	p := r.Add("one")
	live := &fakeLive{}
	p.SetLive(live)
	for range 5 {
		if code, body := get(t, c, base+"/pages/"+p.id+"/picture"); code != http.StatusOK || body != "\xff\xd8picture" {
			t.Fatalf("picture: %d", code)
		}
	}
	if n := live.shots.Load(); n != 1 {
		t.Fatalf("%d captures for five requests within one interval", n)
	}
}
