// Package tempdir makes private temporary directories that name the process
// owning them, so that a later start can remove the directories of a process
// that was killed before it could clean up. The first Make of a prefix in a
// process sweeps that prefix's directories of dead owners: whatever makes
// temp dirs here also removes those its killed predecessors left.
package tempdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// markerName is the file in a directory that names its owner.
const markerName = ".owner"

// Owner identifies a process: its id and, where the system tells it, its
// start time, so that a new process that reuses the id is not taken for the
// owner.
type Owner struct {
	PID   int
	Start string // start time in clock ticks after boot; "" where unknown
}

// OwnerOf returns the identity of the running process pid.
func OwnerOf(pid int) (Owner, error) {
	start, err := startTime(pid)
	if err != nil {
		return Owner{}, err
	}
	return Owner{PID: pid, Start: start}, nil
}

// Mark records o as the owner of dir.
func (o Owner) Mark(dir string) error {
	line := strconv.Itoa(o.PID) + " " + o.Start + "\n"
	return os.WriteFile(filepath.Join(dir, markerName), []byte(line), 0o600)
}

// Alive reports whether the owner process still runs.
func (o Owner) Alive() bool {
	if o.PID <= 0 {
		return false
	}
	if o.Start == "" {
		// No start time on this system: the process id alone decides.
		err := syscall.Kill(o.PID, 0)
		return err == nil || errors.Is(err, syscall.EPERM)
	}
	start, err := startTime(o.PID)
	return err == nil && start == o.Start
}

// swept holds the prefixes this process swept, once each.
var swept sync.Map

// Make creates a directory in os.TempDir whose name starts with prefix,
// marked as owned by this process, after sweeping the prefix once in the
// process's life.
func Make(prefix string) (string, error) {
	if _, done := swept.LoadOrStore(prefix, true); !done {
		Sweep(prefix)
	}
	self, err := OwnerOf(os.Getpid())
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", err
	}
	if err := self.Mark(dir); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// Sweep removes the directories in os.TempDir whose names start with prefix
// and whose marked owner is gone, and returns them. A directory without a
// readable marker is left alone: it is not known to be ours, or its owner
// is still creating it.
func Sweep(prefix string) []string {
	tmp := os.TempDir()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		dir := filepath.Join(tmp, e.Name())
		o, err := readMarker(dir)
		if err != nil || o.Alive() || !ownedByUs(dir) {
			continue
		}
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}

func readMarker(dir string) (Owner, error) {
	b, err := os.ReadFile(filepath.Join(dir, markerName))
	if err != nil {
		return Owner{}, err
	}
	f := strings.Fields(string(b))
	if len(f) < 1 || len(f) > 2 {
		return Owner{}, fmt.Errorf("malformed owner marker in %s", dir)
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil {
		return Owner{}, fmt.Errorf("malformed owner marker in %s", dir)
	}
	o := Owner{PID: pid}
	if len(f) == 2 {
		o.Start = f[1]
	}
	return o, nil
}

// ownedByUs: only this user's directories are removed; a directory another
// user placed under the shared temp dir is not ours to judge.
func ownedByUs(dir string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// startTime reads the start time of pid from /proc; where /proc does not
// exist it returns "" for a live process.
func startTime(pid int) (string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, os.ErrNotExist) {
		if _, serr := os.Stat("/proc/self/stat"); serr != nil {
			// No /proc on this system.
			if kerr := syscall.Kill(pid, 0); kerr != nil && !errors.Is(kerr, syscall.EPERM) {
				return "", kerr
			}
			return "", nil
		}
	}
	if err != nil {
		return "", err
	}
	// The command name (field 2) may hold spaces and parentheses: the
	// fields that follow start after its last ')'. starttime is field 22.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return "", fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	return f[19], nil
}
