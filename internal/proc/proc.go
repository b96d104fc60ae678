// Package proc reads Linux's /proc for what the runtime and its tests need
// to know of a browser's processes: whether one is alive, and which
// processes belong to a browser's process group.
package proc

import (
	"os"
	"strconv"
	"strings"
)

// Stat is what /proc/PID/stat says of a process.
type Stat struct {
	State string // R, S, Z, …
	Group int    // its process group
}

// Read returns the stat of process pid; ok is false if it is gone.
func Read(pid int) (st Stat, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, false
	}
	// The fields after the command name (which may hold spaces and
	// parentheses): state, parent, group, …
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 3 {
		return Stat{}, false
	}
	group, err := strconv.Atoi(f[2])
	if err != nil {
		return Stat{}, false
	}
	return Stat{State: f[0], Group: group}, true
}

// Live reports whether process pid exists and is not a zombie.
func Live(pid int) bool {
	st, ok := Read(pid)
	return ok && st.State != "Z"
}

// Group returns the live (not zombie) processes of process group pgid.
func Group(pgid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := Read(pid); ok && st.State != "Z" && st.Group == pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// GroupAlive reports whether any live process is in the process group
// pgid: a browser launched in its own group is gone with all its helpers
// once this is false.
func GroupAlive(pgid int) bool { return len(Group(pgid)) > 0 }
