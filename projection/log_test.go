package projection

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/observation"
)

// TestLogViewFitsAndContinues: at every budget from the smallest, each
// view of a log of long and short entries fits, shows at least one entry,
// and following next shows every entry once, in order; an entry longer
// than the budget is cut in the view and counted.
func TestLogViewFitsAndContinues(t *testing.T) {
	var entries []observation.LogEntry
	for i := range 300 {
		text := fmt.Sprint("message ", i)
		if i%50 == 0 {
			text = strings.Repeat("<&\"é😀", observation.MaxLogText/6) // escapes and surrogates
		}
		entries = append(entries, observation.LogEntry{Seq: int64(i + 1), Level: observation.LevelLog, Text: text})
	}
	for _, budget := range []int{MinBudget, MinBudget + 1, 4096, DefaultBudget} {
		from, seen, cut := 0, 0, 0
		for from < len(entries) {
			l := &observation.Log{Log: observation.LogConsole, Document: 7, Entries: entries[from:], Dropped: 3}
			raw, shown, err := ProjectLog(l, "1.10.0", budget)
			if err != nil {
				t.Fatal(err)
			}
			var v LogView
			if err := json.Unmarshal(raw, &v); err != nil || len(raw) > budget || shown == 0 || len(v.Entries) != shown {
				t.Fatalf("budget %d: %d bytes, %d shown, %v", budget, len(raw), shown, err)
			}
			if v.Entries[0].Seq != int64(from+1) || v.Coverage.Dropped != 3 || v.Coverage.DroppedWhy == "" {
				t.Fatalf("budget %d: view starts at %d, coverage %+v", budget, v.Entries[0].Seq, v.Coverage)
			}
			cut += v.Coverage.ViewCut
			from += shown
			seen += shown
			if (from < len(entries)) != (v.Next != nil) {
				t.Fatalf("budget %d: next %v with %d of %d read", budget, v.Next, from, len(entries))
			}
			if v.Next != nil && v.Next.Cursor != (observation.LogCursor{Document: 7, Seq: int64(from + 1)}).String() {
				t.Fatalf("budget %d: next %+v after %d", budget, v.Next, from)
			}
		}
		if seen != len(entries) || (budget < 8192) != (cut > 0) {
			t.Errorf("budget %d: %d seen, %d cut", budget, seen, cut)
		}
	}
}
