package observation

import (
	"testing"

	"github.com/veetbot/veetbrowser/errcode"
)

// TestCompactRefs: a compact reference is 14 characters for an index of
// one varint byte, is read as the full reference of the newest revision
// (same revision and index), is foreign_reference for another session's
// keys (stale_reference for the one in 256 that shares the tag byte), and
// is refused for any other revision, an edit, another kind and a
// non-canonical spelling.
// otherKeys are another session's keys whose session tag starts with the
// same byte as k's, or with another.
func otherKeys(k *Keys, sameFirstByte bool) *Keys {
	for {
		if o := NewKeys(); (o.tag[0] == k.tag[0]) == sameFirstByte && o.tag != k.tag {
			return o
		}
	}
}

func TestCompactRefs(t *testing.T) {
	k1 := NewKeys()
	k2, twin := otherKeys(k1, false), otherKeys(k1, true)
	for _, tc := range []struct {
		rev, index uint64
		long       int
	}{{1, 0, 14}, {7, 127, 14}, {300, 128, 16}, {1 << 20, 255, 16}} {
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
		if _, _, err := k2.ParseNewest(KindControl, c, tc.rev); errcode.Of(err) != errcode.ForeignReference {
			t.Errorf("%q in another session: %v, want foreign_reference", c, err)
		}
		// One session in 256 shares the tag byte: still refused.
		if _, _, err := twin.ParseNewest(KindControl, c, tc.rev); errcode.Of(err) != errcode.StaleReference {
			t.Errorf("%q in a session with the same tag byte: %v, want stale_reference", c, err)
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

// TestCompactContinuations: a reading continuation written compact is read
// as the newest revision's, with the same streams; the full one still is;
// a compact one of another session is foreign_reference, one of an older
// revision or edited stale_reference.
func TestCompactContinuations(t *testing.T) {
	k1 := NewKeys()
	k2, twin := otherKeys(k1, false), otherKeys(k1, true)
	s := Streams{Controls: ControlsAfter, Control: 200, Region: 31, Text: 499, TextUnits: 4000}
	full := k1.NextKey(1500).MintStreams(s)
	c := CompactRef(full)
	if c[0] != byte(KindNext) || len(c) >= len(full)-5 {
		t.Fatalf("compact %q of %q", c, full)
	}
	for _, ref := range []string{c, full} {
		rev, got, err := k1.ParseStreamsNewest(ref, 1500)
		if err != nil || rev != 1500 || got != s {
			t.Fatalf("%q: revision %d streams %+v, %v", ref, rev, got, err)
		}
	}
	for name, tc := range map[string]struct {
		keys   *Keys
		ref    string
		newest uint64
	}{
		"older":                    {k1, c, 1501},
		"session of the same byte": {twin, c, 1500},
		"edited":                   {k1, c[:3] + flip(c[3]) + c[4:], 1500},
	} {
		if _, _, err := tc.keys.ParseStreamsNewest(tc.ref, tc.newest); errcode.Of(err) != errcode.StaleReference {
			t.Errorf("%s: %v, want stale_reference", name, err)
		}
	}
	if _, _, err := k2.ParseStreamsNewest(c, 1500); errcode.Of(err) != errcode.ForeignReference {
		t.Errorf("another session: %v, want foreign_reference", err)
	}
	if _, _, err := k1.ParseStreams(c); err == nil {
		t.Error("ParseStreams, which knows no newest revision, takes a compact continuation")
	}
}
