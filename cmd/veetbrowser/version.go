package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/veetbot/veetbrowser/tools"
)

// runVersion prints the build version and the browser tool versions.
func runVersion(_ context.Context, c cli, _ *flag.FlagSet, _ []string) error {
	fmt.Fprintf(c.stdout, "veetbrowser %s\nbrowser tools:", Version)
	for _, v := range tools.Versions {
		fmt.Fprintf(c.stdout, " %s", v.Name)
	}
	fmt.Fprintf(c.stdout, " (new sessions: %s)\n", tools.Newest().Name)
	return nil
}
