package chromium

import (
	"context"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// Tabs implements browser.Session.
func (s *Session) Tabs(ctx context.Context, req browser.TabsRequest) (*observation.Observation, error) {
	return nil, errcode.New(errcode.Internal, "not built yet")
}
