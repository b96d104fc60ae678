package controlroom

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// recast is how long a stream waits before a new screencast when one ended.
const recast = 500 * time.Millisecond

// The live picture: the page's screencast (browser/chromium/screencast.go:
// masked JPEG frames, at most five a second), streamed to each watcher as
// multipart/x-mixed-replace, which an <img> shows as it comes. One
// screencast per page, whatever the number of watchers: it starts with the
// first and stops as the last one leaves, or when the page closes (every
// stream then ends; the room's page reconnects).

// cast is one screencast of a page and its watchers, each given the
// newest frame.
type cast struct {
	stop     context.CancelFunc
	watchers map[chan []byte]bool
}

// watch adds a watcher of p's live picture, starting the screencast for
// the first; ok is false past MaxWatchers.
func (p *Page) watch(live Live) (c *cast, frames chan []byte, ok bool) {
	p.castMu.Lock()
	defer p.castMu.Unlock()
	if c = p.cast; c == nil {
		ctx, stop := context.WithCancel(context.Background())
		c = &cast{stop: stop, watchers: map[chan []byte]bool{}}
		p.cast = c
		go func() {
			live.Screencast(ctx, func(jpeg []byte) { p.broadcast(c, jpeg) })
			stop()
			p.castMu.Lock()
			defer p.castMu.Unlock()
			if p.cast == c {
				p.cast = nil
			}
			for w := range c.watchers {
				close(w)
			}
			c.watchers = nil
		}()
	}
	if len(c.watchers) >= MaxWatchers {
		return nil, nil, false
	}
	frames = make(chan []byte, 1)
	c.watchers[frames] = true
	return c, frames, true
}

// unwatch removes a watcher; the last one stops the screencast.
func (p *Page) unwatch(c *cast, frames chan []byte) {
	p.castMu.Lock()
	defer p.castMu.Unlock()
	if !c.watchers[frames] {
		return // the screencast ended and let it go
	}
	delete(c.watchers, frames)
	if len(c.watchers) == 0 {
		c.stop()
		if p.cast == c {
			p.cast = nil
		}
	}
}

// broadcast gives each watcher of c the newest frame; a watcher still
// sending the one before skips it.
func (p *Page) broadcast(c *cast, jpeg []byte) {
	p.castMu.Lock()
	defer p.castMu.Unlock()
	for w := range c.watchers {
		select {
		case w <- jpeg:
		default:
		}
	}
}

// streamOf streams the page's live picture until the watcher leaves or
// the page's screencast ends.
func (r *Room) streamOf(w http.ResponseWriter, req *http.Request) {
	p := r.page(req)
	if p == nil {
		http.NotFound(w, req)
		return
	}
	p.mu.Lock()
	live := p.live
	p.mu.Unlock()
	if live == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	c, frames, ok := p.watch(live)
	if !ok {
		http.Error(w, "too many watchers of this page", http.StatusTooManyRequests)
		return
	}
	defer func() { p.unwatch(c, frames) }()
	flush := http.NewResponseController(w)
	w.Header().Set("Content-Type", "multipart/x-mixed-replace; boundary=frame")
	w.WriteHeader(http.StatusOK)
	if flush.Flush() != nil {
		return
	}
	for {
		select {
		case jpeg, ok := <-frames:
			if !ok {
				// The screencast ended (another tab became active, or the
				// page closed): the stream goes on with a new one while
				// the page is in the room.
				select {
				case <-time.After(recast):
				case <-req.Context().Done():
					return
				}
				if r.page(req) != p {
					return
				}
				if c, frames, ok = p.watch(live); !ok {
					return
				}
				continue
			}
			fmt.Fprintf(w, "--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n", len(jpeg))
			w.Write(jpeg)
			w.Write([]byte("\r\n"))
			if flush.Flush() != nil {
				return
			}
		case <-req.Context().Done():
			return
		}
	}
}
