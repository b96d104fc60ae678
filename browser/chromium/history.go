package chromium

import (
	"context"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// History implements browser.Session.
func (s *Session) History(ctx context.Context, step browser.HistoryStep) (*observation.Observation, error) {
	return nil, errcode.New(errcode.Internal, "not built yet")
}
