package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/veetbot/veetbrowser/internal/tempdir"
)

// TestServersSweepTempDirsOfKilledProcesses: mcp and serve remove, as they
// start and before they read their flags, the temp dirs a process of ours
// killed with SIGKILL left, whatever browser they go on to use (none here:
// the flags are refused); a live process's dir stays.
func TestServersSweepTempDirsOfKilledProcesses(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	owned := func(name string) (string, *exec.Cmd) {
		cmd := exec.Command("sleep", "120")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		o, err := tempdir.OwnerOf(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(os.TempDir(), tempPrefix+name)
		if err := os.MkdirAll(filepath.Join(dir, "u1"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := o.Mark(dir); err != nil {
			t.Fatal(err)
		}
		return dir, cmd
	}
	for _, command := range []string{"mcp", "serve"} {
		stale, owner := owned("uploads-" + command)
		live, _ := owned("live-" + command)
		owner.Process.Signal(syscall.SIGKILL)
		owner.Wait()
		var out, errs bytes.Buffer
		if code := run(context.Background(), []string{command, "--no-such-flag"}, &out, &errs); code == 0 {
			t.Fatalf("%s with a bad flag: exit 0", command)
		}
		if _, err := os.Stat(stale); !os.IsNotExist(err) {
			t.Errorf("%s: the dir of a killed process survived the start: %v", command, err)
		}
		if _, err := os.Stat(live); err != nil {
			t.Errorf("%s: the dir of a live process was removed: %v", command, err)
		}
	}
}
