package chromium

import (
	"context"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// Log reads the console or network log of the active tab (tool version
// 1.10.0, docs/debugging.md). The tab's listener keeps the logs; reading
// them issues no CDP command and changes nothing.
func (s *Session) Log(ctx context.Context, req browser.LogRequest) (*observation.Log, error) {
	if !s.debugging {
		return nil, errcode.New(errcode.InvalidArgument, "this session keeps no console or network log (tool version 1.10.0)")
	}
	if req.Log != observation.LogConsole && req.Log != observation.LogNetwork {
		return nil, errcode.New(errcode.InvalidArgument, "no log named %s", errcode.Quote(req.Log))
	}
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.lock.Release(1)
	return s.tab.ReadLog(req.Log, req.Cursor, req.Filter)
}
