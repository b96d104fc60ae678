package tempdir

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// envChild makes the test binary a child that makes one temp dir, prints
// it, and waits to be killed.
const envChild = "TEMPDIR_TEST_CHILD"

func TestMain(m *testing.M) {
	if prefix := os.Getenv(envChild); prefix != "" {
		dir, err := Make(prefix)
		if err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString(dir + "\n")
		select {}
	}
	os.Exit(m.Run())
}

// child starts a process that makes a temp dir with prefix and returns it
// with the dir.
func child(t *testing.T, prefix string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"="+prefix)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	dir, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the child made no dir: %v", err)
	}
	return cmd, strings.TrimSpace(dir)
}

// TestMakeSweepsDirsOfKilledProcesses: a process killed with SIGKILL leaves
// its dir; the next process's first Make of the prefix removes it, and
// keeps the dir of a process that still runs.
func TestMakeSweepsDirsOfKilledProcesses(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	const prefix = "vb-killed-"
	killed, stale := child(t, prefix)
	_, live := child(t, prefix)
	killed.Process.Signal(syscall.SIGKILL)
	killed.Wait()
	if _, err := os.Stat(stale); err != nil {
		t.Fatalf("the killed process's dir is gone before the next start: %v", err)
	}
	swept.Delete(prefix) // this process starts anew
	dir, err := Make(prefix)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the dir of a killed process survived the next Make: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the dir of a live process was removed: %v", err)
	}
}
