package chromium

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// Scroll containers (tool version 1.9.0, docs/realpages.md): content a
// scrolling box clips is visible, content an overflow:hidden box clips is
// not.

// openReal opens a 1.9.0 session (realPages true) or a 1.8.0 one on url.
func openReal(t testing.TB, url string, realPages bool) (*Session, *observation.Observation) {
	t.Helper()
	return openWith(t, url, browser.SessionOptions{RealPages: realPages})
}

// openWith opens a session of the shared browser with opts and 1.8.0's
// reading, frames and interactions on url.
func openWith(t testing.TB, url string, opts browser.SessionOptions) (*Session, *observation.Observation) {
	t.Helper()
	opts.Reading, opts.Frames, opts.Interactions = true, true, true
	return openOn(t, browsertest.Context(t, time.Minute), opts, url)
}

// timelinePage is a social feed: a header, a sidebar, and eight posts in a
// box that scrolls vertically and hides horizontal overflow (the usual
// `overflow-y: auto; overflow-x: hidden`, with smooth scrolling and a
// sticky bar), where three fit.
func timelinePage() string {
	var b strings.Builder
	b.WriteString(`<title>Timeline</title>
<style>
  body { font-family: sans-serif; margin: 0; }
  header { height: 48px; background: #1d9bf0; color: white; padding: 8px; }
  .layout { display: flex; }
  nav { width: 160px; }
  .feed { height: 360px; width: 420px; overflow-y: auto; overflow-x: hidden; border: 1px solid #ccc; scroll-behavior: smooth; }
  .feed .bar { position: sticky; top: 0; background: #fff; height: 30px; }
  .post { height: 110px; padding: 4px; border-bottom: 1px solid #eee; box-sizing: border-box; }
  .post .author { font-weight: bold; }
</style>
<header><h1>Timeline</h1></header>
<div class="layout"><nav><a href="#home">Home</a> <a href="#profile">Profile</a></nav>
<main class="feed" id="feed"><div class="bar">Latest posts</div>`)
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, `<article class="post"><div class="author">user%d</div><p>Post %d body text</p>
<button data-effect="like %d">Like post %d</button> <button data-effect="share %d">Share post %d</button></article>`, i, i, i, i, i, i)
	}
	b.WriteString(`</main></div>` + beacon)
	return b.String()
}

// inboxPage is a mail client laid out as an application: the document
// itself never scrolls (html and body hide their overflow at 480px), the
// message list scrolls, and seven of its ten mails fit.
func inboxPage() string {
	var b strings.Builder
	b.WriteString(`<title>Inbox (10)</title>
<style>
  html, body { height: 480px; overflow: hidden; margin: 0; font-family: sans-serif; }
  .top { height: 60px; background: #eee; }
  .list { position: absolute; top: 60px; left: 0; width: 600px; height: 420px; overflow: auto; }
  .mail { height: 60px; box-sizing: border-box; border-bottom: 1px solid #ddd; display: flex; align-items: center; gap: 8px; }
</style>
<div class="top"><h1>Inbox</h1></div>
<ul class="list" role="list" style="list-style:none;padding:0;margin:0">`)
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, `<li class="mail"><input type="checkbox" aria-label="Select mail %d"><span>Sender %d</span><a href="#m%d">Subject of mail %d</a></li>`, i, i, i, i)
	}
	b.WriteString(`</ul>`)
	return b.String()
}

// TestScrollContainerFeedIsVisible (fails before 1.9.0's change): all
// eight posts of the feed, their buttons and their text are in the view,
// and coverage counts them as read in a scroll container; a 1.8.0 session
// still sees only the three in sight, as before.
func TestScrollContainerFeedIsVisible(t *testing.T) {
	t.Parallel()
	url := browsertest.Serve(t, timelinePage())
	_, obs := openReal(t, url, true)
	var want []string
	for i := 1; i <= 8; i++ {
		want = append(want, fmt.Sprintf("Like post %d", i), fmt.Sprintf("Share post %d", i))
	}
	got := names(obs)
	if !slices.Equal(got[2:], want) {
		t.Fatalf("controls %q", got)
	}
	text := joined(obs)
	for i := 1; i <= 8; i++ {
		if !strings.Contains(text, fmt.Sprintf("Post %d body text", i)) {
			t.Errorf("post %d missing from the text %q", i, text)
		}
	}
	if n := obs.ControlCoverage.InScrollContainers; n != 16 {
		t.Errorf("controls in scroll containers %d, want 16", n)
	}
	// The sticky bar, and each post its author, its body and its buttons.
	if n := obs.TextCoverage.InScrollContainers; n != 25 {
		t.Errorf("text parts in scroll containers %d, want 25", n)
	}

	_, old := openReal(t, url, false)
	if got := names(old); len(got) != 2+6 || slices.Contains(got, "Like post 4") {
		t.Errorf("1.8.0 controls %q, want the three posts in sight", got)
	}
	if old.ControlCoverage.InScrollContainers != 0 || old.TextCoverage.InScrollContainers != 0 {
		t.Errorf("1.8.0 coverage counts scroll containers: %+v %+v", old.ControlCoverage, old.TextCoverage)
	}
}

// TestScrollContainerInboxIsVisible (fails before 1.9.0's change): in an
// application layout whose body hides its overflow, the three mails below
// the body's box are reachable by scrolling the list, so all ten are
// controls and text.
func TestScrollContainerInboxIsVisible(t *testing.T) {
	t.Parallel()
	_, obs := openReal(t, browsertest.Serve(t, inboxPage()), true)
	for i := 1; i <= 10; i++ {
		find(t, obs, fmt.Sprintf("Select mail %d", i))
		find(t, obs, fmt.Sprintf("Subject of mail %d", i))
	}
	if !strings.Contains(joined(obs), "Sender 10") {
		t.Errorf("text %q", joined(obs))
	}
	if n := obs.ControlCoverage.InScrollContainers; n != 20 {
		t.Errorf("controls in scroll containers %d, want 20", n)
	}
}

// clippedCases: content that no scrolling reaches stays hidden in 1.9.0.
// Each page has a visible "ok" button and prose "shown"; every hidden
// thing carries HIDDEN.
var clippedCases = []struct{ name, html string }{
	{"overflow hidden carousel", `<p>shown</p><button>ok</button>
<div class="carousel" style="width:300px;height:120px;overflow:hidden;position:relative">
 <div class="track" style="display:flex;width:1200px;transform:translateX(0)">
  <div class="slide" style="width:300px;flex:none">Slide one shown</div>
  <div class="slide" style="width:300px;flex:none">HIDDEN slide two <button>HIDDEN buy two</button></div>
  <div class="slide" style="width:300px;flex:none">HIDDEN slide three <a href="#3">HIDDEN link three</a></div>
 </div></div>`},
	{"scroller clipped away by an overflow hidden box", `<p>shown</p><button>ok</button>
<div style="height:50px;overflow:hidden;position:relative">
 <div style="position:absolute;top:80px;height:100px;overflow:auto"><div style="height:400px">HIDDEN in list <button>HIDDEN list button</button></div></div></div>`},
	{"hidden scroller", `<p>shown</p><button>ok</button>
<div style="visibility:hidden;height:60px;overflow:auto"><div style="height:400px"><button style="visibility:inherit">HIDDEN in hidden scroller</button> HIDDEN prose</div></div>
<div style="display:none;height:60px;overflow:auto"><div style="height:400px"><button>HIDDEN none</button></div></div>`},
	{"before the scroll range", `<p>shown</p><button>ok</button>
<div style="position:relative;height:80px;overflow:auto"><div style="height:300px">shown list</div>
 <div style="position:absolute;top:-500px">HIDDEN above <button>HIDDEN above button</button></div></div>`},
	{"overflow hidden inside a scroller", `<p>shown</p><button>ok</button>
<div style="height:80px;overflow-y:auto"><div style="height:300px">shown list
 <div style="height:20px;overflow:hidden"><div style="height:20px">shown line</div><div>HIDDEN cut <button>HIDDEN cut button</button></div></div></div></div>`},
}

// TestScrollContainerClippedStaysHidden: what an overflow:hidden box
// clips, what a hidden scroller holds and what lies before a scroller's
// range stay out of every stream, with scroll containers visible.
func TestScrollContainerClippedStaysHidden(t *testing.T) {
	t.Parallel()
	for _, tc := range clippedCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, obs := openReal(t, browsertest.Serve(t, tc.html), true)
			if text := joined(obs); strings.Contains(text, "HIDDEN") || !strings.Contains(text, "shown") {
				t.Errorf("text %q", text)
			}
			if got := names(obs); !slices.Equal(got, []string{"ok"}) {
				t.Errorf("controls %q", got)
			}
			for _, g := range obs.Regions {
				if strings.Contains(g.Summary, "HIDDEN") {
					t.Errorf("region %s %q", g.Kind, g.Summary)
				}
			}
		})
	}
}

// TestScrollContainerStripAndNested (fails before 1.9.0's change): a
// horizontally scrolling strip that hides vertical overflow shows all its
// cards; a list that scrolls inside a feed that scrolls shows its last
// item and its closing heading (a region), which lie beyond both boxes.
func TestScrollContainerStripAndNested(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`<title>Shop</title><h2>Recommended</h2>
<div class="strip" style="display:flex;gap:8px;width:500px;overflow-x:auto;overflow-y:hidden">`)
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, `<div class="card" style="flex:none;width:140px;height:90px">Card %d <button>Add card %d</button></div>`, i, i)
	}
	b.WriteString(`</div>
<div class="outer" style="height:200px;overflow-y:auto;overflow-x:hidden;margin-top:12px">
 <div style="height:150px">Intro</div>
 <div class="inner" style="height:120px;overflow-y:scroll">`)
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, `<div style="height:40px">Reply %d <button>Vote reply %d</button></div>`, i, i)
	}
	b.WriteString(`<h3>End of the replies</h3></div><div style="height:300px">Footer of the thread</div></div>`)
	_, obs := openReal(t, browsertest.Serve(t, b.String()), true)
	find(t, obs, "Add card 12")
	find(t, obs, "Vote reply 9")
	text := joined(obs)
	for _, s := range []string{"Card 12", "Reply 9", "Footer of the thread"} {
		if !strings.Contains(text, s) {
			t.Errorf("%q missing from %q", s, text)
		}
	}
	if !slices.ContainsFunc(obs.Regions, func(g observation.Region) bool { return g.Kind == "heading" && g.Summary == "End of the replies" }) {
		t.Errorf("regions %+v", obs.Regions)
	}
	if n := obs.ControlCoverage.InScrollContainers; n != 21 {
		t.Errorf("controls in scroll containers %d, want 21", n)
	}
}

// TestScrollContainerActScrollsTheBox (fails before 1.9.0's change): a
// click on the eighth post's button scrolls the feed until the button is
// hit-testable and really clicks it (the server records it); a click on
// the last reply of a nested scroller scrolls both boxes.
func TestScrollContainerActScrollsTheBox(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	site, base := serveEffects(t, map[string]string{"/": timelinePage()})
	s, obs := openReal(t, base, true)
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Like post 8").Ref}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Dispatched {
		t.Fatalf("click not dispatched: %+v", res)
	}
	waitFor(t, func() bool { return slices.Equal(site.Seen(), []string{"like 8"}) }, site.Seen)
	if top := evalMain(t, s, "String(document.getElementById('feed').scrollTop > 0)"); top != "true" {
		t.Errorf("the feed did not scroll: scrollTop > 0 is %s", top)
	}
	// Back up to the first post: the box scrolls the other way.
	res, err = s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, res.Observation, "Share post 1").Ref}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return slices.Equal(site.Seen(), []string{"like 8", "share 1"}) }, site.Seen)
}

// TestScrollContainerInAFrame (fails before 1.9.0's change): the feed in a
// same-origin frame shows all its posts, and the observation's counts add
// the frame's.
func TestScrollContainerInAFrame(t *testing.T) {
	t.Parallel()
	base := sameOrigin(t, map[string]string{
		"/":     `<title>Embed</title><h1>Club news</h1><button>Top</button><iframe src="/feed" title="Timeline" style="width:600px;height:420px"></iframe>`,
		"/feed": timelinePage(),
	})
	s, obs := openReal(t, base, true)
	obs = observeUntil(t, s, obs, func(o *observation.Observation) bool { return hasControl(o, "Like post 8") })
	if frameOf(obs, "Like post 8") <= 0 {
		t.Fatalf("controls %q", names(obs))
	}
	if n := obs.ControlCoverage.InScrollContainers; n != 16 {
		t.Errorf("controls in scroll containers %d, want 16", n)
	}
	if n := obs.TextCoverage.InScrollContainers; n != 25 {
		t.Errorf("text parts in scroll containers %d, want 25", n)
	}
}

// scrollersPage is n posts with a button each, in feeds of twenty posts
// that each scroll with four in sight.
func scrollersPage(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i%20 == 0 {
			if i > 0 {
				b.WriteString(`</div>`)
			}
			b.WriteString(`<div style="height:200px;overflow-y:auto;overflow-x:hidden">`)
		}
		fmt.Fprintf(&b, `<div style="height:50px">Post %d <button>Like %d</button></div>`, i, i)
	}
	b.WriteString(`</div>`)
	return b.String()
}

// BenchmarkObserveScrollContainers: observe time of 1.8.0 (realpages=false)
// and 1.9.0 sessions on the 12,000-button page and on 4,000 posts in 200
// scrolling feeds.
func BenchmarkObserveScrollContainers(b *testing.B) {
	for _, page := range []struct {
		name, html string
	}{{"buttons=12000", buttons(12000, "")}, {"feeds=200", scrollersPage(4000)}} {
		for _, real := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/realpages=%t", page.name, real), func(b *testing.B) {
				s, _ := openReal(b, browsertest.Serve(b, page.html), real)
				ctx := context.Background()
				var obs *observation.Observation
				for b.Loop() {
					var err error
					if obs, err = s.Observe(ctx, observation.Request{}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(obs.Controls)), "controls")
			})
		}
	}
}

// TestScrollContainerFind (fails before 1.9.0's change): browser_find
// finds the eighth post's button and text in a 1.9.0 session, and an act
// on what it found clicks it; a 1.8.0 session's find does not see them.
func TestScrollContainerFind(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	site, base := serveEffects(t, map[string]string{"/": timelinePage()})
	s, _ := openReal(t, base, true)
	obs, err := s.Find(ctx, browser.FindRequest{Query: "post 8"})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(obs); !slices.Equal(got, []string{"Like post 8", "Share post 8"}) ||
		!slices.ContainsFunc(obs.Find.Matches, func(m observation.TextMatch) bool { return m.Snippet == "Post 8 body text" }) {
		t.Fatalf("found %q, text %+v", got, obs.Find.Matches)
	}
	if _, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Share post 8").Ref}, allowAll); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return slices.Equal(site.Seen(), []string{"share 8"}) }, site.Seen)

	old, _ := openReal(t, base, false)
	res := findOK(t, old, collect.FindRequest{Revision: "probe", Query: "post 8"})
	if len(res.Controls) != 0 || len(res.Matches) != 0 {
		t.Errorf("1.8.0 find %q %q", findControlNames(res), findSnippets(res))
	}
}

// TestScrollContainerIsNotTheDocument: the document's own scrolling (the
// root's overflow, or the body's passed to the viewport) makes no scroll
// container: nothing is counted, and the page observes as before.
func TestScrollContainerIsNotTheDocument(t *testing.T) {
	t.Parallel()
	for name, style := range map[string]string{
		"root scrolls":     `html { overflow-y: scroll }`,
		"body to viewport": `body { overflow: auto }`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			page := `<style>` + style + `</style><h1>Article</h1>` + strings.Repeat(`<p style="height:200px">Paragraph <button>Cite</button></p>`, 10)
			_, obs := openReal(t, browsertest.Serve(t, page), true)
			if len(obs.Controls) != 10 || obs.ControlCoverage.InScrollContainers != 0 || obs.TextCoverage.InScrollContainers != 0 {
				t.Errorf("%d controls, coverage %+v %+v", len(obs.Controls), obs.ControlCoverage, obs.TextCoverage)
			}
		})
	}
}
