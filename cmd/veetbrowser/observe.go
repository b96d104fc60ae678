package main

import (
	"context"
	"encoding/json"
	"flag"
	"io"

	"github.com/veetbot/veetbrowser/demo"
	"github.com/veetbot/veetbrowser/errcode"
)

// ObserveCommand observes one page and prints its model view (or, with
// --canonical, the canonical observation).
type ObserveCommand struct {
	Stdout io.Writer
	Log    cliLog
}

// Run runs the command.
func (c *ObserveCommand) Run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("observe", flag.ContinueOnError)
	canonical := fs.Bool("canonical", false, "print the canonical observation instead of the model view")
	var sf sessionFlags
	sf.register(fs, c.Log)
	pos, err := parseFlags(fs, args)
	if err != nil {
		if err == flag.ErrHelp {
			return err
		}
		return errcode.Wrap(errcode.InvalidArgument, err, "invalid flags: %s", errcode.Quote(err.Error()))
	}
	if len(pos) > 1 {
		return errcode.New(errcode.InvalidArgument, "observe takes at most one URL")
	}
	url := ""
	if len(pos) == 1 {
		url = pos[0]
	} else {
		u, stop, err := demo.Serve(&demo.Site{})
		if err != nil {
			return errcode.Wrap(errcode.Internal, err, "could not serve the demo site")
		}
		defer stop()
		url = u
	}

	sess, end, err := sf.session(ctx)
	if err != nil {
		return err
	}
	defer end()
	res, err := sess.Navigate(ctx, url)
	if err != nil {
		return err
	}
	if *canonical {
		enc := json.NewEncoder(c.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res.Observation)
	}
	_, err = c.Stdout.Write(append(res.View, '\n'))
	return err
}
