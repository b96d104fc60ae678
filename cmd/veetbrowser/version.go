package main

import (
	"context"
	"flag"
	"fmt"
	"runtime/debug"

	"github.com/veetbot/veetbrowser/tools"
)

// unknownVersion is what a binary says when its build recorded no module
// version (a test binary, or a build with -buildvcs=false outside a module
// cache).
const unknownVersion = "(devel)"

// buildInfo is what the Go toolchain recorded about this binary: the main
// module's version (a tag, or a pseudo-version made from the commit when
// built from a checkout) and the VCS revision it was built from.
type buildInfo struct {
	version  string
	revision string // "" when the build recorded none
	time     string
	modified bool
}

// build reads the binary's build information.
func build() buildInfo {
	b := buildInfo{version: unknownVersion}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if bi.Main.Version != "" {
		b.version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.revision = s.Value
		case "vcs.time":
			b.time = s.Value
		case "vcs.modified":
			b.modified = s.Value == "true"
		}
	}
	return b
}

// runVersion prints the module version, the revision it was built from and
// the browser tool versions.
func runVersion(_ context.Context, c cli, fs *flag.FlagSet, args []string) error {
	if _, err := parseUsage(fs, args, 0, versionUsageLine); err != nil {
		return err
	}
	b := build()
	fmt.Fprintf(c.stdout, "veetbrowser %s\n", b.version)
	if b.revision != "" {
		dirty := ""
		if b.modified {
			dirty = ", with uncommitted changes"
		}
		fmt.Fprintf(c.stdout, "revision %s (%s%s)\n", b.revision, b.time, dirty)
	}
	fmt.Fprint(c.stdout, "browser tools:")
	for _, v := range tools.Versions {
		fmt.Fprintf(c.stdout, " %s", v.Name)
	}
	fmt.Fprintf(c.stdout, " (new sessions: %s)\n", tools.Newest().Name)
	return nil
}
