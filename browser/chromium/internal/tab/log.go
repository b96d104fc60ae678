package tab

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// The console and network logs (tool version 1.10.0, docs/debugging.md):
// the listener turns Runtime and Network events into log entries of the
// current main document, cut to their bounds as they are received, and
// keeps at most observation.MaxLogEntries of each. Arguments are rendered
// from the event's values and previews alone: nothing is evaluated in the
// page, and no header, cookie or body is ever read.

// documents numbers the documents of every tab, so that a cursor of one
// document is never taken for one of another.
var documents atomic.Int64

// logs are a tab's two logs of its current document.
type logs struct {
	document int64
	console  ring
	network  ring
	requests map[network.RequestID]int64 // the newest entry of each request, by seq
	ids      map[int64]network.RequestID // and the request of each such entry
	started  map[int64]float64           // each unfinished request's start, in seconds
	blocked  map[network.RequestID]bool  // refused before their entry was made
}

// ring is one log: at most observation.MaxLogEntries entries in a fixed
// circle, oldest first from head, and what it dropped. Dropping the oldest
// moves nothing: the listener that adds entries holds the tab's lock, and
// a page that logs in a loop must not make it copy the log each time.
type ring struct {
	entries []observation.LogEntry
	head    int   // index of the oldest entry once the circle is full
	next    int64 // the next entry's seq
	dropped int
}

// add appends e, dropping the oldest entry at the bound, and returns e's
// seq.
func (r *ring) add(e observation.LogEntry) int64 {
	e.Seq = r.next
	r.next++
	if len(r.entries) < observation.MaxLogEntries {
		r.entries = append(r.entries, e)
		return e.Seq
	}
	r.entries[r.head] = e
	r.head = (r.head + 1) % len(r.entries)
	r.dropped++
	return e.Seq
}

// first is the seq of the oldest entry retained (next when none is).
func (r *ring) first() int64 { return r.next - int64(len(r.entries)) }

// oldest is the oldest entry retained, nil if none.
func (r *ring) oldest() *observation.LogEntry { return r.at(r.first()) }

// at is the retained entry of seq, nil if it was dropped.
func (r *ring) at(seq int64) *observation.LogEntry {
	i := seq - r.first()
	if seq < 1 || i < 0 || i >= int64(len(r.entries)) {
		return nil
	}
	return &r.entries[(int64(r.head)+i)%int64(len(r.entries))]
}

func newLogs() *logs {
	l := &logs{}
	l.reset()
	return l
}

// reset starts the logs of a new document.
func (l *logs) reset() {
	l.document = documents.Add(1)
	l.console, l.network = ring{next: 1}, ring{next: 1}
	l.requests = make(map[network.RequestID]int64)
	l.ids = make(map[int64]network.RequestID)
	l.started = make(map[int64]float64)
	l.blocked = make(map[network.RequestID]bool)
}

// noteLogLocked records what ev adds to the logs. It runs in the event
// listener, under t.mu, and issues no CDP command.
func (t *Tab) noteLogLocked(ev any) {
	l := t.logs
	if l == nil {
		return
	}
	switch ev := ev.(type) {
	case *page.EventFrameNavigated:
		if ev.Frame.ParentID != "" {
			return
		}
		// A new main document: its own request, made before it committed,
		// is its first entry.
		var doc *observation.LogEntry
		if seq, ok := l.requests[network.RequestID(ev.Frame.LoaderID)]; ok {
			if e := l.network.at(seq); e != nil {
				cp := *e
				doc = &cp
			}
		}
		l.reset()
		if doc != nil {
			id := network.RequestID(ev.Frame.LoaderID)
			seq := l.network.add(*doc)
			l.requests[id], l.ids[seq] = seq, id
		}
	case *runtime.EventConsoleAPICalled:
		var c cutText
		for i, a := range ev.Args {
			if i > 0 {
				c.add(" ")
			}
			renderRemote(&c, a)
		}
		l.console.add(observation.LogEntry{Level: consoleLevel(ev.Type), Text: c.b.String(), Cut: c.cut})
	case *runtime.EventExceptionThrown:
		l.console.add(exceptionEntry(ev.ExceptionDetails))
	case *network.EventRequestWillBeSent:
		l.request(ev)
	case *network.EventResponseReceived:
		if e := l.network.at(l.seqOf(ev.RequestID)); e != nil {
			e.Status = int(ev.Response.Status)
		}
	case *network.EventLoadingFinished:
		if e := l.end(ev.RequestID, float64(ev.Timestamp)); e != nil {
			e.Bytes = int64(ev.EncodedDataLength)
		}
	case *network.EventLoadingFailed:
		if e := l.end(ev.RequestID, float64(ev.Timestamp)); e != nil {
			var cut bool
			e.Failure, cut = observation.CutUTF16(ev.ErrorText, observation.MaxLogText)
			e.Cut = e.Cut || cut
		}
	}
}

func (l *logs) seqOf(id network.RequestID) int64 {
	if seq, ok := l.requests[id]; ok {
		return seq
	}
	return 0
}

// request adds a request's entry; a redirect ends the hop before it (its
// status is the redirect's) and adds one for the next hop.
func (l *logs) request(ev *network.EventRequestWillBeSent) {
	if ev.RedirectResponse != nil {
		if e := l.end(ev.RequestID, float64(ev.Timestamp)); e != nil {
			e.Status = int(ev.RedirectResponse.Status)
		}
	}
	u, cut := observation.CutUTF16(observation.SanitizeURL(ev.Request.URL), observation.MaxLogText)
	e := observation.LogEntry{Method: ev.Request.Method, URL: u, Cut: cut, Type: string(ev.Type), Pending: true}
	if ev.Initiator != nil {
		e.Initiator = string(ev.Initiator.Type)
	}
	if l.blocked[ev.RequestID] {
		e.Blocked = true
		delete(l.blocked, ev.RequestID)
	}
	if len(l.network.entries) == observation.MaxLogEntries {
		// The oldest entry is about to go: so does what is kept of it.
		old := l.network.oldest()
		delete(l.started, old.Seq)
		delete(l.requests, l.ids[old.Seq])
		delete(l.ids, old.Seq)
	}
	seq := l.network.add(e)
	if prev, ok := l.requests[ev.RequestID]; ok {
		delete(l.ids, prev) // a redirect's earlier hop
	}
	l.requests[ev.RequestID] = seq
	l.ids[seq] = ev.RequestID
	l.started[seq] = float64(ev.Timestamp)
}

// end marks the newest entry of request id finished at ts (seconds) and
// returns it; nil when the request has no entry retained.
func (l *logs) end(id network.RequestID, ts float64) *observation.LogEntry {
	seq := l.seqOf(id)
	e := l.network.at(seq)
	if e == nil {
		return nil
	}
	if start, ok := l.started[seq]; ok {
		e.Millis = max(0, int64((ts-start)*1000))
		delete(l.started, seq)
	}
	e.Pending = false
	return e
}

// markBlockedLocked marks the request the navigation check refused.
func (t *Tab) markBlockedLocked(id network.RequestID) {
	l := t.logs
	if l == nil {
		return
	}
	if e := l.network.at(l.seqOf(id)); e != nil {
		e.Blocked = true
	} else if len(l.blocked) < maxBlockedAhead {
		l.blocked[id] = true
	}
}

// maxBlockedAhead bounds the refusals kept for requests whose entry is not
// made yet (the refusal can be decided before the listener sees the
// request).
const maxBlockedAhead = 64

// ReadLog returns the entries of log (observation.LogConsole or
// LogNetwork) from cursor on (the zero cursor: from the start) that match
// filter, oldest first. A cursor of another document is stale_reference.
func (t *Tab) ReadLog(log string, from observation.LogCursor, filter string) (*observation.Log, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.logs
	if l == nil {
		return nil, errcode.New(errcode.InvalidArgument, "this session keeps no logs")
	}
	if from.Document != 0 && from.Document != l.document {
		return nil, errcode.New(errcode.StaleReference, "the cursor belongs to a document the tab has left; read the log again without it")
	}
	r := &l.console
	if log == observation.LogNetwork {
		r = &l.network
	}
	out := &observation.Log{Log: log, Document: l.document, Filter: filter, Dropped: r.dropped, Entries: []observation.LogEntry{}}
	first := r.first()
	out.Missed = int(max(0, first-max(from.Seq, 1)))
	for seq := max(first, from.Seq); seq < r.next; seq++ {
		switch e := *r.at(seq); {
		case e.Matches(log, filter):
			out.Entries = append(out.Entries, e)
		default:
			out.FilteredOut++
		}
	}
	return out, nil
}

// cutText builds a text of at most observation.MaxLogText units, cut as it
// grows: a huge argument is never copied whole.
type cutText struct {
	b     strings.Builder
	units int
	cut   bool
}

func (c *cutText) add(s string) {
	if c.cut {
		return
	}
	part, cut := observation.CutUTF16(s, observation.MaxLogText-c.units)
	c.b.WriteString(part)
	c.units += observation.UTF16Len(part)
	c.cut = cut
}

// consoleLevel maps a console call's type to its level.
func consoleLevel(t runtime.ConsoleAPICalledType) string {
	switch t {
	case runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeAssert:
		return observation.LevelError
	case runtime.ConsoleAPICalledTypeWarning:
		return observation.LevelWarning
	case runtime.ConsoleAPICalledTypeInfo:
		return observation.LevelInfo
	case runtime.ConsoleAPICalledTypeDebug:
		return observation.LevelDebug
	}
	return observation.LevelLog
}

// renderRemote renders one value as the console shows it: a string as
// itself, a primitive as its literal, an object as its preview or
// description.
func renderRemote(c *cutText, o *runtime.RemoteObject) {
	switch {
	case o == nil:
	case o.Type == runtime.RemoteObjectTypeString:
		var s string
		json.Unmarshal(o.Value, &s)
		c.add(s)
	case o.Type == runtime.RemoteObjectTypeUndefined:
		c.add("undefined")
	case o.UnserializableValue != "":
		c.add(string(o.UnserializableValue))
	case o.Subtype == runtime.RemoteObjectSubtypeNull:
		c.add("null")
	case o.Preview != nil && o.Type == runtime.RemoteObjectTypeObject && o.Subtype != runtime.RemoteObjectSubtypeError:
		renderPreview(c, o.Preview)
	case o.Description != "":
		c.add(o.Description)
	default:
		c.add(string(o.Value)) // a number or a boolean, as JSON
	}
}

func renderPreview(c *cutText, p *runtime.ObjectPreview) {
	array := p.Subtype == "array" || p.Subtype == "typedarray"
	if array {
		c.add(p.Description + " [")
	} else {
		if p.Description != "Object" && p.Description != "" {
			c.add(p.Description + " ")
		}
		c.add("{")
	}
	for i, pp := range p.Properties {
		if i > 0 {
			c.add(", ")
		}
		if !array {
			c.add(pp.Name + ": ")
		}
		if pp.Type == "string" {
			c.add(strconv.Quote(pp.Value))
		} else {
			c.add(pp.Value)
		}
	}
	if p.Overflow {
		c.add(", …")
	}
	if array {
		c.add("]")
	} else {
		c.add("}")
	}
}

// exceptionEntry is an uncaught exception: its message and its first
// stack frame.
func exceptionEntry(d *runtime.ExceptionDetails) observation.LogEntry {
	e := observation.LogEntry{Level: observation.LevelError, Exception: true}
	if d == nil {
		return e
	}
	var c cutText
	c.add(d.Text)
	if x := d.Exception; x != nil {
		msg := x.Description
		if msg == "" {
			var r cutText
			renderRemote(&r, x)
			msg = r.b.String()
		}
		first, _, _ := strings.Cut(msg, "\n")
		c.add(" " + first)
	}
	e.Text, e.Cut = c.b.String(), c.cut
	url, line, col, fn := d.URL, d.LineNumber, d.ColumnNumber, ""
	if d.StackTrace != nil && len(d.StackTrace.CallFrames) > 0 {
		f := d.StackTrace.CallFrames[0]
		url, line, col, fn = f.URL, f.LineNumber, f.ColumnNumber, f.FunctionName
	}
	at := observation.SanitizeURL(url) + ":" + strconv.FormatInt(line+1, 10) + ":" + strconv.FormatInt(col+1, 10)
	if fn != "" {
		at = fn + " " + at
	}
	var cut bool
	e.At, cut = observation.CutUTF16(at, observation.MaxLogText)
	e.Cut = e.Cut || cut
	return e
}
