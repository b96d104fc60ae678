package chromium

import (
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/observation"
)

// The request guard of a session (tool version 1.9.0, docs/navigation.md):
// every tab the session opens or adopts pauses each of its requests and
// asks the session's request check; the requests refused, on any tab, go
// into one tally that the next observation reports as its Blocked record.

// tabOptions completes the options of a tab the session opens or adopts.
func (s *Session) tabOptions(o tab.Options) tab.Options {
	o.Frames, o.Timings, o.Logs = s.frames, s.timings, s.debugging
	o.CheckRequest, o.Blocked = s.requests.CheckRequest, s.requests.Blocked
	o.Contain, o.NoServiceWorkers = s.requests.Contain, s.requests.NoServiceWorkers
	return o
}

// stampBlocked puts the requests blocked since the previous observation on
// obs. The tally is emptied: an observation that fails after this loses
// the count, never shows it twice.
func (s *Session) stampBlocked(obs *observation.Observation) {
	if s.requests.Blocked != nil {
		obs.Blocked = s.requests.Blocked.Take()
	}
}
