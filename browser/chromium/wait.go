package chromium

import (
	"context"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// Wait implements browser.Session.
func (s *Session) Wait(ctx context.Context, req browser.WaitRequest) (*observation.Observation, error) {
	return nil, errcode.New(errcode.Internal, "not built yet")
}
