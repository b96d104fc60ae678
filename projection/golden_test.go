package projection_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/tools"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGoldenViews pins each version's model view of the demo page's
// canonical observation at 1, 4 and 8 KiB, projected with the options a
// session of that version uses.
func TestGoldenViews(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "demo-observation.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range tools.Versions {
		for _, budget := range []int{1024, 4096, 8192} {
			var obs observation.Observation
			if err := json.Unmarshal(raw, &obs); err != nil {
				t.Fatal(err)
			}
			obs.Version = v.Name
			out, err := projection.Project(&obs, tools.ViewOptions(v, budget, 0, 0))
			if err != nil {
				t.Fatalf("%s at %d: %v", v.Name, budget, err)
			}
			if len(out) > budget {
				t.Fatalf("%s at %d: %d bytes", v.Name, budget, len(out))
			}
			checkGolden(t, fmt.Sprintf("%s-%d.json", v.Name, budget), out)
		}
	}
}

// checkGolden compares a view with the golden file of that name, or
// writes it there under -update.
func checkGolden(t *testing.T, name string, out []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(append(out, '\n'), want) {
		t.Errorf("%s differs:\n%s", path, out)
	}
}
