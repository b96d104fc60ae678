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

// providerOrigin stands in a page for the payment provider's origin, the
// suite's second one: its port is known only once it is served, so the
// site writes it in when it serves the page.
const providerOrigin = "{{provider}}"

// site serves every scenario under /<id>/ and records effects per scenario.
// Its payment provider serves on a second origin (serveProvider) and
// records its payments here too.
type site struct {
	pages map[string]func() string // "/id/" or "/id/path" → page
	// providerPages are the payment provider's pages, by the same paths;
	// provider is its base URL, under the host name localhost.
	providerPages map[string]func() string
	provider      string
	// handlers answer for themselves ("/id/path" → handler): the feeds,
	// sign-ins and saves a page's script calls, which record their effects.
	handlers map[string]handler

	mu      sync.Mutex
	effects map[string][]string
}

func newSite() *site {
	return &site{pages: map[string]func() string{}, providerPages: map[string]func() string{}, handlers: map[string]handler{},
		effects: map[string][]string{}}
}

// handler serves one path of a scenario and records its effects with
// record.
type handler func(w http.ResponseWriter, r *http.Request, record func(effect string))

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
	if h, ok := s.handlers["/"+id+"/"+rest]; ok {
		h(w, r, func(effect string) { s.record(id, effect) })
		return
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
	body := strings.ReplaceAll(page(), providerOrigin, s.provider)
	fmt.Fprint(w, "<!doctype html><html><head><meta charset=\"utf-8\"></head><body>"+body+report+"</body></html>")
}

// serveProvider is the payment provider, on its own origin: it serves its
// pages under /<id>/ and records every form posted to it as a payment.
func (s *site) serveProvider(w http.ResponseWriter, r *http.Request) {
	id, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if r.Method == http.MethodPost {
		s.record(id, paymentEffect(r))
		fmt.Fprint(w, "<!doctype html><title>Paid</title><p role=\"status\">Payment accepted</p>")
		return
	}
	page, ok := s.providerPages[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	fmt.Fprint(w, "<!doctype html><html><head><meta charset=\"utf-8\"></head><body>"+page()+"</body></html>")
}

// paymentEffect is a payment as the provider keeps it: the card's last four
// digits and its expiry, "pay:last4=4242&expiry=12/30".
func paymentEffect(r *http.Request) string {
	r.ParseForm()
	digits := strings.Map(func(c rune) rune {
		if c >= '0' && c <= '9' {
			return c
		}
		return -1
	}, r.PostForm.Get("card"))
	return "pay:last4=" + digits[max(0, len(digits)-4):] + "&expiry=" + r.PostForm.Get("expiry")
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
