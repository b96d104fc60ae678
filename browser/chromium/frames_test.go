package chromium

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// otherOrigin serves pages by path on 127.0.0.1 and returns their base URL
// under the name localhost: another origin than browsertest.Serve's, so
// that Chromium runs its frames out of process.
func otherOrigin(t *testing.T, pages map[string]string) string {
	t.Helper()
	return browsertest.OtherOrigin(browsertest.ServePages(t, pages))
}

// openFrames opens a frames-mode session (tool version 1.7.0) on url;
// allowed judges frame origins (nil: all). It returns once the frames
// settled and the controls named want are shown (frames load in their own
// time), or after about ten seconds with the last observation.
func openFrames(t *testing.T, url string, allowed func(string) bool, want ...string) (*Session, *observation.Observation) {
	t.Helper()
	ctx := browsertest.Context(t, time.Minute)
	s, _ := openOn(t, ctx, browser.SessionOptions{Reading: true, Frames: true, FrameAllowed: allowed}, url)
	// Out-of-process frames are attached as they load: observe until every
	// frame the page holds is collected or says why not, and want shows.
	tries := 5
	if len(want) > 0 {
		tries = 100
	}
	var obs *observation.Observation
	for range tries {
		var err error
		if obs, err = s.Observe(ctx, observation.Request{}); err != nil {
			t.Fatal(err)
		}
		settled := len(obs.Frames) > 0
		for _, f := range obs.Frames {
			if f.Status == observation.FrameDetached || f.Status == observation.FrameNotLoaded {
				settled = false
			}
		}
		for _, name := range want {
			if frameOf(obs, name) < 0 {
				settled = false
			}
		}
		if settled {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	return s, obs
}

func frameOf(obs *observation.Observation, name string) int {
	for _, c := range obs.Controls {
		if c.Name == name {
			return c.Frame
		}
	}
	return -1
}

func TestFramesInPlace(t *testing.T) {
	t.Parallel()
	other := otherOrigin(t, map[string]string{
		"/cross":  `<p>cross text</p><button>cross button</button><iframe src="/nested" style="width:300px;height:100px"></iframe><button>cross after</button>`,
		"/nested": `<p>nested text</p><button>nested button</button>`,
	})
	top := browsertest.Serve(t, `<p>top text</p><button>first</button>
<iframe srcdoc="<p>srcdoc text</p><button>srcdoc button</button><input value='canary-srcdoc'>" style="width:300px;height:100px"></iframe>
<button>between</button>
<iframe src="`+other+`cross" style="width:400px;height:300px"></iframe>
<iframe hidden srcdoc="<button>hidden button</button>"></iframe>
<button>last</button><p>top end</p>`)
	_, obs := openFrames(t, top, nil, "srcdoc button", "nested button", "cross after")
	want := []string{"first", "srcdoc button", "", "between", "cross button", "nested button", "cross after", "last"}
	got := names(obs)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("controls %q, want %q; frames %+v", got, want, obs.Frames)
	}
	if f := frameOf(obs, "first"); f != 0 {
		t.Fatalf("top control in frame %d", f)
	}
	src, cross, nested := frameOf(obs, "srcdoc button"), frameOf(obs, "cross button"), frameOf(obs, "nested button")
	if src < 1 || cross < 1 || nested < 1 || src == cross || cross == nested {
		t.Fatalf("frames of controls: srcdoc %d cross %d nested %d", src, cross, nested)
	}
	rec := func(i int) observation.Frame { return obs.Frames[i-1] }
	if r := rec(cross); r.Status != observation.FrameCollected || r.Depth != 1 || !strings.HasPrefix(r.Origin, "http://localhost:") {
		t.Fatalf("cross frame %+v", r)
	}
	if r := rec(nested); r.Depth != 2 || r.Parent != cross || r.Status != observation.FrameCollected {
		t.Fatalf("nested frame %+v", r)
	}
	if r := rec(src); r.Origin != obs.Origin {
		t.Fatalf("srcdoc frame judged by %q, want its parent's %q", r.Origin, obs.Origin)
	}
	if last := obs.Frames[len(obs.Frames)-1]; len(obs.Frames) != 4 || last.Status != observation.FrameNotVisible {
		t.Fatalf("frames %+v: want four, the last not_visible", obs.Frames)
	}
	var text []string
	for _, p := range obs.Text {
		text = append(text, p.Text)
	}
	if j := strings.Join(text, "|"); !inOrder(j, "top text", "srcdoc text", "cross text", "nested text", "cross after", "top end") {
		t.Fatalf("text %q", j)
	}
	if strings.Contains(fmt.Sprint(obs), "canary") {
		t.Fatal("an input's value crossed")
	}
	if err := observation.Validate(obs); err != nil {
		t.Fatal(err)
	}
}

// inOrder reports whether s holds each of parts, in that order.
func inOrder(s string, parts ...string) bool {
	for _, p := range parts {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return true
}

// TestFrameKeepsItsSessionWhileItsChildrenMove: an out-of-process frame
// holding a dozen cross-site frames, each of which starts in its parent's
// process and moves to its own as its document commits, some while the
// parent's session installs the collector in the documents it read: the
// parent's content and every child's are observed. (Before, a child that
// moved during the install dropped the parent's session: its controls
// never showed, and the first observation could hang on that session.)
func TestFrameKeepsItsSessionWhileItsChildrenMove(t *testing.T) {
	t.Parallel()
	const children = 12
	pages := map[string]string{}
	url := browsertest.ServePages(t, pages)
	var offers strings.Builder
	offers.WriteString(`<h1>Offers</h1><button>Offers menu</button>`)
	want := []string{"Offers menu"}
	for i := range children {
		fmt.Fprintf(&offers, `<iframe src="%sdeal%d" style="width:200px;height:60px"></iframe>`, url, i)
		pages[fmt.Sprintf("/deal%d", i)] = fmt.Sprintf(`<button>Deal %d</button>`, i)
		want = append(want, fmt.Sprintf("Deal %d", i))
	}
	pages["/offers"] = offers.String()
	pages["/"] = `<h1>Shop</h1><iframe src="` + browsertest.OtherOrigin(url) + `offers" style="width:900px;height:600px"></iframe>`
	_, obs := openFrames(t, url, nil, want...)
	if got := names(obs); !slices.Equal(got, want) {
		t.Fatalf("controls %q, want %q; frames %+v", got, want, obs.Frames)
	}
}

// TestFramesAfterHistoryBack: a page with a cross-site frame, left and
// gone back to, shows its frame's content again, whether Chromium loads it
// anew or restores it from the back-forward cache (a restore announces
// the page's document again, and the tab must not forget its frames then).
func TestFramesAfterHistoryBack(t *testing.T) {
	t.Parallel()
	other := otherOrigin(t, map[string]string{
		"/card": `<!doctype html><title>Card</title><label>Card number <input name="number"></label>`,
	})
	pages := browsertest.ServePages(t, map[string]string{
		"/checkout": `<!doctype html><title>Checkout</title><h1>Payment</h1><iframe src="` + other + `card" style="width:420px;height:160px"></iframe><button>Pay</button>`,
		"/plain":    `<!doctype html><title>Plain</title><h1>Done</h1><button>Back</button>`,
	})
	s, _ := openWith(t, pages+"checkout", browser.SessionOptions{RealPages: true})
	ctx := browsertest.Context(t, time.Minute)
	showsCard := func(step string) {
		t.Helper()
		var obs *observation.Observation
		for range 50 {
			var err error
			if obs, err = s.Observe(ctx, observation.Request{}); err != nil {
				t.Fatal(err)
			}
			if frameOf(obs, "Card number") > 0 {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("%s: controls %q, frames %+v; want the card frame's field", step, names(obs), obs.Frames)
	}
	showsCard("first visit")
	if _, err := s.Navigate(ctx, pages+"plain"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.History(ctx, browser.HistoryBack); err != nil {
		t.Fatal(err)
	}
	showsCard("back on the checkout")
}
