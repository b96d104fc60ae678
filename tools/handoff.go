package tools

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// browser_handoff (1.10.0's Handoff, docs/controlroom.md): the agent asks
// a person to take the page over and waits until they hand it back.

// Bounds of a handoff.
const (
	// DefaultHandoff is how long a handoff waits when timeout_s is absent.
	DefaultHandoff = 300 * time.Second
	// MaxHandoff bounds timeout_s: a person who never hands back frees
	// the session within it.
	MaxHandoff = 1800 * time.Second
	// MaxHandoffReason bounds the reason shown to the person, in UTF-16
	// units.
	MaxHandoffReason = 200
)

func handoffTool() Tool {
	return Tool{
		Name: Handoff,
		Description: "Ask a person to take over the page (a CAPTCHA, a two-factor code, a login you must not see); waits " +
			"until they hand it back, at most timeout_s (default 300). Returns a fresh view: older refs are stale.",
		InputSchema: object([]string{"reason"}, `"reason":{"type":"string","maxLength":200}`,
			`"timeout_s":{"type":"integer","minimum":1,"maximum":1800}`),
		Destructive: true,
	}
}

// HandoffArgs are browser_handoff's arguments as recorded.
type HandoffArgs struct {
	Reason   string `json:"reason"`
	TimeoutS int    `json:"timeout_s,omitempty"`
}

// Timeout is how long the handoff waits.
func (a HandoffArgs) Timeout() time.Duration {
	if a.TimeoutS == 0 {
		return DefaultHandoff
	}
	return time.Duration(a.TimeoutS) * time.Second
}

// ParseHandoff parses browser_handoff's arguments strictly: a reason of 1
// to MaxHandoffReason units, and a timeout_s of 1 to MaxHandoff seconds.
func ParseHandoff(raw json.RawMessage) (HandoffArgs, error) {
	var w struct {
		Reason   *string `json:"reason"`
		TimeoutS *int    `json:"timeout_s"`
	}
	if err := strict(raw, &w); err != nil {
		return HandoffArgs{}, err
	}
	var a HandoffArgs
	if w.Reason == nil || strings.TrimSpace(*w.Reason) == "" {
		return a, errcode.New(errcode.InvalidArgument, "reason is required: say what the person should do")
	}
	if observation.UTF16Len(*w.Reason) > MaxHandoffReason {
		return a, errcode.New(errcode.InvalidArgument, "reason is longer than %d characters", MaxHandoffReason)
	}
	a.Reason = *w.Reason
	if w.TimeoutS != nil {
		if *w.TimeoutS < 1 || *w.TimeoutS > int(MaxHandoff/time.Second) {
			return a, errcode.New(errcode.InvalidArgument, "timeout_s must be between 1 and %d", int(MaxHandoff/time.Second))
		}
		a.TimeoutS = *w.TimeoutS
	}
	return a, nil
}
