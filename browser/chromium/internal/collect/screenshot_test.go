package collect

import (
	"fmt"
	"strings"
	"testing"
)

func TestDecodeShotIsStrict(t *testing.T) {
	view := `"doc": "d", "width": 800, "height": 600, "scroll_x": 0, "scroll_y": 0, "scroll_height": 600`
	if _, err := DecodeShot([]byte(`{` + view + `, "boxes": [{"kind": "password", "l": 1, "t": 2, "r": 3, "b": 4}]}`)); err != nil {
		t.Fatal(err)
	}
	boxes := strings.Repeat(`{"kind": "input", "l": 1, "t": 2, "r": 3, "b": 4},`, MaxMaskBoxes+1)
	for _, bad := range []string{
		`{` + view + `, "boxes": [{"kind": "secret", "l": 1, "t": 2, "r": 3, "b": 4}]}`,
		`{` + view + `, "boxes": [{"kind": "input", "l": 3, "t": 2, "r": 1, "b": 4}]}`,
		`{` + view + `, "boxes": [{"kind": "input", "value": "x", "l": 1, "t": 2, "r": 3, "b": 4}]}`,
		`{` + view + `, "boxes": [` + strings.TrimSuffix(boxes, ",") + `]}`,
		`{` + view + `, "limit": "time"}`,
		`{"error": "covered"}`,
		`{"doc": "d", "width": 0, "height": 600, "scroll_x": 0, "scroll_y": 0, "scroll_height": 600}`,
	} {
		if _, err := DecodeShot([]byte(bad)); err == nil {
			t.Errorf("decoded %s", fmt.Sprintf("%.120s", bad))
		}
	}
}
