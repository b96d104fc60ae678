package chromium

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// signInFrame is a page of the top origin embedding a sign-in form served
// by another origin (out of process), whose server records each submission.
func signInFrame(t *testing.T, overlay string) (url string, site *effects) {
	site = &effects{pages: map[string]string{
		"/signin": `<form method="post" action="/session"><label>User <input name="user"></label>
<label>Password <input type="password" name="pass"></label><button>Sign in</button></form>`,
	}}
	u := browsertest.ServeHandler(t, site)
	other := browsertest.OtherOrigin(u)
	top := browsertest.Serve(t, `<h1>Shop</h1><p>Sign in to continue.</p>
<iframe src="`+other+`signin" style="width:500px;height:240px;border:3px solid black;padding:7px"></iframe>`+overlay)
	return top, site
}

// The agent signs in through a cross-origin frame: it types into the
// frame's fields and clicks its submit button, which needs approval; the
// facts the user approves name the frame's origin, and the frame's server
// records exactly one submission.
func TestFrameSignIn(t *testing.T) {
	t.Parallel()
	top, site := signInFrame(t, "")
	s, obs := openFrames(t, top, nil, "Sign in")
	ctx := browsertest.Context(t, time.Minute)
	frame := frameOf(obs, "Sign in")
	if frame < 1 || obs.Frames[frame-1].Status != observation.FrameCollected {
		t.Fatalf("sign-in frame: %d %+v", frame, obs.Frames)
	}
	for _, step := range []struct{ field, text string }{{"User", "ada"}, {"Password", "s3cret-canary"}} {
		res, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, step.field).Ref, Text: step.text}, allowAll)
		if err != nil {
			t.Fatalf("typing into %s: %v", step.field, err)
		}
		obs = res.Observation
	}
	var approved []policy.Facts
	approve := func(_ context.Context, class string, f policy.Facts) (policy.Permit, error) {
		approved = append(approved, f)
		return policy.Permit{}, nil
	}
	if _, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Sign in").Ref}, approve); err != nil {
		t.Fatal(err)
	}
	other := obs.Frames[frame-1].Origin
	if len(approved) != 1 || approved[0].Origin != other || !approved[0].Submit || !policy.Consequential(approved[0]) {
		t.Fatalf("facts judged %+v, want one consequential submission on %s", approved, other)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(site.Seen()) == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	if got := site.Seen(); !slices.Equal(got, []string{"post /session pass=s3cret-canary&user=ada"}) {
		t.Fatalf("the frame's server saw %q", got)
	}
}

// An element of the top document over the frame stops a click on the
// frame's control: nothing reaches the frame's server.
func TestFrameClickCovered(t *testing.T) {
	t.Parallel()
	top, site := signInFrame(t, `<div style="position:fixed;inset:0;background:rgba(0,0,0,0.01)"></div>`)
	s, obs := openFrames(t, top, nil, "Sign in")
	ctx := browsertest.Context(t, time.Minute)
	_, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Sign in").Ref}, allowAll)
	wantCode(t, err, errcode.NotActionable)
	if !strings.Contains(err.Error(), "covers the control's frame") {
		t.Fatalf("refused for another reason: %v", err)
	}
	time.Sleep(300 * time.Millisecond)
	if got := site.Seen(); len(got) != 0 {
		t.Fatalf("the frame's server saw %q", got)
	}
}

// A frame that navigates, or is removed, between the observation and the
// action: the old ref is refused and nothing is dispatched.
func TestFrameRefGoesStale(t *testing.T) {
	t.Parallel()
	for _, change := range []string{
		`document.querySelector('iframe').src = document.querySelector('iframe').src + '?again'`,
		`document.querySelector('iframe').remove()`,
	} {
		top, site := signInFrame(t, "")
		s, obs := openFrames(t, top, nil, "Sign in")
		ctx := browsertest.Context(t, time.Minute)
		inPage(t, s, change)
		time.Sleep(time.Second) // the frame's new document, or its removal, settles
		_, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Sign in").Ref}, allowAll)
		if c := errcode.Of(err); c != errcode.StaleReference && c != errcode.DocumentChanged {
			t.Fatalf("after %s: %v", change, err)
		}
		if got := site.Seen(); len(got) != 0 {
			t.Fatalf("the frame's server saw %q", got)
		}
	}
}
