package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// parseAll runs every parser of the newest version on raw.
func parseAll(raw json.RawMessage) map[string]error {
	_, nav := ParseNavigate(Newest(), raw)
	_, obs := ParseObserve(Newest(), raw)
	_, act := ParseAct(Newest(), raw)
	_, up := ParseUpload(raw)
	return map[string]error{Navigate: nav, Observe: obs, Act: act, Upload: up}
}

func TestArgumentsMustBeAnObject(t *testing.T) {
	for _, raw := range []string{`null`, ` null `, `[]`, `"x"`, `1`, `true`} {
		for tool, err := range parseAll(json.RawMessage(raw)) {
			if errcode.Of(err) != errcode.InvalidArgument {
				t.Errorf("%s(%s): %v, want invalid_argument", tool, raw, err)
			}
		}
	}
	// Absent arguments are the empty object: observe needs none.
	for _, raw := range []string{``, `  `, `{}`} {
		if _, err := ParseObserve(Newest(), json.RawMessage(raw)); err != nil {
			t.Errorf("observe(%q): %v", raw, err)
		}
	}
}

func TestEmptyContinuationIsInvalid(t *testing.T) {
	for _, v := range Versions {
		for _, raw := range []string{`{"after":""}`, `{"cursor":""}`} {
			if _, err := ParseObserve(v, json.RawMessage(raw)); errcode.Of(err) != errcode.InvalidArgument {
				t.Errorf("%s %s: %v, want invalid_argument", v.Name, raw, err)
			}
		}
	}
	a, err := ParseObserve(Newest(), json.RawMessage(`{"after":"e1"}`))
	if err != nil || a.After != "e1" || a.Cursor != "" {
		t.Fatalf("after: %+v %v", a, err)
	}
	a, err = ParseObserve(Newest(), json.RawMessage(`{"cursor":"k1"}`))
	if err != nil || a.Cursor != "k1" || a.After != "" {
		t.Fatalf("cursor: %+v %v", a, err)
	}
	if _, err := ParseObserve(Versions[0], json.RawMessage(`{"cursor":"k1"}`)); errcode.Of(err) != errcode.ExpansionUnsupported {
		t.Fatalf("1.0.0 cursor: %v", err)
	}
}

func TestArgumentSizeIsBounded(t *testing.T) {
	// The JSON wrapper around the text is 28 bytes.
	text := func(total int) json.RawMessage {
		return json.RawMessage(`{"kind":"type","ref":"e1","text":"` + strings.Repeat("a", total-len(`{"kind":"type","ref":"e1","text":""}`)) + `"}`)
	}
	at, past := text(MaxArgumentBytes), text(MaxArgumentBytes+1)
	if len(at) != MaxArgumentBytes || len(past) != MaxArgumentBytes+1 {
		t.Fatalf("sizes %d %d", len(at), len(past))
	}
	if a, err := ParseAct(Newest(), at); err != nil || len(a.Text) == 0 {
		t.Fatalf("arguments of exactly %d bytes: %v", MaxArgumentBytes, err)
	}
	_, err := ParseAct(Newest(), past)
	if errcode.Of(err) != errcode.InvalidArgument {
		t.Fatalf("arguments of %d bytes: %v", MaxArgumentBytes+1, err)
	}
	if _, msg := errcode.Public(err); len(msg) > 200 {
		t.Fatalf("the size error is %d bytes", len(msg))
	}
}

// TestErrorsDoNotEchoHugeInput: whatever a caller sends, an error quotes at
// most a cut prefix of it.
func TestErrorsDoNotEchoHugeInput(t *testing.T) {
	huge := strings.Repeat("x", 900<<10) // under the argument bound
	cases := map[string]error{}
	_, cases["unknown field"] = ParseObserve(Newest(), json.RawMessage(`{"`+huge+`":1}`))
	_, cases["act kind without ref"] = ParseAct(Newest(), json.RawMessage(`{"kind":"`+huge+`"}`))
	_, cases["tool version"] = Lookup(huge)
	_, cases["escaped field"] = ParseNavigate(Newest(), json.RawMessage(`{"`+strings.Repeat(`\n`, 1000)+`":1}`))
	for name, err := range cases {
		if errcode.Of(err) != errcode.InvalidArgument {
			t.Errorf("%s: %v, want invalid_argument", name, err)
			continue
		}
		_, msg := errcode.Public(err)
		if len(msg) > 300 || len(err.Error()) > 300 || strings.Contains(msg, "\n") {
			t.Errorf("%s: message of %d bytes: %.200s", name, len(msg), msg)
		}
	}
	_, msg := errcode.Public(cases["unknown field"])
	if want := fmt.Sprintf("unknown field %s", errcode.Quote(huge)); !strings.Contains(msg, want) {
		t.Errorf("unknown field message %q lacks %q", msg, want)
	}
}

func TestTypeErrorsNameTheField(t *testing.T) {
	_, err := ParseAct(Newest(), json.RawMessage(`{"kind":1}`))
	if _, msg := errcode.Public(err); errcode.Of(err) != errcode.InvalidArgument || !strings.Contains(msg, `"kind" must be a string`) {
		t.Fatalf("%v", err)
	}
}

// TestFrameDescriptions: 1.7.0's tools that return an observation say that
// frame content is included, how it is named and what each frame status
// means, as an addition to 1.6.0's descriptions; no older version speaks
// of frames.
func TestFrameDescriptions(t *testing.T) {
	v17, err := Lookup("1.7.0")
	if err != nil {
		t.Fatal(err)
	}
	v16, err := Lookup("1.6.0")
	if err != nil {
		t.Fatal(err)
	}
	before := map[string]string{}
	for _, tool := range Tools(v16) {
		before[tool.Name] = tool.Description
	}
	for _, tool := range Tools(v17) {
		if tool.Name == Find {
			if tool.Description != before[Find] {
				t.Errorf("1.7.0's find description changed: %q", tool.Description)
			}
			continue
		}
		if !strings.HasPrefix(tool.Description, before[tool.Name]) {
			t.Errorf("%s 1.7.0 does not extend 1.6.0's description: %q", tool.Name, tool.Description)
		}
		for _, want := range append([]string{`"frame"`, "text_frames", `"frames"`, "grant"}, observation.FrameStatuses...) {
			if !strings.Contains(tool.Description, want) {
				t.Errorf("%s 1.7.0 description lacks %q", tool.Name, want)
			}
		}
	}
	for _, v := range Versions {
		if v.Frames {
			continue
		}
		for _, tool := range Tools(v) {
			if strings.Contains(strings.ToLower(tool.Description), "frame") {
				t.Errorf("%s %s speaks of frames: %q", tool.Name, v.Name, tool.Description)
			}
		}
	}
}

// TestVersionHasItsListedTools: Has answers true for exactly the tools a
// version lists, so the dispatchers that ask it and the lists that show
// tools agree.
func TestVersionHasItsListedTools(t *testing.T) {
	all := []string{Navigate, Observe, Act, Upload, Find, Wait, Tabs, Screenshot, Console, Network, Emulate, Downloads, Handoff}
	for _, v := range Versions {
		listed := map[string]bool{}
		for _, tool := range Tools(v) {
			listed[tool.Name] = true
		}
		for _, name := range all {
			if v.Has(name) != listed[name] {
				t.Errorf("%s: Has(%s) = %v, listed %v", v.Name, name, v.Has(name), listed[name])
			}
		}
		if len(listed) > len(all) {
			t.Errorf("%s lists %d tools, more than the %d known", v.Name, len(listed), len(all))
		}
		for _, name := range []string{"", "browser_", "browser_unknown", "Browser_observe", "browser_observe "} {
			if v.Has(name) {
				t.Errorf("%s has %q", v.Name, name)
			}
		}
	}
}
