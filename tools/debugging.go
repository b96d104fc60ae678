package tools

import (
	"cmp"
	"encoding/json"
	"regexp"
	"time"
	_ "time/tzdata" // browser_emulate's time zones, whatever the host has

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// The tools of 1.10.0's Debugging (docs/debugging.md).

func debuggingTools() []Tool {
	return []Tool{
		{
			Name: Console,
			Description: "The active tab's console messages and uncaught exceptions since its last navigation, oldest first " +
				"(at most 1000, each cut at 2048 characters). Follow \"next\" for more; level keeps that level and worse.",
			InputSchema: object(nil, `"cursor":{"type":"string"}`,
				`"level":{"type":"string","enum":["debug","log","info","warning","error"]}`),
			ReadOnly: true,
		}, {
			Name: Network,
			Description: "The active tab's requests since its last navigation: method, URL (secrets removed), type, status, " +
				"failure, size, time, and whether the grant blocked it. No header, cookie or body. Follow \"next\" for more.",
			InputSchema: object(nil, `"cursor":{"type":"string"}`,
				`"filter":{"type":"string","description":"in the URL path, or a type (Fetch…)"}`),
			ReadOnly: true,
		}, {
			Name: Emulate,
			Description: "Emulate for the session's tabs a viewport, a device, a color scheme, a locale (BCP 47) or a " +
				"time zone (IANA); unset fields stay. Returns the active tab's observation.",
			InputSchema: object(nil, `"width":{"type":"integer","minimum":240,"maximum":3840}`,
				`"height":{"type":"integer","minimum":240,"maximum":3840}`,
				`"device":{"enum":["iphone-15","pixel-8","ipad","desktop"]}`, `"color_scheme":{"enum":["light","dark"]}`,
				`"locale":{"type":"string"}`, `"timezone":{"type":"string"}`),
		}}
}

// LogArgs are browser_console's and browser_network's arguments (1.10.0):
// Level is the console's filter, Filter the network's.
type LogArgs struct {
	Cursor string `json:"cursor,omitempty"`
	Level  string `json:"level,omitempty"`
	Filter string `json:"filter,omitempty"`
}

// MaxLogFilter bounds browser_network's filter, in UTF-16 units.
const MaxLogFilter = 256

// ParseLog parses the arguments of tool (Console or Network) strictly into
// the read they ask for.
func ParseLog(tool string, raw json.RawMessage) (browser.LogRequest, error) {
	req := browser.LogRequest{Log: observation.LogConsole}
	var a struct {
		Cursor        *string
		Level, Filter string
	}
	var err error
	if tool == Console {
		var w struct {
			Cursor *string `json:"cursor"`
			Level  string  `json:"level"`
		}
		err = strict(raw, &w)
		a.Cursor, a.Level = w.Cursor, w.Level
		if err == nil && a.Level != "" && observation.LevelRank(a.Level) == 0 {
			err = errcode.New(errcode.InvalidArgument, "level must be debug, log, info, warning or error")
		}
		req.Filter = a.Level
	} else {
		var w struct {
			Cursor *string `json:"cursor"`
			Filter string  `json:"filter"`
		}
		err = strict(raw, &w)
		a.Cursor, a.Filter = w.Cursor, w.Filter
		if err == nil && observation.UTF16Len(a.Filter) > MaxLogFilter {
			err = errcode.New(errcode.InvalidArgument, "filter is longer than %d characters", MaxLogFilter)
		}
		req.Log, req.Filter = observation.LogNetwork, a.Filter
	}
	if err != nil {
		return req, err
	}
	if a.Cursor != nil {
		req.Cursor, err = observation.ParseLogCursor(*a.Cursor)
	}
	return req, err
}

// EmulateArgs are browser_emulate's arguments (1.10.0).
type EmulateArgs struct {
	Width       int    `json:"width,omitempty"`
	Height      int    `json:"height,omitempty"`
	Device      string `json:"device,omitempty"`
	ColorScheme string `json:"color_scheme,omitempty"`
	Locale      string `json:"locale,omitempty"`
	Timezone    string `json:"timezone,omitempty"`
}

var (
	localePattern   = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,4}$`)
	timezonePattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_+-]{0,31}(/[A-Za-z0-9_+-]{1,32}){0,2}$`)
)

// ParseEmulate parses browser_emulate's arguments strictly into what they
// set: at least one field, each within its bounds.
func ParseEmulate(raw json.RawMessage) (browser.EmulateRequest, EmulateArgs, error) {
	var a EmulateArgs
	if err := strict(raw, &a); err != nil {
		return browser.EmulateRequest{}, a, err
	}
	var req browser.EmulateRequest
	if a.Device != "" {
		d, ok := browser.Devices[a.Device]
		if !ok {
			return req, a, errcode.New(errcode.InvalidArgument, "device must be iphone-15, pixel-8, ipad or desktop")
		}
		req = d
	}
	for _, n := range []int{a.Width, a.Height} {
		if n != 0 && (n < browser.MinViewport || n > browser.MaxViewport) {
			return req, a, errcode.New(errcode.InvalidArgument, "width and height must be between %d and %d CSS pixels", browser.MinViewport, browser.MaxViewport)
		}
	}
	req.Width, req.Height = cmp.Or(a.Width, req.Width), cmp.Or(a.Height, req.Height)
	switch {
	case a.ColorScheme != "" && a.ColorScheme != "light" && a.ColorScheme != "dark":
		return req, a, errcode.New(errcode.InvalidArgument, "color_scheme must be light or dark")
	case a.Locale != "" && !localePattern.MatchString(a.Locale):
		return req, a, errcode.New(errcode.InvalidArgument, "locale must be a BCP 47 tag such as de-DE")
	case a.Timezone != "" && (!timezonePattern.MatchString(a.Timezone) || !knownZone(a.Timezone)):
		return req, a, errcode.New(errcode.InvalidArgument, "timezone must be an IANA name such as Asia/Tokyo")
	case a == EmulateArgs{}:
		return req, a, errcode.New(errcode.InvalidArgument, "give at least one of width, height, device, color_scheme, locale, timezone")
	}
	req.ColorScheme, req.Locale, req.Timezone = a.ColorScheme, a.Locale, a.Timezone
	return req, a, nil
}

// knownZone reports whether the IANA database (embedded: time/tzdata)
// names zone; Chromium takes a name it does not know without a word.
func knownZone(zone string) bool {
	_, err := time.LoadLocation(zone)
	return err == nil && zone != "Local"
}
