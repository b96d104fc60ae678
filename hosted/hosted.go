// Package hosted is the runtime's client of a sidecar (`veetbrowser
// serve`): a Session holds the lease of one profile, renews it while it
// lives, and answers the same tools with the same views and error codes
// as a local session, the views being the sidecar's bytes unchanged.
//
// What stays with the client: the user's approvals (an approval_required
// from the sidecar names the facts; the Approver is asked, its yes is
// relayed as one single-use approval and the action tried once more), and
// the upload root (files are checked and read here, as a local session
// would, then sent in the request).
package hosted

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/sidecar/api"
	"github.com/veetbot/veetbrowser/tools"
)

// EnvToken names the variable the CLI reads the bearer token from.
const EnvToken = "VEETBROWSER_TOKEN"

// Options configure a hosted session.
type Options struct {
	URL     string // the sidecar's base URL, e.g. https://sidecar.example:8443
	Token   string // the tenant's bearer token
	Profile string // the profile to lease; it must exist (CreateProfile)
	// TTL is the lease's time to live (0: the sidecar's default); the
	// session renews it at a third of it while it lives.
	TTL time.Duration
	// Session are the session's options; Version, Budget and Grant are
	// sent to the sidecar, Approver and the upload root stay here.
	// Destinations and Surface are the sidecar's to decide.
	Session veetbrowser.SessionOptions
	// HTTPClient is used for every request; nil is a client with no
	// overall timeout (a navigation may take its 20 s and more).
	HTTPClient *http.Client
}

// Session is a profile's lease on a sidecar and the browser session it
// holds there.
type Session struct {
	// fixed at Open
	c       client
	lease   string
	version tools.Version
	opts    Options
	stop    chan struct{} // closed by Close: ends the renewal
	renewed chan struct{} // closed when the renewal has ended

	mu     sync.Mutex
	lost   error // the renewal failed for good: the lease is over
	closed bool
}

var _ veetbrowser.Caller = (*Session)(nil)

// Open acquires the profile's lease and opens its session.
func Open(ctx context.Context, opts Options) (*Session, error) {
	c, err := newClient(opts)
	if err != nil {
		return nil, err
	}
	req := api.LeaseRequest{Profile: opts.Profile, TTLSeconds: int(opts.TTL / time.Second),
		Version: opts.Session.Version, Budget: opts.Session.Budget}
	if g := opts.Session.Grant; len(g.Origins) > 0 || len(g.Classes) > 0 {
		req.Grant = &api.Grant{Origins: g.Origins, Classes: g.Classes}
	}
	var res api.LeaseResponse
	if err := c.do(ctx, http.MethodPost, "/v1/leases", jsonBody(req), &res); err != nil {
		return nil, err
	}
	v, err := tools.Lookup(res.Version)
	if err != nil {
		c.do(context.WithoutCancel(ctx), http.MethodDelete, "/v1/leases/"+res.Lease.ID, nil, nil)
		return nil, err
	}
	s := &Session{c: c, lease: res.Lease.ID, version: v, opts: opts, stop: make(chan struct{}), renewed: make(chan struct{})}
	go s.renew(time.Duration(res.Lease.TTLSeconds) * time.Second)
	return s, nil
}

// CreateProfile creates a profile of the token's tenant on the sidecar; an
// existing one is left as it is.
func CreateProfile(ctx context.Context, opts Options) error {
	c, err := newClient(opts)
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodPut, "/v1/profiles/"+url.PathEscape(opts.Profile), nil, nil)
}

// renew keeps the lease alive at a third of its TTL. A renewal the sidecar
// refuses (the lease ran out) ends it: every later call reports that.
func (s *Session) renew(ttl time.Duration) {
	defer close(s.renewed)
	t := time.NewTicker(max(ttl/3, time.Second))
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), max(ttl/3, 5*time.Second))
		err := s.c.do(ctx, http.MethodPost, s.path("renew"), jsonBody(api.RenewRequest{}), nil)
		cancel()
		switch errcode.Of(err) {
		case errcode.LeaseExpired, errcode.LeaseRequired, errcode.Unauthorized:
			s.mu.Lock()
			s.lost = err
			s.mu.Unlock()
			return
		}
		// Any other failure (the network, a restart) is retried at the
		// next tick: the lease may well outlive it.
	}
}

// Lease is the id of the session's lease.
func (s *Session) Lease() string { return s.lease }

// Version is the tool version the session is pinned to.
func (s *Session) Version() tools.Version { return s.version }

// Approve relays one single-use approval for exactly these facts.
func (s *Session) Approve(f policy.Facts) {
	s.c.do(context.Background(), http.MethodPost, s.path("approvals"), jsonBody(api.Approval{Facts: f}), nil)
}

// Call runs a tool by name with JSON arguments on the sidecar.
func (s *Session) Call(ctx context.Context, tool string, args json.RawMessage) (*veetbrowser.Result, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	var route string
	switch tool {
	case tools.Navigate:
		route = "navigate"
	case tools.Observe:
		route = "observe"
	case tools.Act:
		return s.act(ctx, args)
	case tools.Upload:
		return s.upload(ctx, args)
	case tools.Find:
		if s.version.Reading {
			route = "find"
		}
	}
	if route == "" {
		return nil, errcode.New(errcode.InvalidArgument, "unknown tool %s", errcode.Quote(tool))
	}
	return s.page(ctx, route, "application/json", bytes.NewReader(args))
}

// act runs browser_act; an approval_required that names facts is put to
// the approver, and its yes relayed and the action tried once more, as a
// local session asks its approver before dispatch. The action was not
// dispatched when approval_required came back: nothing is repeated.
func (s *Session) act(ctx context.Context, args json.RawMessage) (*veetbrowser.Result, error) {
	res, err := s.page(ctx, "act", "application/json", bytes.NewReader(args))
	var need *policy.NeedsApproval
	if errcode.Of(err) != errcode.ApprovalRequired || !errors.As(err, &need) || s.opts.Session.Approver == nil {
		return res, err
	}
	yes, aerr := s.opts.Session.Approver.Approve(ctx, need.Facts)
	if aerr != nil {
		return nil, errcode.Wrap(errcode.ApprovalRequired, aerr, "approval could not be obtained for %s", need.Facts)
	}
	if !yes {
		return nil, errcode.New(errcode.ApprovalRequired, "the approver declined %s", need.Facts)
	}
	if err := s.c.do(ctx, http.MethodPost, s.path("approvals"), jsonBody(api.Approval{Facts: need.Facts}), nil); err != nil {
		return nil, err
	}
	return s.page(ctx, "act", "application/json", bytes.NewReader(args))
}

// upload checks and copies the files as a local session would, then sends
// the copies.
func (s *Session) upload(ctx context.Context, args json.RawMessage) (*veetbrowser.Result, error) {
	a, err := tools.ParseUpload(args)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "veetbrowser-hosted-upload-")
	if err != nil {
		return nil, errcode.Wrap(errcode.UploadRefused, err, "the upload could not be prepared")
	}
	defer os.RemoveAll(dir)
	o := s.opts.Session
	o.MaxUploadFiles, o.MaxUploadBytes = min(nonZero(o.MaxUploadFiles, api.MaxUploadFiles), api.MaxUploadFiles),
		min(nonZero64(o.MaxUploadBytes, api.MaxUploadFile), api.MaxUploadFile)
	copies, err := veetbrowser.CopyUploads(ctx, o, a.Paths, dir)
	if err != nil {
		return nil, err
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("ref", a.Ref)
	for _, p := range copies {
		part, err := mw.CreateFormFile("file", filepath.Base(p))
		if err != nil {
			return nil, errcode.Wrap(errcode.UploadRefused, err, "the upload could not be prepared")
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, errcode.Wrap(errcode.UploadRefused, err, "the upload could not be prepared")
		}
		_, err = io.Copy(part, f)
		f.Close()
		if err != nil {
			return nil, errcode.Wrap(errcode.UploadRefused, err, "the upload could not be prepared")
		}
	}
	mw.Close()
	return s.page(ctx, "upload", mw.FormDataContentType(), &body)
}

func nonZero(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}

func nonZero64(v, d int64) int64 {
	if v == 0 {
		return d
	}
	return v
}

// page posts to one of the lease's page routes and returns its result.
func (s *Session) page(ctx context.Context, route, contentType string, body io.Reader) (*veetbrowser.Result, error) {
	var out api.PageResult
	if err := s.c.post(ctx, s.path(route), contentType, body, &out); err != nil {
		return nil, err
	}
	if out.Observation == nil || len(out.View) == 0 {
		return nil, errcode.New(errcode.BrowserUnavailable, "the sidecar's answer holds no observation")
	}
	res := &veetbrowser.Result{Observation: out.Observation, View: out.View}
	if out.Action != nil {
		res.Action = out.Action
		res.Action.Observation = out.Observation
	}
	return res, nil
}

func (s *Session) path(route string) string {
	return "/v1/leases/" + url.PathEscape(s.lease) + "/" + route
}

func (s *Session) usable() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errcode.New(errcode.BrowserUnavailable, "the session is closed")
	}
	return s.lost
}

// Close releases the lease, which closes its browser on the sidecar. It is
// safe to call more than once.
func (s *Session) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	close(s.stop)
	<-s.renewed
	return s.c.do(ctx, http.MethodDelete, "/v1/leases/"+url.PathEscape(s.lease), nil, nil)
}

// client makes the API's requests.
type client struct {
	base  string
	token string
	http  *http.Client
}

func newClient(opts Options) (client, error) {
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return client{}, errcode.New(errcode.InvalidArgument, "the sidecar URL must be http(s)://host[:port]")
	}
	if opts.Token == "" {
		return client{}, errcode.New(errcode.Unauthorized, "a sidecar needs a token (%s)", EnvToken)
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	return client{base: strings.TrimSuffix(opts.URL, "/"), token: opts.Token, http: hc}, nil
}

func jsonBody(v any) io.Reader {
	b, _ := json.Marshal(v)
	return bytes.NewReader(b)
}

func (c client) do(ctx context.Context, method, path string, body io.Reader, out any) error {
	return c.request(ctx, method, path, "application/json", body, out)
}

func (c client) post(ctx context.Context, path, contentType string, body io.Reader, out any) error {
	return c.request(ctx, http.MethodPost, path, contentType, body, out)
}

// maxResponse bounds an answer: a canonical observation is at most a few
// MiB (observation bounds), and the view within the budget.
const maxResponse = 64 << 20

func (c client) request(ctx context.Context, method, path, contentType string, body io.Reader, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return errcode.Wrap(errcode.InvalidArgument, err, "the request could not be made")
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return errcode.Wrap(errcode.Cancelled, err, "the call was cancelled")
		}
		return errcode.Wrap(errcode.BrowserUnavailable, err, "the sidecar could not be reached")
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil || len(b) > maxResponse {
		return errcode.Wrap(errcode.BrowserUnavailable, err, "the sidecar's answer could not be read")
	}
	if resp.StatusCode >= 300 {
		return decodeError(resp.StatusCode, b)
	}
	if out == nil || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return errcode.Wrap(errcode.BrowserUnavailable, err, "the sidecar's answer is not the API's JSON")
	}
	return nil
}

func decodeError(status int, b []byte) error {
	var body api.ErrorBody
	if err := json.Unmarshal(b, &body); err != nil || body.Error.Code == "" {
		return errcode.New(errcode.BrowserUnavailable, "the sidecar answered %d without an error body", status)
	}
	// The message was made public by the sidecar; it is passed on whole.
	e := &errcode.Error{Code: body.Error.Code, Message: body.Error.Message}
	if body.Error.Facts != nil {
		e.Err = &policy.NeedsApproval{Facts: *body.Error.Facts}
	}
	return e
}
