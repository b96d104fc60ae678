package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/pgtest"
)

func TestMain(m *testing.M) {
	browsertest.Main(m, browsertest.Cleanup(pgtest.Stop), browsertest.Cleanup(removeInstalled))
}

// TestReplayAndSessionsOnARecordedStore: observe records into the store
// --store names; sessions lists what it holds; replay re-derives the
// newest (or a named) session byte-identical, re-projects it under another
// budget, and fails with the first difference once a record is altered.
func TestReplayAndSessionsOnARecordedStore(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "artifacts.db")
	for range 2 {
		if out, code := runCLI(t, "observe", "--store", path); code != 0 {
			t.Fatalf("observe: exit %d: %s", code, out)
		}
	}
	out, code := runCLI(t, "sessions", "--store", path)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("sessions: exit %d:\n%s", code, out)
	}
	for _, l := range lines {
		if !strings.Contains(l, " cli ") || !strings.Contains(l, "1 calls  ok=1") {
			t.Errorf("sessions line %q", l)
		}
	}
	oldest := strings.Fields(lines[1])[0]

	out, code = runCLI(t, "replay", "--store", path)
	if newest := strings.Fields(lines[0])[0]; code != 0 || !strings.Contains(out, "session "+newest+": 1 views byte-identical") {
		t.Fatalf("replay of the newest: exit %d: %s", code, out)
	}
	out, code = runCLI(t, "replay", "--store", path, "--budget", "1024", oldest)
	if code != 0 || !strings.Contains(out, "1 browser_navigate") || !strings.Contains(out, "of 1024 bytes, fits") {
		t.Fatalf("replay at 1 KiB: exit %d: %s", code, out)
	}

	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE calls SET view_bytes = view_bytes + 1 WHERE session_id = ?`, oldest); err != nil {
		t.Fatal(err)
	}
	out, code = runCLI(t, "replay", "--store", path, oldest)
	if code == 0 || !strings.Contains(out, "call 1 (browser_navigate) differs") {
		t.Fatalf("replay of an altered record: exit %d: %s", code, out)
	}

	// Retention at start removes whole sessions: one byte keeps none of
	// the old ones, and the new one is recorded.
	if out, code := runCLI(t, "observe", "--store", path, "--retain-bytes", "1"); code != 0 {
		t.Fatalf("observe: exit %d: %s", code, out)
	}
	out, _ = runCLI(t, "sessions", "--store", path)
	if n := strings.Count(out, "\n"); n != 1 || strings.Contains(out, oldest) {
		t.Fatalf("after --retain-bytes 1:\n%s", out)
	}
}

// TestStoreFlagDefaults: without --store the CLI records where
// VEETBROWSER_STORE says; none records nothing, and replay then has
// nothing to read.
func TestStoreFlagDefaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "env.db")
	t.Setenv(EnvStore, path)
	if out, code := runCLI(t, "observe"); code != 0 {
		t.Fatalf("observe: exit %d: %s", code, out)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s names no store: %v", EnvStore, err)
	}
	out, code := runCLI(t, "replay")
	if code != 0 || !strings.Contains(out, "1 views byte-identical") {
		t.Fatalf("replay: exit %d: %s", code, out)
	}
	t.Setenv(EnvStore, "none")
	if out, code := runCLI(t, "observe"); code != 0 {
		t.Fatalf("observe --store none: exit %d: %s", code, out)
	}
	if out, code := runCLI(t, "replay"); code == 0 || !strings.Contains(out, "invalid_argument") {
		t.Fatalf("replay of no store: exit %d: %s", code, out)
	}
	if out, code := runCLI(t, "observe", "--store", path, "--retain", "-1s"); code == 0 || !strings.Contains(out, "invalid_argument") {
		t.Fatalf("a negative --retain: exit %d: %s", code, out)
	}
}
