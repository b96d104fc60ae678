package chromium

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
)

// namedKey is what Chromium needs to synthesize a trusted press of a named key.
type namedKey struct {
	code string
	vk   int64
	text string
}

// namedKeys are the named keys press accepts; any single character is accepted too.
var namedKeys = map[string]namedKey{
	"Enter":      {"Enter", 13, "\r"},
	"Tab":        {"Tab", 9, ""},
	"Escape":     {"Escape", 27, ""},
	"Backspace":  {"Backspace", 8, ""},
	"Delete":     {"Delete", 46, ""},
	"ArrowUp":    {"ArrowUp", 38, ""},
	"ArrowDown":  {"ArrowDown", 40, ""},
	"ArrowLeft":  {"ArrowLeft", 37, ""},
	"ArrowRight": {"ArrowRight", 39, ""},
	"Home":       {"Home", 36, ""},
	"End":        {"End", 35, ""},
	"PageUp":     {"PageUp", 33, ""},
	"PageDown":   {"PageDown", 34, ""},
	" ":          {"Space", 32, " "},
}

// keySteps returns the keyDown and keyUp of one key.
func keySteps(ctx context.Context, tgt cdp.Session, name string) []func() error {
	k, ok := namedKeys[name]
	if !ok {
		k = namedKey{text: name}
	}
	down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: name, Code: k.code,
		WindowsVirtualKeyCode: k.vk, NativeVirtualKeyCode: k.vk, Text: k.text, UnmodifiedText: k.text}
	if k.text == "" {
		down.Type = input.DispatchKeyEventTypeRawKeyDown
	}
	up := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: name, Code: k.code,
		WindowsVirtualKeyCode: k.vk, NativeVirtualKeyCode: k.vk}
	send := func(p input.DispatchKeyEventParams) func() error {
		return func() error {
			_, err := cdp.Call(ctx, tgt, input.DispatchKeyEvent, p)
			return err
		}
	}
	return []func() error{send(down), send(up)}
}
