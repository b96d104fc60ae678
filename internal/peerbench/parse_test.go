package peerbench

import (
	"slices"
	"testing"
)

// $VEET_PEERS is read as name=command line entries; a malformed entry or a
// name taken twice (or veetbrowser's own) is refused rather than guessed.
func TestParsePeers(t *testing.T) {
	got, err := parsePeers(" pw=playwright-mcp --headless ; cd=env A=1 chrome-devtools-mcp --isolated")
	if err != nil {
		t.Fatal(err)
	}
	want := []peer{{"pw", []string{"playwright-mcp", "--headless"}}, {"cd", []string{"env", "A=1", "chrome-devtools-mcp", "--isolated"}}}
	if !slices.EqualFunc(got, want, func(a, b peer) bool { return a.name == b.name && slices.Equal(a.args, b.args) }) {
		t.Errorf("got %q", got)
	}
	for _, bad := range []string{
		"pw",                      // no command line
		"pw=",                     // an empty one
		"=playwright-mcp",         // no name
		"p/w=playwright-mcp",      // a name b.Run would split
		"p w=playwright-mcp",      // a name with a space
		"pw=a;pw=b",               // a name taken twice
		"veetbrowser=veetbrowser", // the server under test's own
		"pw=a;",                   // an empty entry
	} {
		if _, err := parsePeers(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
