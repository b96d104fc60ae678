package chromium

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// The frames benchmark's page: a top document of benchTopControls controls
// and benchTopParagraphs paragraphs in sections, with n iframes between the
// sections, each of benchFrameControls controls and benchFrameParagraphs
// paragraphs. One observation's control bound (observation.MaxControls)
// holds for the page and its frames together, so the page with 16 frames
// stays within it: every frame is collected and the top document is read
// to its end, whatever n.
const (
	benchSections        = 16
	benchTopControls     = 96 // 6 per section
	benchTopParagraphs   = 320
	benchFrameControls   = 9
	benchFrameParagraphs = 6
)

// frameBenchTop is the top document with frames iframes. frame(i) is the
// URL of the i-th (from 0): the even ones on the page's own origin, the odd
// ones on another.
func frameBenchTop(frames int, frame func(i int) string) string {
	var b strings.Builder
	b.WriteString(`<style>body{font:14px/1.4 system-ui,sans-serif;margin:1em} iframe{display:block;width:640px;height:420px;border:1px solid #ccc;margin:.5em 0}</style>` + "\n<main><h1>Orders</h1>\n")
	perSection := benchTopParagraphs / benchSections
	// The frames stand between sections, spread evenly: after section
	// s*benchSections/frames for s = 0..frames-1.
	next := 0
	for s := range benchSections {
		fmt.Fprintf(&b, "<section><h2>Section %d</h2>\n", s)
		for p := range perSection {
			fmt.Fprintf(&b, "<p>Order %d.%d ships from the north warehouse; %s.</p>\n", s, p, phrase(s*perSection+p))
		}
		fmt.Fprintf(&b, `<form aria-label="Section %d"><label>Note %d <input name="note%d"></label> `, s, s, s)
		fmt.Fprintf(&b, `<label><input type="checkbox" name="keep%d"> Keep %d</label> `, s, s)
		fmt.Fprintf(&b, `<select aria-label="Status %d"><option>Open</option><option>Closed</option></select> `, s)
		fmt.Fprintf(&b, `<a href="/orders/%d">Details %d</a> <button type="button">Save %d</button> <button type="button">Archive %d</button></form>`, s, s, s, s)
		b.WriteString("</section>\n")
		for next < frames && next*benchSections/frames == s {
			fmt.Fprintf(&b, `<iframe title="Frame %d" src="%s"></iframe>`+"\n", next, frame(next))
			next++
		}
	}
	b.WriteString("</main>")
	return b.String()
}

// frameBenchFrame is the document of frame i.
func frameBenchFrame(i int) string {
	var b strings.Builder
	b.WriteString(`<style>body{font:12px/1.3 system-ui,sans-serif;margin:.3em} p{margin:.1em 0}</style>`)
	fmt.Fprintf(&b, "<h3>Frame %d</h3>", i)
	for p := range benchFrameParagraphs {
		fmt.Fprintf(&b, "<p>Frame %d line %d: %s.</p>", i, p, phrase(i+p))
	}
	fmt.Fprintf(&b, `<form><label>Name %d <input name="name"></label> <label>Email %d <input type="email" name="email"></label> `, i, i)
	fmt.Fprintf(&b, `<label>Card %d <input name="card"></label> <select aria-label="Plan %d"><option>Free</option><option>Pro</option></select> `, i, i)
	fmt.Fprintf(&b, `<label><input type="checkbox" name="terms"> Terms %d</label> <a href="/help">Help %d</a> <a href="/privacy">Privacy %d</a> `, i, i, i)
	fmt.Fprintf(&b, `<button type="button">Cancel %d</button> <button type="button">Submit %d</button></form>`, i, i)
	return b.String()
}

var benchPhrases = []string{
	"the parcel was weighed twice", "customs forms are attached", "a signature is required on delivery",
	"the invoice lists every item", "returns are accepted for thirty days", "the courier calls ahead",
}

func phrase(i int) string { return benchPhrases[i%len(benchPhrases)] }

// serveFrameBench serves the top document with frames iframes: the even
// frames by path on its own server, the odd ones on a second server reached
// as localhost, another origin that Chromium runs out of process. It
// returns the top document's URL.
func serveFrameBench(tb testing.TB, frames int) string {
	tb.Helper()
	framePage := func(w http.ResponseWriter, r *http.Request) {
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/frame/%d", &i); err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, frameBenchFrame(i))
	}
	other := browsertest.OtherOrigin(browsertest.ServeHandler(tb, http.HandlerFunc(framePage)))
	page := frameBenchTop(frames, func(i int) string {
		if i%2 == 1 {
			return fmt.Sprintf("%sframe/%d", other, i)
		}
		return fmt.Sprintf("/frame/%d", i)
	})
	return browsertest.ServeHandler(tb, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			framePage(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
}

// openFrameBench opens a frames-mode session on the benchmark's page with
// frames iframes and observes until every frame is collected (out-of-process
// frames are attached as they load).
func openFrameBench(tb testing.TB, frames int) (*Session, *observation.Observation) {
	tb.Helper()
	ctx := browsertest.Context(tb, 2*time.Minute)
	bs, err := shared.Get(tb).NewSession(ctx, browser.SessionOptions{Reading: true, Frames: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { bs.Close(context.Background()) })
	s := bs.(*Session)
	if _, err := s.Navigate(ctx, serveFrameBench(tb, frames)); err != nil {
		tb.Fatal(err)
	}
	var obs *observation.Observation
	for range 100 {
		if obs, err = s.Observe(ctx, observation.Request{}); err != nil {
			tb.Fatal(err)
		}
		if allCollected(obs, frames) {
			return s, obs
		}
		time.Sleep(100 * time.Millisecond)
	}
	tb.Fatalf("frames not all collected: %+v", obs.Frames)
	return nil, nil
}

func allCollected(obs *observation.Observation, frames int) bool {
	if len(obs.Frames) != frames {
		return false
	}
	for _, f := range obs.Frames {
		if f.Status != observation.FrameCollected {
			return false
		}
	}
	return true
}

// TestFrameBenchPage: the benchmark's page is what it says at its largest.
// Every frame is collected whole, and the whole top document is read, so the
// benchmark's runs differ by their frames only.
func TestFrameBenchPage(t *testing.T) {
	t.Parallel()
	_, obs := openFrameBench(t, observation.MaxFrames)
	if want := benchTopControls + observation.MaxFrames*benchFrameControls; len(obs.Controls) != want || obs.ControlCoverage.ScanLimitReached {
		t.Fatalf("%d controls (coverage %+v), want %d", len(obs.Controls), obs.ControlCoverage, want)
	}
	for _, f := range obs.Frames {
		if f.Controls != benchFrameControls || f.Limit != "" || f.TextLimit != "" || f.Depth != 1 {
			t.Fatalf("frame %+v", f)
		}
		if cross := strings.HasPrefix(f.Origin, "http://localhost:"); cross != (f.Index%2 == 0) {
			// Index counts from 1: the odd-numbered from 0 are the
			// cross-origin ones.
			t.Fatalf("frame %d has origin %s", f.Index, f.Origin)
		}
	}
	var text []string
	for _, p := range obs.Text {
		text = append(text, p.Text)
	}
	if j := strings.Join(text, "|"); !inOrder(j, "Order 0.0", "Frame 0 line 0", "Order 1.0", "Order 15.19", "Frame 15 line 0", "Frame 15 line 5") {
		t.Fatalf("text does not hold the page and its frames in order: %.300q", j)
	}
	if err := observation.Validate(obs); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkObserveFrames times one observation of the same page with 0, 4
// and 16 frames, half of them out of process.
func BenchmarkObserveFrames(b *testing.B) {
	for _, frames := range []int{0, 4, 16} {
		b.Run(fmt.Sprint(frames), func(b *testing.B) {
			s, _ := openFrameBench(b, frames)
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				obs, err := s.Observe(ctx, observation.Request{})
				if err != nil {
					b.Fatal(err)
				}
				if !allCollected(obs, frames) {
					b.Fatalf("frames not all collected: %+v", obs.Frames)
				}
			}
		})
	}
}
