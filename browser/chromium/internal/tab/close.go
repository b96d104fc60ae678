package tab

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/veetbot/veetbrowser/errcode"
)

// Closing a tab.

// Close closes the page (and its browser context, if isolated).
func (t *Tab) Close() {
	t.cancel()
}

// ClosePage closes the page as a person would: its beforeunload handler
// runs, and a page that asks to keep unsaved changes stays open, its
// dialog dismissed, never accepted. It waits at most wait for the page to
// go or the dismissal, and reports whether a beforeunload was dismissed.
func (t *Tab) ClosePage(ctx context.Context, wait time.Duration) (dismissed bool, err error) {
	t.mu.Lock()
	t.dismissed = false // a dismissal from before is not this close's
	t.mu.Unlock()
	done := t.leave("")
	defer done()
	octx, end, err := t.Begin(ctx)
	if err != nil {
		return false, err
	}
	_, err = cdp.Call(octx, t.target, page.Close, cdp.Empty{})
	end()
	if err != nil && !t.Gone() {
		return false, Classify(octx, err, errcode.ActionUncertain, "the tab may or may not have closed; list the tabs")
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	t.waitFor(wctx, func() bool { return t.dismissed })
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dismissed, nil
}
