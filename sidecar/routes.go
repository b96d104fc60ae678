package sidecar

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/sidecar/api"
	"github.com/veetbot/veetbrowser/tools"
)

// maxJSONBody bounds a JSON request: a tool's arguments and a little.
const maxJSONBody = tools.MaxArgumentBytes + 4<<10

// Handler is the sidecar's HTTP API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /v1/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(openAPIDocument)
	})
	mux.Handle("GET /v1/profiles", s.authed(s.listProfiles))
	mux.Handle("PUT /v1/profiles/{name}", s.authed(s.profile(s.createProfile)))
	mux.Handle("DELETE /v1/profiles/{name}", s.authed(s.profile(s.deleteProfile)))
	mux.Handle("POST /v1/leases", s.authed(s.acquireLease))
	mux.Handle("POST /v1/leases/{id}/renew", s.authed(s.leased(s.renewLease)))
	mux.Handle("DELETE /v1/leases/{id}", s.authed(s.releaseLease))
	mux.Handle("GET /v1/leases/{id}/tools", s.authed(s.leased(s.listTools)))
	mux.Handle("POST /v1/leases/{id}/approvals", s.authed(s.leased(s.approve)))
	mux.Handle("POST /v1/leases/{id}/upload", s.authed(s.leased(s.upload)))
	mux.Handle("POST /v1/control/login", s.authed(s.controlLogin))
	mux.HandleFunc("/control/{tenant}/", s.control)
	// Anything else is the API's JSON 404, not the mux's text.
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, errcode.New(errcode.NotFound, "no such route"))
	})
	for route, tool := range map[string]string{"navigate": tools.Navigate, "observe": tools.Observe, "act": tools.Act, "find": tools.Find,
		"wait": tools.Wait, "tabs": tools.Tabs, "screenshot": tools.Screenshot, "console": tools.Console, "network": tools.Network,
		"emulate": tools.Emulate, "downloads": tools.Downloads} {
		mux.Handle("POST /v1/leases/{id}/"+route, s.authed(s.leased(s.callTool(tool))))
	}
	return s.logged(mux)
}

// statusWriter remembers the status a handler wrote, for the log and the
// metrics.
type statusWriter struct {
	http.ResponseWriter
	status int
}

// Unwrap lets http.ResponseController flush a stream (the control room's
// live picture).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// logged writes one log line per request: method, route pattern, status
// and duration. Never the URL's query, a header or a body: they can hold a
// token, a typed text or a page's words.
func (s *Server) logged(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		route := r.Pattern
		if route == "" {
			route = "unmatched"
		}
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		s.metrics.requests.WithLabelValues(route, strconv.Itoa(sw.status)).Inc()
		s.log.Info("request", "method", r.Method, "route", route, "status", sw.status,
			"ms", time.Since(start).Milliseconds())
	})
}

type tenantKey struct{}

// authed admits a request with a valid bearer token, for its tenant.
func (s *Server) authed(h func(w http.ResponseWriter, r *http.Request, tenant string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tenant, err := s.opts.Tokens.tenant(r)
		if err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="veetbrowser"`)
			s.fail(w, r, err)
			return
		}
		h(w, r, tenant)
	})
}

// leased admits a request on the tenant's live lease named in the path.
func (s *Server) leased(h func(w http.ResponseWriter, r *http.Request, l *lease)) func(http.ResponseWriter, *http.Request, string) {
	return func(w http.ResponseWriter, r *http.Request, tenant string) {
		l, err := s.leaseOf(tenant, r.PathValue("id"))
		if err != nil {
			s.fail(w, r, err)
			return
		}
		h(w, r, l)
	}
}

// fail writes err as the API's error body, and its internal cause to the
// log.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, body := failure(err)
	if status >= 500 {
		errcode.Log(r.Context(), s.log, "request failed", err, "route", r.Pattern)
	}
	writeJSON(w, status, body)
}

// readJSON decodes a request's JSON body strictly, within max bytes.
func readJSON(w http.ResponseWriter, r *http.Request, max int64, v any) error {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	if err != nil {
		return bodyError(err, max)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		b = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errcode.Wrap(errcode.InvalidArgument, err, "the request body is not the JSON this route takes")
	}
	if dec.More() {
		return errcode.New(errcode.InvalidArgument, "the request body holds more than one JSON value")
	}
	return nil
}

func (s *Server) listProfiles(w http.ResponseWriter, r *http.Request, tenant string) {
	entries, err := os.ReadDir(s.tenantDir(tenant))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		s.fail(w, r, errcode.Wrap(errcode.Internal, err, "the profiles could not be listed"))
		return
	}
	leased := map[string]bool{}
	s.mu.Lock()
	for _, l := range s.leases {
		if l.tenant == tenant {
			leased[l.profile] = true
		}
	}
	s.mu.Unlock()
	out := api.Profiles{Tenant: tenant, Profiles: []api.Profile{}}
	for _, e := range entries {
		if e.IsDir() && validName(e.Name()) {
			out.Profiles = append(out.Profiles, api.Profile{Name: e.Name(), Leased: leased[e.Name()]})
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// profile admits a request on the tenant's profile named in the path: a
// valid name, with the directory it lives in.
func (s *Server) profile(h func(w http.ResponseWriter, r *http.Request, tenant, name, dir string)) func(http.ResponseWriter, *http.Request, string) {
	return func(w http.ResponseWriter, r *http.Request, tenant string) {
		name := r.PathValue("name")
		dir, err := s.profileDir(tenant, name)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		h(w, r, tenant, name, dir)
	}
}

func (s *Server) createProfile(w http.ResponseWriter, r *http.Request, _, name, dir string) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		s.fail(w, r, errcode.Wrap(errcode.Internal, err, "the profile could not be created"))
		return
	}
	status := http.StatusCreated
	if err := os.Mkdir(dir, 0o700); errors.Is(err, os.ErrExist) {
		status = http.StatusOK
	} else if err != nil {
		s.fail(w, r, errcode.Wrap(errcode.Internal, err, "the profile could not be created"))
		return
	}
	writeJSON(w, status, api.Profile{Name: name})
}

// deleteProfile removes a profile under a lease of its own, so that no
// browser, here or in another sidecar sharing the store, runs on it.
func (s *Server) deleteProfile(w http.ResponseWriter, r *http.Request, tenant, name, dir string) {
	if _, err := os.Stat(dir); err != nil {
		s.fail(w, r, errcode.New(errcode.NotFound, "no profile %s", errcode.Quote(name)))
		return
	}
	// A lease that ran out here may still have its browser on the
	// directory until the reaper's next round: end it first.
	s.endExpired(tenant, name)
	rec, err := s.opts.Store.AcquireLease(r.Context(), storeLease(tenant, name, s.holder, s.now().Add(time.Minute)))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer s.opts.Store.ReleaseLease(context.WithoutCancel(r.Context()), rec.ID)
	if err := os.RemoveAll(dir); err != nil {
		s.fail(w, r, errcode.Wrap(errcode.Internal, err, "the profile could not be removed"))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) acquireLease(w http.ResponseWriter, r *http.Request, tenant string) {
	var req api.LeaseRequest
	if err := readJSON(w, r, maxJSONBody, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	l, err := s.acquire(r.Context(), tenant, req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.log.Info("lease acquired", "lease", shortID(l.id))
	writeJSON(w, http.StatusCreated, api.LeaseResponse{Lease: l.view(), Version: l.session.Version().Name})
}

func (s *Server) renewLease(w http.ResponseWriter, r *http.Request, l *lease) {
	var req api.RenewRequest
	if err := readJSON(w, r, maxJSONBody, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.renew(r.Context(), l, req.TTLSeconds); err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, api.LeaseResponse{Lease: l.view(), Version: l.session.Version().Name})
}

// releaseLease ends the tenant's lease; one that already ended is not an
// error, so a client may release twice.
func (s *Server) releaseLease(w http.ResponseWriter, r *http.Request, tenant string) {
	l, err := s.leaseOf(tenant, r.PathValue("id"))
	if err == nil {
		s.end(r.Context(), l, "released")
	} else if errcode.Of(err) != errcode.LeaseExpired {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) listTools(w http.ResponseWriter, r *http.Request, l *lease) {
	v := l.session.Version()
	out := api.Tools{Version: v.Name}
	for _, t := range tools.Tools(v) {
		out.Tools = append(out.Tools, api.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema,
			ReadOnly: t.ReadOnly, Destructive: t.Destructive})
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) approve(w http.ResponseWriter, r *http.Request, l *lease) {
	var a api.Approval
	if err := readJSON(w, r, maxJSONBody, &a); err != nil {
		s.fail(w, r, err)
		return
	}
	l.session.Approve(a.Facts)
	w.WriteHeader(http.StatusNoContent)
}

// callTool runs one tool with the request body as its arguments.
func (s *Server) callTool(tool string) func(http.ResponseWriter, *http.Request, *lease) {
	return func(w http.ResponseWriter, r *http.Request, l *lease) {
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxJSONBody))
		if err != nil {
			s.fail(w, r, bodyError(err, maxJSONBody))
			return
		}
		s.run(w, r, l, tool, b)
	}
}

// run calls the lease's session and writes its result: the view, the
// canonical observation unless the request says observation=omit, and
// an act's postconditions.
func (s *Server) run(w http.ResponseWriter, r *http.Request, l *lease, tool string, args []byte) {
	omit := false
	switch r.URL.Query().Get("observation") {
	case "":
	case api.OmitObservation:
		omit = true
	default:
		s.fail(w, r, errcode.New(errcode.InvalidArgument, "observation=omit is the only value of observation"))
		return
	}
	start := time.Now()
	res, err := l.session.Call(r.Context(), tool, args)
	took := time.Since(start)
	s.metrics.latency.WithLabelValues(tool).Observe(took.Seconds())
	// What the call took in the runtime, apart from the transport: for
	// an operator's tools, and for measuring the hop.
	w.Header().Set("Server-Timing", fmt.Sprintf("call;dur=%.3f", float64(took.Microseconds())/1000))
	code := "ok"
	if err != nil {
		code = string(errcode.Of(err))
	}
	s.metrics.calls.WithLabelValues(tool, code).Inc()
	if err != nil {
		if _, gone := s.leaseOf(l.tenant, l.id); gone != nil {
			err = gone // the lease ended under the call: that is what the client must know
		}
		s.fail(w, r, err)
		return
	}
	l.room.SetView(res.View)
	tail := pageTail{Action: res.Action, Log: res.Log}
	if res.Image != nil {
		tail.Image = &api.Image{MediaType: res.Image.MediaType, Data: res.Image.Data}
	}
	var obs json.RawMessage
	if omit {
		tail.Log = nil
	} else if obs, err = res.ObservationJSON(); err != nil {
		s.fail(w, r, errcode.Wrap(errcode.Internal, err, "the observation could not be encoded"))
		return
	}
	writePage(w, res.View, obs, tail)
}

// upload writes the request's files into a fresh directory of the lease's
// upload root and calls browser_upload with them. Every part is bounded
// as it streams: nothing over a cap is kept.
func (s *Server) upload(w http.ResponseWriter, r *http.Request, l *lease) {
	r.Body = http.MaxBytesReader(w, r.Body, api.MaxUploadBody)
	mr, err := r.MultipartReader()
	if err != nil {
		s.fail(w, r, errcode.Wrap(errcode.InvalidArgument, err, "send multipart/form-data with a ref and file parts"))
		return
	}
	dir, err := os.MkdirTemp(l.uploads, "r")
	if err != nil {
		s.fail(w, r, errcode.Wrap(errcode.Internal, err, "the upload could not be prepared"))
		return
	}
	cleanup := sync.OnceFunc(func() { os.RemoveAll(dir) })
	defer cleanup()
	w = &beforeAnswer{ResponseWriter: w, first: cleanup}
	ref, paths, err := readUpload(mr, dir)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	args, _ := json.Marshal(tools.UploadArgs{Ref: ref, Paths: paths})
	s.run(w, r, l, tools.Upload, args)
}

// beforeAnswer runs first before the answer's first byte: a client that
// has read the answer finds what first removes already gone.
type beforeAnswer struct {
	http.ResponseWriter
	first func()
}

func (b *beforeAnswer) WriteHeader(status int) {
	b.first()
	b.ResponseWriter.WriteHeader(status)
}

func (b *beforeAnswer) Write(p []byte) (int, error) {
	b.first()
	return b.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (b *beforeAnswer) Unwrap() http.ResponseWriter { return b.ResponseWriter }

func readUpload(mr *multipart.Reader, dir string) (ref string, paths []string, err error) {
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", nil, bodyError(err, api.MaxUploadBody)
		}
		switch p.FormName() {
		case "ref":
			b, err := io.ReadAll(io.LimitReader(p, 4<<10))
			if err != nil {
				return "", nil, bodyError(err, api.MaxUploadBody)
			}
			ref = string(b)
		case "file":
			if len(paths) == api.MaxUploadFiles {
				return "", nil, errcode.New(errcode.TooLarge, "at most %d files can be uploaded at once", api.MaxUploadFiles)
			}
			name := p.FileName()
			if !plainFileName(name) {
				return "", nil, errcode.New(errcode.InvalidArgument, "each file part needs a plain file name")
			}
			sub := filepath.Join(dir, strconv.Itoa(len(paths)))
			if err := os.Mkdir(sub, 0o700); err != nil {
				return "", nil, errcode.Wrap(errcode.Internal, err, "the upload could not be prepared")
			}
			path := filepath.Join(sub, name)
			if err := writePart(path, p); err != nil {
				return "", nil, err
			}
			paths = append(paths, path)
		default:
			return "", nil, errcode.New(errcode.InvalidArgument, "an upload takes a ref and file parts only")
		}
	}
	if ref == "" || len(paths) == 0 {
		return "", nil, errcode.New(errcode.InvalidArgument, "an upload needs a ref and at least one file")
	}
	return ref, paths, nil
}

func writePart(path string, p *multipart.Part) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "the upload could not be prepared")
	}
	n, err := io.Copy(f, io.LimitReader(p, api.MaxUploadFile+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return bodyError(err, api.MaxUploadBody)
	}
	if n > api.MaxUploadFile {
		return errcode.New(errcode.TooLarge, "a file is over %d bytes", api.MaxUploadFile)
	}
	return nil
}

// bodyError is a request body that could not be read: over its cap of
// max bytes, or cut short.
func bodyError(err error, max int64) error {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return errcode.New(errcode.TooLarge, "the request body is over %d bytes", max)
	}
	return errcode.Wrap(errcode.InvalidArgument, err, "the request body could not be read")
}

// plainFileName is a file name a part may carry: one path element, no
// control characters, at most 255 bytes.
func plainFileName(name string) bool {
	if name == "" || name == "." || name == ".." || len(name) > 255 || strings.ContainsAny(name, `/\`) {
		return false
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}
