package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/suite"
)

// runSuite runs the synthetic component task suite and reports each
// scenario; it fails when any scenario fails.
func runSuite(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	budget := fs.Int("budget", 0, "inline byte budget of the agent's model views (default 8192, at least 1024)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	only := fs.String("scenario", "", "run only these scenarios: ids separated by commas (default every scenario)")
	var bf browserFlags
	bf.register(fs, c.log)
	var sf storeFlags
	sf.register(fs, true)
	if _, err := parseUsage(fs, args, 0, suiteUsageLine); err != nil {
		return err
	}
	ids, err := scenarioIDs(*only)
	if err != nil {
		return err
	}
	rt, closeBrowser, err := bf.runtime(ctx, *budget, &sf, veetbrowser.Options{ActionScreenshots: true}) // a recorded suite run shows what each action left
	if err != nil {
		return err
	}
	defer closeBrowser()
	report, err := suite.Run(ctx, rt, *budget, ids...)
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "the suite could not run")
	}
	if *asJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(report); err != nil {
			return err
		}
	} else {
		passed := 0
		for _, r := range report.Scenarios {
			fmt.Fprintf(c.stdout, "%-4s %-24s %6d ms  %3d calls %7d view bytes  ops %v  expected %q observed %q\n", r.Outcome, r.ID, r.DurationMS,
				r.Calls, r.ViewBytes, r.Operations, r.Expected, r.Observed)
			if r.Outcome == "pass" {
				passed++
			}
		}
		fmt.Fprintf(c.stdout, "suite: %d passed, %d failed\n", passed, len(report.Scenarios)-passed)
	}
	if !report.Passed() {
		return errSuiteFailed
	}
	return nil
}

// scenarioIDs reads --scenario, checked before any browser starts.
func scenarioIDs(list string) ([]string, error) {
	if list == "" {
		return nil, nil
	}
	ids := strings.Split(list, ",")
	return ids, suite.CheckIDs(ids)
}

// errSuiteFailed exits non-zero without an error body: the report says it.
var errSuiteFailed = &silentError{"a scenario failed"}

type silentError struct{ msg string }

func (e *silentError) Error() string { return e.msg }
