package tab

import (
	"encoding/json"
	"testing"

	"github.com/chromedp/cdproto/runtime"

	"github.com/veetbot/veetbrowser/observation"
)

// BenchmarkConsoleEventAtBound: what the listener spends on one console
// message once the log holds its 1,000 entries (each one drops the
// oldest), under the tab's lock.
func BenchmarkConsoleEventAtBound(b *testing.B) {
	t := &Tab{logs: newLogs()}
	arg, _ := json.Marshal("a message of an ordinary length, as apps log them")
	ev := &runtime.EventConsoleAPICalled{Type: runtime.ConsoleAPICalledTypeLog,
		Args: []*runtime.RemoteObject{{Type: runtime.RemoteObjectTypeString, Value: arg}}}
	for range observation.MaxLogEntries {
		t.noteLogLocked(ev)
	}
	b.ResetTimer()
	for range b.N {
		t.noteLogLocked(ev)
	}
	if t.logs.console.dropped != b.N {
		b.Fatalf("dropped %d of %d", t.logs.console.dropped, b.N)
	}
}
