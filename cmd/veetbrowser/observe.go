package main

import (
	"context"
	"encoding/json"
	"flag"

	"github.com/veetbot/veetbrowser/demo"
	"github.com/veetbot/veetbrowser/errcode"
)

// runObserve observes one page and prints its model view (or, with
// --canonical, the canonical observation).
func runObserve(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	canonical := fs.Bool("canonical", false, "print the canonical observation instead of the model view")
	var sf sessionFlags
	sf.register(fs, c.log)
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
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res.Observation)
	}
	_, err = c.stdout.Write(append(res.View, '\n'))
	return err
}
