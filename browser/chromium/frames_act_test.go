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

// A click inside an out-of-process frame settles in the frame's own
// renderer: a handler whose next animation frame works a moment (an
// animation's layout) and then changes the frame's text in the task it
// queues (setTimeout(…, 0)) is seen by the click's own view. The top document (127.0.0.1) and its comments frame (localhost, on
// another server) run in different renderers.
func TestFrameClickSettlesInTheFramesRenderer(t *testing.T) {
	t.Parallel()
	comments := browsertest.OtherOrigin(browsertest.ServePages(t, map[string]string{
		"/thread": `<!doctype html><title>Comments</title><section aria-label="Comments"><h2>3 comments</h2>
<article><p><b>Lee</b> Great write-up, thanks.</p>
<span class=like role=button tabindex=0 onclick="const me = this; requestAnimationFrame(() => { const end = Date.now() + 100; while (Date.now() < end) {} setTimeout(() => { me.textContent = 'Liked by you' }, 0) })">Like</span></article>
<article><p><b>Ana</b> The second photo is stunning.</p></article></section>
<script>for (const s of document.querySelectorAll(".like")) s.style.cursor = "pointer"</script>`,
	}))
	top := browsertest.Serve(t, `<!doctype html><title>Field notes</title><header><nav><a href="/">Home</a> <a href="/about">About</a></nav></header>
<main><article><h1>Field notes from the ridge</h1><p>The trail climbs through larch and granite.</p></article>
<iframe title="Comments" src="`+comments+`thread" style="width:600px;height:300px;border:0"></iframe></main><footer>© Field notes</footer>`)
	s, obs := openFrames(t, top, nil, "Like")
	ctx := browsertest.Context(t, time.Minute)
	oop := false
	for _, at := range s.places {
		if f, ok := s.tab.Frame(at[len(at)-1].Frame); len(at) > 1 && ok && f.Target != nil {
			oop = oop || f.Target.TargetID != s.tab.TargetID()
		}
	}
	if !oop {
		t.Fatal("the comments frame is not out of process")
	}
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Like").Ref}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if frameOf(res.Observation, "Liked by you") < 1 {
		t.Fatalf("the click's view does not show the frame's change: %v", names(res.Observation))
	}
}

// BenchmarkFrameActSettle times a click in an out-of-process comments
// frame, with its settling and the view after it (median, act-ms).
func BenchmarkFrameActSettle(b *testing.B) {
	comments := browsertest.OtherOrigin(browsertest.ServePages(b, map[string]string{
		"/thread": `<!doctype html><title>Comments</title><section aria-label="Comments"><h2>3 comments</h2>
<article><p><b>Lee</b> Great write-up, thanks.</p><button onclick="this.nextElementSibling.textContent = 'Saved'">Save</button><span></span></article></section>`,
	}))
	top := browsertest.Serve(b, `<!doctype html><title>Field notes</title><main><article><h1>Field notes from the ridge</h1>
<p>The trail climbs through larch and granite.</p></article><iframe title="Comments" src="`+comments+`thread" style="width:600px;height:300px;border:0"></iframe></main>`)
	ctx := browsertest.Context(b, 10*time.Minute)
	bs, err := shared.Get(b).NewSession(ctx, browser.SessionOptions{Reading: true, Frames: true})
	if err != nil {
		b.Fatal(err)
	}
	defer bs.Close(context.Background())
	s := bs.(*Session)
	if _, err := s.Navigate(ctx, top); err != nil {
		b.Fatal(err)
	}
	var obs *observation.Observation
	for range 100 {
		if obs, err = s.Observe(ctx, observation.Request{}); err != nil {
			b.Fatal(err)
		}
		if frameOf(obs, "Save") > 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	var took []time.Duration
	for b.Loop() {
		var ref string
		for _, c := range obs.Controls {
			if c.Name == "Save" {
				ref = c.Ref
			}
		}
		start := time.Now()
		res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: ref}, allowAll)
		if err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
		obs = res.Observation
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "act-ms")
}
