package mcpserver

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/tools"
)

// listBytes is the JSON of version's tool list as a client gets it from
// tools/list: every tool's name, description, input schema and hints.
func listBytes(t testing.TB, version string) int {
	t.Helper()
	cs := connect(t, Options{Version: version})
	res, err := cs.ListTools(browsertest.Context(t, time.Minute), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res.Tools)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// TestToolListBytes: 1.9.0's tool list, which a client sends the model on
// every turn, is at most tools.LeanListBytes (6 KiB) as tools/list sends it.
func TestToolListBytes(t *testing.T) {
	t.Parallel()
	lean, old := listBytes(t, "1.9.0"), listBytes(t, "1.8.0")
	t.Logf("tool list: 1.8.0 %d bytes, 1.9.0 %d bytes (%d left of %d)", old, lean, tools.LeanListBytes-lean, tools.LeanListBytes)
	if lean > tools.LeanListBytes {
		t.Fatalf("1.9.0's tool list is %d bytes, more than %d", lean, tools.LeanListBytes)
	}
}

// BenchmarkToolListBytes reports the bytes of the 1.8.0 and the 1.9.0 tool
// list as tools/list sends them, and their ratio.
func BenchmarkToolListBytes(b *testing.B) {
	for b.Loop() {
	}
	lean, old := listBytes(b, "1.9.0"), listBytes(b, "1.8.0")
	b.ReportMetric(float64(old), "B-1.8.0")
	b.ReportMetric(float64(lean), "B-1.9.0")
	b.ReportMetric(float64(lean)/float64(old), "ratio")
}
