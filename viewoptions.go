package veetbrowser

import (
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/tools"
)

// ViewOptions are the projection options that tool version v defines for a
// view within budget, o being the observe options that page it: what a
// session projects its views with, and what replay re-derives recorded
// views with.
func ViewOptions(v tools.Version, budget int, o ObserveOptions) projection.Options {
	return viewOptions(v, budget, o)
}
