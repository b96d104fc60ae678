package tempdir

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// deadOwner runs a process to its end and returns the identity it had.
func deadOwner(t *testing.T) Owner {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	o, err := OwnerOf(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	return o
}

func TestSweepRemovesOnlyDirsOfGoneOwners(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	self, err := OwnerOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	mk := func(name string, o *Owner) string {
		dir := filepath.Join(os.TempDir(), name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if o != nil {
			if err := o.Mark(dir); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	dead := deadOwner(t)
	reused := Owner{PID: self.PID, Start: self.Start + "0"} // a live id, another process's start
	cases := []struct {
		dir  string
		kept bool
	}{
		{mk("vb-dead", &dead), false},
		{mk("vb-reused", &reused), false},
		{mk("vb-live", &self), true},
		{mk("vb-unmarked", nil), true},  // not known to be ours
		{mk("other-dead", &dead), true}, // another prefix
	}
	made, err := Make("vb-made-")
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, struct {
		dir  string
		kept bool
	}{made, true})

	removed := Sweep("vb-")
	if len(removed) != 2 {
		t.Errorf("removed %q, want the dead and the reused owner's dirs", removed)
	}
	for _, c := range cases {
		_, err := os.Stat(c.dir)
		if kept := err == nil; kept != c.kept {
			t.Errorf("%s: kept %v, want %v", filepath.Base(c.dir), kept, c.kept)
		}
	}
}

func TestOwnerAlive(t *testing.T) {
	self, err := OwnerOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if self.Start == "" {
		t.Fatal("no start time for this process")
	}
	if !self.Alive() {
		t.Fatal("this process is not alive")
	}
	if deadOwner(t).Alive() {
		t.Fatal("a process that ended is alive")
	}
}
