package chromium

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// History goes back, forward or reloads the page under the rules of
// Navigate (tab.traverse): every hop passes the navigation check, a page
// that asks to keep unsaved changes keeps them (navigation_cancelled), and
// a page that does not finish loading is returned as it is, loading.
func (s *Session) History(ctx context.Context, step browser.HistoryStep) (*observation.Observation, error) {
	if !s.interactions {
		return nil, errcode.New(errcode.InvalidArgument, "history steps need tool version 1.8.0 or later")
	}
	var delta int
	switch step {
	case browser.HistoryBack:
		delta = -1
	case browser.HistoryForward:
		delta = 1
	case browser.HistoryReload:
	default:
		return nil, errcode.New(errcode.InvalidArgument, "the history step must be back, forward or reload")
	}
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.lock.Release(1)
	var nav tab.Navigated
	var err error
	if delta == 0 {
		nav, err = s.tab.Traverse(ctx, "", func(ctx context.Context) error {
			_, err := cdp.Call(ctx, s.tab.Target(), page.Reload, page.ReloadParams{})
			return err
		})
	} else {
		nav, err = s.historyStep(ctx, step, delta)
	}
	if err != nil {
		return nil, err
	}
	return s.observeLoaded(ctx, nav)
}

// historyStep moves delta entries in the tab's history.
func (s *Session) historyStep(ctx context.Context, step browser.HistoryStep, delta int) (tab.Navigated, error) {
	h, err := cdp.Call(ctx, s.tab.Target(), page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return tab.Navigated{}, tab.Classify(ctx, err, errcode.NavigationFailed, "the page's history could not be read")
	}
	i := int(h.CurrentIndex) + delta
	// The tab's first entry is the blank page it opened with: not a page
	// of the session to go back to.
	if i < 0 || i >= len(h.Entries) || (i == 0 && h.Entries[0].URL == "about:blank") {
		if step == browser.HistoryBack {
			return tab.Navigated{}, errcode.New(errcode.NotActionable, "no page to go back to")
		}
		return tab.Navigated{}, errcode.New(errcode.NotActionable, "no page to go forward to")
	}
	entry := h.Entries[i]
	// A page the back-forward cache restores makes no request for the
	// navigation guard to pause: the entry is checked here first.
	if err := s.tab.CheckNavigation(ctx, entry.URL); err != nil {
		return tab.Navigated{}, err
	}
	return s.tab.Traverse(ctx, entry.URL, func(ctx context.Context) error {
		_, err := cdp.Call(ctx, s.tab.Target(), page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: entry.ID})
		return err
	})
}
