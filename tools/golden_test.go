package tools

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// listedTool is a tool as a client lists it: the MCP server's and the
// sidecar's tool lists carry these fields of Tool.
type listedTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	ReadOnly    bool            `json:"readOnly"`
	Destructive bool            `json:"destructive"`
}

// listing is version v's tool list as indented JSON, HTML characters
// unescaped, ending in a newline.
func listing(t *testing.T, v Version) []byte {
	t.Helper()
	var list []listedTool
	for _, tool := range Tools(v) {
		list = append(list, listedTool(tool))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(list); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestGoldenToolLists pins every registered version's tool list (names,
// descriptions, input schemas and hints) to testdata/tools-<version>.json,
// so an edit to text that versions share cannot change an older version
// unseen. go test -update rewrites the files.
func TestGoldenToolLists(t *testing.T) {
	pinned := map[string]bool{}
	for _, v := range Versions {
		name := "tools-" + v.Name + ".json"
		pinned[name] = true
		path := filepath.Join("testdata", name)
		got := listing(t, v)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: %s's tool list differs from the pinned one (go test -update rewrites it after a deliberate change):\n%s", path, v.Name, got)
		}
	}
	files, err := filepath.Glob(filepath.Join("testdata", "tools-*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !pinned[filepath.Base(f)] {
			t.Errorf("%s pins no registered version", f)
		}
	}
}
