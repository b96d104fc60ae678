package chromium

import (
	"github.com/veetbot/veetbrowser/internal/proc"

	"bytes"
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
)

// A persistent profile (Options.UserDataDir) keeps the browser's cookies and
// storage across launches. Chromium writes them lazily: cookies reach the
// disk about 30 s after they are set, localStorage a few seconds after, so a
// browser that is killed loses what it had not written yet. Shut down
// properly, it writes everything out and removes its lock files before it
// exits.
//
// So a browser on a persistent profile must shut down properly even when
// this process is killed with SIGKILL. A parent-death signal cannot do it:
// SIGTERM makes headless Chromium exit at once, without writing its
// cookies; SIGINT and SIGHUP do shut it down properly, but only the first
// one, and the kernel sends the parent-death signal again each time the
// browser passes from one dying thread of this process to another, which
// kills it midway. What does it is the DevTools pipe the browser is driven
// over (--remote-debugging-pipe, chromedp's default): when this process
// ends, however it ends, the kernel closes the pipe, and Chromium answers
// the closed pipe with the same shutdown as Browser.close (Close), in a
// second or two, helpers and all. The browser is therefore started with no
// parent-death signal.

const (
	// groupGoneTimeout bounds the wait for a stopped browser's processes
	// to exit after they were sent SIGKILL.
	groupGoneTimeout = 10 * time.Second
	// holderTimeout bounds the wait for another browser on the same
	// profile (one still shutting down, e.g. after the process that
	// launched it was killed) to exit before a launch gives up.
	holderTimeout = 30 * time.Second
)

// singletonFiles are what Chromium leaves in a profile to say a browser
// runs on it. The lock is a symlink to "host-pid".
var singletonFiles = []string{"SingletonLock", "SingletonSocket", "SingletonCookie"}

// profileDir checks a persistent profile dir and returns it absolute, so
// that it names the same dir whatever the browser's working dir; "" stays
// "" (a fresh profile each launch).
func profileDir(dir string) (string, error) {
	if dir == "" {
		return "", nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", errcode.Wrap(errcode.InvalidArgument, err, "the profile dir is not a usable path")
	}
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		return "", errcode.New(errcode.InvalidArgument, "the profile dir is not a directory")
	}
	return abs, nil
}

// claimProfile makes the profile dir ready for a browser: it creates it if
// missing, and removes the Singleton files a browser that was killed left
// behind. Chromium itself refuses to start on a lock from another host (and
// a container is a new host each time it starts); only one browser at a
// time is ever started on a profile (the sidecar's lease), so such a lock
// is stale. A lock held by a live browser of this host on this profile (one
// still shutting down after the process that launched it was killed) is
// waited for, up to holderTimeout, rather than taken from it.
func claimProfile(ctx context.Context, profile string, log *slog.Logger) error {
	if err := os.MkdirAll(profile, 0o700); err != nil {
		return errcode.Wrap(errcode.BrowserUnavailable, err, "could not create the profile dir")
	}
	deadline := time.Now().Add(holderTimeout)
	for waited := false; ; waited = true {
		pid := profileHolder(profile)
		if pid == 0 {
			break
		}
		if time.Now().After(deadline) {
			return errcode.New(errcode.BrowserUnavailable, "another browser is still running on this profile")
		}
		if !waited {
			log.Info("waiting for the browser still running on the profile", "pid", pid)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	for _, name := range singletonFiles {
		if err := os.Remove(filepath.Join(profile, name)); err == nil {
			log.Info("removed a stale lock file from the profile", "file", name)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return errcode.Wrap(errcode.BrowserUnavailable, err, "could not remove a stale lock file from the profile")
		}
	}
	return nil
}

// profileHolder returns the pid of the live browser on this host that holds
// the profile's lock, or 0 if none does.
func profileHolder(profile string) int {
	target, err := os.Readlink(filepath.Join(profile, "SingletonLock"))
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(target, '-')
	host, err := os.Hostname()
	if i < 0 || err != nil || target[:i] != host {
		return 0
	}
	pid, err := strconv.Atoi(target[i+1:])
	if err != nil || pid <= 0 || !runsOnProfile(pid, profile) {
		return 0
	}
	return pid
}

// runsOnProfile reports whether pid is a live (not zombie) process with
// profile as its user-data dir: not some other process that reuses the pid
// of a browser that is gone.
func runsOnProfile(pid int, profile string) bool {
	if !proc.Live(pid) {
		return false
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	want := []byte("--user-data-dir=" + profile)
	for arg := range bytes.SplitSeq(cmdline, []byte{0}) {
		if bytes.Equal(arg, want) {
			return true
		}
	}
	return false
}

// waitGroupGone waits, at most d, until no live process is left in the
// process group pgid.
func waitGroupGone(pgid int, d time.Duration) {
	deadline := time.Now().Add(d)
	for proc.GroupAlive(pgid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}
