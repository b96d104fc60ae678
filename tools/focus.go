package tools

import (
	"encoding/json"
	"strings"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// focusProperty is the main-first reading order's argument of
// browser_observe and browser_navigate (1.9.0, docs/reading.md).
const focusProperty = `"focus":{"type":"string","enum":["main"],"description":"main: read the page's main content first, then the rest, through next"}`

// focusArgs adds focus to browser_navigate and browser_observe.
func focusArgs(all []Tool) {
	for i := range all {
		if all[i].Name == Navigate || all[i].Name == Observe {
			s := strings.Replace(string(all[i].InputSchema), `"properties":{`, `"properties":{`+focusProperty+",", 1)
			all[i].InputSchema = json.RawMessage(s)
		}
	}
}

// checkFocus refuses a focus that version v does not have, or that is not
// observation.FocusMain.
func checkFocus(v Version, focus string) error {
	if focus == "" {
		return nil
	}
	if !v.RealPages {
		return errcode.New(errcode.InvalidArgument, "focus needs tool version 1.9.0 or later; this session has %s", v.Name)
	}
	if focus != observation.FocusMain {
		return errcode.New(errcode.InvalidArgument, "focus must be \"main\"")
	}
	return nil
}
