package chromium

import (
	"encoding/json"
	"fmt"
	"html"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// The frames' own bounds (docs/frames.md), each at the bound and one past
// it, the grant, privacy and the kinds of frame a page may hold.

// sameOrigin serves pages by path on 127.0.0.1, the origin of the top
// documents browsertest.Serve serves, and returns their base URL.
func sameOrigin(t *testing.T, pages map[string]string) string {
	t.Helper()
	return browsertest.ServePages(t, pages)
}

// observeUntil observes s until ready holds (out-of-process frames load
// and attach in their own time) and returns the last observation; the
// caller asserts on it either way. Every observation passes admission.
func observeUntil(t *testing.T, s *Session, obs *observation.Observation, ready func(*observation.Observation) bool) *observation.Observation {
	t.Helper()
	ctx := browsertest.Context(t, 2*time.Minute)
	for range 40 {
		admit(t, obs)
		if ready(obs) {
			return obs
		}
		time.Sleep(250 * time.Millisecond)
		var err error
		if obs, err = s.Observe(ctx, observation.Request{}); err != nil {
			t.Fatal(err)
		}
	}
	admit(t, obs)
	return obs
}

func admit(t *testing.T, obs *observation.Observation) {
	t.Helper()
	if err := observation.Validate(obs); err != nil {
		t.Fatalf("admission refused the observation: %v; frames %+v", err, obs.Frames)
	}
}

func hasControl(obs *observation.Observation, name string) bool {
	return slices.Contains(names(obs), name)
}

func seq(prefix string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

func statuses(obs *observation.Observation) []string {
	var out []string
	for _, f := range obs.Frames {
		out = append(out, f.Status)
	}
	return out
}

// httpOrigin is the origin of an http URL: scheme and host.
func httpOrigin(u string) string {
	scheme, rest, _ := strings.Cut(u, "://")
	host, _, _ := strings.Cut(rest, "/")
	return scheme + "://" + host
}

// framesPage is a top document with n frames, every other one srcdoc and
// the others cross-origin, frame i holding the button fi, between the
// buttons "top start" and "top end".
func framesPage(t *testing.T, n int) string {
	pages := map[string]string{}
	for i := 1; i < n; i += 2 {
		pages[fmt.Sprintf("/f%d", i)] = fmt.Sprintf("<button>f%d</button>", i)
	}
	other := otherOrigin(t, pages)
	var b strings.Builder
	b.WriteString("<button>top start</button>\n")
	for i := range n {
		if i%2 == 0 {
			fmt.Fprintf(&b, `<iframe srcdoc="<button>f%d</button>" style="width:120px;height:50px"></iframe>`+"\n", i)
		} else {
			fmt.Fprintf(&b, `<iframe src="%sf%d" style="width:120px;height:50px"></iframe>`+"\n", other, i)
		}
	}
	b.WriteString("<button>top end</button>\n")
	return browsertest.Serve(t, b.String())
}

func TestFrameCountBound(t *testing.T) {
	t.Parallel()
	for _, n := range []int{observation.MaxFrames, observation.MaxFrames + 1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			s, obs := openFrames(t, framesPage(t, n), nil)
			shown := min(n, observation.MaxFrames)
			want := append(append([]string{"top start"}, seq("f", 0, shown)...), "top end")
			obs = observeUntil(t, s, obs, func(o *observation.Observation) bool { return slices.Equal(names(o), want) })
			if got := names(obs); !slices.Equal(got, want) {
				t.Fatalf("controls %q, want %q; frames %+v", got, want, obs.Frames)
			}
			if len(obs.Frames) != n || obs.FramesOmitted != 0 {
				t.Fatalf("%d frame records, %d omitted, want %d; frames %+v", len(obs.Frames), obs.FramesOmitted, n, obs.Frames)
			}
			for i, f := range obs.Frames {
				want := observation.FrameCollected
				if i >= observation.MaxFrames {
					want = observation.FrameLimit
				}
				if f.Status != want || f.Depth != 1 || f.Parent != 0 || f.Index != i+1 {
					t.Fatalf("frame %d: %+v, want %s at depth 1; frames %+v", i+1, f, want, obs.Frames)
				}
				if want == observation.FrameCollected && (f.Controls != 1 || frameOf(obs, fmt.Sprintf("f%d", i)) != f.Index) {
					t.Fatalf("frame %d: %+v, its button in frame %d", i+1, f, frameOf(obs, fmt.Sprintf("f%d", i)))
				}
			}
			if n > observation.MaxFrames {
				last := obs.Frames[observation.MaxFrames]
				if last.Controls != 0 || last.TextParts != 0 || last.Scanned != 0 || hasControl(obs, fmt.Sprintf("f%d", observation.MaxFrames)) {
					t.Fatalf("the frame past the bound was read: %+v", last)
				}
			}
		})
	}
}

// chainPage is a top document holding a chain of n nested frames: level k
// holds the button dk and the frame of level k+1. Odd levels are pages of
// another origin, even levels srcdoc documents inside them.
func chainPage(t *testing.T, n int) string {
	pages := map[string]string{}
	var level func(k int) string
	level = func(k int) string {
		doc := fmt.Sprintf("<p>text d%d</p><button>d%d</button>", k, k)
		if k == 0 {
			doc = "<p>text top</p><button>top</button>"
		}
		if k < n {
			child := level(k + 1)
			if (k+1)%2 == 1 {
				doc += fmt.Sprintf(`<iframe src="/d%d" style="width:500px;height:400px"></iframe>`, k+1)
			} else {
				doc += `<iframe srcdoc="` + html.EscapeString(child) + `" style="width:500px;height:400px"></iframe>`
			}
		}
		doc += fmt.Sprintf("<button>after d%d</button>", k)
		if k%2 == 1 {
			pages[fmt.Sprintf("/d%d", k)] = doc
		}
		return doc
	}
	top := level(0)
	other := otherOrigin(t, pages)
	// The top document is served on 127.0.0.1: its first frame names the
	// other origin in full.
	top = strings.Replace(top, `src="/d1"`, `src="`+other+`d1"`, 1)
	return browsertest.Serve(t, top)
}

func TestFrameDepthBound(t *testing.T) {
	t.Parallel()
	for _, n := range []int{observation.MaxFrameDepth, observation.MaxFrameDepth + 1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			s, obs := openFrames(t, chainPage(t, n), nil)
			shown := min(n, observation.MaxFrameDepth)
			want := []string{"top"}
			for k := 1; k <= shown; k++ {
				want = append(want, fmt.Sprintf("d%d", k))
			}
			for k := shown; k >= 0; k-- {
				want = append(want, fmt.Sprintf("after d%d", k))
			}
			obs = observeUntil(t, s, obs, func(o *observation.Observation) bool {
				// The frame past the bound is not read, so no button of
				// its own says that its document has committed; until it
				// has, its origin reads "null" (opaque: no document).
				// Wait for it to be its parent's.
				settled := n <= observation.MaxFrameDepth ||
					len(o.Frames) == n && o.Frames[n-1].Origin == o.Frames[0].Origin
				return slices.Equal(names(o), want) && len(o.Frames) == n && settled
			})
			if got := names(obs); !slices.Equal(got, want) {
				t.Fatalf("controls %q, want %q; frames %+v", got, want, obs.Frames)
			}
			if len(obs.Frames) != n {
				t.Fatalf("%d frame records, want %d: %+v", len(obs.Frames), n, obs.Frames)
			}
			for i, f := range obs.Frames {
				want := observation.FrameCollected
				if f.Depth > observation.MaxFrameDepth {
					want = observation.FrameDepthLimit
				}
				if f.Depth != i+1 || f.Parent != i || f.Status != want {
					t.Fatalf("frame %d: %+v, want depth %d, parent %d, %s; frames %+v", i+1, f, i+1, i, want, obs.Frames)
				}
				if want == observation.FrameCollected && (f.Controls != 2 || f.TextParts < 1) {
					t.Fatalf("frame %d: %+v, want its two buttons and its text", i+1, f)
				}
			}
			var text []string
			for _, p := range obs.Text {
				text = append(text, p.Text)
			}
			j := strings.Join(text, "|")
			if !inOrder(j, "text top", fmt.Sprintf("text d%d", shown)) {
				t.Fatalf("text %q", j)
			}
			if n > observation.MaxFrameDepth {
				deep := obs.Frames[n-1]
				if deep.Controls != 0 || deep.TextParts != 0 || hasControl(obs, fmt.Sprintf("d%d", n)) ||
					strings.Contains(j, fmt.Sprintf("text d%d", n)) {
					t.Fatalf("the frame past the depth bound was read: %+v; text %q", deep, j)
				}
				// Once its document committed, the frame past the bound
				// has the origin of that document, its parent's. (Before,
				// the frame tree read when its process was attached could
				// overwrite the commit with the frame as it was before it,
				// the URL ":" and an opaque origin, for good: 2 runs in 26
				// under load.)
				if deep.Origin != obs.Frames[0].Origin {
					t.Fatalf("deep frame origin %q, want %q", deep.Origin, obs.Frames[0].Origin)
				}
			}
		})
	}
}

// controlsPage is a top document of before buttons, a cross-origin frame
// of inFrame buttons, and after buttons.
func controlsPage(t *testing.T, before, inFrame, after int) string {
	other := otherOrigin(t, map[string]string{"/many": browsertest.Repeat(inFrame, "<button>c%d</button>\n")})
	return browsertest.Serve(t, browsertest.Repeat(before, "<button>t%d</button>\n")+
		`<iframe src="`+other+`many" style="width:600px;height:400px"></iframe>`+"\n"+
		strings.ReplaceAll(browsertest.Repeat(after, "<button>t%d</button>\n"), "<button>t", "<button>u"))
}

func TestFrameControlBound(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                   string
		before, inFrame, after int
		frameLimit             string // the bound the frame's own scan hit
		shownIn, shownAfter    int
	}{
		{"256", 100, 156, 0, "", 156, 0},
		{"256 around", 50, 156, 50, "", 156, 50},
		{"257 after the frame", 50, 157, 50, "", 157, 49},
		{"257 in the frame", 50, 207, 0, observation.LimitControls, 206, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, obs := openFrames(t, controlsPage(t, tc.before, tc.inFrame, tc.after), nil)
			want := append(append(seq("t", 0, tc.before), seq("c", 0, tc.shownIn)...), seq("u", 0, tc.shownAfter)...)
			obs = observeUntil(t, s, obs, func(o *observation.Observation) bool { return slices.Equal(names(o), want) })
			if got := names(obs); !slices.Equal(got, want) {
				t.Fatalf("controls %d %q, want %d %q; frames %+v", len(got), got, len(want), want, obs.Frames)
			}
			if len(obs.Controls) != observation.MaxControls {
				t.Fatalf("%d controls, want %d", len(obs.Controls), observation.MaxControls)
			}
			cov := obs.ControlCoverage
			total := tc.before + tc.inFrame + tc.after
			if total == observation.MaxControls && (cov.ScanLimitReached || cov.Limit != "") {
				t.Fatalf("%d controls: coverage %+v, want no limit", total, cov)
			}
			if total > observation.MaxControls && (!cov.ScanLimitReached || cov.Limit != observation.LimitControls) {
				t.Fatalf("%d controls: coverage %+v, want scan_limit_reached at %q", total, cov, observation.LimitControls)
			}
			if len(obs.Frames) != 1 {
				t.Fatalf("frames %+v, want one", obs.Frames)
			}
			f := obs.Frames[0]
			if f.Status != observation.FrameCollected || f.Controls != tc.shownIn || f.Limit != tc.frameLimit {
				t.Fatalf("frame %+v, want collected with %d controls, limit %q", f, tc.shownIn, tc.frameLimit)
			}
			for i, c := range obs.Controls {
				inFrame := i >= tc.before && i < tc.before+tc.shownIn
				if (c.Frame == f.Index) != inFrame {
					t.Fatalf("control %d %q in frame %d", i, c.Name, c.Frame)
				}
			}
		})
	}
}

func TestFrameNotGranted(t *testing.T) {
	t.Parallel()
	other := otherOrigin(t, map[string]string{
		"/secret": `<p>secret text</p><button>secret button</button><iframe srcdoc="<button>secret nested</button>"></iframe>`,
	})
	base := sameOrigin(t, map[string]string{
		"/top": `<button>top</button>
<iframe src="/inner" style="width:300px;height:100px"></iframe>
<iframe src="` + other + `secret" style="width:300px;height:200px"></iframe>
<iframe srcdoc="<p>srcdoc text</p><button>srcdoc button</button>" style="width:300px;height:100px"></iframe>
<button>end</button>`,
		"/inner": `<p>inner text</p><button>inner button</button>`,
	})
	topOrigin := httpOrigin(base)
	var asked []string
	allowed := func(origin string) bool {
		asked = append(asked, origin)
		return origin == topOrigin
	}
	s, obs := openFrames(t, base+"top", allowed)
	want := []string{"top", "inner button", "srcdoc button", "end"}
	obs = observeUntil(t, s, obs, func(o *observation.Observation) bool {
		return slices.Equal(names(o), want) && slices.Equal(statuses(o), []string{"collected", "not_granted", "collected"})
	})
	if got := names(obs); !slices.Equal(got, want) {
		t.Fatalf("controls %q, want %q; frames %+v", got, want, obs.Frames)
	}
	if len(obs.Frames) != 3 {
		t.Fatalf("frames %+v, want three", obs.Frames)
	}
	inner, secret, src := obs.Frames[0], obs.Frames[1], obs.Frames[2]
	if inner.Status != observation.FrameCollected || inner.Origin != topOrigin || inner.Controls != 1 {
		t.Fatalf("same-origin frame %+v", inner)
	}
	if secret.Status != observation.FrameNotGranted || secret.Origin != httpOrigin(other) || secret.Depth != 1 ||
		secret.Controls != 0 || secret.TextParts != 0 || secret.Scanned != 0 {
		t.Fatalf("refused frame %+v, want not_granted at %s with nothing read", secret, httpOrigin(other))
	}
	if src.Status != observation.FrameCollected || src.Origin != topOrigin {
		t.Fatalf("srcdoc frame %+v", src)
	}
	j, err := json.Marshal(obs)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(j), "secret") {
		t.Fatalf("the refused frame's content crossed: %s", j)
	}
	var text []string
	for _, p := range obs.Text {
		text = append(text, p.Text)
	}
	if !inOrder(strings.Join(text, "|"), "inner text", "srcdoc text") {
		t.Fatalf("text %q", text)
	}
	if !slices.Contains(asked, httpOrigin(other)) {
		t.Fatalf("the grant was asked about %q, never about %q", asked, httpOrigin(other))
	}
}

// canaries is a document of fields holding values and of hidden text,
// every one marked with tag: none of it may cross.
func canaries(tag string) string {
	return `<p>visible ` + tag + `</p>
<label>Password ` + tag + ` <input type="password" value="CANARY-pw-` + tag + `"></label>
<label>Text ` + tag + ` <input id="typed" value="CANARY-text-` + tag + `"></label>
<label>Notes ` + tag + ` <textarea>CANARY-area-` + tag + `</textarea></label>
<div contenteditable="true" aria-label="Editor ` + tag + `">CANARY-editable-` + tag + `</div>
<p style="display:none">CANARY-none-` + tag + `</p>
<p aria-hidden="true">CANARY-aria-` + tag + `</p>
<div hidden>CANARY-hidden-` + tag + `</div>
<script>document.getElementById("typed").value = "CANARY-script-` + tag + `";</script>`
}

func TestFrameCanaries(t *testing.T) {
	t.Parallel()
	other := otherOrigin(t, map[string]string{"/cross": canaries("cross")})
	base := sameOrigin(t, map[string]string{
		"/top": canaries("top") +
			`<iframe src="/same" style="width:400px;height:300px"></iframe>
<iframe srcdoc="` + html.EscapeString(canaries("srcdoc")) + `" style="width:400px;height:300px"></iframe>
<iframe src="` + other + `cross" style="width:400px;height:300px"></iframe>`,
		"/same": canaries("same"),
	})
	s, obs := openFrames(t, base+"top", nil)
	want := []string{"Editor top", "Editor same", "Editor srcdoc", "Editor cross"}
	obs = observeUntil(t, s, obs, func(o *observation.Observation) bool {
		for _, w := range want {
			if !hasControl(o, w) {
				return false
			}
		}
		return true
	})
	if !inOrder(strings.Join(names(obs), "|"), want...) {
		t.Fatalf("controls %q; frames %+v", names(obs), obs.Frames)
	}
	if len(obs.Frames) != 3 {
		t.Fatalf("frames %+v, want three", obs.Frames)
	}
	for _, f := range obs.Frames {
		// Each frame shows its four fields, without their values, and its
		// visible text.
		if f.Status != observation.FrameCollected || f.Controls != 4 || f.TextParts < 1 {
			t.Fatalf("frame %+v, want collected with its four fields", f)
		}
	}
	var text []string
	for _, p := range obs.Text {
		text = append(text, p.Text)
	}
	if !inOrder(strings.Join(text, "|"), "visible top", "visible same", "visible srcdoc", "visible cross") {
		t.Fatalf("text %q", text)
	}
	j, err := json.Marshal(obs)
	if err != nil {
		t.Fatal(err)
	}
	if i := strings.Index(string(j), "CANARY"); i >= 0 {
		t.Fatalf("a value or hidden text crossed: …%s…", j[max(i-200, 0):min(i+200, len(j))])
	}
}

func TestFrameKinds(t *testing.T) {
	t.Parallel()
	other := otherOrigin(t, map[string]string{
		"/sandboxed": `<button>sandboxed cross</button>`,
		"/lazy-near": `<button>lazy near</button>`,
		"/lazy-far":  `<button>lazy far</button>`,
	})
	top := browsertest.Serve(t, `<button>top</button>
<iframe sandbox="" srcdoc="<button>sandboxed srcdoc</button>" style="width:200px;height:60px"></iframe>
<iframe sandbox="allow-scripts" src="`+other+`sandboxed" style="width:200px;height:60px"></iframe>
<iframe loading="lazy" src="`+other+`lazy-near" style="width:200px;height:60px"></iframe>
<iframe width="0" height="0" srcdoc="<button>zero size</button>"></iframe>
<iframe width="0" height="0" style="border:0" srcdoc="<button>zero box</button>"></iframe>
<iframe style="visibility:hidden;width:200px;height:60px" srcdoc="<button>invisible</button>"></iframe>
<div style="display:none"><iframe srcdoc="<button>in none</button>" style="width:200px;height:60px"></iframe></div>
<div style="height:5000px">spacer</div>
<iframe loading="lazy" src="`+other+`lazy-far" style="width:200px;height:60px"></iframe>
<button>bottom</button>`)
	s, obs := openFrames(t, top, nil)
	want := []string{"top", "sandboxed srcdoc", "sandboxed cross", "lazy near"}
	obs = observeUntil(t, s, obs, func(o *observation.Observation) bool {
		return inOrder(strings.Join(names(o), "|"), want...) && len(o.Frames) == 8
	})
	got := names(obs)
	if !inOrder(strings.Join(got, "|"), append(want, "bottom")...) {
		t.Fatalf("controls %q, want %q in order; frames %+v", got, want, obs.Frames)
	}
	for _, hidden := range []string{"zero size", "zero box", "invisible", "in none"} {
		if slices.Contains(got, hidden) {
			t.Errorf("the hidden frame's %q crossed: controls %q", hidden, got)
		}
	}
	if len(obs.Frames) != 8 {
		t.Fatalf("frames %+v, want eight", obs.Frames)
	}
	topOrigin, otherOrigin := obs.Origin, httpOrigin(other)
	type want1 struct {
		status, origin, button string
	}
	wants := []want1{
		// An about:srcdoc frame is recorded and judged by its parent's
		// origin, sandboxed or not.
		{observation.FrameCollected, topOrigin, "sandboxed srcdoc"},
		// A sandboxed http frame by its URL's origin.
		{observation.FrameCollected, otherOrigin, "sandboxed cross"},
		{observation.FrameCollected, otherOrigin, "lazy near"},
		// width=0 height=0 keeps the default 2px border: a 4x4 box
		// whose frame has no room at all to show its content.
		{observation.FrameNotVisible, topOrigin, ""},
		{observation.FrameNotVisible, topOrigin, ""},
		{observation.FrameNotVisible, topOrigin, ""},
		{observation.FrameNotVisible, topOrigin, ""},
	}
	for i, w := range wants {
		f := obs.Frames[i]
		if f.Status != w.status || f.Origin != w.origin || f.Depth != 1 {
			t.Errorf("frame %d: %+v, want %s at %s", i+1, f, w.status, w.origin)
		}
		if w.button != "" && frameOf(obs, w.button) != f.Index {
			t.Fatalf("%q in frame %d, want %d", w.button, frameOf(obs, w.button), f.Index)
		}
	}
	// The lazy frame below the fold: whatever it says, it says it with a
	// status of the table, and shows its button only when collected.
	far := obs.Frames[7]
	if !slices.Contains(observation.FrameStatuses, far.Status) {
		t.Fatalf("lazy frame below the fold: %+v", far)
	}
	if hasControl(obs, "lazy far") != (far.Status == observation.FrameCollected && far.Controls == 1) {
		t.Fatalf("lazy frame below the fold %+v; controls %q", far, got)
	}
	t.Logf("lazy frame below the fold: %+v", far)
}

// A lazy frame below the fold has no document of its own until it is
// scrolled near: the observation records it without content; once in view
// it loads and is collected in its place.
func TestFrameLazyScrolledIn(t *testing.T) {
	t.Parallel()
	other := otherOrigin(t, map[string]string{"/lazy-far": `<button>lazy far</button>`})
	top := browsertest.Serve(t, `<button>top</button><div style="height:5000px">spacer</div>
<iframe loading="lazy" src="`+other+`lazy-far" style="width:200px;height:60px"></iframe><button>bottom</button>`)
	s, obs := openFrames(t, top, nil)
	admit(t, obs)
	if len(obs.Frames) != 1 || !slices.Contains(observation.FrameStatuses, obs.Frames[0].Status) ||
		obs.Frames[0].Status == observation.FrameCollected || hasControl(obs, "lazy far") {
		t.Fatalf("before scrolling: frames %+v; controls %q", obs.Frames, names(obs))
	}
	ctx := browsertest.Context(t, time.Minute)
	if _, err := s.tab.Evaluate(ctx, "(window.scrollTo(0, document.body.scrollHeight), true)"); err != nil {
		t.Fatal(err)
	}
	want := []string{"top", "lazy far", "bottom"}
	obs = observeUntil(t, s, obs, func(o *observation.Observation) bool { return slices.Equal(names(o), want) })
	if got := names(obs); !slices.Equal(got, want) || len(obs.Frames) != 1 {
		t.Fatalf("after scrolling: controls %q, want %q; frames %+v", got, want, obs.Frames)
	}
	if f := obs.Frames[0]; f.Status != observation.FrameCollected || f.Origin != httpOrigin(other) || f.Controls != 1 {
		t.Fatalf("after scrolling: frame %+v, want collected at %s", f, httpOrigin(other))
	}
}
