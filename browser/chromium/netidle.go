package chromium

import (
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
)

// maxTracked bounds the requests the traffic record keeps: a page that
// starts more without finishing them is simply busy.
const maxTracked = 1024

// traffic is the network state of the tab's main target that browser_wait's
// network_idle condition reads: the requests in flight and when the set
// last changed. Long-lived requests (EventSource, WebSocket) are left out:
// they never finish, yet a page holding one is not loading. It also counts
// the main frame's navigations that History waits for and the lifecycle
// does not report: within the document, and back-forward cache restores.
type traffic struct {
	inflight map[network.RequestID]bool
	changed  time.Time // last start or end of a tracked request
	sameDocs uint64    // main-frame navigations within the document
	restores uint64    // main-frame documents restored from the back-forward cache
}

// noteTrafficLocked records what ev changes in the tab's traffic. It runs in
// the event listener, under t.mu, and issues no CDP command.
func (t *tab) noteTrafficLocked(ev any) {
	tr := &t.traffic
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		if ev.Type == network.ResourceTypeEventSource || ev.Type == network.ResourceTypeWebSocket {
			return
		}
		if tr.inflight == nil {
			tr.inflight = make(map[network.RequestID]bool)
		}
		if len(tr.inflight) < maxTracked {
			tr.inflight[ev.RequestID] = true // a redirect keeps its request id
		}
		tr.changed = time.Now()
	case *network.EventLoadingFinished:
		tr.finish(ev.RequestID)
	case *network.EventLoadingFailed:
		tr.finish(ev.RequestID)
	case *page.EventNavigatedWithinDocument:
		if ev.FrameID == t.mainFrame {
			tr.sameDocs++
			close(t.changed) // History waits for it
			t.changed = make(chan struct{})
		}
	case *page.EventFrameNavigated:
		if ev.Frame.ParentID == "" && ev.Type == page.NavigationTypeBackForwardCacheRestore {
			tr.restores++ // onEvent wakes the waiters of a main-frame navigation
		}
		if ev.Frame.ParentID == "" && len(tr.inflight) > 0 {
			// The old document's requests end with it; an end the browser
			// never reports must not keep the new one busy. Its own
			// document request (the loader's id) is done by now.
			clear(tr.inflight)
			tr.changed = time.Now()
		}
	}
}

func (tr *traffic) finish(id network.RequestID) {
	if tr.inflight[id] {
		delete(tr.inflight, id)
		tr.changed = time.Now()
	}
}

// idleLocked reports whether no tracked request is in flight and none
// started or ended for quiet.
func (t *tab) idleLocked(quiet time.Duration) bool {
	return len(t.traffic.inflight) == 0 && time.Since(t.traffic.changed) >= quiet
}
