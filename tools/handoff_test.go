package tools

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
)

// TestHandoffArgsAreBounded: timeout_s is taken at MaxHandoff and refused
// one past it, and at 0; the reason is required and bounded at
// MaxHandoffReason units; absent, the timeout is DefaultHandoff.
func TestHandoffArgsAreBounded(t *testing.T) {
	max := int(MaxHandoff / time.Second)
	reason := strings.Repeat("é", MaxHandoffReason)
	for _, tc := range []struct {
		args string
		want time.Duration // 0: refused
	}{
		{`{"reason":"Enter the code"}`, DefaultHandoff},
		{`{"reason":"Enter the code","timeout_s":1}`, time.Second},
		{`{"reason":"Enter the code","timeout_s":` + itoa(max) + `}`, MaxHandoff},
		{`{"reason":"Enter the code","timeout_s":` + itoa(max+1) + `}`, 0},
		{`{"reason":"Enter the code","timeout_s":0}`, 0},
		{`{"reason":"` + reason + `"}`, DefaultHandoff},
		{`{"reason":"` + reason + `x"}`, 0},
		{`{"reason":"  "}`, 0},
		{`{}`, 0},
		{`{"reason":"x","keys":"y"}`, 0},
	} {
		a, err := ParseHandoff(json.RawMessage(tc.args))
		if tc.want == 0 {
			if errcode.Of(err) != errcode.InvalidArgument {
				t.Errorf("%.60s: %v, want invalid_argument", tc.args, err)
			}
			continue
		}
		if err != nil || a.Timeout() != tc.want {
			t.Errorf("%.60s: %v %v, want %v", tc.args, a.Timeout(), err, tc.want)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestHandoffIsOnlyIn1_10_0: browser_handoff is a tool of 1.10.0 alone.
func TestHandoffIsOnlyIn1_10_0(t *testing.T) {
	for _, v := range Versions {
		if got, want := v.Has(Handoff), v.Name == "1.10.0"; got != want {
			t.Errorf("%s has browser_handoff: %v", v.Name, got)
		}
	}
}
