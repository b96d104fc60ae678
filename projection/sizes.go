package projection

import (
	"encoding/json"

	"github.com/veetbot/veetbrowser/observation"
)

// Sizes of what a view holds, and display cuts.

func size(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // views hold only strings, numbers and booleans
	}
	return len(b)
}

// clip shortens s so that its JSON string encoding, as encoding/json
// writes it, is at most max bytes, cutting only between runes.
func clip(s string, max int) (string, bool) {
	return observation.CutEscaped(s, max-len(`""`), observation.GoEscaping)
}
