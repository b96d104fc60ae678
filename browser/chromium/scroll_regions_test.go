package chromium

import (
	"fmt"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/observation"
)

// helpCentrePage is a help centre laid out as an application: a header and
// a topic list outside, and an article pane that scrolls, holding a named
// section per topic (a heading each) of which two fit; a carousel of tips
// in an overflow: hidden strip hides its second slide's section.
func helpCentrePage() string {
	var b strings.Builder
	b.WriteString(`<title>Help centre · Acme</title>
<style>
  body { margin: 0; font-family: sans-serif; }
  header { height: 50px; background: #333; color: #fff; }
  .pane { position: absolute; top: 50px; left: 200px; width: 500px; height: 300px; overflow: auto; }
  .pane section { height: 140px; border-bottom: 1px solid #ddd; }
  .tips { width: 300px; height: 60px; overflow: hidden; white-space: nowrap; }
  .tips section { display: inline-block; width: 300px; }
</style>
<header><h1>Help centre</h1></header>
<nav aria-label="Topics" style="width:190px"><a href="#t1">Billing</a> <a href="#t2">Shipping</a></nav>
<div class="pane" id="pane">`)
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, `<section aria-label="Topic %d"><h2>Question %d</h2><p>Answer %d in a few words.</p></section>`, i, i, i)
	}
	b.WriteString(`</div>
<div class="tips"><section aria-label="Tip A"><h3>Tip A</h3></section><section aria-label="Tip B"><h3>Tip B</h3></section></div>`)
	return b.String()
}

// regionNamed: the observation holds a region of kind whose name or
// summary is s.
func regionNamed(obs *observation.Observation, kind, s string) bool {
	for _, r := range obs.Regions {
		if r.Kind == kind && (r.Name == s || r.Summary == s) {
			return true
		}
	}
	return false
}

// TestScrollContainerRegionsAreCounted (fails without the region count):
// the sections and headings of a scrolling article pane are regions of a
// 1.9.0 view, those below its fold included, and region coverage counts
// the twelve of them as read in a scroll container, the header, topics and
// tips outside it not; the same page in a frame adds the frame's count.
// A 1.8.0 view counts nothing.
func TestScrollContainerRegionsAreCounted(t *testing.T) {
	t.Parallel()
	base := sameOrigin(t, map[string]string{
		"/help":  helpCentrePage(),
		"/embed": `<title>Support</title><h1>Support portal</h1><iframe src="/help" title="Help" style="width:760px;height:400px"></iframe>`,
	})
	_, obs := openReal(t, base+"help", true)
	for _, want := range [][2]string{{"region", "Topic 6"}, {"heading", "Question 6"}, {"region", "Tip A"}, {"navigation", "Topics"}} {
		if !regionNamed(obs, want[0], want[1]) {
			t.Errorf("no %s %q in the regions %+v", want[0], want[1], obs.Regions)
		}
	}
	if regionNamed(obs, "heading", "Tip B") {
		t.Errorf("the hidden slide's heading is a region")
	}
	if n := obs.RegionCoverage.InScrollContainers; n != 12 {
		t.Errorf("regions in scroll containers %d, want 12 (six sections, six headings): %+v", n, obs.Regions)
	}

	s, framed := openReal(t, base+"embed", true)
	framed = observeUntil(t, s, framed, func(o *observation.Observation) bool { return regionNamed(o, "heading", "Question 6") })
	if n := framed.RegionCoverage.InScrollContainers; n != 12 {
		t.Errorf("regions in scroll containers with the page in a frame %d, want 12", n)
	}

	_, old := openReal(t, base+"help", false)
	if n := old.RegionCoverage.InScrollContainers; n != 0 {
		t.Errorf("1.8.0 counts %d regions in scroll containers", n)
	}
}
