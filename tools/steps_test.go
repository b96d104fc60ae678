package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
)

func stepsJSON(n int) json.RawMessage {
	steps := make([]string, n)
	for i := range steps {
		steps[i] = fmt.Sprintf(`{"kind":"type","ref":"c%d","text":"x"}`, i)
	}
	return json.RawMessage(`{"steps":[` + strings.Join(steps, ",") + `]}`)
}

// TestStepsBound: 1.9.0 takes 16 steps, each parsed as a single action,
// and refuses 17 (and none) with invalid_argument, naming the bound.
func TestStepsBound(t *testing.T) {
	v, _ := Lookup("1.9.0")
	a, err := ParseActArgs(v, stepsJSON(MaxSteps))
	if err != nil || len(a.Steps) != MaxSteps || a.Steps[15].Ref != "c15" || a.Steps[15].Kind != browser.ActType {
		t.Fatalf("16 steps: %+v %v", a, err)
	}
	for _, n := range []int{MaxSteps + 1, 0} {
		_, err := ParseActArgs(v, stepsJSON(n))
		if errcode.Of(err) != errcode.InvalidArgument || !strings.Contains(err.Error(), "1 to 16") {
			t.Fatalf("%d steps: %v", n, err)
		}
	}
}

// TestStepsRefusals: steps with a single action's arguments, a bad step
// (named by its index), steps in a step, and steps before 1.9.0 are all
// invalid_argument; a single action still parses as before.
func TestStepsRefusals(t *testing.T) {
	v, _ := Lookup("1.9.0")
	for raw, want := range map[string]string{
		`{"kind":"click","ref":"a","steps":[{"kind":"click","ref":"b"}]}`: "not both",
		`{"steps":[{"kind":"click","ref":"b"},{"kind":"type"}]}`:          "step 2: ref is required",
		`{"steps":[{"steps":[{"kind":"click","ref":"b"}]}]}`:              `step 1: invalid arguments: unknown field "steps"`,
		`{"steps":{"kind":"click"}}`:                                      "array",
	} {
		_, err := ParseActArgs(v, json.RawMessage(raw))
		if errcode.Of(err) != errcode.InvalidArgument || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", raw, err, want)
		}
	}
	a, err := ParseActArgs(v, json.RawMessage(`{"kind":"click","ref":"a"}`))
	if err != nil || a.Steps != nil || a.Action.Ref != "a" {
		t.Fatalf("single: %+v %v", a, err)
	}
	old, _ := Lookup("1.8.0")
	if _, err := ParseActArgs(old, stepsJSON(2)); errcode.Of(err) != errcode.InvalidArgument || !strings.Contains(err.Error(), `unknown field "steps"`) {
		t.Fatalf("1.8.0: %v", err)
	}
}
