// Package suite is the synthetic component task suite (docs/ARCHITECTURE.md):
// deterministic websites served on 127.0.0.1 whose server records every
// effect, and a scripted agent that sees only model views. An outcome is
// judged by the server's record, never by an observation.
package suite

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// report is included in every page: an element with data-e reports its
// click to the server, so only clicks that reach the page count.
const report = `<script>
function report(e) { fetch('effect', {method: 'POST', body: e, keepalive: true}); }
document.addEventListener('click', (ev) => {
  const el = ev.composedPath().find((n) => n.dataset && n.dataset.e);
  if (el) report(el.dataset.e);
}, true);
</script>`

// site serves every scenario under /<id>/ and records effects per scenario.
type site struct {
	pages map[string]func() string // "/id/" or "/id/path" → page

	mu      sync.Mutex
	effects map[string][]string
}

func newSite() *site {
	return &site{pages: map[string]func() string{}, effects: map[string][]string{}}
}

func (s *site) record(id, effect string) {
	s.mu.Lock()
	s.effects[id] = append(s.effects[id], effect)
	s.mu.Unlock()
}

func (s *site) observed(id string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.effects[id])
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 2)
	id, rest := parts[0], ""
	if len(parts) == 2 {
		rest = parts[1]
	}
	switch {
	case rest == "effect" && r.Method == http.MethodPost:
		b, _ := io.ReadAll(io.LimitReader(r.Body, 4096))
		s.record(id, string(b))
		return
	case r.Method == http.MethodPost:
		s.record(id, formEffect(r))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>Saved</title><p role=\"status\">Saved</p>")
		return
	}
	page, ok := s.pages["/"+id+"/"+rest]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, "<!doctype html><html><head><meta charset=\"utf-8\"></head><body>"+page()+report+"</body></html>")
}

// formEffect is a submitted form as one line: "post:k=v&…" with keys sorted,
// and uploaded files as name:size.
func formEffect(r *http.Request) string {
	r.ParseMultipartForm(1 << 20)
	var kv []string
	for k, vs := range r.PostForm {
		kv = append(kv, k+"="+strings.Join(vs, ","))
	}
	if r.MultipartForm != nil {
		for k, fhs := range r.MultipartForm.File {
			for _, fh := range fhs {
				kv = append(kv, fmt.Sprintf("%s=%s:%d", k, fh.Filename, fh.Size))
			}
		}
	}
	slices.Sort(kv)
	return "post:" + strings.Join(kv, "&")
}
