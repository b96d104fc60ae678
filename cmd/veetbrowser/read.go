package main

import (
	"context"
	"encoding/json"
	"flag"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/tools"
)

// sessionFlags are the flags of the commands that open one browser session
// on a page: the model view's budget, the tool version, the browser and the
// artifact store.
type sessionFlags struct {
	budget  int
	version string
	browser browserFlags
	store   storeFlags
}

func (f *sessionFlags) register(fs *flag.FlagSet, log cliLog) {
	fs.IntVar(&f.budget, "budget", 0, "inline byte budget of the model view (default 8192, at least 1024)")
	fs.StringVar(&f.version, "tool-version", "", "browser tool version (default: the newest)")
	f.browser.register(fs, log)
	f.browser.registerProfile(fs)
	f.store.register(fs, true)
}

// session opens the store, the browser and a session on them; end closes
// all three.
func (f *sessionFlags) session(ctx context.Context) (s *veetbrowser.Session, end func(), err error) {
	if err := checkVersionFlag(f.version); err != nil {
		return nil, nil, err
	}
	rt, closeBrowser, err := f.browser.runtime(ctx, f.budget, &f.store, veetbrowser.Options{})
	if err != nil {
		return nil, nil, err
	}
	s, err = rt.NewSession(ctx, veetbrowser.SessionOptions{Version: f.version, Surface: "cli"})
	if err != nil {
		closeBrowser()
		return nil, nil, err
	}
	return s, func() { s.Close(context.WithoutCancel(ctx)); closeBrowser() }, nil
}

// pageSession parses the flags and the n positional arguments of a
// command on one page, then opens its session; end closes it.
func pageSession(ctx context.Context, c cli, fs *flag.FlagSet, args []string, n int, usageLine string) (pos []string, s *veetbrowser.Session, end func(), err error) {
	var sf sessionFlags
	sf.register(fs, c.log)
	if pos, err = parseExactly(fs, args, n, usageLine); err != nil {
		return nil, nil, nil, err
	}
	s, end, err = sf.session(ctx)
	return pos, s, end, err
}

// runRead reads a whole page: it navigates, then observes with each
// view's next until a view has none, and prints every view as one JSON
// line.
func runRead(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	pos, s, end, err := pageSession(ctx, c, fs, args, 1, readUsageLine)
	if err != nil {
		return err
	}
	defer end()
	view, err := c.printView(s.Navigate(ctx, pos[0]))
	for err == nil && view.hasNext() {
		view, err = c.printView(s.Call(ctx, tools.Observe, view.Next))
	}
	return err
}

// printView writes a call's view as one line and returns its next.
func (c cli) printView(res *veetbrowser.Result, err error) (withNext, error) {
	if err != nil {
		return withNext{}, err
	}
	var v withNext
	if err := json.Unmarshal(res.View, &v); err != nil {
		return withNext{}, errcode.Wrap(errcode.Internal, err, "the model view is not JSON")
	}
	_, err = c.stdout.Write(append(res.View, '\n'))
	return v, err
}

// withNext is the part of a view that says how to go on: next, exactly as
// the view holds it, to pass back as the arguments of the next call.
type withNext struct {
	Next json.RawMessage `json:"next"`
}

func (v withNext) hasNext() bool { return len(v.Next) > 0 && string(v.Next) != "null" }

// runFind navigates to a page, finds a query on it with browser_find and
// prints the view.
func runFind(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	pos, s, end, err := pageSession(ctx, c, fs, args, 2, findUsageLine)
	if err != nil {
		return err
	}
	defer end()
	if _, err := s.Navigate(ctx, pos[0]); err != nil {
		return err
	}
	query, err := json.Marshal(tools.FindArgs{Query: pos[1]})
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "encoding the query")
	}
	res, err := s.Call(ctx, tools.Find, query)
	if err != nil {
		return err
	}
	_, err = c.stdout.Write(append(res.View, '\n'))
	return err
}
