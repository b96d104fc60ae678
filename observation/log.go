package observation

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/veetbot/veetbrowser/errcode"
)

// The console and network logs of a tab (tool version 1.10.0,
// docs/debugging.md): what the tab retains of its current document, and
// one read of it, the canonical result of browser_console and
// browser_network.

// Log bounds. The tab retains at most MaxLogEntries entries of each log per
// document (the oldest dropped and counted); each text (a message, a URL, a
// failure) is cut to MaxLogText UTF-16 units as its event is received.
const (
	MaxLogEntries = 1000
	MaxLogText    = 2048
)

// Log names.
const (
	LogConsole = "console"
	LogNetwork = "network"
)

// Console levels, in the order browser_console's level filter ranks them.
const (
	LevelDebug   = "debug"
	LevelLog     = "log"
	LevelInfo    = "info"
	LevelWarning = "warning"
	LevelError   = "error"
)

// LevelRank orders the console levels; 0 is not a level.
func LevelRank(level string) int {
	switch level {
	case LevelDebug:
		return 1
	case LevelLog:
		return 2
	case LevelInfo:
		return 3
	case LevelWarning:
		return 4
	case LevelError:
		return 5
	}
	return 0
}

// LogEntry is one console message, uncaught exception or request. Console
// entries fill Level, Text and, for an exception, Exception and At; network
// entries fill the rest. Every text is page content (Trust) and at most
// MaxLogText units; Cut says one was cut.
type LogEntry struct {
	Seq int64 `json:"seq"` // per document, from 1, never reused
	// console
	Level     string `json:"level,omitempty"`
	Exception bool   `json:"exception,omitempty"` // uncaught
	Text      string `json:"text,omitempty"`
	At        string `json:"at,omitempty"` // an exception's first stack frame: function, URL:line:column
	// network
	Method    string `json:"method,omitempty"`
	URL       string `json:"url,omitempty"` // SanitizeURL's
	Type      string `json:"type,omitempty"`
	Status    int    `json:"status,omitempty"`
	Failure   string `json:"failure,omitempty"`
	Bytes     int64  `json:"bytes,omitempty"` // encoded response size
	Millis    int64  `json:"ms,omitempty"`    // from the request to its end
	Initiator string `json:"initiator,omitempty"`
	Blocked   bool   `json:"blocked,omitempty"` // the navigation check refused it
	Pending   bool   `json:"pending,omitempty"` // not finished when read
	Cut       bool   `json:"cut,omitempty"`
}

// Log is one read of a tab's log: the entries from a cursor on, oldest
// first, and what the read could not show. It is stored as the call's
// canonical result and re-projected by replay.
type Log struct {
	Log      string     `json:"log"`      // LogConsole or LogNetwork
	Document int64      `json:"document"` // the tab's document generation
	Filter   string     `json:"filter,omitempty"`
	Entries  []LogEntry `json:"entries"`
	// After counts the entries matching the filter that come after
	// Entries (a stored read keeps only the entries its view showed).
	After int `json:"after,omitempty"`
	// Dropped counts this document's entries dropped at MaxLogEntries;
	// Missed those of them that were at or after the cursor (read past).
	Dropped int `json:"dropped,omitempty"`
	Missed  int `json:"missed,omitempty"`
	// FilteredOut counts the retained entries the filter left out.
	FilteredOut int `json:"filtered_out,omitempty"`
}

// LogCursor is where a read of a log starts: the document it belongs to,
// and the first entry's sequence number.
type LogCursor struct {
	Document int64
	Seq      int64
}

// String is the cursor as browser_console and browser_network take it.
func (c LogCursor) String() string {
	return "l" + strconv.FormatInt(c.Document, 10) + "." + strconv.FormatInt(c.Seq, 10)
}

// ParseLogCursor reads a cursor that String wrote.
func ParseLogCursor(s string) (LogCursor, error) {
	bad := errcode.New(errcode.InvalidArgument, "the cursor is not one a log view gave; pass next's cursor unchanged")
	doc, seq, ok := strings.Cut(strings.TrimPrefix(s, "l"), ".")
	if !ok || !strings.HasPrefix(s, "l") {
		return LogCursor{}, bad
	}
	d, err1 := strconv.ParseInt(doc, 10, 64)
	n, err2 := strconv.ParseInt(seq, 10, 64)
	if err1 != nil || err2 != nil || d < 1 || n < 1 {
		return LogCursor{}, bad
	}
	return LogCursor{Document: d, Seq: n}, nil
}

// secretQueryWords are parts of a query parameter's name that say its
// value is a secret: the value is replaced by "…" in every log.
var secretQueryWords = []string{"token", "key", "pass", "pwd", "secret", "session", "sess", "sid", "code", "auth",
	"sig", "credential", "jwt", "otp", "nonce", "ticket", "cookie", "bearer"}

// SanitizeURL is a request's URL as a log shows it: no userinfo, no
// fragment, and the value of every query parameter whose name looks like a
// secret (SecretQueryName) replaced by "…"; the rest of the query is kept as
// sent. A URL that does not parse is kept as its scheme alone.
func SanitizeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.IndexByte(raw, ':'); i > 0 && i < 16 {
			return raw[:i+1]
		}
		return ""
	}
	if u.Scheme == "data" || u.Scheme == "blob" {
		return u.Scheme + ":" // their content is the page's data
	}
	u.User, u.Fragment, u.RawFragment = nil, "", ""
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			name, _, has := strings.Cut(p, "=")
			if dn, err := url.QueryUnescape(name); err == nil {
				name = dn
			}
			if has && SecretQueryName(name) {
				parts[i] = p[:strings.IndexByte(p, '=')+1] + "…"
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	return u.String()
}

// SecretQueryName reports whether a query parameter's name looks like it
// carries a secret: token, api_key, password, session, code, auth, ….
func SecretQueryName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range secretQueryWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Matches reports whether e passes a read's filter: for the console, a
// level (that level and the more severe ones); for the network, text that
// the URL's path holds or the resource type equals, case ignored. "" passes
// every entry.
func (e LogEntry) Matches(log, filter string) bool {
	if filter == "" {
		return true
	}
	if log == LogConsole {
		return LevelRank(e.Level) >= LevelRank(filter)
	}
	f := strings.ToLower(filter)
	if strings.ToLower(e.Type) == f {
		return true
	}
	path := e.URL
	if u, err := url.Parse(e.URL); err == nil {
		path = u.Path
	}
	return strings.Contains(strings.ToLower(path), f)
}
