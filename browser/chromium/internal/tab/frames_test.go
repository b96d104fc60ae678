package tab

import (
	"errors"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	cdptarget "github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// TestFrameSessionOutlivesItsSnapshot: an out-of-process frame's session
// keeps its frame when a child frame of the tree it read when it attached
// has left it since (a cross-site child moves to a process of its own when
// its document commits, which can fall between the snapshot and its
// world); and a session the tab drops takes its frames' worlds with it, a
// call still made on it failing at once instead of waiting for an answer
// that never comes.
func TestFrameSessionOutlivesItsSnapshot(t *testing.T) {
	t.Parallel()
	ctx := chromiumPage(t)
	pages := map[string]string{"/offers": `<button>Offer</button>`}
	url := browsertest.ServePages(t, pages)
	pages["/"] = `<h1>Shop</h1><iframe src="` + browsertest.OtherOrigin(url) + `offers"></iframe>`
	tb, err := Open(ctx, ctx, Options{Frames: true, Timings: DefaultTimings()})
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	if _, err := tb.Navigate(ctx, url); err != nil {
		t.Fatal(err)
	}
	// The out-of-process frame, once its session gave it a world.
	var (
		id     cdptarget.ID
		s      *frameSession
		target *chromedp.Target
		frame  cdp.FrameID
		world  string
	)
	err = tb.waitFor(ctx, func() bool {
		for tid, fs := range tb.frameSessions {
			for _, f := range tb.frames {
				if f.session == fs && fs.target != nil && f.world != "" {
					id, s, target, frame, world = tid, fs, fs.target, f.id, f.world
					return true
				}
			}
		}
		return false
	})
	if err != nil {
		t.Fatal(err)
	}
	tree, err := cdp.Call(ctx, target, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	left := &page.FrameTree{Frame: &cdp.Frame{ID: "a child that left", ParentID: frame}}
	tree.FrameTree.ChildFrames = append(tree.FrameTree.ChildFrames, left)
	if err := tb.installWorlds(ctx, s, target, tree.FrameTree); err != nil {
		t.Fatalf("a child frame that left the session failed its install: %v", err)
	}

	tb.dropFrameSession(id, s)
	if v, _ := tb.Frame(frame); v.World != "" {
		t.Errorf("the dropped session's frame kept its world %q", v.World)
	}
	_, err = tb.EvaluateIn(ctx, target, world, "1")
	if err == nil || errcode.Of(err) == errcode.Timeout || !errors.Is(err, errSessionGone) {
		t.Errorf("a call on the dropped session: %v (%s), want it to end as the session did", err, errcode.Of(err))
	}
}
