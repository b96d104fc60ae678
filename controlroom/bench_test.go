package controlroom

import (
	"context"
	"testing"
	"time"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// BenchmarkPictureOfAChangingPage measures one masked picture of a page
// that repaints all the time (a feed ticking and a clock), as the control
// room takes it at most once a PictureInterval: time and bytes per
// picture.
func BenchmarkPictureOfAChangingPage(b *testing.B) {
	s, ctx := changingPage(b)
	var bytes int
	b.ResetTimer()
	for b.Loop() {
		pic, err := s.Picture(ctx)
		if err != nil {
			b.Fatal(err)
		}
		bytes += len(pic)
	}
	b.ReportMetric(float64(bytes)/float64(b.N), "bytes/picture")
}

// changingPage opens a session on a page that repaints all the time (a
// feed ticking and a clock) with a password field.
func changingPage(b *testing.B) (*veetbrowser.Session, context.Context) {
	rt, err := veetbrowser.New(shared.Get(b), veetbrowser.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	b.Cleanup(cancel)
	s, err := rt.NewSession(ctx, veetbrowser.SessionOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close(context.Background()) })
	url := browsertest.Serve(b, `<!doctype html><title>Feed</title><style>body{font:16px sans-serif;margin:24px}</style>
<header><input type=password aria-label="Password" value="hunter2hunter2"></header><h1 id=clock></h1><ul id=feed></ul>
<script>let n = 0; setInterval(() => { clock.textContent = new Date().toISOString();
const li = document.createElement('li'); li.textContent = 'Post ' + (++n) + ': something happened'; feed.prepend(li);
if (feed.children.length > 30) feed.lastChild.remove(); }, 50);</script>`)
	if _, err := s.Navigate(ctx, url); err != nil {
		b.Fatal(err)
	}
	return s, ctx
}

// BenchmarkScreencastOfAChangingPage measures the live picture of the same
// page as the control room streams it: masked frames a second and bytes
// per frame (one op is one frame shown).
func BenchmarkScreencastOfAChangingPage(b *testing.B) {
	s, ctx := changingPage(b)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n, bytes := 0, 0
	b.ResetTimer()
	start := time.Now()
	err := s.Screencast(cctx, func(jpeg []byte) {
		n, bytes = n+1, bytes+len(jpeg)
		if n == b.N {
			cancel()
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "frames/s")
	b.ReportMetric(float64(bytes)/float64(max(n, 1)), "bytes/frame")
}
