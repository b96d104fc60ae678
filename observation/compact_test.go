package observation

import (
	"testing"

	"github.com/veetbot/veetbrowser/errcode"
)

// TestCompactRefs: a compact reference is 13 characters for an index of
// one varint byte, is read as the full reference of the newest revision
// (same revision and index), and is refused for any other revision, an
// edit, another session's keys, another kind and a non-canonical
// spelling.
func TestCompactRefs(t *testing.T) {
	k1, k2 := NewKeys(), NewKeys()
	for _, tc := range []struct {
		rev, index uint64
		long       int
	}{{1, 0, 13}, {7, 127, 13}, {300, 128, 14}, {1 << 20, 255, 14}} {
		full := k1.Mint(KindControl, tc.rev, tc.index)
		c := CompactRef(full)
		if len(c) != tc.long || c[0] != 'e' || len(c) >= len(full) {
			t.Fatalf("compact %q of %q: %d characters, want %d", c, full, len(c), tc.long)
		}
		rev, index, err := k1.ParseNewest(KindControl, c, tc.rev)
		if err != nil || rev != tc.rev || index != tc.index {
			t.Fatalf("%q: revision %d index %d, %v; want %d %d", c, rev, index, err, tc.rev, tc.index)
		}
		if rev, index, err := k1.ParseNewest(KindControl, full, tc.rev+1); err != nil || rev != tc.rev || index != tc.index {
			t.Fatalf("the full reference is no longer read as before: %d %d %v", rev, index, err)
		}
		if _, _, err := k1.ParseNewest(KindControl, c, tc.rev+1); errcode.Of(err) != errcode.StaleReference {
			t.Errorf("%q against a newer revision: %v, want stale_reference", c, err)
		}
		if _, _, err := k2.ParseNewest(KindControl, c, tc.rev); errcode.Of(err) != errcode.StaleReference {
			t.Errorf("%q in another session: %v, want stale_reference", c, err)
		}
	}
	c := CompactRef(k1.Mint(KindControl, 9, 3))
	for _, tc := range []struct {
		name string
		ref  string
		kind Kind
		code errcode.Code
	}{
		{"edited index", c[:1] + flip(c[1]) + c[2:], KindControl, errcode.StaleReference},
		{"region as control", CompactRef(k1.Mint(KindRegion, 9, 3)), KindControl, errcode.InvalidArgument},
		{"non-canonical spelling", c[:len(c)-1] + nonCanonical(c[len(c)-1]), KindControl, errcode.UnknownReference},
		{"too short", c[:8], KindControl, errcode.UnknownReference},
	} {
		if _, _, err := k1.ParseNewest(tc.kind, tc.ref, 9); errcode.Of(err) != tc.code {
			t.Errorf("%s (%q): %v, want %s", tc.name, tc.ref, err, tc.code)
		}
	}
	if _, _, err := k1.Parse(KindControl, c); errcode.Of(err) != errcode.UnknownReference {
		t.Errorf("Parse, which knows no newest revision, takes a compact reference: %v", err)
	}
	if got := CompactRef("hello"); got != "hello" {
		t.Errorf("CompactRef of a non-reference: %q", got)
	}
}
