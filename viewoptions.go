package veetbrowser

import (
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/tools"
)

// ViewOptions are the projection options that tool version v defines for a
// view within budget, args being the observe arguments that page it: what
// a session projects its views with, and what replay re-derives recorded
// views with.
func ViewOptions(v tools.Version, budget int, args tools.ObserveArgs) projection.Options {
	return viewOptions(v, budget, args)
}
