package chromium

import (
	"context"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/keys"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/errcode"
)

// PersonInput forwards one input of the person holding the page
// (browser_handoff) to the active tab as trusted CDP input, under the
// operation lock like any page call. No guard or approval is asked: the
// person is the user. The tab's navigation and request guards still hold,
// so a person's click cannot leave the task's grant either.
func (s *Session) PersonInput(ctx context.Context, in browser.PersonInput) error {
	if err := checkPersonInput(in); err != nil {
		return err
	}
	if err := s.acquire(ctx); err != nil {
		return err
	}
	defer s.lock.Release(1)
	if s.tab.Dialog() != nil {
		return errcode.New(errcode.NotActionable, "a JavaScript dialog is open")
	}
	octx, end, err := s.tab.Begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	tgt := s.tab.Target()
	var steps []func() error
	switch in.Kind {
	case browser.PersonClick:
		m, err := cdp.Call(octx, tgt, page.GetLayoutMetrics, cdp.Empty{})
		if err != nil || m.CSSVisualViewport == nil {
			return tab.Classify(octx, err, errcode.CaptureFailed, "the window could not be measured")
		}
		x, y := in.X*m.CSSVisualViewport.ClientWidth, in.Y*m.CSSVisualViewport.ClientHeight
		for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMouseMoved, input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
			params := input.DispatchMouseEventParams{Type: typ, X: x, Y: y}
			if typ != input.DispatchMouseEventTypeMouseMoved {
				params.Button, params.ClickCount = input.MouseButtonLeft, 1
			}
			steps = append(steps, func() error { _, err := cdp.Call(octx, tgt, input.DispatchMouseEvent, params); return err })
		}
	case browser.PersonText:
		steps = append(steps, func() error {
			_, err := cdp.Call(octx, tgt, input.InsertText, input.InsertTextParams{Text: in.Text})
			return err
		})
	case browser.PersonKey:
		steps = keys.Steps(octx, tgt, in.Key)
	}
	for _, step := range steps {
		if err := step(); err != nil {
			// Never the input itself in a message: it may be a secret.
			return tab.Classify(octx, err, errcode.ActionUncertain, "the person's input may not have reached the page")
		}
	}
	return nil
}

// checkPersonInput refuses an input that is not one click inside the
// viewport, one bounded text, or one key press accepts.
func checkPersonInput(in browser.PersonInput) error {
	switch in.Kind {
	case browser.PersonClick:
		if in.X >= 0 && in.X <= 1 && in.Y >= 0 && in.Y <= 1 {
			return nil
		}
		return errcode.New(errcode.InvalidArgument, "a click's x and y are fractions of the picture, 0 to 1")
	case browser.PersonText:
		if in.Text != "" && len(in.Text) <= browser.MaxPersonText && utf8.ValidString(in.Text) {
			return nil
		}
		return errcode.New(errcode.InvalidArgument, "text must be 1 to %d bytes of UTF-8", browser.MaxPersonText)
	case browser.PersonKey:
		if keys.Named(in.Key) || utf8.RuneCountInString(in.Key) == 1 {
			return nil
		}
		return errcode.New(errcode.InvalidArgument, "a key is a named key (Enter, Tab, Backspace…) or one character")
	}
	return errcode.New(errcode.InvalidArgument, "an input is a click, text or a key")
}
