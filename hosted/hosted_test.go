package hosted_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/hosted"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/pages"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/sidecar/sidecartest"
	"github.com/veetbot/veetbrowser/store"
)

func startTabs(t *testing.T) *sidecartest.Sidecar {
	t.Helper()
	b, err := chromium.Launch(context.Background(), chromium.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close(context.Background()) })
	return sidecartest.Start(t, &browsertest.Tabs{Browser: b}, 0)
}

func call(t *testing.T, s veetbrowser.Caller, tool string, args any) *veetbrowser.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := s.Call(browsertest.Context(t, time.Minute), tool, raw)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTransportKeepsEverything: what a hosted client gets is what the
// sidecar's session returned and recorded: the canonical observation whole
// (coverage, regions, text and every additive field), and the model view
// byte for byte (its digest is the recorded one), through a reading that
// follows next to the end.
func TestTransportKeepsEverything(t *testing.T) {
	t.Parallel()
	sc := startTabs(t)
	article := browsertest.Serve(t, pages.NewArticle(pages.ArticleOptions{Paragraphs: 60, NavLinks: 40}).HTML)
	s := sc.Open(t, "reader", veetbrowser.SessionOptions{Version: "1.6.0", Budget: 2048})
	var got []*veetbrowser.Result
	res := call(t, s, "browser_navigate", map[string]string{"url": article})
	for range 100 {
		got = append(got, res)
		var v projection.View
		if err := res.DecodeView(&v); err != nil {
			t.Fatal(err)
		}
		if v.Next == nil {
			break
		}
		res = call(t, s, "browser_observe", v.Next)
	}
	if len(got) < 3 {
		t.Fatalf("the article was read in %d views; want several at 2 KiB", len(got))
	}
	sessions, err := sc.Store.Sessions(context.Background(), store.ListOptions{})
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions: %v %v", sessions, err)
	}
	i := 0
	err = sc.Store.Calls(context.Background(), sessions[0].ID, func(c store.Call) error {
		if i >= len(got) {
			t.Fatalf("the sidecar recorded more calls than the client made")
		}
		mine, _ := json.Marshal(got[i].Observation)
		if !sameJSON(t, mine, c.Observation) {
			t.Errorf("call %d: the observation the client got differs from the recorded one", i)
		}
		if sum := sha256.Sum256(got[i].View); c.View == nil || !reflect.DeepEqual(sum[:], c.View.SHA256) || c.View.Bytes != len(got[i].View) {
			t.Errorf("call %d: the view the client got is not the recorded one", i)
		}
		i++
		return nil
	})
	if err != nil || i != len(got) {
		t.Fatalf("recorded %d calls (%v), the client made %d", i, err, len(got))
	}
	last := got[len(got)-1].Observation
	if last.TextCoverage == nil || last.RegionCoverage == nil {
		t.Fatalf("coverage lost in transport: %+v", last)
	}
}

func sameJSON(t *testing.T, a, b []byte) bool {
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// TestLostLease: a session whose lease was ended elsewhere reports
// lease_expired once, as a local session reports its dead browser once;
// the next call leases the profile again, on a fresh page where the old
// refs are refused; Close still succeeds.
func TestLostLease(t *testing.T) {
	t.Parallel()
	sc := startTabs(t)
	s := sc.Open(t, "shop", veetbrowser.SessionOptions{})
	page := browsertest.Serve(t, `<button>Buy</button>`)
	first := call(t, s, "browser_navigate", map[string]string{"url": page})
	req, _ := http.NewRequest(http.MethodDelete, sc.URL+"/v1/leases/"+s.Lease(), nil)
	req.Header.Set("Authorization", "Bearer "+sc.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("release: %v %v", resp, err)
	}
	resp.Body.Close()
	_, err = s.Call(browsertest.Context(t, time.Minute), "browser_observe", json.RawMessage(`{}`))
	if errcode.Of(err) != errcode.LeaseExpired {
		t.Fatalf("a call on a released lease: %v", err)
	}
	old := s.Lease()
	res := call(t, s, "browser_observe", map[string]any{})
	if s.Lease() == "" || s.Lease() == old || res.Observation.URL != "about:blank" {
		t.Fatalf("the call after the loss: lease %q (was %q), page %q", s.Lease(), old, res.Observation.URL)
	}
	raw, _ := json.Marshal(map[string]string{"kind": "click", "ref": first.Observation.Controls[0].Ref})
	if _, err := s.Call(browsertest.Context(t, time.Minute), "browser_act", raw); errcode.Of(err) == "" || errcode.Of(err) == errcode.LeaseExpired {
		t.Fatalf("a ref of the lost page: %v", err)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestOpenRefuses: a wrong token, an unknown profile and a held one are
// refused with the codes a caller can act on, and nothing is left leased.
func TestOpenRefuses(t *testing.T) {
	t.Parallel()
	sc := startTabs(t)
	ctx := browsertest.Context(t, time.Minute)
	for _, c := range []struct {
		o    hosted.Options
		want errcode.Code
	}{
		{hosted.Options{URL: sc.URL, Token: "wrong", Profile: "p"}, errcode.Unauthorized},
		{hosted.Options{URL: sc.URL, Token: "", Profile: "p"}, errcode.Unauthorized},
		{hosted.Options{URL: "ftp://x", Token: sc.Token, Profile: "p"}, errcode.InvalidArgument},
		{hosted.Options{URL: sc.URL, Token: sc.Token, Profile: "nosuch"}, errcode.NotFound},
		{hosted.Options{URL: sc.URL, Token: sc.Token, Profile: "nosuch", TTL: time.Hour + time.Second}, errcode.InvalidArgument},
	} {
		if _, err := hosted.Open(ctx, c.o); errcode.Of(err) != c.want {
			t.Errorf("%+v: %v, want %s", c.o, err, c.want)
		}
	}
	sc.Open(t, "held", veetbrowser.SessionOptions{})
	if _, err := hosted.Open(ctx, hosted.Options{URL: sc.URL, Token: sc.Token, Profile: "held"}); errcode.Of(err) != errcode.LeaseHeld {
		t.Fatalf("a held profile: %v", err)
	}
}

// TestViewOnly: a ViewOnly session gets the views without the canonical
// observations; the sidecar still records them.
func TestViewOnly(t *testing.T) {
	t.Parallel()
	sc := startTabs(t)
	ctx := browsertest.Context(t, time.Minute)
	o := hosted.Options{URL: sc.URL, Token: sc.Token, Profile: "mcp", ViewOnly: true}
	if err := hosted.CreateProfile(ctx, o); err != nil {
		t.Fatal(err)
	}
	s, err := hosted.Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	res := call(t, s, "browser_navigate", map[string]string{"url": browsertest.Serve(t, `<button>Only the view</button>`)})
	var v projection.View
	if err := res.DecodeView(&v); err != nil || len(v.Controls) != 1 || v.Controls[0].Name != "Only the view" {
		t.Fatalf("view %s: %v", res.View, err)
	}
	if res.Observation != nil {
		t.Fatal("a ViewOnly session got the canonical observation")
	}
	sessions, err := sc.Store.Sessions(context.Background(), store.ListOptions{})
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions: %v %v", sessions, err)
	}
	recorded := 0
	sc.Store.Calls(context.Background(), sessions[0].ID, func(c store.Call) error {
		if len(c.Observation) > 0 {
			recorded++
		}
		return nil
	})
	if recorded != 1 {
		t.Fatalf("%d observations recorded", recorded)
	}
}

// TestReadValuesTravels: the read_values grant reaches the sidecar's
// session with the lease, so a hosted view shows a field's value (never
// a password's); without it no value travels.
func TestReadValuesTravels(t *testing.T) {
	t.Parallel()
	sc := startTabs(t)
	page := browsertest.Serve(t, `<label>Summary <textarea>Hinge replaced under warranty</textarea></label>
<label>Password <input type="password" value="never-travels"></label>`)
	for _, granted := range []bool{true, false} {
		opts := veetbrowser.SessionOptions{}
		opts.Grant.ReadValues = granted
		s := sc.Open(t, fmt.Sprintf("values-%v", granted), opts)
		res := call(t, s, "browser_navigate", map[string]string{"url": page})
		shown := strings.Contains(string(res.View), `"value":"Hinge replaced under warranty"`)
		if shown != granted || strings.Contains(string(res.View), "never-travels") {
			t.Errorf("granted %v: view %s", granted, res.View)
		}
	}
}

// TestHostedHandoffIsUnavailable: a hosted session has no person to hand
// its page to: browser_handoff is handoff_unavailable, not a missing
// route, and the page stays the agent's.
func TestHostedHandoffIsUnavailable(t *testing.T) {
	t.Parallel()
	sc := startTabs(t)
	ctx := browsertest.Context(t, time.Minute)
	o := hosted.Options{URL: sc.URL, Token: sc.Token, Profile: "mcp"}
	if err := hosted.CreateProfile(ctx, o); err != nil {
		t.Fatal(err)
	}
	s, err := hosted.Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	if _, err := s.Call(ctx, "browser_handoff", json.RawMessage(`{"reason":"Enter the code"}`)); errcode.Of(err) != errcode.HandoffUnavailable {
		t.Fatalf("browser_handoff: %v", err)
	}
	call(t, s, "browser_navigate", map[string]string{"url": browsertest.Serve(t, `<button>Still mine</button>`)})
}
