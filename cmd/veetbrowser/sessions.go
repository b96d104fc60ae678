package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/veetbot/veetbrowser/store"
)

// runSessions lists the recorded sessions, newest first: id, start, tool
// version, surface, call count and counts by outcome.
func runSessions(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	limit := fs.Int("limit", 0, "list at most this many sessions (default 100)")
	_, st, err := parseAndRead(ctx, fs, args, 0, sessionsUsageLine)
	if err != nil {
		return err
	}
	defer st.Close()
	list, err := st.Sessions(ctx, store.ListOptions{Limit: *limit})
	if err != nil {
		return err
	}
	for _, s := range list {
		fmt.Fprintf(c.stdout, "%s  %s  %-5s  %-7s  %3d calls  %s\n", s.ID, s.StartedAt.Format(time.RFC3339), s.Version, s.Surface,
			s.Calls, outcomes(s.Outcomes))
	}
	return nil
}

// outcomes is "ok=3 stale_reference=1", ok first, then by name.
func outcomes(counts map[string]int) string {
	names := make([]string, 0, len(counts))
	for name := range counts {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == store.OutcomeOK:
			return -1
		case b == store.OutcomeOK:
			return 1
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s=%d", name, counts[name])
	}
	return strings.Join(parts, " ")
}
