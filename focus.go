package veetbrowser

import (
	"context"

	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/tools"
)

// navigateTo is browser_navigate to a URL, and with focus (tool version
// 1.9.0, docs/reading.md) the loaded page observed main content first: the
// load's own observation is replaced by one in that order, whose next
// continues it.
func (s *Session) navigateTo(ctx context.Context, a tools.NavigateArgs) (*Result, error) {
	if a.Focus == "" {
		return s.Navigate(ctx, a.URL)
	}
	rec, err := s.intent(ctx, tools.Navigate, tools.NavigateArgs{URL: observation.WithoutUserinfo(a.URL), Focus: a.Focus})
	if err != nil {
		return nil, err
	}
	res, err := s.navigate(ctx, a.URL)
	if err == nil {
		var obs *observation.Observation
		if obs, err = s.page.Observe(ctx, observation.Request{Focus: a.Focus}); err == nil {
			obs.Loading = res.Observation.Loading
			res, err = s.result(obs, nil)
		}
	}
	return rec.finish(ctx, res, err)
}
