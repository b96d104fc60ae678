package controlroom

import (
	"crypto/sha256"
	"crypto/subtle"
	_ "embed"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/viewer"
)

// CookieName is the control room's session cookie.
const CookieName = "veetbrowser_control"

// CSP of the room's own responses: its one script and pictures from
// itself, no other source, never framed.
const CSP = "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

//go:embed room.html
var roomHTML []byte

//go:embed room.js
var roomJS []byte

// maxAnswerBytes bounds an answer's body.
const maxAnswerBytes = 1 << 10

func (r *Room) routes() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) { serve(w, "text/html; charset=utf-8", roomHTML) })
	mux.HandleFunc("GET /room.js", func(w http.ResponseWriter, _ *http.Request) { serve(w, "text/javascript; charset=utf-8", roomJS) })
	mux.HandleFunc("GET /state", r.state)
	mux.HandleFunc("GET /pages/{id}/picture", r.pictureOf)
	mux.HandleFunc("GET /pages/{id}/stream", r.streamOf)
	mux.HandleFunc("POST /approvals/{id}", r.answerOf)
	mux.HandleFunc("POST /pages/{id}/input", r.inputOf)
	mux.HandleFunc("POST /pages/{id}/handback", r.handBackOf)
	mux.HandleFunc("POST /pages/{id}/takeover", r.takeOverOf)
	if r.opts.Timeline != nil {
		mux.Handle("GET /sessions/", r.opts.Timeline)
	}
	r.mux = mux
}

func serve(w http.ResponseWriter, mediaType string, b []byte) {
	w.Header().Set("Content-Type", mediaType)
	w.Write(b)
}

// ServeHTTP answers only a loopback Host name (no other site's name
// rebound to this address), logs in with the one-time token, and serves
// nothing else without the session cookie.
func (r *Room) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	if !strings.HasPrefix(req.URL.Path, "/sessions/") {
		hd.Set("Content-Security-Policy", CSP)
	}
	if !viewer.LoopbackHost(req.Host) {
		http.Error(w, "the control room answers only to a loopback host name", http.StatusMisdirectedRequest)
		return
	}
	if req.URL.Path == "/login" && req.Method == http.MethodGet {
		r.login(w, req)
		return
	}
	csrf, ok := r.session(req)
	if !ok {
		http.Error(w, "log in with the control room's link", http.StatusUnauthorized)
		return
	}
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		// The page's own origin and its CSRF token: a form or script of
		// another site has neither.
		if o := req.Header.Get("Origin"); o != "http://"+req.Host {
			http.Error(w, "a change must come from the control room's own page", http.StatusForbidden)
			return
		}
		if got := req.Header.Get("X-CSRF-Token"); subtle.ConstantTimeCompare([]byte(got), []byte(csrf)) != 1 {
			http.Error(w, "the CSRF token is missing or wrong", http.StatusForbidden)
			return
		}
	}
	r.mux.ServeHTTP(w, req)
}

// login spends the one-time token for a session cookie.
func (r *Room) login(w http.ResponseWriter, req *http.Request) {
	got := sha256.Sum256([]byte(req.URL.Query().Get("token")))
	r.mu.Lock()
	ok := r.logins[got] // a map lookup of a hash: no timing of the token itself
	cookie, csrf := randomToken(), randomToken()
	if ok {
		delete(r.logins, got)
		r.cookies[sha256.Sum256([]byte(cookie))] = csrf
	}
	r.mu.Unlock()
	if !ok {
		http.Error(w, "this login link is not valid (it can be used once)", http.StatusUnauthorized)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: cookie, Path: r.opts.Path, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	// Relative, resolved by the client: the room, wherever it is served
	// (http.Redirect would resolve it against the path the room sees).
	w.Header().Set("Location", "./")
	w.WriteHeader(http.StatusSeeOther)
}

// session returns the CSRF token of the request's session cookie.
func (r *Room) session(req *http.Request) (string, bool) {
	c, err := req.Cookie(CookieName)
	if err != nil {
		return "", false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	csrf, ok := r.cookies[sha256.Sum256([]byte(c.Value))]
	return csrf, ok
}

// stateJSON is what the room's page shows, read every second.
type stateJSON struct {
	CSRF  string     `json:"csrf"`
	Pages []pageJSON `json:"pages"`
}

type pageJSON struct {
	ID        string         `json:"id"`
	Label     string         `json:"label"`
	Session   string         `json:"session,omitempty"` // its id in the artifact store
	Timeline  bool           `json:"timeline"`
	View      string         `json:"view,omitempty"`
	ViewAt    string         `json:"view_at,omitempty"`
	Approvals []approvalJSON `json:"approvals"`
	Handoff   *handoffJSON   `json:"handoff,omitempty"` // the person holds the page
}

type handoffJSON struct {
	Reason   string `json:"reason"` // the agent's, shown as text
	Since    string `json:"since"`
	Takeover bool   `json:"takeover,omitempty"` // the person took the page unasked
}

type approvalJSON struct {
	ID     string `json:"id"`
	Facts  string `json:"facts"` // as the page states them
	Digest string `json:"digest"`
	Asked  string `json:"asked"`
}

func (r *Room) state(w http.ResponseWriter, req *http.Request) {
	csrf, _ := r.session(req)
	st := stateJSON{CSRF: csrf, Pages: []pageJSON{}}
	r.mu.Lock()
	pages := make([]*Page, 0, len(r.order))
	for _, id := range r.order {
		pages = append(pages, r.pages[id])
	}
	r.mu.Unlock()
	for _, p := range pages {
		p.mu.Lock()
		pj := pageJSON{ID: p.id, Label: p.label, Timeline: r.opts.Timeline != nil, View: string(p.view), Approvals: []approvalJSON{}}
		if p.live != nil {
			pj.Session = p.live.ID()
		}
		if !p.viewAt.IsZero() {
			pj.ViewAt = p.viewAt.UTC().Format(time.RFC3339)
		}
		if h := p.hold; h != nil {
			pj.Handoff = &handoffJSON{Reason: h.reason, Since: h.since.UTC().Format(time.RFC3339), Takeover: h.takeover}
		}
		for _, a := range p.pending {
			pj.Approvals = append(pj.Approvals, approvalJSON{ID: a.id, Facts: a.facts.String(), Digest: a.digest, Asked: a.asked.UTC().Format(time.RFC3339)})
		}
		p.mu.Unlock()
		st.Pages = append(st.Pages, pj)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(st)
}

// page is the room's page of the request's {id}; nil if none.
func (r *Room) page(req *http.Request) *Page {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pages[req.PathValue("id")]
}

func (r *Room) pictureOf(w http.ResponseWriter, req *http.Request) {
	p := r.page(req)
	if p == nil {
		http.NotFound(w, req)
		return
	}
	jpeg := p.picture(req.Context())
	if jpeg == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	serve(w, "image/jpeg", jpeg)
}

// answerOf takes a person's Approve or Deny: {"decision": "approve" |
// "deny", "digest": the facts' digest as shown}.
func (r *Room) answerOf(w http.ResponseWriter, req *http.Request) {
	var body struct {
		Decision string `json:"decision"`
		Digest   string `json:"digest"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, req.Body, maxAnswerBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || (body.Decision != "approve" && body.Decision != "deny") {
		http.Error(w, `send {"decision":"approve"|"deny","digest":...}`, http.StatusBadRequest)
		return
	}
	if !r.answer(req.PathValue("id"), body.Digest, body.Decision == "approve") {
		http.Error(w, "no such approval is waiting (answered, timed out, or its facts changed)", http.StatusConflict)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// inputOf forwards one input of the person holding the page:
// {"kind":"click","x":0.5,"y":0.25} (fractions of the picture),
// {"kind":"text","text":"4"} or {"kind":"key","key":"Enter"}. Nothing of
// it is logged, recorded or echoed, not even in an error.
func (r *Room) inputOf(w http.ResponseWriter, req *http.Request) {
	var in struct {
		Kind string  `json:"kind"`
		X    float64 `json:"x"`
		Y    float64 `json:"y"`
		Text string  `json:"text"`
		Key  string  `json:"key"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, req.Body, maxAnswerBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		http.Error(w, `send {"kind":"click"|"text"|"key",...}`, http.StatusBadRequest)
		return
	}
	p := r.page(req)
	if p == nil {
		http.NotFound(w, req)
		return
	}
	live := p.held()
	if live == nil {
		http.Error(w, "the agent holds this page: a person drives it only when the agent hands it over", http.StatusConflict)
		return
	}
	err := live.PersonInput(req.Context(), browser.PersonInput{Kind: browser.PersonInputKind(in.Kind), X: in.X, Y: in.Y, Text: in.Text, Key: in.Key})
	if err != nil {
		code, msg := errcode.Public(err)
		status := http.StatusBadGateway
		switch code {
		case errcode.InvalidArgument:
			status = http.StatusBadRequest
		case errcode.NotActionable:
			status = http.StatusConflict
		}
		http.Error(w, msg, status)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// handBackOf is the person's Hand back: the agent's browser_handoff
// returns with a fresh observation; after a takeover the session observes
// the page afresh, so the agent's refs are stale.
func (r *Room) handBackOf(w http.ResponseWriter, req *http.Request) {
	p := r.page(req)
	if p == nil {
		http.Error(w, "no handoff is on for this page", http.StatusConflict)
		return
	}
	on, err := p.handBack(req.Context())
	if !on {
		http.Error(w, "no handoff is on for this page", http.StatusConflict)
		return
	}
	if err != nil {
		_, msg := errcode.Public(err)
		http.Error(w, "handed back, but "+msg, http.StatusBadGateway)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// takeOverOf is the person's Take over: they hold the page unasked, as
// in a handoff, and the agent's page calls are human_in_control until
// they hand it back. It waits for the agent's running call to end
// (veetbrowser.TakeOverWait at most: 409 past it).
func (r *Room) takeOverOf(w http.ResponseWriter, req *http.Request) {
	p := r.page(req)
	if p == nil {
		http.NotFound(w, req)
		return
	}
	if err := p.takeOver(req.Context()); err != nil {
		_, msg := errcode.Public(err)
		http.Error(w, msg, http.StatusConflict)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
