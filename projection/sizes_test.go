package projection

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// sizeValues are values of the kinds the projection measures, holding s
// where a page's text goes.
func sizeValues(s string) []any {
	n := 3
	g := Region{Kind: s, Name: s, Summary: s}
	c := Control{Ref: s, Role: s, Name: s}
	return []any{
		s, []string{s, s}, nil, n, &n, true,
		g, &g, []Region{g, {Summary: s}},
		c, &c, []Control{c},
		View{Revision: s, Controls: []Control{c}, Regions: []Region{g}, Text: []string{s}},
		Frame{Origin: s, Status: s},
		map[string]string{s: s},
	}
}

// TestSizeIsMarshalLength: size counts what json.Marshal writes, on values
// of every kind a view holds, the golden views among them, and on strings
// that escape (HTML characters, invalid UTF-8, line separators).
func TestSizeIsMarshalLength(t *testing.T) {
	var values []any
	for _, s := range []string{"", "plain", `<a href="x">&amp;</a>`, "\u2028\u2029\x00\x1f\t\n", "\xff\xfe broken", "語 text 🙂", `\"quoted\"`} {
		values = append(values, sizeValues(s)...)
	}
	goldens, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no golden views: %v", err)
	}
	for _, path := range goldens {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var v View
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		values = append(values, v, v.Controls, v.Regions, v.Text)
		for _, c := range v.Controls {
			values = append(values, c)
		}
		for _, g := range v.Regions {
			values = append(values, g)
		}
	}
	for i, v := range values {
		checkSize(t, i, v)
	}
}

// FuzzSize: size is json.Marshal's length for any text.
func FuzzSize(f *testing.F) {
	for _, s := range []string{"", "<>&", "\u2028", "\xff", "語"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i, v := range sizeValues(s) {
			checkSize(t, i, v)
		}
	})
}

func checkSize(t *testing.T, i int, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("value %d: %v", i, err)
	}
	if got := size(v); got != len(b) {
		t.Fatalf("value %d %s: size %d, marshaled %d", i, b, got, len(b))
	}
}
