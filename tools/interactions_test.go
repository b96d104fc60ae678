package tools

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
)

func version(t *testing.T, name string) Version {
	t.Helper()
	v, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestInteractionArgumentsAtTheirBounds: 1.8.0's new arguments are taken
// at their bounds and refused one past them, and refused by 1.7.0.
func TestInteractionArgumentsAtTheirBounds(t *testing.T) {
	v18, v17 := version(t, "1.8.0"), version(t, "1.7.0")
	ok := map[string]string{
		"scroll at 10":      `{"kind":"scroll","viewports":10}`,
		"scroll at -10":     `{"kind":"scroll","viewports":-10}`,
		"scroll over a ref": `{"kind":"scroll","ref":"e1"}`,
		"hover":             `{"kind":"hover","ref":"e1"}`,
		"drag":              `{"kind":"drag","ref":"e1","to":"e2"}`,
		"chord":             `{"kind":"press","ref":"e1","key":"Control+A"}`,
	}
	for name, raw := range ok {
		if _, err := ParseAct(v18, json.RawMessage(raw)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	bad := map[string]string{
		"scroll at 11":      `{"kind":"scroll","viewports":11}`,
		"scroll at -10.5":   `{"kind":"scroll","viewports":-10.5}`,
		"drag without to":   `{"kind":"drag","ref":"e1"}`,
		"hover without ref": `{"kind":"hover"}`,
		"to on a click":     `{"kind":"click","ref":"e1","to":"e2"}`,
		"viewports on type": `{"kind":"type","ref":"e1","viewports":1}`,
	}
	for name, raw := range bad {
		if _, err := ParseAct(v18, json.RawMessage(raw)); errcode.Of(err) != errcode.InvalidArgument {
			t.Errorf("%s: %v, want invalid_argument", name, err)
		}
	}
	for _, raw := range []string{`{"kind":"hover","ref":"e1"}`, `{"kind":"drag","ref":"e1","to":"e2"}`, `{"kind":"scroll"}`} {
		if _, err := ParseAct(v17, json.RawMessage(raw)); errcode.Of(err) != errcode.InvalidArgument {
			t.Errorf("1.7.0 %s: %v", raw, err)
		}
	}
	if _, err := ParseNavigate(v17, json.RawMessage(`{"history":"back"}`)); err == nil || err.Error() != `invalid_argument: invalid arguments: unknown field "history"` {
		t.Errorf("1.7.0 history: %v", err)
	}

	max := int(browser.MaxWait / time.Millisecond)
	waits := map[string]bool{
		`{"text":"done","timeout_ms":30000}`:                 true,
		`{"text":"done","timeout_ms":30001}`:                 false,
		`{"text":"done","timeout_ms":1}`:                     true,
		`{"text":"done","timeout_ms":0}`:                     false,
		`{"text":"done","timeout_ms":18446744074710}`:        false, // ×1e6 would wrap around to 1 s
		`{"text":"done","timeout_ms":-5}`:                    false,
		`{"timeout_ms":100}`:                                 false,
		`{"text":"done","network_idle":true,"timeout_ms":5}`: false,
		`{"ref_gone":"e1","timeout_ms":5}`:                   true,
		`{"network_idle":true,"timeout_ms":5}`:               true,
	}
	for raw, want := range waits {
		req, _, err := ParseWait(json.RawMessage(raw))
		if (err == nil) != want {
			t.Errorf("wait %s: %v", raw, err)
		}
		if err == nil && req.Timeout > time.Duration(max)*time.Millisecond {
			t.Errorf("wait %s: timeout %v", raw, req.Timeout)
		}
	}
	tabs := map[string]bool{
		`{"action":"list"}`:             true,
		`{"action":"select","tab":"t"}`: true,
		`{"action":"close","tab":"t"}`:  true,
		`{"action":"select"}`:           false,
		`{"action":"list","tab":"t"}`:   false,
		`{"action":"open"}`:             false,
	}
	for raw, want := range tabs {
		if _, err := ParseTabs(json.RawMessage(raw)); (err == nil) != want {
			t.Errorf("tabs %s: %v", raw, err)
		}
	}
	names := map[string]bool{}
	for _, tool := range Tools(v18) {
		names[tool.Name] = true
	}
	for _, tool := range Tools(v17) {
		if tool.Name == Wait || tool.Name == Tabs {
			t.Errorf("1.7.0 lists %s", tool.Name)
		}
	}
	if !names[Wait] || !names[Tabs] {
		t.Errorf("1.8.0 tools: %v", names)
	}
}
