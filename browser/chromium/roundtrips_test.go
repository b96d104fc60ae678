package chromium

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// commandCounter counts the CDP commands a browser is sent while on.
type commandCounter struct {
	mu      sync.Mutex
	on      bool
	methods map[string]int
}

var commandMethod = regexp.MustCompile(`"method":"([^"]+)"`)

func (c *commandCounter) debugf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !strings.HasPrefix(msg, "-> ") {
		return // an answer or an event
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := commandMethod.FindStringSubmatch(msg); c.on && m != nil {
		c.methods[m[1]]++
	}
}

// count runs f with the counter on and returns the commands it sent.
func (c *commandCounter) count(f func()) map[string]int {
	c.mu.Lock()
	c.on, c.methods = true, map[string]int{}
	c.mu.Unlock()
	f()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on = false
	return c.methods
}

// TestObserveRoundTrips: an observation of a page it observed before
// costs one Runtime.evaluate (the collector) in a 1.8.0 session; in a
// 1.9.0 one four more, for the listener marks: the document's listeners
// (resolve, list), its shadow roots (none here) and the release. The
// document's node is looked up once per document, not per observation.
// A frame's document (a checkout's card fields, same origin) keeps its
// marks between observations as the top document does: its listener
// marks cost three more round trips (resolve, list, release) and its
// shadow roots' query, its collector one; its document's node is not
// looked up again, nor its empty marks set again.
// Not parallel: the hook is read when the browser launches.
func TestObserveRoundTrips(t *testing.T) {
	c := &commandCounter{}
	cdpDebugf = c.debugf
	p, err := Launch(context.Background(), Options{})
	cdpDebugf = nil
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	ctx := browsertest.Context(t, time.Minute)
	url := browsertest.Serve(t, `<!doctype html><title>Inbox</title><nav><a href="/a">All mail</a></nav>
<main><h1>Inbox</h1><div class="row" onclick="open(1)">Your order shipped</div><button>Compose</button></main>`)
	checkout := browsertest.ServePages(t, map[string]string{
		"/": `<!doctype html><title>Checkout</title><main><h1>Payment</h1><form aria-label="Billing" onsubmit="event.preventDefault()">
<label>Name on card <input name="name"></label><iframe src="/card" title="Card details" style="width:420px;height:160px;border:0"></iframe>
<button>Pay €42.00</button></form></main>`,
		"/card": `<!doctype html><title>Card</title><form><label>Card number <input name="number" inputmode="numeric"></label>
<label>Expiry <input name="exp" placeholder="MM/YY"></label><label>CVC <input name="cvc"></label></form>`,
	})
	for _, tc := range []struct {
		real bool
		url  string
		want map[string]int
	}{
		{false, url, map[string]int{"Runtime.evaluate": 1}},
		{true, url, map[string]int{"Runtime.evaluate": 2, "DOM.resolveNode": 1, "DOMDebugger.getEventListeners": 1, "Runtime.releaseObjectGroup": 1}},
		{true, checkout, map[string]int{"Runtime.evaluate": 4, "DOM.resolveNode": 2, "DOMDebugger.getEventListeners": 2, "Runtime.releaseObjectGroup": 2}},
	} {
		bs, err := p.NewSession(ctx, browser.SessionOptions{Reading: true, Frames: true, Interactions: true, RealPages: tc.real})
		if err != nil {
			t.Fatal(err)
		}
		s := bs.(*Session)
		if _, err := s.Navigate(ctx, tc.url); err != nil {
			t.Fatal(err)
		}
		got := c.count(func() {
			if _, err := s.Observe(ctx, observation.Request{}); err != nil {
				t.Fatal(err)
			}
		})
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("real pages %v, %s: an observation sent %v, want %v", tc.real, tc.url, got, tc.want)
		}
		s.Close(ctx)
	}
}
