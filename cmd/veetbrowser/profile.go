package main

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/veetbot/veetbrowser/errcode"
)

// A persistent local profile (--profile-dir, docs/debugging.md): the
// browser keeps its cookies and storage in DIR between runs. One process
// runs on a profile at a time, as the sidecar's leases ensure for its
// profiles: this process holds an exclusive lock on DIR's lock file for as
// long as its browser may run. The kernel drops the lock when the process
// ends, however it ends, so a lock left by a crash is never stale; the
// browser's own lock files are recovered by chromium.Launch (its profile
// claim), which also waits for a browser still writing its cookies out.

// profileLockFile is the lock file in a profile dir.
const profileLockFile = "veetbrowser.lock"

func (b *browserFlags) registerProfile(fs *flag.FlagSet) {
	fs.StringVar(&b.profileDir, "profile-dir", "", "keep the browser's cookies and storage in this `DIR` between runs (one run at a time)")
}

// lockProfile takes the lock of dir, creating dir if it is missing, and
// returns what releases it. A profile another process holds is refused at
// once.
func lockProfile(dir string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, errcode.Wrap(errcode.InvalidArgument, err, "--profile-dir: the profile dir cannot be created")
	}
	f, err := os.OpenFile(filepath.Join(dir, profileLockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, errcode.Wrap(errcode.InvalidArgument, err, "--profile-dir: the profile's lock file cannot be opened")
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := make([]byte, 32)
		n, _ := f.Read(holder)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errcode.New(errcode.BrowserUnavailable, "--profile-dir: another veetbrowser (pid %s) runs on this profile; one run at a time",
				strings.TrimSpace(string(holder[:n])))
		}
		return nil, errcode.Wrap(errcode.BrowserUnavailable, err, "--profile-dir: the profile cannot be locked")
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() { f.Close() }, nil
}
