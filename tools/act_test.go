package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// labels is a JSON array of n distinct option labels.
func labels(n int) string {
	l := make([]string, n)
	for i := range l {
		l[i] = fmt.Sprintf("%q", fmt.Sprintf("Topic %d", i))
	}
	return "[" + strings.Join(l, ",") + "]"
}

// TestChoiceArgumentsAtTheirBounds: 1.9.0's options and mode are taken at
// their bounds and refused one past them, and refused by 1.8.0, whose
// schema has neither.
func TestChoiceArgumentsAtTheirBounds(t *testing.T) {
	v19, v18 := version(t, "1.9.0"), version(t, "1.8.0")
	ok := map[string]string{
		"64 options":    `{"kind":"select","ref":"e1","options":` + labels(observation.MaxSelectChoices) + `}`,
		"one, add":      `{"kind":"select","ref":"e1","options":["World"],"mode":"add"}`,
		"one, remove":   `{"kind":"select","ref":"e1","options":["World"],"mode":"remove"}`,
		"one, set":      `{"kind":"select","ref":"e1","options":["World"],"mode":"set"}`,
		"dblclick":      `{"kind":"dblclick","ref":"e1"}`,
		"context_click": `{"kind":"context_click","ref":"e1"}`,
		"select_text":   `{"kind":"select_text","ref":"e1","text":"a part"}`,
		"page text":     `{"kind":"select_text","text":"a part of the page"}`,
		"single select": `{"kind":"select","ref":"e1","option":"World"}`,
	}
	for name, raw := range ok {
		if _, err := ParseAct(v19, json.RawMessage(raw)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	bad := map[string]string{
		"65 options":          `{"kind":"select","ref":"e1","options":` + labels(observation.MaxSelectChoices+1) + `}`,
		"no options":          `{"kind":"select","ref":"e1","options":[]}`,
		"empty label":         `{"kind":"select","ref":"e1","options":[""]}`,
		"twice":               `{"kind":"select","ref":"e1","options":["World","World"]}`,
		"unknown mode":        `{"kind":"select","ref":"e1","options":["World"],"mode":"toggle"}`,
		"mode alone":          `{"kind":"select","ref":"e1","option":"World","mode":"add"}`,
		"option and options":  `{"kind":"select","ref":"e1","option":"World","options":["World"]}`,
		"options on click":    `{"kind":"click","ref":"e1","options":["World"]}`,
		"options not strings": `{"kind":"select","ref":"e1","options":[1]}`,
		"label over bound":    `{"kind":"select","ref":"e1","options":["` + strings.Repeat("x", observation.MaxNameUnits+1) + `"]}`,
		"nothing to select":   `{"kind":"select_text"}`,
		"no ref, no text":     `{"kind":"select_text","text":""}`,
		"click without ref":   `{"kind":"click","text":"Home"}`,
	}
	for name, raw := range bad {
		if _, err := ParseAct(v19, json.RawMessage(raw)); errcode.Of(err) != errcode.InvalidArgument {
			t.Errorf("%s: %v, want invalid_argument", name, err)
		}
	}
	// At the label bound, a label is taken.
	if _, err := ParseAct(v19, json.RawMessage(`{"kind":"select","ref":"e1","options":["`+strings.Repeat("x", observation.MaxNameUnits)+`"]}`)); err != nil {
		t.Errorf("a label at the bound: %v", err)
	}
	for _, raw := range []string{`{"kind":"select","ref":"e1","options":["World"]}`, `{"kind":"select","ref":"e1","option":"World","mode":"set"}`, `{"kind":"select_text","text":"a part"}`} {
		if _, err := ParseAct(v18, json.RawMessage(raw)); errcode.Of(err) != errcode.InvalidArgument {
			t.Errorf("1.8.0 %s: %v, want invalid_argument", raw, err)
		}
	}
}
