// Package keys holds the key tables of trusted keyboard input: the named
// keys press accepts, the modifiers of a key chord (tool version 1.8.0),
// and the CDP key events that make a press or a chord. It issues no
// command itself: each step it returns sends one event when called.
package keys

import (
	"context"
	"strings"
	"unicode/utf8"

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

// Named reports whether name is one of the named keys press accepts.
func Named(name string) bool {
	_, ok := namedKeys[name]
	return ok
}

// Steps returns the keyDown and keyUp of one key.
func Steps(ctx context.Context, tgt cdp.Session, name string) []func() error {
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
	return sendKeys(ctx, tgt, down, up)
}

func sendKeys(ctx context.Context, tgt cdp.Session, events ...input.DispatchKeyEventParams) []func() error {
	steps := make([]func() error, len(events))
	for i, p := range events {
		steps[i] = func() error {
			_, err := cdp.Call(ctx, tgt, input.DispatchKeyEvent, p)
			return err
		}
	}
	return steps
}

// Key chords (tool version 1.8.0): modifiers, each at most once, joined by
// "+" to one named key or single character, as "Control+Shift+ArrowLeft".

// modifier is a modifier key: its bit in the CDP modifiers mask, and the
// key that holds it down.
type modifier struct {
	name string
	bit  int64
	code string
	vk   int64
}

var modifiers = []modifier{
	{"Alt", 1, "AltLeft", 18},
	{"Control", 2, "ControlLeft", 17},
	{"Meta", 4, "MetaLeft", 91},
	{"Shift", 8, "ShiftLeft", 16},
}

// Chord is a parsed key chord: its modifiers in the order given, their
// mask, and the main key.
type Chord struct {
	mods []modifier
	mask int64
	key  string
}

// Key is the chord's main key.
func (c Chord) Key() string { return c.key }

// ParseChord parses a press key of a 1.8.0 session: a plain key (no
// modifier) or a chord. ok is false for an unknown modifier or key.
func ParseChord(s string) (c Chord, ok bool) {
	rest := s
outer:
	for {
		for _, m := range modifiers {
			after, found := strings.CutPrefix(rest, m.name+"+")
			if found && after != "" {
				if c.mask&m.bit != 0 {
					return Chord{}, false
				}
				c.mods, c.mask, rest = append(c.mods, m), c.mask|m.bit, after
				continue outer
			}
		}
		break
	}
	if _, named := namedKeys[rest]; !named && utf8.RuneCountInString(rest) != 1 {
		return Chord{}, false
	}
	c.key = rest
	return c, true
}

// selectAll reports whether the chord selects everything: Control+A, or
// Meta+A as on a Mac. Headless Chromium has no platform key bindings, so
// the editing command goes with the key.
func (c Chord) selectAll() bool {
	return (c.mask == 2 || c.mask == 4) && strings.EqualFold(c.key, "a")
}

// ChordSteps returns the key events of a chord, split where the keyboard
// guard ends: press holds each modifier's keyDown in order and the main
// key's keyDown with every modifier held; release, the main key's keyUp
// and the modifiers' keyUps in reverse. A key that moves the focus (Tab)
// has its keyUps land where the focus went, as on a keyboard. A chord
// without modifiers is a plain key press.
func ChordSteps(ctx context.Context, tgt cdp.Session, c Chord) (press, release []func() error) {
	if len(c.mods) == 0 {
		steps := Steps(ctx, tgt, c.key)
		return steps[:1], steps[1:]
	}
	var downs, ups []input.DispatchKeyEventParams
	var held int64
	for _, m := range c.mods {
		held |= m.bit
		downs = append(downs, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Modifiers: held,
			Key: m.name, Code: m.code, WindowsVirtualKeyCode: m.vk, NativeVirtualKeyCode: m.vk, Location: 1})
	}
	key, code, vk, text := c.key, "", int64(0), ""
	if k, named := namedKeys[c.key]; named {
		code, vk, text = k.code, k.vk, k.text
	} else {
		r, _ := utf8.DecodeRuneInString(c.key)
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			upper := strings.ToUpper(c.key)
			code, vk = "Key"+upper, int64(upper[0])
			key = strings.ToLower(c.key)
			if c.mask&8 != 0 {
				key = upper
			}
		case r >= '0' && r <= '9':
			code, vk = "Digit"+c.key, int64(r)
		}
		text = key
	}
	// Only Shift changes the text a key makes; Control, Alt or Meta make
	// none (a shortcut), Enter's included.
	if c.mask&^8 != 0 {
		text = ""
	}
	down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Modifiers: c.mask, Key: key, Code: code,
		WindowsVirtualKeyCode: vk, NativeVirtualKeyCode: vk, Text: text, UnmodifiedText: text}
	if text == "" {
		down.Type = input.DispatchKeyEventTypeRawKeyDown
	}
	if c.selectAll() {
		down.Commands = []string{"selectAll"}
	}
	downs = append(downs, down)
	ups = append(ups, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Modifiers: c.mask,
		Key: key, Code: code, WindowsVirtualKeyCode: vk, NativeVirtualKeyCode: vk})
	for i := len(c.mods) - 1; i >= 0; i-- {
		m := c.mods[i]
		held &^= m.bit
		ups = append(ups, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Modifiers: held,
			Key: m.name, Code: m.code, WindowsVirtualKeyCode: m.vk, NativeVirtualKeyCode: m.vk, Location: 1})
	}
	return sendKeys(ctx, tgt, downs...), sendKeys(ctx, tgt, ups...)
}
