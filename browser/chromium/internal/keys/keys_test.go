package keys

import (
	"fmt"
	"testing"
)

// TestParseChord: modifiers by their exact names, each once, then one
// named key or character; a plain key is a chord without modifiers.
func TestParseChord(t *testing.T) {
	for key, want := range map[string]string{
		"Control+A":                "2 A",
		"Shift+Tab":                "8 Tab",
		"Meta+Enter":               "4 Enter",
		"Control+Shift+ArrowLeft":  "10 ArrowLeft",
		"Alt+Meta+Shift+Control+x": "15 x",
		"Control++":                "2 +",
		"+":                        "0 +",
		"Enter":                    "0 Enter",
		" ":                        "0  ",
		"é":                        "0 é",
	} {
		c, ok := ParseChord(key)
		if got := fmt.Sprintf("%d %s", c.mask, c.key); !ok || got != want {
			t.Errorf("ParseChord(%q) = %q %v, want %q", key, got, ok, want)
		}
	}
	for _, key := range []string{"", "Ctrl+A", "control+a", "Control+Control+A", "Control+", "Control+Foo", "Shift+Hyper+X", "AB", "+A", "Control+Shift"} {
		if c, ok := ParseChord(key); ok {
			t.Errorf("ParseChord(%q) = %+v, want refused", key, c)
		}
	}
}
