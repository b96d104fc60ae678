package tab

import (
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
)

// MaxTracked bounds the request ids the traffic record keeps, in flight and
// long-lived each. Starts past it are only counted, so the record stays
// small while a page that starts more without finishing them is busy.
const MaxTracked = 1024

// traffic is the network state of the tab's main target that browser_wait's
// network_idle condition reads: the requests in flight and when the set
// last changed. Long-lived requests (EventSource, WebSocket) are left out:
// they never finish, yet a page holding one is not loading. It also counts
// the main frame's navigations that History waits for and the lifecycle
// does not report: within the document, and back-forward cache restores.
type traffic struct {
	inflight map[network.RequestID]bool
	// untracked counts the starts past MaxTracked not yet ended. Their ids
	// are not kept, so the end of any request the record does not know
	// takes one off: the page stays busy until as many unknown ends came.
	untracked int
	// longLived holds the ids of the long-lived requests in flight, so that
	// their end is not taken for the end of an untracked request. Past
	// MaxTracked a long-lived request counts as untracked instead: the page
	// is busy while it lasts, rather than idle early when it ends.
	longLived map[network.RequestID]bool
	changed   time.Time // last start or end of a request that is not long-lived
	sameDocs  uint64    // main-frame navigations within the document
	restores  uint64    // main-frame documents restored from the back-forward cache
}

// noteTrafficLocked records what ev changes in the tab's traffic. It runs in
// the event listener, under t.mu, and issues no CDP command.
func (t *Tab) noteTrafficLocked(ev any) {
	tr := &t.traffic
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		tr.start(ev)
	case *network.EventLoadingFinished:
		tr.finish(ev.RequestID)
	case *network.EventLoadingFailed:
		tr.finish(ev.RequestID)
	case *page.EventNavigatedWithinDocument:
		if ev.FrameID == t.mainFrame {
			tr.sameDocs++
			t.changedLocked() // History waits for it
		}
	case *page.EventFrameNavigated:
		if ev.Frame.ParentID == "" && ev.Type == page.NavigationTypeBackForwardCacheRestore {
			tr.restores++ // onEvent wakes the waiters of a main-frame navigation
		}
		if ev.Frame.ParentID == "" && (len(tr.inflight) > 0 || tr.untracked > 0 || len(tr.longLived) > 0) {
			// The old document's requests end with it; an end the browser
			// never reports must not keep the new one busy. Its own
			// document request (the loader's id) is done by now.
			clear(tr.inflight)
			clear(tr.longLived)
			tr.untracked = 0
			tr.changed = time.Now()
		}
	}
}

func (tr *traffic) start(ev *network.EventRequestWillBeSent) {
	id := ev.RequestID
	if tr.longLived[id] {
		return
	}
	if ev.RedirectResponse != nil || tr.inflight[id] {
		tr.changed = time.Now() // a redirect keeps its request id, counted at its start
		return
	}
	longLived := ev.Type == network.ResourceTypeEventSource || ev.Type == network.ResourceTypeWebSocket
	switch {
	case longLived && len(tr.longLived) < MaxTracked:
		if tr.longLived == nil {
			tr.longLived = make(map[network.RequestID]bool)
		}
		tr.longLived[id] = true
		return
	case !longLived && len(tr.inflight) < MaxTracked:
		if tr.inflight == nil {
			tr.inflight = make(map[network.RequestID]bool)
		}
		tr.inflight[id] = true
	default:
		tr.untracked++
	}
	tr.changed = time.Now()
}

func (tr *traffic) finish(id network.RequestID) {
	switch {
	case tr.longLived[id]:
		delete(tr.longLived, id)
	case tr.inflight[id]:
		delete(tr.inflight, id)
		tr.changed = time.Now()
	case tr.untracked > 0:
		tr.untracked--
		tr.changed = time.Now()
	}
}

// NetworkIdle reports whether no request is in flight, tracked or counted,
// and none started or ended for quiet.
func (t *Tab) NetworkIdle(quiet time.Duration) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	tr := &t.traffic
	return len(tr.inflight) == 0 && tr.untracked == 0 && time.Since(tr.changed) >= quiet
}
