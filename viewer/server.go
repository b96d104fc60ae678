package viewer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/loopback"
	"github.com/veetbot/veetbrowser/store"
)

// MinTokenBytes is the shortest bearer token the viewer accepts.
const MinTokenBytes = 16

// Options configure the served viewer.
type Options struct {
	// Images holds the sessions' screenshots; nil shows none.
	Images Images
	// Token, when set, is required of every request as
	// "Authorization: Bearer TOKEN". Without one, requests must name a
	// loopback host (Host header), which keeps other sites' pages from
	// reading the viewer by rebinding a name to 127.0.0.1.
	Token string
}

// CSP is the Content-Security-Policy of every response: no script, no
// fetch, styles inline, images from the viewer itself or embedded.
const CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// NewHandler serves the viewer over st, read-only: GET and HEAD of
//
//	/                               the index of the newest sessions
//	/sessions/{id}?page=N           a session's timeline, CallsPerPage calls a page
//	/sessions/{id}/images/{n}       one of its screenshots
//
// Any other method is 405. It refuses a token shorter than MinTokenBytes.
func NewHandler(st store.Reader, opts Options) (http.Handler, error) {
	if opts.Token != "" && len(opts.Token) < MinTokenBytes {
		return nil, errcode.New(errcode.InvalidArgument, "the viewer's token needs at least %d bytes", MinTokenBytes)
	}
	h := &handler{st: st, opts: opts}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", h.index)
	mux.HandleFunc("GET /sessions/{id}", h.session)
	mux.HandleFunc("GET /sessions/{id}/images/{n}", h.image)
	h.mux = mux
	return h, nil
}

type handler struct {
	st   store.Reader
	opts Options
	mux  *http.ServeMux
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", CSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	if h.opts.Token != "" {
		if !h.authorized(r) {
			hd.Set("WWW-Authenticate", `Bearer realm="veetbrowser view"`)
			http.Error(w, "unauthorized: send Authorization: Bearer TOKEN", http.StatusUnauthorized)
			return
		}
	} else if !LoopbackHost(r.Host) {
		http.Error(w, "the viewer answers only to a loopback host name", http.StatusMisdirectedRequest)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "the viewer is read-only", http.StatusMethodNotAllowed)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// authorized compares the bearer token in constant time (digests of equal
// length, so not even the length shows).
func (h *handler) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got, want := sha256.Sum256([]byte(strings.TrimSpace(token))), sha256.Sum256([]byte(h.opts.Token))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// LoopbackHost reports whether a Host header names this machine's
// loopback: localhost or a loopback IP, with any port.
func LoopbackHost(host string) bool { return loopback.Host(host) }

func (h *handler) index(w http.ResponseWriter, r *http.Request) {
	var b bytes.Buffer
	if err := writeIndex(r.Context(), &b, h.st); err != nil {
		fail(w, err)
		return
	}
	writeHTML(w, &b)
}

func (h *handler) session(w http.ResponseWriter, r *http.Request) {
	page := 1
	if p := r.URL.Query().Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 1<<20 {
			http.Error(w, "page must be a number from 1", http.StatusBadRequest)
			return
		}
		page = n
	}
	var b bytes.Buffer
	if err := writeSession(r.Context(), &b, h.st, r.PathValue("id"), page, h.opts.Images); err != nil {
		fail(w, err)
		return
	}
	writeHTML(w, &b)
}

func (h *handler) image(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.ParseInt(r.PathValue("n"), 10, 64)
	if err != nil || h.opts.Images == nil {
		http.NotFound(w, r)
		return
	}
	mt, data, err := readImage(r.Context(), h.opts.Images, r.PathValue("id"), n)
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", mt)
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.Write(data)
}

func writeHTML(w http.ResponseWriter, b *bytes.Buffer) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.Write(b.Bytes())
}

// fail answers an error by its code: what does not exist is 404, the rest
// 500, with the public message only.
func fail(w http.ResponseWriter, err error) {
	code, msg := errcode.Public(err)
	status := http.StatusInternalServerError
	switch code {
	case errcode.InvalidArgument, errcode.NotFound:
		status = http.StatusNotFound
	case errcode.Timeout, errcode.Cancelled:
		status = http.StatusServiceUnavailable
	}
	http.Error(w, string(code)+": "+msg, status)
}

// Listen listens on addr for the viewer. An address that is not loopback
// (127.0.0.0/8, ::1 or localhost) is refused unless the viewer has a
// token: the records are the user's browsing.
func Listen(addr string, token bool) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, errcode.Wrap(errcode.InvalidArgument, err, "the listen address %s is not host:port", errcode.Quote(addr))
	}
	if !token && !LoopbackHost(host) {
		return nil, errcode.New(errcode.InvalidArgument, "the viewer listens on a loopback address (e.g. 127.0.0.1:0) unless it has a token")
	}
	if strings.EqualFold(host, "localhost") {
		// Not whatever the resolver says localhost is.
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, errcode.Wrap(errcode.InvalidArgument, err, "the viewer cannot listen on %s", errcode.Quote(addr))
	}
	return ln, nil
}

// WriteFile writes session id's whole timeline to path as one
// self-contained HTML file (styles inline, screenshots embedded as data:
// URIs), atomically: a temp file in the same directory renamed into place,
// so path is either the old file or the whole new one.
func WriteFile(ctx context.Context, path string, st store.Reader, id string, images Images) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return errcode.Wrap(errcode.InvalidArgument, err, "the HTML file cannot be created")
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = WriteHTML(ctx, f, st, id, images); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return errcode.Wrap(errcode.Internal, err, "the HTML file cannot be written")
	}
	if err = f.Close(); err != nil {
		return errcode.Wrap(errcode.Internal, err, "the HTML file cannot be written")
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return errcode.Wrap(errcode.InvalidArgument, err, "the HTML file cannot be put in place")
	}
	return nil
}

// WriteHTML writes session id's whole timeline to w as one self-contained
// HTML document.
func WriteHTML(ctx context.Context, w io.Writer, st store.Reader, id string, images Images) error {
	return writeSession(ctx, w, st, id, 0, images)
}
