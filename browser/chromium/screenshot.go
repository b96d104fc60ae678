package chromium

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/imagecap"
)

// Screenshots. A capture is the viewport (the default), one control's box
// (scrolled into view, clipped to the viewport), or the whole page: the
// viewport's width by the document's height, at most MaxFullPageHeight CSS
// pixels, shown by a viewport that tall for the capture's duration (so the
// boxes read and the pixels captured share one layout: fixed elements, vh
// units), then scrolled back to where it was.
//
// Masking is painted in Go on the decoded capture, never by an overlay in
// the page (screenshot.js says why): the boxes to paint over are read in
// the page right before and right after the capture, and each element is
// painted over from where it was to where it went (the box holding both),
// padded by maskPad CSS pixels so that no anti-aliased value pixel
// survives. The capture is taken as PNG, losslessly: a lossy first
// encoding would spread a value's traces past its box before the paint.
// A read the node or box bound stops paints the whole capture over.

const (
	// DefaultScreenshotBytes is the byte cap of a screenshot whose request
	// sets none.
	DefaultScreenshotBytes = 256 << 10
	// MaxFullPageHeight bounds a full-page capture's height, in CSS pixels.
	MaxFullPageHeight = 16384
	// MaxListedMasks bounds the painted boxes a screenshot lists; MaskedCount
	// counts them all.
	MaxListedMasks = 32
	// maskPad widens every painted box on each side, in CSS pixels.
	maskPad = 2
)

// maskFill is the one colour every painted box has.
var maskFill = color.RGBA{R: 128, G: 128, B: 128, A: 255}

// The screenshot's types are the browser package's.
type (
	ScreenshotRequest = browser.ScreenshotRequest
	MaskedBox         = browser.MaskedBox
	Screenshot        = browser.Screenshot
)

// Screenshot captures the page as req asks.
func (s *Session) Screenshot(ctx context.Context, req ScreenshotRequest) (*Screenshot, error) {
	if req.MaxBytes < 0 {
		return nil, errcode.New(errcode.InvalidArgument, "the byte cap must not be negative")
	}
	if req.MaxBytes == 0 {
		req.MaxBytes = DefaultScreenshotBytes
	}
	if req.Ref != "" && req.FullPage {
		return nil, errcode.New(errcode.InvalidArgument, "capture either one control or the full page")
	}
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.lock.Release(1)
	if s.tab.Dialog() != nil {
		return nil, errcode.New(errcode.NotActionable, "a JavaScript dialog is open; answer it before a screenshot")
	}
	var target *collect.Target
	if req.Ref != "" {
		ct, err := s.control(req.Ref)
		if err != nil {
			return nil, err
		}
		defer s.leaveFrame()
		if s.act != nil {
			return nil, errcode.New(errcode.NotActionable, "a control inside a frame cannot be captured alone; capture the viewport")
		}
		target = &ct
	}
	shot, err := s.screenshot(ctx, req, target)
	if err != nil && s.Gone() {
		return nil, errBrowserGone
	}
	if shot != nil && s.revision > 0 {
		shot.Revision = s.revisionToken(s.revision)
	}
	return shot, err
}

// shotStep runs one step of a capture in the top document.
func (s *Session) shotStep(ctx context.Context, r collect.ShotRequest) (*collect.ShotResult, error) {
	return collectOr(ctx, s.tab.Evaluate, collect.Shot(r), collect.DecodeShot, "the page could not be captured", func(refusal collect.Refusal) error {
		if refusal == collect.DocumentChanged {
			return errcode.New(errcode.DocumentChanged, "the page loaded a new document during the screenshot; observe again")
		}
		// The control captured alone is gone or hidden: said as to an action.
		return controlRefusal(refusal)
	})
}

func (s *Session) screenshot(ctx context.Context, req ScreenshotRequest, target *collect.Target) (*Screenshot, error) {
	out := &Screenshot{MediaType: "image/jpeg"}
	if req.FullPage {
		view, err := s.shotStep(ctx, collect.ShotRequest{Step: collect.ShotView})
		if err != nil {
			return nil, err
		}
		height := math.Ceil(view.ScrollHeight)
		if height > MaxFullPageHeight {
			height, out.FullPageCut = MaxFullPageHeight, true
		}
		restore, err := s.showWhole(ctx, view, int64(math.Max(height, view.Height)))
		if err != nil {
			return nil, err
		}
		defer restore()
	}
	before, err := s.shotStep(ctx, collect.ShotRequest{Step: collect.ShotBefore, Target: target, Fields: !req.Unmasked, Top: req.FullPage})
	if err != nil {
		return nil, err
	}
	img, err := s.capture(ctx)
	if err != nil {
		return nil, err
	}
	// Image pixels per CSS pixel, from what was captured: the device pixel
	// ratio, whatever set it.
	sx, sy := float64(img.Bounds().Dx())/before.Width, float64(img.Bounds().Dy())/before.Height
	var masks []collect.MaskBox
	all := false
	if !req.Unmasked {
		after, err := s.shotStep(ctx, collect.ShotRequest{Step: collect.ShotAfter, Doc: before.Doc})
		if err != nil {
			return nil, err
		}
		if after.Width != before.Width || after.Height != before.Height {
			return nil, errcode.New(errcode.CaptureFailed, "the viewport changed size during the screenshot; try again")
		}
		masks, all = maskBoxes(before, after)
	}
	var painted []image.Rectangle
	var kinds []string
	if all {
		painted, kinds = []image.Rectangle{img.Bounds()}, []string{"page"}
	}
	for _, m := range masks {
		r := image.Rect(int(math.Floor((m.L-maskPad)*sx)), int(math.Floor((m.T-maskPad)*sy)),
			int(math.Ceil((m.R+maskPad)*sx)), int(math.Ceil((m.B+maskPad)*sy))).Intersect(img.Bounds())
		if !r.Empty() {
			painted, kinds = append(painted, r), append(kinds, m.Kind)
		}
	}
	imagecap.Fill(img, painted, maskFill)
	if target != nil {
		t := before.Target
		clip := image.Rect(int(math.Floor(t.L*sx)), int(math.Floor(t.T*sy)), int(math.Ceil(t.R*sx)), int(math.Ceil(t.B*sy))).Intersect(img.Bounds())
		if clip.Empty() {
			return nil, errcode.New(errcode.NotActionable, "the control is not visible; observe again")
		}
		img = imagecap.Crop(img, clip)
		for i := range painted {
			painted[i] = painted[i].Intersect(clip).Sub(clip.Min)
		}
	}
	enc, err := imagecap.FitJPEG(img, req.MaxBytes)
	if errors.Is(err, imagecap.ErrTooLarge) {
		return nil, errcode.New(errcode.TooLarge, "the screenshot does not fit in %d bytes even %d pixels wide at quality %d; raise the byte cap",
			req.MaxBytes, imagecap.MinWidth, imagecap.Qualities[len(imagecap.Qualities)-1])
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.CaptureFailed, err, "the screenshot could not be encoded")
	}
	out.Data, out.Width, out.Height, out.Quality = enc.Data, enc.Width, enc.Height, enc.Quality
	out.Scale = sx * enc.Scale
	out.MaskedAll = all
	for i, r := range painted {
		if r.Empty() {
			continue
		}
		out.MaskedCount++
		if len(out.Masked) < MaxListedMasks {
			x0, y0 := int(math.Floor(float64(r.Min.X)*enc.Scale)), int(math.Floor(float64(r.Min.Y)*enc.Scale))
			x1, y1 := int(math.Ceil(float64(r.Max.X)*enc.Scale)), int(math.Ceil(float64(r.Max.Y)*enc.Scale))
			out.Masked = append(out.Masked, MaskedBox{Role: kinds[i], X: x0, Y: y0, Width: min(x1, enc.Width) - x0, Height: min(y1, enc.Height) - y0})
		}
	}
	return out, nil
}

// maskBoxes are the boxes to paint over from a capture's two reads: each
// element held by the first from where it was to where it went, and those
// only the second found; all when either read stopped at a bound, or when
// an element's path between the reads is not known (pathUnknown).
func maskBoxes(before, after *collect.ShotResult) ([]collect.MaskBox, bool) {
	if before.Limit != "" || after.Limit != "" || len(after.Again) != len(before.Boxes) || pathUnknown(before, after) {
		return nil, true
	}
	out := make([]collect.MaskBox, 0, len(before.Boxes)+len(after.Boxes))
	for i, m := range before.Boxes {
		if a := after.Again[i]; a != nil {
			m.L, m.T, m.R, m.B = min(m.L, a.L), min(m.T, a.T), max(m.R, a.R), max(m.B, a.B)
		}
		out = append(out, m)
	}
	return append(out, after.Boxes...), false
}

// pathUnknown reports whether an element before held went where the box
// from where it was to where it went may not hold its path by the read
// after: it moved further than its own size (a field that slides off one
// edge of the viewport comes back at the other; one that jumped may have
// been anywhere), or it left the view or the document (where it was on its
// way out is not known). A screenshot is then painted over whole, and a
// screencast drops the frames of that interval. Before, both painted the
// box from its first place to its second, or its first place alone: a
// field sliding across the page showed its value in a screencast's frame
// (TestScreencastMasksEveryFrame, on a loaded machine).
func pathUnknown(before, after *collect.ShotResult) bool {
	for i, m := range before.Boxes {
		a := after.Again[i]
		if a == nil || a.L > m.R || a.R < m.L || a.T > m.B || a.B < m.T {
			return true
		}
	}
	return false
}

// capture takes the viewport as a PNG and decodes it.
func (s *Session) capture(ctx context.Context) (*image.RGBA, error) {
	octx, end, err := s.tab.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	res, err := cdp.Call(octx, s.tab.Target(), page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
	if err != nil {
		return nil, tab.Classify(octx, err, errcode.CaptureFailed, "the page could not be captured")
	}
	img, err := png.Decode(bytes.NewReader(res.Data))
	if err != nil {
		return nil, errcode.Wrap(errcode.CaptureFailed, err, "the page could not be captured")
	}
	return imagecap.RGBA(img), nil
}

// showWhole makes the viewport height CSS pixels tall, as wide as it is,
// and returns what puts it back where it was.
func (s *Session) showWhole(ctx context.Context, view *collect.ShotResult, height int64) (func(), error) {
	octx, end, err := s.tab.Begin(ctx)
	if err != nil {
		return nil, err
	}
	_, err = cdp.Call(octx, s.tab.Target(), emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: int64(math.Round(view.Width)), Height: height, DeviceScaleFactor: s.emulated.Scale, Mobile: s.emulated.Mobile,
	})
	if err != nil {
		err = tab.Classify(octx, err, errcode.CaptureFailed, "the page could not be captured")
	}
	end()
	if err != nil {
		return nil, err
	}
	return func() {
		rctx := context.WithoutCancel(ctx)
		if octx, end, err := s.tab.Begin(rctx); err == nil {
			s.restoreMetrics(octx) // the session's emulated viewport, if it set one
			end()
		}
		s.shotStep(rctx, collect.ShotRequest{Step: collect.ShotScroll, Doc: view.Doc, X: view.ScrollX, Y: view.ScrollY})
	}, nil
}
