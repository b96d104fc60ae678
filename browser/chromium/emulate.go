package chromium

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// Emulate sets the session's viewport, device, color scheme, locale and
// time zone (tool version 1.10.0, docs/debugging.md), merged with what was
// set before, and observes the active tab under them. Every tab gets them
// before its next operation (applyEmulation), those opened later too.
func (s *Session) Emulate(ctx context.Context, req browser.EmulateRequest) (*observation.Observation, error) {
	if !s.debugging {
		return nil, errcode.New(errcode.InvalidArgument, "emulation needs tool version 1.10.0 or later")
	}
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.lock.Release(1)
	next := s.emulated.Merge(req)
	if err := s.emulate(ctx, s.tab, next); err != nil {
		return nil, err
	}
	s.emulated, s.emulation = next, s.emulation+1
	s.emulatedTabs = map[*tab.Tab]uint64{s.tab: s.emulation}
	return s.observe(ctx, observation.Request{})
}

// applyEmulation gives the active tab the session's emulation if it does
// not have it yet. It runs under the operation lock.
func (s *Session) applyEmulation(ctx context.Context) error {
	if s.emulation == 0 || s.emulatedTabs[s.tab] == s.emulation {
		return nil
	}
	if err := s.emulate(ctx, s.tab, s.emulated); err != nil {
		return err
	}
	s.emulatedTabs[s.tab] = s.emulation
	return nil
}

// emulate sets e on t. Chromium refuses a locale or time zone it does not
// know: that is the caller's invalid_argument.
func (s *Session) emulate(ctx context.Context, t *tab.Tab, e browser.EmulateRequest) error {
	octx, end, err := t.Begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	tgt := t.Target()
	if e.Timezone != "" {
		if _, err := cdp.Call(octx, tgt, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: e.Timezone}); err != nil {
			return refusedSetting(octx, err, "time zone")
		}
	}
	if e.Locale != "" {
		if _, err := cdp.Call(octx, tgt, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: e.Locale}); err != nil {
			return refusedSetting(octx, err, "locale")
		}
	}
	if e.ColorScheme != "" {
		_, err := cdp.Call(octx, tgt, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: e.ColorScheme}}})
		if err != nil {
			return tab.Classify(octx, err, errcode.BrowserUnavailable, "the color scheme could not be set")
		}
	}
	if e.UserAgent != "" {
		if _, err := cdp.Call(octx, tgt, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: e.UserAgent}); err != nil {
			return tab.Classify(octx, err, errcode.BrowserUnavailable, "the user agent could not be set")
		}
	}
	if e.Width != 0 || e.Height != 0 || e.Scale != 0 {
		w, h := e.Width, e.Height
		if w == 0 || h == 0 {
			d := browser.Devices["desktop"]
			w, h = cmp0(w, d.Width), cmp0(h, d.Height)
		}
		_, err := cdp.Call(octx, tgt, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: int64(w), Height: int64(h), DeviceScaleFactor: e.Scale, Mobile: e.Mobile})
		if err == nil {
			_, err = cdp.Call(octx, tgt, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: e.Touch, MaxTouchPoints: touchPoints(e.Touch)})
		}
		if err != nil {
			return tab.Classify(octx, err, errcode.BrowserUnavailable, "the viewport could not be set")
		}
	}
	return nil
}

// restoreMetrics puts the active tab's viewport back as the session set it
// (after a full-page capture resized it), or clears the override.
func (s *Session) restoreMetrics(ctx context.Context) {
	e := s.emulated
	if s.emulation == 0 || e.Width == 0 && e.Height == 0 && e.Scale == 0 {
		cdp.Call(ctx, s.tab.Target(), emulation.ClearDeviceMetricsOverride, cdp.Empty{})
		return
	}
	d := browser.Devices["desktop"]
	cdp.Call(ctx, s.tab.Target(), emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: int64(cmp0(e.Width, d.Width)), Height: int64(cmp0(e.Height, d.Height)), DeviceScaleFactor: e.Scale, Mobile: e.Mobile})
}

func refusedSetting(ctx context.Context, err error, what string) error {
	if ctx.Err() != nil {
		return tab.Classify(ctx, err, errcode.BrowserUnavailable, "the "+what+" could not be set")
	}
	return errcode.Wrap(errcode.InvalidArgument, err, "the browser does not know that %s", what)
}

func cmp0(v, or int) int {
	if v == 0 {
		return or
	}
	return v
}

func touchPoints(touch bool) int64 {
	if touch {
		return 5
	}
	return 1
}
