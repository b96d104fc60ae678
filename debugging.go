package veetbrowser

import (
	"context"
	"encoding/json"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/tools"
)

// LogOptions are one read of a console or network log (tool version
// 1.10.0, docs/debugging.md): the cursor of the previous view's next, and
// the console's level or the network's filter.
type LogOptions struct {
	Cursor string
	Level  string // browser_console: this level and worse
	Filter string // browser_network: text of the URL path, or a resource type
}

// Console reads the active tab's console messages and uncaught exceptions
// since its last navigation, oldest first. It changes nothing.
func (s *Session) Console(ctx context.Context, opts LogOptions) (*Result, error) {
	return s.callLog(ctx, tools.Console, tools.LogArgs{Cursor: opts.Cursor, Level: opts.Level})
}

// Network reads the active tab's requests since its last navigation,
// oldest first: never a header value, a cookie or a body.
func (s *Session) Network(ctx context.Context, opts LogOptions) (*Result, error) {
	return s.callLog(ctx, tools.Network, tools.LogArgs{Cursor: opts.Cursor, Filter: opts.Filter})
}

func (s *Session) callLog(ctx context.Context, tool string, a tools.LogArgs) (*Result, error) {
	raw, err := json.Marshal(a)
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "the arguments cannot be encoded")
	}
	return s.Call(ctx, tool, raw)
}

// readLog runs browser_console or browser_network on parsed arguments.
func (s *Session) readLog(ctx context.Context, tool string, req browser.LogRequest) (*Result, error) {
	a := tools.LogArgs{Filter: req.Filter}
	if req.Log == observation.LogConsole {
		a = tools.LogArgs{Level: req.Filter}
	}
	if req.Cursor != (observation.LogCursor{}) {
		a.Cursor = req.Cursor.String()
	}
	rec := s.read(tool, a)
	if !s.version.Has(tool) {
		return rec.finish(ctx, nil, errcode.New(errcode.InvalidArgument, "%s needs tool version 1.10.0 or later; this session has %s", tool, s.version.Name))
	}
	l, err := s.page.Log(ctx, req)
	if err != nil {
		return rec.finish(ctx, nil, err)
	}
	view, shown, err := projection.ProjectLog(l, s.version.Name, s.budget)
	if err != nil {
		return rec.finish(ctx, nil, err)
	}
	// The record keeps the entries the view showed, and counts the rest:
	// replay re-derives the same bytes from them.
	kept := *l
	kept.Entries, kept.After = l.Entries[:shown], l.After+len(l.Entries)-shown
	return rec.finish(ctx, &Result{View: view, Log: &kept}, nil)
}

// fillLog adds a log read's canonical result and view to its record.
func (c *callRecord) fillLog(r *store.Result, res *Result) error {
	raw, err := json.Marshal(res.Log)
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "the log cannot be recorded")
	}
	r.Observation = raw
	sum := sha256Sum(res.View)
	r.View = &store.View{SHA256: sum, Bytes: len(res.View)}
	r.Projection = &store.Projection{Version: c.s.version.Name, Budget: c.s.budget}
	return nil
}

// EmulateOptions are what Session.Emulate sets (tool version 1.10.0): a
// viewport, a named device (browser.Devices), a color scheme, a locale, a
// time zone; a zero field keeps what was set before.
type EmulateOptions = tools.EmulateArgs

// Emulate shows the session's tabs as a device would, and observes the
// active tab under it. It is recorded as an intent first: the page sees
// its viewport change.
func (s *Session) Emulate(ctx context.Context, opts EmulateOptions) (*Result, error) {
	raw, err := json.Marshal(opts)
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "the arguments cannot be encoded")
	}
	return s.Call(ctx, tools.Emulate, raw)
}

func (s *Session) emulate(ctx context.Context, req browser.EmulateRequest, a tools.EmulateArgs) (*Result, error) {
	rec, err := s.intent(ctx, tools.Emulate, a)
	if err != nil {
		return nil, err
	}
	obs, err := s.page.Emulate(ctx, req)
	return s.finishObserved(ctx, rec, obs, err)
}

// callDebugging runs a 1.10.0 tool on its JSON arguments.
func (s *Session) callDebugging(ctx context.Context, tool string, args json.RawMessage) (*Result, error) {
	if tool == tools.Emulate {
		req, a, err := tools.ParseEmulate(args)
		if err != nil {
			return nil, err
		}
		return s.emulate(ctx, req, a)
	}
	req, err := tools.ParseLog(tool, args)
	if err != nil {
		return nil, err
	}
	return s.readLog(ctx, tool, req)
}
