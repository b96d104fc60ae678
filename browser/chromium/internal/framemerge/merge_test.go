package framemerge

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/chromedp/cdproto/cdp"

	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// canned is a page of canned collector results: the frames the tab knows
// and what each frame's collector answers.
type canned struct {
	frames  map[cdp.FrameID]tab.FrameView
	results map[cdp.FrameID]*collect.Result
	errs    map[cdp.FrameID]error
	asked   []cdp.FrameID // the frames collected, in order
	params  []collect.Params
}

func (c *canned) Frame(id cdp.FrameID) (tab.FrameView, bool) {
	f, ok := c.frames[id]
	return f, ok
}

func (c *canned) Collect(_ context.Context, id cdp.FrameID, p collect.Params) (*collect.Result, error) {
	c.asked = append(c.asked, id)
	c.params = append(c.params, p)
	if err := c.errs[id]; err != nil {
		return nil, err
	}
	if r, ok := c.results[id]; ok {
		return r, nil
	}
	return nil, errors.New("no canned result")
}

func button(name string) collect.Control { return collect.Control{Role: "button", Name: name} }

func owner(key string) collect.Control { return collect.Control{Role: collect.RoleFrame, Frame: key} }

const topOrigin = "http://top.test"

// topWithFrame is a top document with a control, the owner of frame F1
// (whose text goes between the two text parts), and another control.
func topWithFrame() *collect.Result {
	return &collect.Result{
		Page:            collect.Page{Doc: "top", Origin: topOrigin},
		Controls:        []collect.Control{button("a"), owner("F1"), button("b")},
		ControlCoverage: collect.ControlCoverage{Scanned: 3},
		Text:            []string{"before", "after"},
		TextFrames:      []collect.FrameMark{{Frame: "F1", Index: 1}},
	}
}

func inner() *collect.Result {
	return &collect.Result{
		Page:            collect.Page{Doc: "d1", Origin: topOrigin},
		Controls:        []collect.Control{button("x"), button("y")},
		ControlCoverage: collect.ControlCoverage{Scanned: 2},
		Text:            []string{"inside"},
	}
}

func loaded() tab.FrameView {
	return tab.FrameView{ID: "F1", URL: topOrigin + "/inner", Origin: topOrigin, World: "w1"}
}

func names(r *collect.Result) []string {
	var out []string
	for _, c := range r.Controls {
		out = append(out, c.Name)
	}
	return out
}

// A collected frame's controls and text stand in its owner's place, each
// marked with the frame's record and with a place that leads to it.
func TestMergePutsAFrameInItsOwnersPlace(t *testing.T) {
	src := &canned{frames: map[cdp.FrameID]tab.FrameView{"F1": loaded()}, results: map[cdp.FrameID]*collect.Result{"F1": inner()}}
	res, out, _ := Merge(context.Background(), src, nil, collect.Params{}, topWithFrame(), nil)
	if got, want := names(res), []string{"a", "x", "y", "b"}; !slices.Equal(got, want) {
		t.Fatalf("controls %q, want %q", got, want)
	}
	if got, want := res.Text, []string{"before", "inside", "after"}; !slices.Equal(got, want) {
		t.Fatalf("text %q, want %q", got, want)
	}
	if !slices.Equal(out.ctrlFrames, []int{0, 1, 1, 0}) || !slices.Equal(out.textFrames, []int{0, 1, 0}) {
		t.Fatalf("frames of controls %v, of text %v", out.ctrlFrames, out.textFrames)
	}
	want := observation.Frame{Index: 1, Parent: 0, Depth: 1, Origin: topOrigin, Status: observation.FrameCollected, Controls: 2, Scanned: 2, TextParts: 1}
	if len(out.records) != 1 || out.records[0] != want {
		t.Fatalf("records %+v, want [%+v]", out.records, want)
	}
	// The control x: the top document's owner, then x in F1's document.
	at := out.Places[1]
	if len(at) != 2 || at[0].Frame != "" || at[0].Doc != "top" || at[1] != (Link{Frame: "F1", Index: 0, Doc: "d1"}) {
		t.Fatalf("place of x %+v", at)
	}
	if b := out.Places[3]; len(b) != 1 || b[0] != (Link{Frame: "", Index: 2, Doc: "top"}) {
		t.Fatalf("place of b %+v", b)
	}
	// The text continues after the top document's last part.
	if next := out.TextPlaces[3]; len(next) != 1 || next[0] != (Link{Frame: "", Index: 2, Doc: "top"}) {
		t.Fatalf("text continues at %+v", next)
	}
	if res.HiddenFrames != nil || res.TextFrames != nil {
		t.Fatalf("frame marks left in the merged result: %+v %+v", res.HiddenFrames, res.TextFrames)
	}
	var obs observation.Observation
	obs.Controls, obs.Text = make([]observation.Control, 4), make([]observation.TextPart, 3)
	out.Apply(&obs)
	if obs.Controls[1].Frame != 1 || obs.Text[1].Frame != 1 || len(obs.Frames) != 1 {
		t.Fatalf("applied: %+v %+v %+v", obs.Controls, obs.Text, obs.Frames)
	}
}

// A frame that is not collected keeps its record, with the status that
// says why, and gives nothing to the observation.
func TestMergeRecordsWhyAFrameIsNotCollected(t *testing.T) {
	crashedView := loaded()
	crashedView.Crashed = true
	neverLoaded := loaded()
	neverLoaded.URL, neverLoaded.World = "", ""
	for _, c := range []struct {
		name    string
		view    *tab.FrameView // nil: the tab does not know the frame
		allowed func(string) bool
		err     error
		status  string
		asked   bool
	}{
		{name: "not granted", view: ptr(loaded()), allowed: func(o string) bool { return o != topOrigin }, status: observation.FrameNotGranted},
		{name: "unknown to the tab", status: observation.FrameDetached},
		{name: "crashed renderer", view: &crashedView, status: observation.FrameCrashed},
		{name: "never had a document", view: &neverLoaded, status: observation.FrameNotLoaded},
		{name: "crashed while collected", view: ptr(loaded()), err: tab.ErrCrashed, status: observation.FrameCrashed, asked: true},
		{name: "gone while collected", view: ptr(loaded()), err: errcode.New(errcode.CaptureFailed, "gone"), status: observation.FrameDetached, asked: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := &canned{frames: map[cdp.FrameID]tab.FrameView{}, results: map[cdp.FrameID]*collect.Result{"F1": inner()},
				errs: map[cdp.FrameID]error{"F1": c.err}}
			if c.view != nil {
				src.frames["F1"] = *c.view
			}
			res, out, _ := Merge(context.Background(), src, c.allowed, collect.Params{}, topWithFrame(), nil)
			if got, want := names(res), []string{"a", "b"}; !slices.Equal(got, want) {
				t.Errorf("controls %q, want %q", got, want)
			}
			if got, want := res.Text, []string{"before", "after"}; !slices.Equal(got, want) {
				t.Errorf("text %q, want %q", got, want)
			}
			if len(out.records) != 1 || out.records[0].Status != c.status || out.records[0].Controls != 0 {
				t.Errorf("records %+v, want one %s", out.records, c.status)
			}
			if asked := len(src.asked) > 0; asked != c.asked {
				t.Errorf("collected %v, want %v", src.asked, c.asked)
			}
		})
	}
}

// A frame's origin: its own for an http(s) document, its parent's for one
// that comes from the parent, opaque otherwise.
func TestEffectiveOrigin(t *testing.T) {
	for _, c := range []struct{ url, origin, parent, want string }{
		{"https://a.test/x?y", "https://a.test", topOrigin, "https://a.test"},
		{"http://b.test:8080/", "null", topOrigin, "http://b.test:8080"}, // sandboxed: judged by where it came from
		{"about:srcdoc", "http://top.test", topOrigin, topOrigin},
		{"about:blank", "", "https://p.test", "https://p.test"},
		{"", "", "https://p.test", "https://p.test"},
		{"data:text/html,x", "://", topOrigin, "null"},
		{"data:text/html,x", "", topOrigin, "null"},
		{"blob:https://a.test/1", "https://a.test", topOrigin, "https://a.test"},
		{"%zz", "", topOrigin, "null"},
	} {
		if got := effectiveOrigin(c.url, c.origin, c.parent); got != c.want {
			t.Errorf("effectiveOrigin(%q, %q, %q) = %q, want %q", c.url, c.origin, c.parent, got, c.want)
		}
	}
}

// A control stream that stops inside a frame continues there: a frame
// reached with the window spent continues at its start, a frame whose scan
// stopped at its next window; a stream resumed inside a frame has the
// whole window, shows the frame's regions once, and continues in the top
// document after the frame's owner; a frame it resumes in that is gone
// fails the merge with stale_reference.
func TestMergeCursorContinuesInFrames(t *testing.T) {
	src := func(r *collect.Result) *canned {
		return &canned{frames: map[cdp.FrameID]tab.FrameView{"F1": loaded()}, results: map[cdp.FrameID]*collect.Result{"F1": r}}
	}
	t.Run("window spent before the frame", func(t *testing.T) {
		top := topWithFrame()
		top.ControlCoverage.Scanned = observation.WindowSize
		res, out, err := Merge(context.Background(), src(inner()), nil, collect.Params{}, top, nil)
		c := out.Cursor
		if err != nil || !slices.Equal(names(res), []string{"a"}) || res.ControlCoverage.Limit != observation.LimitWindow || c == nil ||
			len(c.At) != 2 || c.At[1].Frame != "F1" || c.Window == nil || *c.Window != (Window{}) {
			t.Fatalf("%v: controls %q, coverage %+v, cursor %+v", err, names(res), res.ControlCoverage, c)
		}
	})
	t.Run("frame scan stopped", func(t *testing.T) {
		r := inner()
		r.ControlCoverage = collect.ControlCoverage{Offset: 5, Scanned: 2, More: true, Limit: observation.LimitWindow, From: collect.ResumeOrigin}
		res, out, err := Merge(context.Background(), src(r), nil, collect.Params{}, topWithFrame(), nil)
		c := out.Cursor
		if err != nil || !slices.Equal(names(res), []string{"a", "x", "y"}) || c == nil || len(c.At) != 2 || c.At[1] != (Link{Frame: "F1", Doc: "d1"}) ||
			c.Window == nil || *c.Window != (Window{Offset: 7, From: collect.ResumeOrigin}) {
			t.Fatalf("%v: controls %q, cursor %+v", err, names(res), c)
		}
	})
	t.Run("text resumed in a frame", func(t *testing.T) {
		// The controls continue in the top document past the frame's
		// owner: the frame's stopped scan is not the control stream's.
		r := inner()
		r.ControlCoverage = collect.ControlCoverage{Scanned: 2, More: true, Limit: observation.LimitWindow}
		top := topWithFrame()
		top.Controls, top.TextFrames = []collect.Control{button("b")}, nil
		rs := &Resume{Old: "old", Text: Place{{Doc: "top"}, {Frame: "F1", Doc: "d1"}}}
		res, out, err := Merge(context.Background(), src(r), nil, collect.Params{}, top, rs)
		if err != nil || !slices.Equal(names(res), []string{"b"}) || res.ControlCoverage.More || out.Cursor != nil {
			t.Fatalf("%v: controls %q, coverage %+v, cursor %+v", err, names(res), res.ControlCoverage, out.Cursor)
		}
	})
	t.Run("resumed in the frame", func(t *testing.T) {
		r := inner()
		r.Regions = []observation.Region{{Kind: "navigation"}}
		top := topWithFrame()
		top.Controls, top.ControlCoverage = nil, collect.ControlCoverage{Ended: true}
		s := src(r)
		rs := &Resume{Old: "old", Controls: Place{{Doc: "top"}, {Frame: "F1", Doc: "d1"}}, Window: &Window{Offset: 4, From: collect.ResumeStop}}
		res, out, err := Merge(context.Background(), s, nil, collect.Params{}, top, rs)
		c := out.Cursor
		if err != nil || !slices.Equal(names(res), []string{"x", "y"}) || len(res.Regions) != 1 || res.ControlCoverage.Ended ||
			c == nil || len(c.At) != 1 || c.AfterFrame != "F1" || res.ControlCoverage.Limit != observation.LimitWindow {
			t.Fatalf("%v: controls %q, regions %d, coverage %+v, cursor %+v", err, names(res), len(res.Regions), res.ControlCoverage, c)
		}
		if p := s.params[0]; p.Offset != 4 || p.Resume == nil || *p.Resume != (collect.Resume{Revision: "old", From: collect.ResumeStop}) ||
			p.Window != observation.WindowSize-1 || p.ControlsEnded {
			t.Fatalf("the frame was collected with %+v", p)
		}
		s.errs = map[cdp.FrameID]error{"F1": errors.New("the frame has no document")}
		if _, _, err := Merge(context.Background(), s, nil, collect.Params{}, topWithFrame(), rs); errcode.Of(err) != errcode.StaleReference {
			t.Fatalf("resumed in a frame that is gone: %v", err)
		}
	})
}
