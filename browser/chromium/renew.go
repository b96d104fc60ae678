package chromium

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	cdptarget "github.com/chromedp/cdproto/target"

	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/errcode"
)

// A wedged tab (tab.Wedged): its renderer hung where no crash could reach
// it, behind a navigation of its own page, and its page target answers
// nothing again. The session's next navigation replaces it: a new page in
// the same browser context (so an isolated session keeps its cookies and
// storage) becomes the session's tab, in the same place among its tabs,
// and the wedged page is closed, which ends its renderer process. What the
// old page held (its history, its frames, its dialogs) is gone with it, as
// after a crash; references of it no longer resolve.

// renewWedged replaces the active tab if it is wedged, within TabOpen.
func (s *Session) renewWedged(ctx context.Context) error {
	old := s.tab
	if !old.Wedged() {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, s.timings.TabOpen)
	defer cancel()
	b := s.browser()
	// The browser answers for the wedged page's target; its page never will.
	info, err := cdp.Call(cctx, b, cdptarget.GetTargetInfo, cdptarget.GetTargetInfoParams{TargetID: old.TargetID()})
	if err != nil {
		return tab.Classify(cctx, err, errcode.BrowserUnavailable, "could not open a page in place of the one that stopped responding")
	}
	res, err := cdp.Call(cctx, b, cdptarget.CreateTarget, cdptarget.CreateTargetParams{URL: "about:blank", BrowserContextID: info.TargetInfo.BrowserContextID})
	if err != nil {
		return tab.Classify(cctx, err, errcode.BrowserUnavailable, "could not open a page in place of the one that stopped responding")
	}
	opts := tab.Options{Check: s.checkNav, HoldPopups: s.realPages && s.interactions}
	if s.tabs != nil {
		opts.Hooks = s.tabs.hooks
	}
	nt, err := tab.Adopt(cctx, s.browserCtx, res.TargetID, s.tabOptions(opts))
	if err != nil {
		ccctx, cancel := s.timings.CleanupContext(ctx)
		cdp.Call(ccctx, b, cdptarget.CloseTarget, cdptarget.CloseTargetParams{TargetID: res.TargetID})
		cancel()
		return err
	}
	if s.tabs != nil {
		s.tabs.mu.Lock()
		delete(s.tabs.byTarget, s.active.target)
		s.active.target, s.active.tab = nt.TargetID(), nt
		s.tabs.byTarget[nt.TargetID()] = s.active
		s.tabs.mu.Unlock()
	}
	s.tab = nt
	s.revision++ // no reference of the wedged page resolves in the new one
	s.doc, s.origin, s.cursor, s.places, s.textPlaces, s.draft = "", "", nil, nil, nil, nil
	old.MarkGone()
	if old == s.first {
		// The first tab's context holds an isolated session's browser
		// context until the session closes: close its page alone.
		ccctx, cancel := s.timings.CleanupContext(ctx)
		cdp.Call(ccctx, b, cdptarget.CloseTarget, cdptarget.CloseTargetParams{TargetID: old.TargetID()})
		cancel()
	} else {
		go old.Close()
	}
	return s.applyEmulation(ctx)
}
