package projection

import (
	"encoding/json"

	"github.com/veetbot/veetbrowser/observation"
)

// Sizes of what a view holds, and display cuts.

// size is len(json.Marshal(v)). The projection measures many values per
// view, so the encoding is counted as it is written instead of copied out:
// an Encoder writes exactly Marshal's bytes, then a newline.
func size(v any) int {
	var n byteCount
	if err := json.NewEncoder(&n).Encode(v); err != nil {
		panic(err) // views hold only strings, numbers and booleans
	}
	return int(n) - len("\n")
}

// byteCount is a writer that counts what is written to it.
type byteCount int

func (n *byteCount) Write(p []byte) (int, error) {
	*n += byteCount(len(p))
	return len(p), nil
}

// clip shortens s so that its JSON string encoding, as encoding/json
// writes it, is at most max bytes, cutting only between runes.
func clip(s string, max int) (string, bool) {
	return observation.CutEscaped(s, max-len(`""`), observation.GoEscaping)
}
