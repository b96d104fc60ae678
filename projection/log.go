package projection

import (
	"encoding/json"
	"math"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// LogView is the model view of browser_console and browser_network (tool
// version 1.10.0, docs/debugging.md): entries of one read, oldest first,
// as many as the budget holds, what the read could not show, and the next
// read.
type LogView struct {
	Version  string                 `json:"version"`
	Log      string                 `json:"log"`
	Trust    string                 `json:"trust"` // the page's text: evidence, never authority
	Entries  []observation.LogEntry `json:"entries"`
	Coverage LogCoverage            `json:"coverage"`
	Next     *LogNext               `json:"next,omitempty"`
}

// LogCoverage says what a log view left out: Remaining entries after it
// (follow next), entries dropped at the log's bound (Dropped in the
// document, Missed of them at or after the cursor), entries the filter
// left out, and entries whose text the view cut to fit.
type LogCoverage struct {
	Shown       int    `json:"shown"`
	Remaining   int    `json:"remaining,omitempty"`
	Dropped     int    `json:"dropped,omitempty"`
	Missed      int    `json:"missed,omitempty"`
	DroppedWhy  string `json:"dropped_why,omitempty"`
	FilteredOut int    `json:"filtered_out,omitempty"`
	ViewCut     int    `json:"view_cut,omitempty"`
}

// LogNext are the arguments of the read that continues a log view.
type LogNext struct {
	Cursor string `json:"cursor"`
	Level  string `json:"level,omitempty"`
	Filter string `json:"filter,omitempty"`
}

// logDroppedWhy is why a log drops entries.
const logDroppedWhy = "entry_limit: a tab keeps the newest 1000 entries of each log per document"

// ProjectLog is the view of l under version and budget (0: DefaultBudget),
// and how many of l's entries it shows. Entries are added one by one while
// they fit; the first is cut to fit if it alone does not, so that every
// view with entries left shows one and its next moves on.
func ProjectLog(l *observation.Log, version string, budget int) ([]byte, int, error) {
	if budget == 0 {
		budget = DefaultBudget
	}
	if budget < MinBudget || budget > MaxBudget {
		return nil, 0, errcode.New(errcode.InvalidArgument, "the budget must be between %d and %d bytes", MinBudget, MaxBudget)
	}
	v := LogView{Version: version, Log: l.Log, Trust: observation.Trust, Entries: []observation.LogEntry{}}
	// The frame is measured with the largest numbers it can hold, so that
	// the final view is never larger than what was measured.
	total := len(l.Entries) + l.After
	v.Coverage = LogCoverage{Shown: total, Remaining: total, Dropped: l.Dropped, Missed: l.Missed, FilteredOut: l.FilteredOut,
		ViewCut: 1}
	if l.Dropped > 0 {
		v.Coverage.DroppedWhy = logDroppedWhy
	}
	v.Next = logNext(l, math.MaxInt64)
	left := budget - size(v)
	cutFirst := false
	shown := 0
	for i, e := range l.Entries {
		n := size(e)
		if i > 0 {
			n++ // the comma
		}
		if n > left {
			if i == 0 {
				e, cutFirst = cutEntry(e, left), true
				if size(e) > left {
					return nil, 0, errcode.New(errcode.ObservationTooLarge, "a log entry does not fit the %d-byte budget", budget)
				}
				v.Entries = append(v.Entries, e)
				shown = 1
			}
			break
		}
		left -= n
		v.Entries = append(v.Entries, e)
		shown++
	}
	v.Coverage = LogCoverage{Shown: shown, Remaining: total - shown, Dropped: l.Dropped, Missed: l.Missed,
		DroppedWhy: v.Coverage.DroppedWhy, FilteredOut: l.FilteredOut}
	if cutFirst {
		v.Coverage.ViewCut = 1
	}
	v.Next = nil
	if total > shown {
		last := int64(0)
		if shown > 0 {
			last = v.Entries[shown-1].Seq
		}
		v.Next = logNext(l, last+1)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, 0, errcode.Wrap(errcode.Internal, err, "the log view cannot be encoded")
	}
	if len(out) > budget {
		return nil, 0, errcode.New(errcode.Internal, "the log view came to %d bytes, over its %d-byte budget", len(out), budget)
	}
	return out, shown, nil
}

func logNext(l *observation.Log, seq int64) *LogNext {
	n := &LogNext{Cursor: observation.LogCursor{Document: l.Document, Seq: seq}.String()}
	if l.Log == observation.LogConsole {
		n.Level = l.Filter
	} else {
		n.Filter = l.Filter
	}
	return n
}

// cutEntry cuts e's texts (message, URL, stack frame, failure, in that
// order of preference) so that it takes at most room bytes, as far as
// cutting texts can.
func cutEntry(e observation.LogEntry, room int) observation.LogEntry {
	e.Cut = true
	for _, p := range []*string{&e.Text, &e.URL, &e.At, &e.Failure} {
		over := size(e) - room
		if over <= 0 {
			break
		}
		*p, _ = observation.CutEscaped(*p, max(0, observation.EscapedLen(*p, observation.GoEscaping)-over), observation.GoEscaping)
	}
	return e
}
