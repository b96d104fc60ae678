package chromium

import (
	"context"
	"testing"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// formPage holds fields the screenshot masks and prose it shows.
const formPage = `<h1>Account</h1><p>Some prose of the page.</p>
<label>Name <input value="a value"></label><label>Secret <input type="password" value="pw"></label>
<textarea>draft</textarea><select><option>One</option></select><button>Save</button>`

// BenchmarkScreenshot: a masked viewport capture, next to an observation
// of the same page (the ratio is what a screenshot after each action adds).
func BenchmarkScreenshot(b *testing.B) {
	s, _ := openPage(b, formPage)
	ctx := context.Background()
	b.Run("observe", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Observe(ctx, observation.Request{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("screenshot", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Screenshot(ctx, ScreenshotRequest{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPopupToTab: a click that opens a popup, until the popup is an
// adopted tab, then its close; before 1.9.0 (the click reports the popup
// at once) and with 1.9.0 (the click waits for the popup's first request
// to be judged).
func BenchmarkPopupToTab(b *testing.B) {
	base := browsertest.ServePages(b, map[string]string{
		"/":  `<button onclick="window.open('/p', '_blank')">Open</button>`,
		"/p": `<title>Popup</title><p>popup</p>`,
	})
	for _, v := range []struct {
		name      string
		realPages bool
	}{{"1.8.0", false}, {"1.9.0", true}} {
		b.Run(v.name, func(b *testing.B) {
			ctx := context.Background()
			bs, err := shared.Get(b).NewSession(ctx, browser.SessionOptions{Reading: true, Frames: true, Interactions: true, RealPages: v.realPages})
			if err != nil {
				b.Fatal(err)
			}
			defer bs.Close(ctx)
			s := bs.(*Session)
			obs, err := s.Navigate(ctx, base)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: obs.Controls[0].Ref}, allow)
				if err != nil || len(res.Observation.Tabs.Opened) != 1 {
					b.Fatalf("%v %+v", err, res)
				}
				if _, err := s.Tabs(ctx, browser.TabsRequest{Action: browser.TabsClose, Tab: res.Observation.Tabs.Opened[0]}); err != nil {
					b.Fatal(err)
				}
				if obs, err = s.Observe(ctx, observation.Request{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
