package chromium

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

func TestOrderIsShadowFirstDepthFirst(t *testing.T) {
	t.Parallel()
	_, obs := openPage(t, `
<button>L1</button>
<div id="host"><button>slotted light child</button></div>
<button>L2</button>
<div id="closed"><button>light child of closed host</button></div>
<iframe srcdoc="<button>in frame</button>"></iframe>
<button>L3</button>
<script>
const root = document.getElementById('host').attachShadow({mode: 'open'});
root.innerHTML = '<button>S1</button><div id="inner"></div><slot></slot><button>S3</button>';
root.getElementById('inner').attachShadow({mode: 'open'}).innerHTML = '<button>S2 nested</button>';
document.getElementById('closed').attachShadow({mode: 'closed'}).innerHTML = '<button>in closed root</button><slot></slot>';
</script>`)
	want := []string{"L1", "S1", "S2 nested", "S3", "slotted light child", "L2", "light child of closed host", "L3"}
	if got := names(obs); !slices.Equal(got, want) {
		t.Fatalf("order:\n got %q\nwant %q", got, want)
	}
}

func TestHiddenControlsNeverAppear(t *testing.T) {
	t.Parallel()
	_, obs := openPage(t, `
<style>
  .clip { overflow: hidden; width: 50px; height: 20px; position: relative; }
  .clip button { position: absolute; left: 200px; }
  .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  .scroller { height: 40px; overflow: auto; }
</style>
<button>visible plain</button>
<button style="display:none">hidden display</button>
<button style="visibility:hidden">hidden visibility</button>
<button style="visibility:collapse">hidden collapse</button>
<div hidden><button>hidden attribute</button></div>
<div hidden style="display:block"><button>hidden attribute overridden by css</button></div>
<div inert><button>hidden inert</button></div>
<div aria-hidden="true"><button>hidden aria</button></div>
<button style="width:0;height:0;padding:0;border:0;overflow:hidden">hidden zero size</button>
<button style="opacity:0">hidden opacity</button>
<div style="opacity:0"><button>hidden opacity ancestor</button></div>
<div class="clip"><button>hidden clipped</button></div>
<button style="position:absolute;left:-9999px">hidden offscreen</button>
<button class="sr">hidden sr-only</button>
<button style="opacity:0.5">visible translucent</button>
<div class="scroller"><div style="height:200px"></div><button>visible in scroller</button></div>
<button style="margin-top:3000px">visible below fold</button>`)
	for _, n := range names(obs) {
		if strings.HasPrefix(n, "hidden") {
			t.Errorf("hidden control %q appeared", n)
		}
	}
	want := []string{"visible plain", "visible translucent", "visible in scroller", "visible below fold"}
	if got := names(obs); !slices.Equal(got, want) {
		t.Fatalf("visible controls:\n got %q\nwant %q", got, want)
	}
}

func TestCanariesNeverLeave(t *testing.T) {
	t.Parallel()
	s, obs := openPage(t, `
<label>Email <input value="CANARY-INPUT"></label>
<textarea aria-label="Notes">CANARY-TEXTAREA</textarea>
<input type="password" aria-label="Password" value="CANARY-PASSWORD">
<div contenteditable="true" aria-label="Draft">CANARY-EDITABLE</div>
<button data-secret="CANARY-DATA">Go</button>
<select aria-label="Pick"><option selected>CANARY-OPTION</option></select>
<div id="ed" contenteditable="true">CANARY-LABELLED-BY-EDITOR</div><button aria-labelledby="ed">Fallback</button>
<script>document.querySelector('input').value = 'CANARY-TYPED';</script>`)
	obs2, err := s.Observe(browsertest.Context(t, time.Minute), observation.Request{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []*observation.Observation{obs, obs2} {
		b, _ := json.Marshal(o)
		if strings.Contains(string(b), "CANARY") {
			t.Fatalf("a canary leaked: %s", b)
		}
		if len(o.Controls) != 8 {
			t.Fatalf("got %d controls, want 8: %q", len(o.Controls), names(o))
		}
	}
}

func buttons(n int, attrs string) string {
	return browsertest.Repeat(n, "<button "+attrs+">b%d</button>\n")
}

func TestVisibleControlBound(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, 2*time.Minute)
	for _, n := range []int{observation.MaxControls, observation.MaxControls + 1} {
		s, obs := openPage(t, buttons(n, ""))
		if len(obs.Controls) != observation.MaxControls {
			t.Fatalf("%d buttons: %d controls", n, len(obs.Controls))
		}
		cov := obs.ControlCoverage
		if n == observation.MaxControls {
			if cov.ScanLimitReached || cov.Cursor != "" || cov.Limit != "" {
				t.Fatalf("%d buttons: coverage %+v, want complete", n, cov)
			}
			continue
		}
		if !cov.ScanLimitReached || cov.Limit != observation.LimitControls || cov.Cursor == "" || cov.Scanned != observation.MaxControls {
			t.Fatalf("%d buttons: coverage %+v, want the control limit and a cursor", n, cov)
		}
		next, err := s.Observe(ctx, observation.Request{Cursor: cov.Cursor})
		if err != nil {
			t.Fatal(err)
		}
		if got := names(next); !slices.Equal(got, []string{"b256"}) || next.ControlCoverage.Cursor != "" {
			t.Fatalf("after the cursor: %q %+v", got, next.ControlCoverage)
		}
	}
}

func TestDensePageAcquiresAtMostOneLookahead(t *testing.T) {
	t.Parallel()
	s, obs := openPage(t, buttons(12000, ""))
	cov := obs.ControlCoverage
	if len(obs.Controls) != observation.MaxControls || cov.Scanned != observation.MaxControls || !cov.ScanLimitReached {
		t.Fatalf("12,000 buttons: %d controls, coverage %+v", len(obs.Controls), cov)
	}
	// Hidden candidates make the scan examine the whole window.
	_, hidden := openPage(t, buttons(12000, "hidden"))
	if c := hidden.ControlCoverage; c.Scanned != observation.WindowSize || c.Limit != observation.LimitWindow || c.Cursor == "" {
		t.Fatalf("12,000 hidden buttons: coverage %+v", c)
	}
	res := rawCollect(t, s, collect.Params{Revision: "probe"})
	if a := res.ControlCoverage.Acquired; a > observation.MaxAcquired || a < observation.MaxControls {
		t.Fatalf("acquired %d handles, want at most %d", a, observation.MaxAcquired)
	}
	hs, _ := openPage(t, buttons(12000, "hidden"))
	if a := rawCollect(t, hs, collect.Params{Revision: "probe"}).ControlCoverage.Acquired; a != observation.MaxAcquired {
		t.Fatalf("hidden page: acquired %d handles, want exactly %d", a, observation.MaxAcquired)
	}
}

// rawCollect runs the collector directly, to see what never leaves Go.
func rawCollect(t *testing.T, s *Session, p collect.Params) *collect.Result {
	t.Helper()
	raw, err := s.tab.Evaluate(browsertest.Context(t, time.Minute), collect.Expression(p))
	if err != nil {
		t.Fatal(err)
	}
	res, err := collect.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestCandidateWindowBound(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	// Exactly one window of hidden candidates: complete, no cursor.
	_, obs := openPage(t, buttons(observation.WindowSize, "hidden"))
	if c := obs.ControlCoverage; c.Scanned != observation.WindowSize || c.ScanLimitReached || c.Cursor != "" {
		t.Fatalf("%d hidden: coverage %+v", observation.WindowSize, c)
	}
	// One more candidate, visible, lies past the window: an empty window
	// still returns a cursor, and the cursor reaches it.
	s, obs := openPage(t, buttons(observation.WindowSize, "hidden")+"<button>past the window</button>")
	c := obs.ControlCoverage
	if len(obs.Controls) != 0 || c.Limit != observation.LimitWindow || c.Cursor == "" {
		t.Fatalf("window+1: %d controls, coverage %+v", len(obs.Controls), c)
	}
	next, err := s.Observe(ctx, observation.Request{Cursor: c.Cursor})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(next); !slices.Equal(got, []string{"past the window"}) || next.ControlCoverage.Offset != observation.WindowSize {
		t.Fatalf("after the cursor: %q %+v", got, next.ControlCoverage)
	}
}
