package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/replay"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/viewer"
)

// runReplay re-derives the model views of a recorded session from its
// records. As recorded, every view must be byte-identical to the one that
// was returned; with --budget or --tool-version the views are re-projected
// under those inputs and each one's size is printed. It fails on the first
// difference, or on a view that does not fit. With --html it also writes
// the session's timeline (viewer) as one self-contained HTML file.
func runReplay(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	budget := fs.Int("budget", 0, "re-project every view within this inline byte budget (default: as recorded)")
	version := fs.String("tool-version", "", "re-project every view as this browser tool version (default: as recorded)")
	html := fs.String("html", "", "also write the session's timeline to this `file`: one self-contained HTML page, written whole or not at all")
	pos, st, err := parseAndRead(ctx, fs, args, 1, replayUsageLine)
	if err != nil {
		return err
	}
	defer st.Close()
	id := ""
	if len(pos) == 1 {
		id = pos[0]
	} else if id, err = newestSession(ctx, st); err != nil {
		return err
	}
	rep, err := replay.Session(ctx, st, id, replay.Options{Budget: *budget, Version: *version})
	if err != nil {
		return err
	}
	if *html != "" {
		if err := viewer.WriteFile(ctx, *html, st, id, viewer.StoreImages(st)); err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "session %s: timeline written to %s\n", id, *html)
	}
	if !rep.AsRecorded {
		for _, v := range rep.Views {
			fits := "fits"
			if !v.Fits {
				fits = "does not fit"
				if v.Code != "" {
					fits += " (" + v.Code + ")"
				}
			}
			fmt.Fprintf(c.stdout, "%d %s %s: %d of %d bytes, %s\n", v.Seq, v.Tool, v.Version, v.Bytes, v.Budget, fits)
		}
	}
	if d := rep.First; d != nil {
		fmt.Fprintf(c.stdout, "session %s: call %d (%s) differs: recorded %d bytes sha256 %s, re-derived %d bytes sha256 %s",
			rep.SessionID, d.Seq, d.Tool, d.RecordedBytes, d.RecordedSHA256, d.Bytes, d.SHA256)
		if d.Code != "" {
			fmt.Fprintf(c.stdout, " (%s)", d.Code)
		}
		fmt.Fprintln(c.stdout)
		return &silentError{"a view differs"}
	}
	if rep.AsRecorded {
		fmt.Fprintf(c.stdout, "session %s: %d views byte-identical, %d calls without a view\n", rep.SessionID, len(rep.Views), rep.Skipped)
		return nil
	}
	if !rep.AllFit {
		fmt.Fprintf(c.stdout, "session %s: a view does not fit\n", rep.SessionID)
		return &silentError{"a view does not fit"}
	}
	fmt.Fprintf(c.stdout, "session %s: %d views, all fit, %d calls without a view\n", rep.SessionID, len(rep.Views), rep.Skipped)
	return nil
}

// newestSession is the id of the session that started last.
func newestSession(ctx context.Context, st store.Reader) (string, error) {
	list, err := st.Sessions(ctx, store.ListOptions{Limit: 1})
	if err != nil {
		return "", err
	}
	if len(list) == 0 {
		return "", errcode.New(errcode.InvalidArgument, "the artifact store holds no session")
	}
	return list[0].ID, nil
}
