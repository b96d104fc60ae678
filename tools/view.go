package tools

import "github.com/veetbot/veetbrowser/projection"

// ViewOptions are the projection options that tool version v defines for a
// view within budget; elementOffset and textOffset are where a 1.1.0 view
// starts its element list and its text (0 elsewhere). A session projects
// its views with them, and replay re-derives recorded views with them, so
// the two cannot drift apart.
func ViewOptions(v Version, budget, elementOffset, textOffset int) projection.Options {
	return projection.Options{Budget: budget, Coverage: v.Continuation, Regions: v.Regions,
		TextCoverage: v.TextCoverage, Offsets: v.Offsets, ElementOffset: elementOffset, TextOffset: textOffset,
		Reading: v.Reading, Frames: v.Frames, Tabs: v.Interactions, Values: v.RealPages,
		Lean: v.RealPages, Compact: v.RealPages, Blocked: v.RealPages}
}
