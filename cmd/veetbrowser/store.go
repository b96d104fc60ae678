package main

import (
	"context"
	"flag"
	"os"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
)

// EnvStore names the variable holding the default artifact store spec.
const EnvStore = "VEETBROWSER_STORE"

// storeFlags choose the artifact store and, for the commands that record,
// what is pruned from it when they start.
type storeFlags struct {
	spec        string
	retain      time.Duration
	retainBytes int64
}

const storeUsage = "artifact store: a SQLite file path, a postgres:// URL, or none (default: $" + EnvStore +
	", else the SQLite file under $XDG_DATA_HOME/veetbrowser)"

// register adds --store, and with retention --retain and --retain-bytes.
func (f *storeFlags) register(fs *flag.FlagSet, retention bool) {
	fs.StringVar(&f.spec, "store", os.Getenv(EnvStore), storeUsage)
	if retention {
		fs.DurationVar(&f.retain, "retain", 0, "at start, remove recorded sessions whose last call is older than this (0: keep)")
		fs.Int64Var(&f.retainBytes, "retain-bytes", 0, "at start, remove the oldest recorded sessions until the records hold at most this many bytes (0: no limit)")
	}
}

// parseAndRead parses args as parseUsage does, then opens the store the
// flags name, for a command that only reads it: nothing is pruned.
func parseAndRead(ctx context.Context, fs *flag.FlagSet, args []string, maxPositional int, usageLine string) ([]string, store.Store, error) {
	var sf storeFlags
	sf.register(fs, false)
	pos, err := parseUsage(fs, args, maxPositional, usageLine)
	if err != nil {
		return nil, nil, err
	}
	st, err := sf.open(ctx)
	return pos, st, err
}

// open opens the store and prunes it as the retention flags say, whole
// sessions only.
func (f *storeFlags) open(ctx context.Context) (store.Store, error) {
	if f.retain < 0 || f.retainBytes < 0 {
		return nil, errcode.New(errcode.InvalidArgument, "--retain and --retain-bytes cannot be negative")
	}
	st, err := storespec.Open(ctx, f.spec)
	if err != nil {
		return nil, flagged("--store", err)
	}
	if f.retain > 0 || f.retainBytes > 0 {
		if _, err := st.Prune(ctx, f.retain, f.retainBytes); err != nil {
			st.Close()
			return nil, err
		}
	}
	return st, nil
}
