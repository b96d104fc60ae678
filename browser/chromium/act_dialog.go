package chromium

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// Answering a JavaScript dialog: dismissing is always safe; accepting is
// judged on the dialog's own words.

// answerDialog accepts or dismisses the pending JavaScript dialog.
func (s *Session) answerDialog(ctx context.Context, a browser.Action, authorize browser.Authorize) (*browser.ActResult, error) {
	d := s.tab.Dialog()
	if d == nil {
		return nil, errcode.New(errcode.NotActionable, "no JavaScript dialog is open")
	}
	if d.Type == page.DialogTypeBeforeunload && a.Accept {
		return nil, errcode.New(errcode.NotActionable, "the runtime never accepts a leave-page dialog; dismiss it")
	}
	// Dismissing is always safe. Accepting is judged on the dialog's own
	// words (accepting "Delete everything?" is consequential), on the
	// origin of the page it blocks: a frame's dialog blocks its page.
	if a.Accept {
		// The whole message, as a control's name: the observation shows
		// MaxDialogMessage units, but the words past them count too.
		msg, cut := observation.CutUTF16(d.Message, policy.MaxFactName)
		facts := policy.Facts{Origin: s.origin, Role: "dialog", Name: msg, NameCut: cut}
		p, err := authorize(ctx, policy.ClassDialog, facts)
		if err != nil {
			return nil, err
		}
		if s.tab.Dialog() != d {
			return nil, errcode.New(errcode.NotActionable, "the dialog closed while the action waited for approval; observe again")
		}
		if err := p.Spend(); err != nil {
			return nil, err
		}
	}
	before := s.tab.Mark()
	octx, end, err := s.tab.Begin(ctx)
	if err != nil {
		return nil, err
	}
	_, err = cdp.Call(octx, s.tab.Target(), page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: a.Accept, PromptText: a.Text})
	end()
	if err != nil {
		return nil, errcode.Wrap(errcode.ActionUncertain, err, "the dialog may or may not have been answered; observe again")
	}
	// Wait for this dialog to close (another may open right after it).
	wctx, cancel := context.WithTimeout(ctx, s.timings.DialogClose)
	s.tab.WaitDialogClosed(wctx, d)
	cancel()
	return s.settled(ctx, before)
}
