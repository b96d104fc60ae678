package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// installed is the binary `go install ./cmd/veetbrowser` makes, built once
// for the package's tests into a temporary GOBIN that TestMain removes.
var installed struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

func removeInstalled() error {
	if installed.dir == "" {
		return nil
	}
	return os.RemoveAll(installed.dir)
}

// installedBinary installs the command as a user would, from this checkout.
// -buildvcs=true: the binary must carry the checkout's revision whatever
// the environment's GOFLAGS say.
func installedBinary(t *testing.T) string {
	t.Helper()
	installed.once.Do(func() {
		if installed.dir, installed.err = os.MkdirTemp("", "gobin-"); installed.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "install", "-buildvcs=true", "./cmd/veetbrowser")
		cmd.Dir = moduleRoot(t)
		cmd.Env = append(os.Environ(), "GOBIN="+installed.dir)
		installed.out, installed.err = cmd.CombinedOutput()
		installed.path = filepath.Join(installed.dir, "veetbrowser")
	})
	if installed.err != nil {
		t.Fatalf("go install: %v\n%s", installed.err, installed.out)
	}
	return installed.path
}

func moduleRoot(t *testing.T) string {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// runInstalled runs the installed binary in dir with args; stdout, stderr
// and the exit code.
func runInstalled(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, installedBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	return out.String(), errb.String(), code
}

// TestInstalledBinaryRunsAnywhere: the installed binary names the revision
// it was built from and observes the demo site it embeds from a directory
// that holds nothing of the checkout.
func TestInstalledBinaryRunsAnywhere(t *testing.T) {
	t.Parallel()
	elsewhere := t.TempDir()
	out, errs, code := runInstalled(t, elsewhere, nil, "version")
	if code != 0 {
		t.Fatalf("version: exit %d: %s%s", code, out, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "veetbrowser ") || strings.Contains(lines[0], "-dev") ||
		!strings.HasPrefix(lines[len(lines)-1], "browser tools: 1.0.0 ") {
		t.Fatalf("version prints %q", out)
	}
	// Go reads the revision of a checkout whose .git is a directory; a
	// linked worktree's .git is a file, which the toolchain does not read,
	// and its binary says (devel) with no revision.
	if fi, err := os.Stat(filepath.Join(moduleRoot(t), ".git")); err == nil && fi.IsDir() {
		head, err := exec.Command("git", "-C", moduleRoot(t), "rev-parse", "HEAD").Output()
		if err != nil {
			t.Fatalf("git rev-parse HEAD: %v", err)
		}
		rev := strings.TrimSpace(string(head))
		if !strings.HasPrefix(lines[1], "revision "+rev+" (") || lines[0] == "veetbrowser "+unknownVersion {
			t.Errorf("version prints %q; want the module's pseudo-version and revision %s", out, rev)
		}
	} else if lines[0] != "veetbrowser "+unknownVersion {
		t.Errorf("built without VCS information, version prints %q", lines[0])
	}

	out, errs, code = runInstalled(t, elsewhere, []string{"XDG_DATA_HOME=" + t.TempDir()}, "observe", "--budget", "2048")
	if code != 0 {
		t.Fatalf("observe: exit %d: %s%s", code, out, errs)
	}
	var view struct {
		Title    string
		Controls []struct{ Ref, Name string }
	}
	if err := json.Unmarshal([]byte(out), &view); err != nil || len(out) > 2048+1 || len(view.Controls) == 0 || !strings.Contains(view.Title, "Veet") {
		t.Fatalf("observe of the embedded demo prints %d bytes (%v): %s", len(out), err, out)
	}
}
