package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/jpeg"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/projection"
)

var shared = browsertest.Shared[*chromium.Provider]{Launch: func() (*chromium.Provider, error) {
	return chromium.Launch(context.Background(), chromium.Options{})
}}

func TestMain(m *testing.M) { browsertest.Main(m, &shared) }

func connect(t testing.TB, opts Options) *mcp.ClientSession {
	t.Helper()
	ctx := browsertest.Context(t, time.Minute)
	rt, err := veetbrowser.New(shared.Get(t), veetbrowser.Options{Budget: 1024})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(rt, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.MCP.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(browsertest.Context(t, time.Minute), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

func TestToolsWalkAPageThroughContinuations(t *testing.T) {
	t.Parallel()
	cs := connect(t, Options{})
	tools, err := cs.ListTools(browsertest.Context(t, time.Minute), nil)
	if err != nil {
		t.Fatal(err)
	}
	annotations := map[string]*mcp.ToolAnnotations{}
	for _, tool := range tools.Tools {
		annotations[tool.Name] = tool.Annotations
	}
	if a := annotations["browser_observe"]; a == nil || !a.ReadOnlyHint {
		t.Fatal("browser_observe is not annotated read-only")
	}
	if a := annotations["browser_navigate"]; a == nil || a.ReadOnlyHint {
		t.Fatal("browser_navigate is annotated read-only")
	}
	for _, name := range []string{"browser_act", "browser_upload"} {
		if a := annotations[name]; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint {
			t.Fatalf("%s is not annotated destructive", name)
		}
	}

	url := browsertest.Serve(t, browsertest.Repeat(300, "<button>control %d</button>"))
	text, isErr := call(t, cs, "browser_navigate", map[string]any{"url": url})
	seen := map[string]bool{}
	for calls := 1; ; calls++ {
		if isErr {
			t.Fatalf("tool error: %s", text)
		}
		if len(text) > 1024 {
			t.Fatalf("view of %d bytes exceeds the 1 KiB budget", len(text))
		}
		var v projection.View
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			t.Fatal(err)
		}
		for _, c := range v.Controls {
			if seen[c.Name] {
				t.Fatalf("%q shown twice", c.Name)
			}
			seen[c.Name] = true
		}
		if v.Next == nil {
			break
		}
		if calls > 200 {
			t.Fatal("no end after 200 calls")
		}
		text, isErr = call(t, cs, "browser_observe", v.Next)
	}
	if len(seen) != 300 {
		t.Fatalf("saw %d controls, want 300", len(seen))
	}
}

func TestToolErrorsCarryStableCodes(t *testing.T) {
	t.Parallel()
	cs := connect(t, Options{})
	for _, tc := range []struct {
		tool string
		args any
		code string
	}{
		{"browser_navigate", map[string]any{"url": "file:///etc/passwd"}, "invalid_argument"},
		{"browser_navigate", map[string]any{"url": "http://127.0.0.1:1/", "x": 1}, "invalid_argument"},
		{"browser_observe", map[string]any{"after": "eaaaaaaaaaaaaaaaaaaaaaa"}, "unknown_reference"},
		{"browser_observe", map[string]any{"after": "a", "cursor": "b"}, "invalid_argument"},
		{"browser_observe", map[string]any{"selector": "button"}, "invalid_argument"},
	} {
		text, isErr := call(t, cs, tc.tool, tc.args)
		if !isErr || !strings.Contains(text, `"code":"`+tc.code+`"`) {
			t.Errorf("%s %v: %s, want code %s", tc.tool, tc.args, text, tc.code)
		}
	}
}

func TestPinnedOldVersionRefusesContinuation(t *testing.T) {
	t.Parallel()
	cs := connect(t, Options{Version: "1.0.0"})
	tools, err := cs.ListTools(browsertest.Context(t, time.Minute), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		if tool.Name == "browser_observe" && strings.Contains(string(b), "after") {
			t.Fatalf("1.0.0 observe schema offers after: %s", b)
		}
	}
	text, isErr := call(t, cs, "browser_observe", map[string]any{"cursor": "k"})
	if !isErr || !strings.Contains(text, "expansion_unsupported") && !strings.Contains(text, "invalid_argument") {
		t.Fatalf("1.0.0 accepted a cursor: %s", text)
	}
}

// TestToolErrorsAreBounded: a huge field name, action kind, key or option
// value comes back only as a short cut prefix; null arguments and an empty
// continuation are invalid_argument.
func TestToolErrorsAreBounded(t *testing.T) {
	t.Parallel()
	cs := connect(t, Options{})
	url := browsertest.Serve(t, `<input aria-label="q"><select aria-label="s"><option>a</option></select>`)
	text, isErr := call(t, cs, "browser_navigate", map[string]any{"url": url})
	if isErr {
		t.Fatal(text)
	}
	var v projection.View
	if err := json.Unmarshal([]byte(text), &v); err != nil || len(v.Controls) < 2 {
		t.Fatalf("view %s: %v", text, err)
	}
	huge := strings.Repeat("k", 900<<10)
	for _, tc := range []struct {
		tool string
		args any
		code string
	}{
		{"browser_observe", map[string]any{huge: 1}, "invalid_argument"},
		{"browser_act", map[string]any{"kind": huge, "ref": v.Controls[0].Ref}, "invalid_argument"},
		{"browser_act", map[string]any{"kind": huge}, "invalid_argument"},
		{"browser_act", map[string]any{"kind": "press", "ref": v.Controls[0].Ref, "key": huge}, "invalid_argument"},
		{"browser_act", map[string]any{"kind": "select", "ref": v.Controls[1].Ref, "option": huge}, "not_actionable"},
		{"browser_act", map[string]any{"kind": "type", "ref": v.Controls[0].Ref, "text": strings.Repeat("t", 2<<20)}, "invalid_argument"},
		{"browser_observe", json.RawMessage(`null`), "invalid_argument"},
		{"browser_observe", map[string]any{"after": ""}, "invalid_argument"},
		{"browser_observe", map[string]any{"cursor": ""}, "invalid_argument"},
	} {
		text, isErr := call(t, cs, tc.tool, tc.args)
		if !isErr || !strings.Contains(text, `"code":"`+tc.code+`"`) || len(text) > 512 {
			t.Errorf("%s: %d bytes: %.300s; want code %s within 512 bytes", tc.tool, len(text), text, tc.code)
		}
	}
	_, err := cs.CallTool(browsertest.Context(t, time.Minute), &mcp.CallToolParams{Name: huge})
	if err == nil || len(err.Error()) > 512 || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("unknown tool of %d bytes: error of %d bytes: %.300v", len(huge), len(fmt.Sprint(err)), err)
	}
}

// TestFindOverMCP: browser_find is a read-only tool of the newest version,
// and a text match's next, passed to browser_observe as it is, reads on
// from the match's paragraph.
func TestFindOverMCP(t *testing.T) {
	t.Parallel()
	cs := connect(t, Options{})
	tools, err := cs.ListTools(browsertest.Context(t, time.Minute), nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tool := range tools.Tools {
		if tool.Name == "browser_find" {
			found = tool.Annotations != nil && tool.Annotations.ReadOnlyHint
		}
	}
	if !found {
		t.Fatal("browser_find is missing or not annotated read-only")
	}
	url := browsertest.Serve(t, browsertest.Repeat(200, "<p>Paragraph %d of the report.</p>")+"<p>The harbour master signs the ledger.</p>")
	if text, isErr := call(t, cs, "browser_navigate", map[string]any{"url": url}); isErr {
		t.Fatal(text)
	}
	text, isErr := call(t, cs, "browser_find", map[string]any{"query": "harbour LEDGER"})
	var v projection.View
	if err := json.Unmarshal([]byte(text), &v); isErr || err != nil || len(v.Matches) != 1 || v.Matches[0].Next == nil {
		t.Fatalf("find: %s", text)
	}
	text, isErr = call(t, cs, "browser_observe", v.Matches[0].Next)
	var read projection.View
	if err := json.Unmarshal([]byte(text), &read); isErr || err != nil || len(read.Text) == 0 || read.Text[0] != "The harbour master signs the ledger." {
		t.Fatalf("reading from the match: %s", text)
	}
}

// TestScreenshotOverMCP: browser_screenshot answers with its summary as
// text and the masked JPEG as image content.
func TestScreenshotOverMCP(t *testing.T) {
	t.Parallel()
	cs := connect(t, Options{})
	url := browsertest.Serve(t, `<label>Name <input value="secret value"></label><button>Go</button>`)
	if _, isErr := call(t, cs, "browser_navigate", map[string]any{"url": url}); isErr {
		t.Fatal("navigate failed")
	}
	res, err := cs.CallTool(browsertest.Context(t, time.Minute), &mcp.CallToolParams{Name: "browser_screenshot", Arguments: map[string]any{}})
	if err != nil || res.IsError || len(res.Content) != 2 {
		t.Fatalf("screenshot: %v %+v", err, res)
	}
	img, ok := res.Content[1].(*mcp.ImageContent)
	if !ok || img.MIMEType != "image/jpeg" {
		t.Fatalf("content %T", res.Content[1])
	}
	if _, err := jpeg.DecodeConfig(bytes.NewReader(img.Data)); err != nil {
		t.Fatalf("the image does not decode: %v", err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, `"masked":1`) {
		t.Errorf("summary %s", text)
	}
}
