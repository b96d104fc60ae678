package observation

import (
	"testing"

	"github.com/veetbot/veetbrowser/errcode"
)

// TestContinuationsAreAuthenticated: a continuation with this session's tag
// but minted under another key, or of another kind, is refused; so is one
// longer than MaxNextLen.
func TestContinuationsAreAuthenticated(t *testing.T) {
	keys := NewKeys()
	s := Streams{Controls: ControlsAfter, Control: 3, Region: -1, Text: 7, TextUnits: 11}
	if rev, got, err := keys.ParseStreams(keys.NextKey(4).MintStreams(s)); err != nil || rev != 4 || got != s {
		t.Fatalf("own continuation: %d %+v %v", rev, got, err)
	}
	forged := NextKey{Revision: 4, Tag: keys.tag}.MintStreams(s) // right tag, wrong key
	if _, _, err := keys.ParseStreams(forged); errcode.Of(err) != errcode.UnknownReference {
		t.Fatalf("a continuation minted under another key: %v", err)
	}
	find := keys.NextKey(4).MintFind(FindFrom{Controls: 1, Text: -1, Query: QueryHash("q")})
	if _, _, err := keys.ParseStreams(find); err == nil {
		t.Fatal("a find continuation was read as a reading continuation")
	}
	long := string(KindNext) + string(make([]byte, MaxNextLen))
	if _, _, err := keys.ParseStreams(long); errcode.Of(err) != errcode.UnknownReference {
		t.Fatalf("a continuation of %d characters: %v", len(long), err)
	}
}

// TestReadingWindow is twice the budget, at least 16 KiB and at most
// TextBytes: tested at each bend and one past it.
func TestReadingWindow(t *testing.T) {
	for _, c := range []struct{ budget, want int }{
		{1024, 16384}, {8192, 16384}, {8193, 16386},
		{TextBytes / 2, TextBytes}, {TextBytes/2 + 1, TextBytes}, {1 << 20, TextBytes},
	} {
		if got := ReadingWindow(c.budget); got != c.want {
			t.Errorf("ReadingWindow(%d) = %d, want %d", c.budget, got, c.want)
		}
	}
}
