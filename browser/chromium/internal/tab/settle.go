package tab

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
)

// Mark is what Settle compares against: taken before a dispatch.
type Mark struct {
	seq      uint64
	loader   cdp.LoaderID
	refusals uint64
	opened   uint64
}

// Mark takes the tab's state before a dispatch; a beforeunload dismissed
// before it is forgotten.
func (t *Tab) Mark() Mark {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dismissed = false
	return Mark{t.navSeq, t.loader, t.refusals, t.opened}
}

// Settled is what an input event led to.
type Settled struct {
	Started, Done bool  // a main-frame navigation started; its document loaded
	Cancelled     bool  // the runtime dismissed a beforeunload dialog, which cancelled it
	Dialog        bool  // a dialog the agent must answer is open
	Refused       error // the navigation guard stopped a navigation it started
	Opened        bool  // the tab opened a page
}

// blockingDialogLocked: a pending dialog other than beforeunload, which the
// runtime answers itself.
func (t *Tab) blockingDialogLocked() bool {
	return t.dialog != nil && t.dialog.Type != page.DialogTypeBeforeunload
}

// Settle waits briefly (SettleWindow) for the consequences of an input
// event: a main-frame navigation (then waits, at most SettleLoad, for its
// document), a dialog, or a navigation the guard refused.
func (t *Tab) Settle(ctx context.Context, before Mark) Settled {
	wctx, cancel := context.WithTimeout(ctx, t.timings.SettleWindow)
	t.waitFor(wctx, func() bool {
		return t.navSeq != before.seq || t.blockingDialogLocked() || t.dismissed || t.refusals != before.refusals ||
			t.opened != before.opened || t.gone
	})
	cancel()
	t.mu.Lock()
	out := Settled{Started: t.navSeq != before.seq, Dialog: t.blockingDialogLocked(), Cancelled: t.dismissed,
		Refused: t.refusalSinceLocked(before.refusals), Opened: t.opened != before.opened}
	t.mu.Unlock()
	if !out.Started || out.Dialog || out.Cancelled || out.Refused != nil || t.Gone() {
		return out
	}
	lctx, lcancel := context.WithTimeout(ctx, t.timings.SettleLoad)
	defer lcancel()
	// The new loader is known once the navigation commits.
	var loader cdp.LoaderID
	t.waitFor(lctx, func() bool {
		loader = t.loader
		_, seen := t.lifecycle[loader]
		return t.blockingDialogLocked() || t.dismissed || t.refusals != before.refusals ||
			(seen && loader != before.loader && t.lifecycle[loader] != "init" && t.world != "")
	})
	t.mu.Lock()
	out.Dialog, out.Cancelled, out.Refused = t.blockingDialogLocked(), t.dismissed, t.refusalSinceLocked(before.refusals)
	committed := loader != before.loader && t.lifecycle[loader] != ""
	t.mu.Unlock()
	if out.Dialog || out.Cancelled || out.Refused != nil || !committed {
		return out
	}
	out.Done = t.waitLoaded(lctx, loader) == nil
	return out
}
