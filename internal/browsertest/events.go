package browsertest

import (
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// Events is what a test's server saw, in order: its handlers record while
// the test reads.
type Events struct {
	mu  sync.Mutex
	all []string
}

// Record adds e to what the server saw.
func (s *Events) Record(e string) {
	s.mu.Lock()
	s.all = append(s.all, e)
	s.mu.Unlock()
}

// Seen returns a copy of what the server saw so far.
func (s *Events) Seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.all)
}

// Fields returns a form's fields as name=value (several values joined by
// commas), sorted by name: a submission as a test's server records it.
func Fields(form url.Values) []string {
	var fields []string
	for _, name := range slices.Sorted(maps.Keys(form)) {
		fields = append(fields, name+"="+strings.Join(form[name], ","))
	}
	return fields
}
