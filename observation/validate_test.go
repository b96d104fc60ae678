package observation

import (
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/errcode"
)

func valid() *Observation {
	return &Observation{
		Revision:       "v1",
		Controls:       []Control{{Ref: "e1"}, {Ref: "e2"}},
		Regions:        []Region{{Ref: "g1"}, {Ref: "g2"}},
		RegionCoverage: &RegionCoverage{Version: 1},
		Text:           []TextPart{{Text: "hello"}},
		TextCoverage:   &TextCoverage{Version: 1},
	}
}

func TestValidate(t *testing.T) {
	if err := Validate(valid()); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(o *Observation){
		"regions without coverage": func(o *Observation) { o.RegionCoverage = nil },
		"duplicate region refs":    func(o *Observation) { o.Regions[1].Ref = "g1" },
		"region aliasing control":  func(o *Observation) { o.Regions[0].Ref = "e2" },
		"region aliasing revision": func(o *Observation) { o.Regions[0].Ref = "v1" },
		"text over the bound": func(o *Observation) {
			o.Text = []TextPart{{Text: strings.Repeat("a", TextBytes-3)}}
			o.TextCoverage.OmittedBytes = 1
		},
		"escaping counts": func(o *Observation) { o.Text = []TextPart{{Text: strings.Repeat("\"", TextBytes/2)}} },
	} {
		o := valid()
		mutate(o)
		if errcode.Of(Validate(o)) != errcode.CaptureFailed {
			t.Errorf("%s: admitted", name)
		}
	}
	// At the bound exactly: admitted.
	o := valid()
	o.Text = []TextPart{{Text: strings.Repeat("a", TextBytes-3)}}
	if err := Validate(o); err != nil {
		t.Fatalf("text at the bound: %v", err)
	}
}

func TestReferences(t *testing.T) {
	k1, k2 := NewKeys(), NewKeys()
	ref := k1.Mint(KindControl, 7, 42)
	if rev, idx, err := k1.Parse(KindControl, ref); err != nil || rev != 7 || idx != 42 {
		t.Fatalf("round trip: %d %d %v", rev, idx, err)
	}
	if len(ref) > 24 {
		t.Fatalf("ref %q is %d characters; refs must stay short", ref, len(ref))
	}
	for _, tc := range []struct {
		name string
		ref  string
		kind Kind
		code errcode.Code
	}{
		{"other session", k2.Mint(KindControl, 7, 42), KindControl, errcode.ForeignReference},
		{"edited index", ref[:2] + flip(ref[2]) + ref[3:], KindControl, errcode.UnknownReference},
		{"edited kind", "k" + ref[1:], KindCursor, errcode.UnknownReference},
		{"region as control", k1.Mint(KindRegion, 7, 0), KindControl, errcode.InvalidArgument},
		{"garbage", "hello world", KindControl, errcode.UnknownReference},
		{"upper case", strings.ToUpper(ref), KindControl, errcode.UnknownReference},
		{"empty", "", KindControl, errcode.UnknownReference},
		{"non-canonical spelling", ref[:len(ref)-1] + nonCanonical(ref[len(ref)-1]), KindControl, errcode.UnknownReference},
	} {
		if _, _, err := k1.Parse(tc.kind, tc.ref); errcode.Of(err) != tc.code {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.code)
		}
	}
}

func flip(c byte) string {
	if c == 'a' {
		return "b"
	}
	return "a"
}

// nonCanonical returns another base32 letter that differs from c only in
// the low bits a short final group leaves unused.
func nonCanonical(c byte) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz234567"
	i := strings.IndexByte(alphabet, c)
	return string(alphabet[i^1])
}
