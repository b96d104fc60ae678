package chromium

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// fieldsPage holds a field of every masked kind, each filled by script with
// big black text on white, and a button with the same text.
const fieldsPage = `<!doctype html><style>
body { margin: 0; background: #fff; }
input, textarea, select, div.ce, button { display: block; margin: 24px; width: 420px; height: 64px; padding: 0 8px;
  font: bold 44px monospace; color: #000; background: #fff; border: 1px solid #000; box-sizing: border-box; }
</style>
<input id=text aria-label="Text">
<input id=pw type=password aria-label="Password">
<textarea id=ta aria-label="Notes"></textarea>
<select id=sel aria-label="Choice"><option>WWWWWWWW</option></select>
<div id=ce class=ce contenteditable role=textbox aria-label="Editor"></div>
<button id=btn>WWWWWWWW</button>
<script>
text.value = 'WWWWWWWWWWWW'; pw.value = 'WWWWWWWWWWWW'; ta.value = 'WWWWWWWWWWWW'; ce.textContent = 'WWWWWWWWWWWW';
</script>`

var fieldIDs = []string{"text", "pw", "ta", "sel", "ce"}

// openShot opens a session as tool version 1.7.0 does on html and observes it.
func openShot(t *testing.T, html string) (*Session, *observation.Observation) {
	t.Helper()
	ctx := browsertest.Context(t, time.Minute)
	bs, err := shared.Get(t).NewSession(ctx, browser.SessionOptions{Reading: true, Frames: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bs.Close(context.Background()) })
	s := bs.(*Session)
	obs, err := s.Navigate(ctx, browsertest.Serve(t, html))
	if err != nil {
		t.Fatal(err)
	}
	return s, obs
}

type cssBox struct{ L, T, R, B float64 }

// boxesOf reads the viewport boxes that expr (a JavaScript expression
// whose value maps names to elements) gives, independently of the capture.
func boxesOf(t *testing.T, s *Session, expr string) map[string]cssBox {
	t.Helper()
	raw, err := s.tab.Evaluate(browsertest.Context(t, time.Minute), `(() => { const out = {};
		for (const [k, el] of Object.entries(`+expr+`)) { const r = el.getBoundingClientRect(); out[k] = {L: r.left, T: r.top, R: r.right, B: r.bottom}; }
		return out; })()`)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]cssBox
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// byIDs is the expression naming the elements of ids by their ids.
func byIDs(ids ...string) string {
	pairs := make([]string, len(ids))
	for i, id := range ids {
		pairs[i] = fmt.Sprintf("%q: document.getElementById(%q)", id, id)
	}
	return "{" + strings.Join(pairs, ", ") + "}"
}

func decodeShot(t *testing.T, shot *Screenshot) image.Image {
	t.Helper()
	if shot.MediaType != "image/jpeg" {
		t.Fatalf("media type %q", shot.MediaType)
	}
	img, err := jpeg.Decode(bytes.NewReader(shot.Data))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != shot.Width || img.Bounds().Dy() != shot.Height {
		t.Fatalf("image %v, reported %d×%d", img.Bounds(), shot.Width, shot.Height)
	}
	return img
}

// spread is, over the pixels of b (CSS pixels, offset by the capture's
// origin at CSS (ox, oy)) in img, the largest distance of a channel from
// the mask fill, and the widest range of a channel.
func spread(img image.Image, b cssBox, scale, ox, oy float64) (fromFill, rangeOf int) {
	r := image.Rect(int(math.Floor((b.L-ox)*scale)), int(math.Floor((b.T-oy)*scale)),
		int(math.Ceil((b.R-ox)*scale)), int(math.Ceil((b.B-oy)*scale))).Intersect(img.Bounds())
	lo, hi := 255, 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			for i, c := range []int{int(cr >> 8), int(cg >> 8), int(cb >> 8)} {
				fill := []uint8{maskFill.R, maskFill.G, maskFill.B}[i]
				fromFill = max(fromFill, abs(c-int(fill)))
				lo, hi = min(lo, c), max(hi, c)
			}
		}
	}
	if r.Empty() {
		return 255, 0
	}
	return fromFill, hi - lo
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// tolerance is how far a masked pixel may stray from the fill after JPEG
// encoding; value text (black on white) is 128 away.
const tolerance = 40

func shotOf(t *testing.T, s *Session, req ScreenshotRequest) *Screenshot {
	t.Helper()
	shot, err := s.Screenshot(browsertest.Context(t, time.Minute), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(shot.Data) > orDefault(req.MaxBytes, DefaultScreenshotBytes) {
		t.Fatalf("%d bytes, cap %d", len(shot.Data), req.MaxBytes)
	}
	return shot
}

func orDefault(v, dflt int) int {
	if v == 0 {
		return dflt
	}
	return v
}

func TestScreenshotMasksFields(t *testing.T) {
	t.Parallel()
	s, _ := openShot(t, fieldsPage)
	boxes := boxesOf(t, s, byIDs(append(fieldIDs, "btn")...))
	shot := shotOf(t, s, ScreenshotRequest{})
	img := decodeShot(t, shot)
	if shot.Width < 800 || shot.Height < 500 || shot.Scale <= 0 || shot.Quality != 80 {
		t.Fatalf("viewport shot %d×%d scale %v quality %d", shot.Width, shot.Height, shot.Scale, shot.Quality)
	}
	for _, id := range fieldIDs {
		if d, _ := spread(img, boxes[id], shot.Scale, 0, 0); d > tolerance {
			t.Errorf("field %s: a pixel %d away from the fill survived", id, d)
		}
	}
	if _, r := spread(img, boxes["btn"], shot.Scale, 0, 0); r < 128 {
		t.Errorf("the button's box is uniform (range %d): it was painted over", r)
	}
	if shot.MaskedCount != len(fieldIDs) || len(shot.Masked) != len(fieldIDs) || shot.MaskedAll {
		t.Errorf("masked %d (%d listed, all %v), want %d", shot.MaskedCount, len(shot.Masked), shot.MaskedAll, len(fieldIDs))
	}
	roles := map[string]bool{}
	for _, m := range shot.Masked {
		roles[m.Role] = true
	}
	for _, r := range []string{"input", "password", "textarea", "select", "editable"} {
		if !roles[r] {
			t.Errorf("no %s among the masked boxes %+v", r, shot.Masked)
		}
	}

	raw := shotOf(t, s, ScreenshotRequest{Unmasked: true})
	img = decodeShot(t, raw)
	for _, id := range fieldIDs {
		if _, r := spread(img, boxes[id], raw.Scale, 0, 0); r < 128 {
			t.Errorf("unmasked field %s is uniform (range %d)", id, r)
		}
	}
	if raw.MaskedCount != 0 {
		t.Errorf("unmasked shot reports %d masks", raw.MaskedCount)
	}
}

func TestScreenshotOfOneControl(t *testing.T) {
	t.Parallel()
	s, obs := openShot(t, `<div style="height: 1500px"></div>`+fieldsPage)
	ref := func(name string) string {
		for _, c := range obs.Controls {
			if c.Name == name {
				return c.Ref
			}
		}
		t.Fatalf("no control %q in %v", name, names(obs))
		return ""
	}
	pw := shotOf(t, s, ScreenshotRequest{Ref: ref("Password")})
	img := decodeShot(t, pw)
	if math.Abs(float64(pw.Width)-420*pw.Scale) > 2 || math.Abs(float64(pw.Height)-64*pw.Scale) > 2 {
		t.Fatalf("password field shot %d×%d at scale %v, want 420×64 CSS px", pw.Width, pw.Height, pw.Scale)
	}
	whole := cssBox{0, 0, float64(pw.Width) / pw.Scale, float64(pw.Height) / pw.Scale}
	if d, _ := spread(img, whole, pw.Scale, 0, 0); d > tolerance {
		t.Errorf("password field shot: a pixel %d away from the fill survived", d)
	}
	btn := shotOf(t, s, ScreenshotRequest{Ref: ref("WWWWWWWW")})
	img = decodeShot(t, btn)
	if _, r := spread(img, cssBox{0, 0, float64(btn.Width) / btn.Scale, float64(btn.Height) / btn.Scale}, btn.Scale, 0, 0); r < 128 {
		t.Errorf("button shot is uniform (range %d)", r)
	}
	if btn.MaskedCount != 0 {
		t.Errorf("button shot masks %d boxes: %+v", btn.MaskedCount, btn.Masked)
	}

	_, err := s.Screenshot(browsertest.Context(t, time.Minute), ScreenshotRequest{Ref: ref("Password"), FullPage: true})
	wantCode(t, err, errcode.InvalidArgument)
	if _, err := s.Observe(browsertest.Context(t, time.Minute), observation.Request{}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Screenshot(browsertest.Context(t, time.Minute), ScreenshotRequest{Ref: ref("Password")})
	wantCode(t, err, errcode.StaleReference)
}

func TestScreenshotFullPage(t *testing.T) {
	t.Parallel()
	s, _ := openShot(t, `<div style="height: 3000px"></div>`+fieldsPage+`<div style="height: 500px"></div>`)
	boxes := boxesOf(t, s, byIDs(append(fieldIDs, "btn")...)) // in the document: not scrolled yet
	// Scrolled down, the full page still starts at the document's start.
	if _, err := s.tab.Evaluate(browsertest.Context(t, time.Minute), `scrollTo(0, 1200)`); err != nil {
		t.Fatal(err)
	}
	viewBefore := boxesOf(t, s, `{html: document.documentElement}`)["html"]
	h := viewBefore.B - viewBefore.T
	if viewBefore.T != -1200 {
		t.Fatalf("document box %+v, want scrolled by 1200", viewBefore)
	}
	shot := shotOf(t, s, ScreenshotRequest{FullPage: true, MaxBytes: 4 << 20})
	img := decodeShot(t, shot)
	if shot.FullPageCut || math.Abs(float64(shot.Height)/shot.Scale-h) > 2 {
		t.Fatalf("full page %d×%d at scale %v (cut %v), document %v CSS px tall", shot.Width, shot.Height, shot.Scale, shot.FullPageCut, h)
	}
	for _, id := range fieldIDs {
		if d, _ := spread(img, boxes[id], shot.Scale, 0, 0); d > tolerance {
			t.Errorf("field %s: a pixel %d away from the fill survived", id, d)
		}
	}
	if _, r := spread(img, boxes["btn"], shot.Scale, 0, 0); r < 128 {
		t.Errorf("the button's box is uniform (range %d)", r)
	}
	// The viewport and the scroll position are back as they were.
	after := boxesOf(t, s, `{html: document.documentElement}`)["html"]
	if after != viewBefore {
		t.Errorf("document box %+v after the shot, %+v before", after, viewBefore)
	}
	view := shotOf(t, s, ScreenshotRequest{})
	if view.Height >= shot.Height/2 {
		t.Errorf("viewport shot %d px tall after a full page of %d", view.Height, shot.Height)
	}
}

func TestScreenshotFullPageCut(t *testing.T) {
	t.Parallel()
	s, _ := openShot(t, `<div style="height: 16300px"></div>`+fieldsPage)
	boxes := boxesOf(t, s, byIDs("text")) // in the document: not scrolled yet
	// Scrolled down, the cut page still starts at the document's start.
	if _, err := s.tab.Evaluate(browsertest.Context(t, time.Minute), `scrollTo(0, 2000)`); err != nil {
		t.Fatal(err)
	}
	shot := shotOf(t, s, ScreenshotRequest{FullPage: true, MaxBytes: 8 << 20})
	img := decodeShot(t, shot)
	if !shot.FullPageCut || shot.Scale != 1 || shot.Height != MaxFullPageHeight {
		t.Fatalf("full page %d×%d at scale %v, cut %v; want %d tall, cut", shot.Width, shot.Height, shot.Scale, shot.FullPageCut, MaxFullPageHeight)
	}
	// The text field straddles the cut.
	if b := boxes["text"]; b.T >= MaxFullPageHeight || b.B <= MaxFullPageHeight {
		t.Fatalf("the text field %+v does not straddle the cut", b)
	}
	if d, _ := spread(img, boxes["text"], shot.Scale, 0, 0); d > tolerance {
		t.Errorf("a pixel %d away from the fill survived in the field the cut ends in", d)
	}
}

// noisyPage is a viewport of random colours, which no JPEG compresses well.
const noisyPage = `<!doctype html><body style="margin: 0"><canvas id=c></canvas><script>
c.width = innerWidth; c.height = innerHeight;
const g = c.getContext('2d'), d = g.createImageData(c.width, c.height);
for (let i = 0; i < d.data.length; i++) d.data[i] = (i % 4 === 3) ? 255 : Math.random() * 256;
g.putImageData(d, 0, 0);
</script>`

func TestScreenshotByteCap(t *testing.T) {
	t.Parallel()
	s, _ := openShot(t, noisyPage)
	const limit = 20 << 10
	shot := shotOf(t, s, ScreenshotRequest{MaxBytes: limit})
	decodeShot(t, shot)
	if len(shot.Data) > limit || shot.Quality != 25 || shot.Scale >= 1 || shot.Width < 160 {
		t.Fatalf("%d bytes, quality %d, scale %v, %d px wide; want at most %d bytes, reduced", len(shot.Data), shot.Quality, shot.Scale, shot.Width, limit)
	}
	_, err := s.Screenshot(browsertest.Context(t, time.Minute), ScreenshotRequest{MaxBytes: 200})
	wantCode(t, err, errcode.TooLarge)
}

func TestScreenshotMasksShadowRootsAndFrames(t *testing.T) {
	t.Parallel()
	other := browsertest.OtherOrigin(browsertest.ServePages(t, map[string]string{
		"/": `<body style="margin: 0; background: #fff"><p style="font: bold 40px monospace">WWWWWW</p></body>`,
	}))
	frameStyle := `style="display: block; margin: 24px; width: 500px; height: 120px; border: 0"`
	s, _ := openShot(t, `<!doctype html><body style="margin: 0; background: #fff">
<div id=host></div>
<iframe id=same `+frameStyle+` srcdoc="<body style='margin: 0'><input id=inner style='margin: 20px; width: 400px; height: 64px; font: bold 44px monospace' value=WWWWWWWW>"></iframe>
<iframe id=cross `+frameStyle+` src="`+other+`/"></iframe>
<script>
const root = host.attachShadow({mode: 'open'});
root.innerHTML = '<input id=shadowed style="margin: 24px; width: 420px; height: 64px; font: bold 44px monospace">';
root.getElementById('shadowed').value = 'WWWWWWWW';
</script>`)
	// The frames load in their own time.
	ctx := browsertest.Context(t, time.Minute)
	for {
		raw, err := s.tab.Evaluate(ctx, `!!(document.getElementById('same').contentDocument.getElementById('inner')) && document.getElementById('cross').contentWindow.length === 0`)
		if err == nil && string(raw) == "true" {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the frames did not load")
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // the cross-origin frame paints
	boxes := boxesOf(t, s, `{shadowed: host.shadowRoot.getElementById('shadowed'), same: document.getElementById('same'), cross: document.getElementById('cross'),
		inner: document.getElementById('same').contentDocument.getElementById('inner')}`)
	inner := boxes["inner"]
	same := boxes["same"]
	inner = cssBox{inner.L + same.L, inner.T + same.T, inner.R + same.L, inner.B + same.T}
	shot := shotOf(t, s, ScreenshotRequest{})
	img := decodeShot(t, shot)
	for id, b := range map[string]cssBox{"shadowed": boxes["shadowed"], "inner": inner, "cross": boxes["cross"]} {
		if d, _ := spread(img, b, shot.Scale, 0, 0); d > tolerance {
			t.Errorf("%s: a pixel %d away from the fill survived", id, d)
		}
	}
	// The readable frame is not painted over whole, only its field.
	if d, _ := spread(img, cssBox{same.L, same.T, same.R, inner.T - 4}, shot.Scale, 0, 0); d < 100 {
		t.Errorf("the readable frame's page around its field is painted over (%d from the fill)", d)
	}
}

func TestScreenshotManyFieldsMaskAll(t *testing.T) {
	t.Parallel()
	s, _ := openShot(t, `<!doctype html><body style="margin: 0; background: #fff; line-height: 0"><div style="font: bold 40px monospace">WWWWWW</div><script>
for (let i = 0; i < 4097; i++) { const e = document.createElement('input'); e.style.cssText = 'width: 6px; height: 6px; margin: 0; padding: 0; border: 0'; document.body.append(e); }
</script>`)
	shot := shotOf(t, s, ScreenshotRequest{})
	img := decodeShot(t, shot)
	if !shot.MaskedAll {
		t.Fatalf("%d masked, not all", shot.MaskedCount)
	}
	if d, _ := spread(img, cssBox{0, 0, float64(shot.Width) / shot.Scale, float64(shot.Height) / shot.Scale}, shot.Scale, 0, 0); d > tolerance {
		t.Errorf("a pixel %d away from the fill survived", d)
	}
}

func TestScreenshotDevicePixelRatio(t *testing.T) {
	t.Parallel()
	s, _ := openShot(t, fieldsPage)
	ctx := browsertest.Context(t, time.Minute)
	if _, err := cdp.Call(ctx, s.tab.Target(), emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: 1000, Height: 700, DeviceScaleFactor: 2,
	}); err != nil {
		t.Fatal(err)
	}
	boxes := boxesOf(t, s, byIDs(append(fieldIDs, "btn")...))
	shot := shotOf(t, s, ScreenshotRequest{MaxBytes: 1 << 20})
	img := decodeShot(t, shot)
	if shot.Scale != 2 || shot.Width != 2000 || shot.Height != 1400 {
		t.Fatalf("shot %d×%d at scale %v, want 2000×1400 at 2", shot.Width, shot.Height, shot.Scale)
	}
	for _, id := range fieldIDs {
		if d, _ := spread(img, boxes[id], shot.Scale, 0, 0); d > tolerance {
			t.Errorf("field %s: a pixel %d away from the fill survived", id, d)
		}
	}
	if _, r := spread(img, boxes["btn"], shot.Scale, 0, 0); r < 128 {
		t.Errorf("the button's box is uniform (range %d)", r)
	}
}
