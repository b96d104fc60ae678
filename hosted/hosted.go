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
	"cmp"
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

	json1 "github.com/go-json-experiment/json/v1"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/closeonce"
	"github.com/veetbot/veetbrowser/internal/tempdir"
	"github.com/veetbot/veetbrowser/internal/uploads"
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
	// ViewOnly asks for the model views without the canonical
	// observations (Result.Observation is nil): for a surface that only
	// passes the view on, as MCP does. It spares the hop the encoding,
	// transfer and decoding of the canonical observation; the sidecar
	// records it all the same.
	ViewOnly bool
}

// Session is a profile's lease on a sidecar and the browser session it
// holds there. A lease that is lost (it ran out while the sidecar could
// not be reached, or the sidecar ended it) is reported once, as
// lease_expired, like a local session's dead browser; the next call leases
// the profile again, on a fresh page.
type Session struct {
	// fixed at Open
	c       client
	opts    Options
	req     api.LeaseRequest
	version tools.Version
	ctx     context.Context // ended by Close: the renewals stop
	stop    context.CancelFunc
	renews  sync.WaitGroup

	mu     sync.Mutex // held by a call while it looks up or takes the lease
	lease  string     // "" once lost, until the next call leases again
	lost   error      // why the lease was lost, until a call has reported it
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
	if g := opts.Session.Grant; len(g.Origins) > 0 || len(g.Classes) > 0 || g.ReadValues || g.Contain {
		req.Grant = &api.Grant{Origins: g.Origins, Classes: g.Classes, ReadValues: g.ReadValues, Contain: g.Contain, Resources: g.Resources}
	}
	s := &Session{c: c, opts: opts, req: req}
	s.ctx, s.stop = context.WithCancel(context.Background())
	res, err := s.acquire(ctx)
	if err != nil {
		s.stop()
		return nil, err
	}
	if s.version, err = tools.Lookup(res.Version); err != nil {
		s.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return s, nil
}

// acquire takes the lease and starts renewing it; s.mu is held, or s is
// not yet shared.
func (s *Session) acquire(ctx context.Context) (api.LeaseResponse, error) {
	var res api.LeaseResponse
	if err := s.c.do(ctx, http.MethodPost, "/v1/leases", jsonBody(s.req), &res); err != nil {
		return res, err
	}
	s.lease = res.Lease.ID
	s.renews.Add(1)
	go s.renew(res.Lease.ID, time.Duration(res.Lease.TTLSeconds)*time.Second)
	return res, nil
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

// Check asks the sidecar whether it is up (/healthz) and which tenant the
// token belongs to, without leasing anything.
func Check(ctx context.Context, opts Options) (tenant string, err error) {
	c, err := newClient(opts)
	if err != nil {
		return "", err
	}
	if err := c.do(ctx, http.MethodGet, "/healthz", nil, nil); err != nil {
		return "", err
	}
	var p api.Profiles
	if err := c.do(ctx, http.MethodGet, "/v1/profiles", nil, &p); err != nil {
		return "", err
	}
	return p.Tenant, nil
}

// renew keeps a lease alive at a third of its TTL until Close, or until
// the sidecar refuses it: then the lease is lost.
func (s *Session) renew(lease string, ttl time.Duration) {
	defer s.renews.Done()
	t := time.NewTicker(max(ttl/3, time.Second))
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(s.ctx, max(ttl/3, 5*time.Second))
		err := s.c.do(ctx, http.MethodPost, leasePath(lease, "renew"), jsonBody(api.RenewRequest{}), nil)
		cancel()
		if gone(err) {
			s.loseLease(lease, err)
			return
		}
		// Any other failure (the network, a restart) is retried at the
		// next tick: the lease may well outlive it.
	}
}

// gone reports whether err says the lease is over.
func gone(err error) bool {
	switch errcode.Of(err) {
	case errcode.LeaseExpired, errcode.LeaseRequired:
		return true
	}
	return false
}

// loseLease records that lease is over, if it is still the session's.
func (s *Session) loseLease(lease string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lease == lease {
		s.lease, s.lost = "", errcode.New(errcode.LeaseExpired, leaseLost)
	}
}

// current returns the lease a call runs on: a lost lease is reported
// once, and the call after that leases the profile again.
func (s *Session) current(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", errcode.New(errcode.BrowserUnavailable, "the session is closed")
	}
	if s.lost != nil {
		err := s.lost
		s.lost = nil
		return "", err
	}
	if s.lease == "" {
		if _, err := s.acquire(ctx); err != nil {
			return "", err
		}
	}
	return s.lease, nil
}

// Lease is the id of the session's current lease; "" while it is lost.
func (s *Session) Lease() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lease
}

// Version is the tool version the session is pinned to.
func (s *Session) Version() tools.Version { return s.version }

// Approve relays one single-use approval for exactly these facts.
func (s *Session) Approve(f policy.Facts) {
	if lease := s.Lease(); lease != "" {
		s.c.do(context.Background(), http.MethodPost, leasePath(lease, "approvals"), jsonBody(api.Approval{Facts: f}), nil)
	}
}

// Call runs a tool by name with JSON arguments on the sidecar.
func (s *Session) Call(ctx context.Context, tool string, args json.RawMessage) (*veetbrowser.Result, error) {
	lease, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case !s.version.Has(tool): // a tool the session's version does not have is unknown too
		return nil, errcode.New(errcode.InvalidArgument, "unknown tool %s", errcode.Quote(tool))
	case tool == tools.Act:
		return s.act(ctx, lease, args)
	case tool == tools.Upload:
		return s.upload(ctx, lease, args)
	case tool == tools.Handoff:
		// The sidecar has no takeover route: no person holds its pages.
		return nil, errcode.New(errcode.HandoffUnavailable, "no person can take over a hosted session")
	}
	// Every other tool's route is its name without the prefix: navigate,
	// observe, find, wait, tabs, screenshot, console, network.
	return s.page(ctx, lease, strings.TrimPrefix(tool, "browser_"), "application/json", bytes.NewReader(args))
}

// act runs browser_act; an approval_required that names facts is put to
// the approver, and its yes relayed and the action tried once more, as a
// local session asks its approver before dispatch. The action was not
// dispatched when approval_required came back: nothing is repeated.
func (s *Session) act(ctx context.Context, lease string, args json.RawMessage) (*veetbrowser.Result, error) {
	res, err := s.page(ctx, lease, "act", "application/json", bytes.NewReader(args))
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
	if err := s.c.do(ctx, http.MethodPost, leasePath(lease, "approvals"), jsonBody(api.Approval{Facts: need.Facts}), nil); err != nil {
		return nil, s.leaseError(lease, err)
	}
	return s.page(ctx, lease, "act", "application/json", bytes.NewReader(args))
}

// upload checks and copies the files as a local session would, then sends
// the copies.
func (s *Session) upload(ctx context.Context, lease string, args json.RawMessage) (*veetbrowser.Result, error) {
	a, err := tools.ParseUpload(args)
	if err != nil {
		return nil, err
	}
	dir, err := tempdir.Make("veetbrowser-hosted-upload-") // marked: a killed client's copies are swept

	if err != nil {
		return nil, errcode.Wrap(errcode.UploadRefused, err, "the upload could not be prepared")
	}
	defer os.RemoveAll(dir)
	// The sidecar's caps bound what a request can carry: the session's
	// own limits apply within them, and past them the upload is refused
	// here, as a local session refuses it.
	o := s.opts.Session
	root, err := uploads.New(o.UploadRoot, uploads.Limits{
		MaxFiles: min(cmp.Or(o.MaxUploadFiles, api.MaxUploadFiles), api.MaxUploadFiles),
		MaxFile:  min(cmp.Or(o.MaxUploadBytes, api.MaxUploadFile), api.MaxUploadFile),
		MaxKept:  min(cmp.Or(o.MaxUploadKept, uploads.DefaultMaxKept), api.MaxUploadBody-multipartRoom)})
	if err != nil {
		return nil, err
	}
	copies, _, err := root.Copy(ctx, a.Paths, dir, root.Limits().MaxKept)
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
	return s.page(ctx, lease, "upload", mw.FormDataContentType(), &body)
}

// multipartRoom is what an upload's multipart framing may take of the
// sidecar's request cap: a few hundred bytes a file.
const multipartRoom = 64 << 10

// page posts to one of the lease's page routes and returns its result.
func (s *Session) page(ctx context.Context, lease, route, contentType string, body io.Reader) (*veetbrowser.Result, error) {
	path := leasePath(lease, route)
	if s.opts.ViewOnly {
		path += "?observation=" + api.OmitObservation
	}
	var out api.PageResult
	if err := s.c.post(ctx, path, contentType, body, &out); err != nil {
		return nil, s.leaseError(lease, err)
	}
	// A screenshot's answer is its view and image, a log read's its view
	// and log, the download list's its view alone: none has an observation.
	listing := route == "downloads"
	if len(out.View) == 0 || (out.Observation == nil && out.Image == nil && out.Log == nil && !listing && !s.opts.ViewOnly) {
		return nil, errcode.New(errcode.BrowserUnavailable, "the sidecar's answer holds no view or no observation")
	}
	res := &veetbrowser.Result{Observation: out.Observation, View: out.View, Log: out.Log}
	if out.Image != nil {
		res.Image = &veetbrowser.Image{MediaType: out.Image.MediaType, Data: out.Image.Data}
	}
	if out.Action != nil {
		res.Action = out.Action
		res.Action.Observation = out.Observation
	}
	return res, nil
}

// leaseError is what a call reports when the sidecar refused it: a lease
// that is over is lease_expired, whatever the sidecar knew of it (one that
// restarted knows nothing), and the next call leases the profile again.
func (s *Session) leaseError(lease string, err error) error {
	if !gone(err) {
		return err
	}
	s.mu.Lock()
	if s.lease == lease {
		s.lease = ""
	}
	s.mu.Unlock()
	return errcode.New(errcode.LeaseExpired, leaseLost)
}

const leaseLost = "the sidecar ended the session's lease and closed its page; the next call leases the profile again"

func leasePath(lease, route string) string {
	return "/v1/leases/" + url.PathEscape(lease) + "/" + route
}

// Close releases the lease, which closes its browser on the sidecar. It is
// safe to call more than once.
func (s *Session) Close(ctx context.Context) error {
	var lease string
	if !closeonce.Begin(&s.mu, &s.closed, func() { lease, s.lease = s.lease, "" }) {
		return nil
	}
	s.stop()
	s.renews.Wait()
	if lease == "" {
		return nil
	}
	err := s.c.do(ctx, http.MethodDelete, "/v1/leases/"+url.PathEscape(lease), nil, nil)
	if gone(err) {
		return nil // it ended on its own
	}
	return err
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
	// A redirect is never followed: it would carry the token to another
	// address, and turn a POST into a GET.
	hc := &http.Client{}
	if opts.HTTPClient != nil {
		c := *opts.HTTPClient
		hc = &c
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
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
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return errcode.Wrap(errcode.Timeout, err, "the operation timed out")
		}
		if ctx.Err() != nil {
			return errcode.Wrap(errcode.Cancelled, err, "the operation was cancelled")
		}
		return errcode.Wrap(errcode.BrowserUnavailable, err, "the sidecar could not be reached")
	}
	defer resp.Body.Close()
	// An answer that says its length is read into one buffer of that
	// size, not grown to it from 512 bytes (a canonical observation is
	// tens of KiB); the buffer is reused by the next call, since nothing
	// decoded from it keeps a reference into it.
	buf := answers.Get().(*bytes.Buffer)
	defer putAnswer(buf)
	if n := resp.ContentLength; n > 0 && n <= maxResponse {
		buf.Grow(int(n) + bytes.MinRead) // ReadFrom grows a buffer with less room left
	}
	_, err = buf.ReadFrom(io.LimitReader(resp.Body, maxResponse+1))
	b := buf.Bytes()
	if err != nil || len(b) > maxResponse {
		return errcode.Wrap(errcode.BrowserUnavailable, err, "the sidecar's answer could not be read")
	}
	if resp.StatusCode >= 300 {
		return decodeError(resp.StatusCode, b)
	}
	if out == nil || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	if err := decodeAnswer(b, out); err != nil {
		return errcode.Wrap(errcode.BrowserUnavailable, err, "the sidecar's answer is not the API's JSON")
	}
	return nil
}

// decodeAnswer decodes an answer with encoding/json's semantics, on an
// implementation that parses and decodes in one pass: decoding the
// canonical observation was most of the hop's CPU, and this takes about
// half of encoding/json's time and allocations for it.
func decodeAnswer(b []byte, out any) error { return json1.Unmarshal(b, out) }

// answers holds the buffers answers are read into, for the next calls.
var answers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledAnswer is the largest buffer kept for the next answer: a rare
// large answer (a full-page screenshot) is not held for the process's
// life.
const maxPooledAnswer = 1 << 20

func putAnswer(b *bytes.Buffer) {
	if b.Cap() <= maxPooledAnswer {
		b.Reset()
		answers.Put(b)
	}
}

func decodeError(status int, b []byte) error {
	var body api.ErrorBody
	if err := decodeAnswer(b, &body); err != nil || body.Error.Code == "" {
		return errcode.New(errcode.BrowserUnavailable, "the sidecar answered %d without an error body", status)
	}
	// The message was made public by the sidecar; it is passed on whole.
	e := &errcode.Error{Code: body.Error.Code, Message: body.Error.Message}
	if body.Error.Facts != nil {
		e.Err = &policy.NeedsApproval{Facts: *body.Error.Facts}
	}
	return e
}
