package main

import (
	"context"
	"fmt"
	"io"

	"github.com/veetbot/veetbrowser/tools"
)

// VersionCommand prints the build version and the browser tool versions.
type VersionCommand struct {
	Stdout io.Writer
}

// Run runs the command.
func (c *VersionCommand) Run(_ context.Context, _ []string) error {
	fmt.Fprintf(c.Stdout, "veetbrowser %s\nbrowser tools:", Version)
	for _, v := range tools.Versions {
		fmt.Fprintf(c.Stdout, " %s", v.Name)
	}
	fmt.Fprintf(c.Stdout, " (new sessions: %s)\n", tools.Newest().Name)
	return nil
}
