package browsertest

import (
	"os"
	"strconv"
	"strings"
)

// GroupAlive reports whether any live (not zombie) process is in the
// process group pgid: a browser launched in its own group is gone with all
// its helpers once this is false.
func GroupAlive(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	want := strconv.Itoa(pgid)
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The fields after the command name: state, parent, group, …
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 2 && f[0] != "Z" && f[2] == want {
			return true
		}
	}
	return false
}
