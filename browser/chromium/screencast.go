package chromium

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"math"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/imagecap"
)

// The live picture of the control room (docs/controlroom.md): Chromium's
// screencast (Page.startScreencast, JPEG), each frame masked in Go before
// anyone sees it, as screenshots are (screenshot.go), never by an overlay
// in the page.
//
// A frame shows the page as it was at some moment before it arrived; the
// boxes to paint over are read in the page at most every CastInterval,
// each read giving again the boxes of the elements the read before it
// held (collect.ShotAfter) and holding the elements it finds
// (collect.ShotBefore). Between two reads each element is painted over
// from where it was to where it went, as a screenshot paints it between
// its two reads. A frame is painted with every interval from the read
// castLag before its swap time (and back to castWindow before it) up to
// the read after its arrival; the first
// read is taken castLag before the screencast starts, so every frame has
// one. A frame with no such read, one whose reads could not be taken (an
// action held the operation lock), stopped at a bound, or saw another
// document or another viewport is dropped, never shown unmasked. The
// frames' boxes are widened to the JPEG's 16-pixel blocks and one block
// more: the screencast's own lossy encoding spreads a value's traces
// within its blocks, and only there.

const (
	// CastInterval is the shortest time between two frames shown: at most
	// five a second. Frames arriving sooner are acknowledged and dropped.
	CastInterval = 200 * time.Millisecond
	// MaxCastBytes bounds one frame as shown (quality, then size, lowered
	// to fit, as a screenshot's).
	MaxCastBytes = 128 << 10
	// castLag is how much older than its swap time a frame's content may
	// be (the renderer's pipeline).
	castLag = 250 * time.Millisecond
	// castWindow is how far back before a frame's swap the reads it is
	// painted with go; castReads bounds the reads kept (one a frame).
	castWindow = time.Second
	castReads  = 64
	// castQuality and castMaxSide are what Chromium encodes frames with.
	castQuality = 70
	castMaxSide = 1280
	// castBlock is the JPEG block a mask is widened to (a 4:2:0 MCU).
	castBlock = 16
	// castWarm is the time between two reads before the first frame.
	castWarm = 16 * time.Millisecond
	// castIdle is how long the picture goes without a frame before a
	// masked screenshot stands for one.
	castIdle = time.Second
)

// castRead is one read of the boxes to paint over: when it was done, the
// elements it holds (before), and the boxes to paint over for content
// between the read before it and this one (all: every frame of that
// interval is dropped).
type castRead struct {
	at     time.Time
	before *collect.ShotResult
	masks  []collect.MaskBox
	all    bool
}

// errCastEnded ends a screencast whose tab is no longer the active one.
var errCastEnded = errors.New("the screencast's tab is no longer active")

// Screencast streams masked JPEG frames of the active tab to each, at most
// one every CastInterval, until ctx ends, the tab closes or another tab
// becomes active. It acknowledges every frame outside the event listener
// and stops the screencast before it returns, leaving no goroutine behind.
func (s *Session) Screencast(ctx context.Context, each func(jpeg []byte)) error {
	if !s.casting.CompareAndSwap(false, true) {
		return errcode.New(errcode.NotActionable, "the page is already being cast")
	}
	defer s.casting.Store(false)
	if err := s.acquire(ctx); err != nil {
		return err
	}
	t := s.tab
	cctx, stop := context.WithCancel(t.Context())
	defer stop()
	defer context.AfterFunc(ctx, stop)()
	frames := make(chan *page.EventScreencastFrame, 8) // Chromium sends one frame until it is acknowledged (MaxFramesInFlight)
	err := chromedp.Listen(cctx, func(ev any) {
		if f, ok := ev.(*page.EventScreencastFrame); ok {
			select {
			case frames <- f:
			default: // cannot happen (see above); never block the listener
			}
		}
	})
	var first *castRead
	if err == nil {
		first, err = s.castRead(ctx, nil)
	}
	s.lock.Release(1)
	if err != nil {
		return tab.Classify(ctx, err, errcode.CaptureFailed, "the screencast could not start")
	}
	// Every frame's content is then younger than the first read, and
	// reads a frame apart follow the page until the first frame.
	reads := []*castRead{first}
	for start := time.Now(); time.Since(start) < castLag; {
		select {
		case <-time.After(castWarm):
		case <-cctx.Done():
			return nil
		}
		if _, err := s.castOn(cctx, t, &reads); errors.Is(err, errCastEnded) {
			return nil
		}
	}
	quality := int64(castQuality)
	if err := s.startCast(ctx, t, page.StartScreencastParams{Format: page.StartScreencastFormatJpeg,
		Quality: &quality, MaxWidth: castMaxSide, MaxHeight: castMaxSide, EveryNthFrame: 1, MaxFramesInFlight: 1}); err != nil {
		return err
	}
	defer func() {
		// Stopped with a context of its own: the caller's may have ended.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		cdp.Call(sctx, t.Target(), page.StopScreencast, cdp.Empty{})
	}()
	var shown time.Time
	idle := time.NewTicker(castIdle)
	defer idle.Stop()
	for {
		var f *page.EventScreencastFrame
		select {
		case <-cctx.Done():
			if ctx.Err() != nil {
				return nil
			}
			return errcode.New(errcode.BrowserUnavailable, "the tab closed")
		case <-idle.C:
			// Chromium sends frames only as the page repaints: a page
			// still since (or whose frames were dropped) is shown by a
			// masked screenshot, as the picture was before.
			if time.Since(shown) >= castIdle {
				if still, err := s.castStill(cctx, t); errors.Is(err, errCastEnded) {
					return nil
				} else if still != nil {
					shown = time.Now()
					each(still)
				}
			}
			continue
		case f = <-frames:
		}
		// A read for every frame, before its acknowledgement: the next
		// frame is drawn after it, and reads this dense follow a field
		// closely, however it moves. A frame arriving while a call holds
		// the operation lock gets none.
		read, err := s.castOn(cctx, t, &reads)
		if errors.Is(err, errCastEnded) {
			return nil
		}
		if _, err := cdp.Call(cctx, t.Target(), page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: f.SessionID}); err != nil {
			continue // the tab is going: cctx ends
		}
		if !read || time.Since(shown) < CastInterval {
			continue
		}
		if jpeg := maskFrame(f, reads); jpeg != nil {
			shown = time.Now()
			each(jpeg)
		}
	}
}

// castOn adds a read to reads if the operation lock is free, and reports
// whether it did; errCastEnded when t is no longer the active tab.
func (s *Session) castOn(ctx context.Context, t *tab.Tab, reads *[]*castRead) (bool, error) {
	if !s.lock.TryAcquire(1) {
		return false, nil
	}
	defer s.lock.Release(1)
	if s.tab != t || s.closed.Load() {
		return false, errCastEnded
	}
	r, err := s.castRead(ctx, (*reads)[len(*reads)-1])
	if err != nil {
		return false, err
	}
	*reads = append(*reads, r)[max(0, len(*reads)+1-castReads):]
	return true, nil
}

// castStill is a masked screenshot of t, if the operation lock is free.
func (s *Session) castStill(ctx context.Context, t *tab.Tab) ([]byte, error) {
	if !s.lock.TryAcquire(1) {
		return nil, nil
	}
	defer s.lock.Release(1)
	if s.tab != t || s.closed.Load() {
		return nil, errCastEnded
	}
	if t.Dialog() != nil {
		return nil, nil
	}
	shot, err := s.screenshot(ctx, ScreenshotRequest{MaxBytes: MaxCastBytes}, nil)
	if err != nil {
		return nil, nil
	}
	return shot.Data, nil
}

// startCast starts Chromium's screencast of t as a page step.
func (s *Session) startCast(ctx context.Context, t *tab.Tab, params page.StartScreencastParams) error {
	octx, end, err := t.Begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	if _, err := cdp.Call(octx, t.Target(), page.StartScreencast, params); err != nil {
		return tab.Classify(octx, err, errcode.CaptureFailed, "the screencast could not start")
	}
	return nil
}

// castRead reads the boxes to paint over since prev (nil: the first
// read), under the operation lock.
func (s *Session) castRead(ctx context.Context, prev *castRead) (*castRead, error) {
	r := &castRead{}
	if prev != nil {
		after, err := s.shotStep(ctx, collect.ShotRequest{Step: collect.ShotAfter, Doc: prev.before.Doc})
		if err != nil {
			r.all = true // another document: its frames are dropped
		} else {
			r.masks, r.all = maskBoxes(prev.before, after)
			r.all = r.all || after.Width != prev.before.Width || after.Height != prev.before.Height
		}
	}
	before, err := s.shotStep(ctx, collect.ShotRequest{Step: collect.ShotBefore, Fields: true})
	if err != nil {
		return nil, err
	}
	// When the read is done: content drawn after it has the elements it
	// holds where the next read finds them, or between.
	r.before, r.at = before, time.Now()
	return r, nil
}

// maskFrame paints over f what the reads say was in the viewport while
// its content was drawn and encodes it; nil when f cannot be masked.
func maskFrame(f *page.EventScreencastFrame, reads []*castRead) []byte {
	m := f.Metadata
	if m == nil || m.Timestamp == 0 || m.PageScaleFactor != 1 || m.OffsetTop != 0 {
		return nil
	}
	swap := time.UnixMicro(int64(float64(m.Timestamp) * 1e6))
	from := -1 // the newest read at least castLag before the swap
	for i, r := range reads {
		if !r.at.After(swap.Add(-castLag)) {
			from = i
		}
	}
	if from < 0 {
		return nil
	}
	// Back to castWindow before the swap: a field that flickers between
	// places is painted over wherever any of those reads saw it.
	for from > 0 && !reads[from-1].at.Before(swap.Add(-castWindow)) {
		from--
	}
	if reads[from].before.Limit != "" {
		return nil
	}
	last := reads[len(reads)-1].before
	if math.Abs(last.Width-m.DeviceWidth) > 1 || math.Abs(last.Height-m.DeviceHeight) > 1 {
		return nil
	}
	var masks []collect.MaskBox
	masks = append(masks, reads[from].before.Boxes...)
	for _, r := range reads[from+1:] {
		if r.all {
			return nil
		}
		masks = append(masks, r.masks...)
	}
	dec, err := jpeg.Decode(bytes.NewReader(f.Data))
	if err != nil {
		return nil
	}
	img := imagecap.RGBA(dec)
	sx, sy := float64(img.Bounds().Dx())/last.Width, float64(img.Bounds().Dy())/last.Height
	painted := make([]image.Rectangle, 0, len(masks))
	for _, b := range masks {
		painted = append(painted, image.Rect(blockFloor((b.L-maskPad)*sx), blockFloor((b.T-maskPad)*sy),
			blockCeil((b.R+maskPad)*sx), blockCeil((b.B+maskPad)*sy)).Intersect(img.Bounds()))
	}
	imagecap.Fill(img, painted, maskFill)
	enc, err := imagecap.FitJPEG(img, MaxCastBytes)
	if err != nil {
		return nil
	}
	return enc.Data
}

// blockFloor and blockCeil widen a mask's edge to the JPEG block grid,
// and one block more.
func blockFloor(v float64) int { return int(math.Floor(v/castBlock))*castBlock - castBlock }
func blockCeil(v float64) int  { return int(math.Ceil(v/castBlock))*castBlock + castBlock }
