// Package sidecar is the hosted sidecar, `veetbrowser serve`: an
// authenticated HTTP API (/v1, described by openapi.json) that owns
// browsers, persistent profiles and leases, and runs the same tools as the
// library for the holder of a profile's lease (docs/sidecar.md).
//
// A tenant's bearer token (Tokens) lets it see and lease only its own
// profiles: persistent, isolated user-data dirs under the data directory,
// never served as bytes. A lease binds one profile to one browser session
// for a TTL; the store's own locking (store.Leases.AcquireLease) keeps one
// live lease per profile even between several sidecars sharing one
// PostgreSQL database. A lease that runs out closes its browser and frees
// the profile.
package sidecar

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/controlroom"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/closeonce"
	"github.com/veetbot/veetbrowser/internal/tempdir"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/sidecar/api"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/tools"
)

// Browsers starts the browser of one lease on a profile's directory.
type Browsers interface {
	Open(ctx context.Context, profileDir string) (browser.Provider, error)
}

// Options configure a Server.
type Options struct {
	// Data is the directory profiles live in; created if missing.
	Data string
	// Tokens are the accepted bearer tokens and their tenants.
	Tokens Tokens
	// Store holds the leases (and records every call, as the library
	// does); required: leases need a database's locking.
	Store Store
	// Browsers starts each lease's browser.
	Browsers Browsers
	// MaxLeases bounds the live leases of this process (0: 16): each is a
	// browser.
	MaxLeases int
	// Destinations is the destination policy of every lease's session.
	Destinations policy.Destinations
	// Logger receives one JSON line per request and the internal causes of
	// failures; never a token, an argument or a page's text. nil discards.
	Logger *slog.Logger
	// Now is the clock (tests); nil is time.Now.
	Now func() time.Time
}

// Store is what a sidecar needs of the artifact store: its leases, and the
// recorder of every lease's runtime.
type Store interface {
	store.Leases
	store.Recorder
}

// DefaultMaxLeases is MaxLeases' default.
const DefaultMaxLeases = 16

// openTimeout bounds the start of a lease's browser and session.
const openTimeout = time.Minute

// Server is one sidecar process.
type Server struct {
	// fixed at creation
	opts    Options
	holder  string // this process in the leases it holds
	log     *slog.Logger
	metrics *metrics
	now     func() time.Time
	stop    chan struct{} // closed by Close: ends the reaper
	reaped  chan struct{} // closed when the reaper has ended

	mu      sync.Mutex
	leases  map[string]*lease            // live leases this process holds, by id
	opening int                          // leases whose browser is starting: they count against MaxLeases
	ended   map[string]endedLease        // leases that ran out or were released here, for an hour
	rooms   map[string]*controlroom.Room // each tenant's control room (control.go), once asked for
	closed  bool
}

// endedLease is what is kept of a lease that ended: whose it was, and when.
type endedLease struct {
	tenant string
	at     time.Time
}

// lease is one live lease of this process: a profile's browser and the
// session on it.
type lease struct {
	id, tenant, profile string
	provider            browser.Provider
	runtime             *veetbrowser.Runtime
	session             *veetbrowser.Session
	uploads             string            // the lease's upload root: request files are written here
	room                *controlroom.Page // the session in its tenant's control room

	mu      sync.Mutex
	expires time.Time
	ttl     time.Duration
}

// New returns a server; Close ends it. Leases that ran out while no
// sidecar ran (after a crash) are removed from the store at once.
func New(ctx context.Context, opts Options) (*Server, error) {
	if opts.Store == nil || opts.Browsers == nil || opts.Data == "" || len(opts.Tokens.entries) == 0 {
		return nil, errcode.New(errcode.InvalidArgument, "a sidecar needs a data directory, tokens, a store and browsers")
	}
	if opts.MaxLeases < 0 {
		return nil, errcode.New(errcode.InvalidArgument, "MaxLeases cannot be negative")
	}
	if opts.MaxLeases == 0 {
		opts.MaxLeases = DefaultMaxLeases
	}
	if err := os.MkdirAll(opts.Data, 0o700); err != nil {
		return nil, errcode.Wrap(errcode.InvalidArgument, err, "the data directory could not be created")
	}
	s := &Server{opts: opts, holder: randomID(), log: opts.Logger, metrics: newMetrics(), now: opts.Now,
		stop: make(chan struct{}), reaped: make(chan struct{}),
		leases: make(map[string]*lease), ended: make(map[string]endedLease)}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if gone, err := s.opts.Store.ExpiredLeases(ctx, s.now()); err != nil {
		return nil, err
	} else if len(gone) > 0 {
		s.log.Info("removed leases that ran out", "count", len(gone))
	}
	go s.reap()
	return s, nil
}

// Close releases every lease of this process and closes its browsers; the
// HTTP server must have stopped handing it requests (http.Server.Shutdown).
func (s *Server) Close(ctx context.Context) error {
	var live []*lease
	if !closeonce.Begin(&s.mu, &s.closed, func() { live = slices.Collect(maps.Values(s.leases)) }) {
		return nil
	}
	close(s.stop)
	<-s.reaped
	for _, l := range live {
		s.end(ctx, l, "shutdown")
	}
	return nil
}

// reapEvery is how often leases are checked for their end.
const reapEvery = time.Second

// reap ends this process's leases that ran out, and removes from the
// store every lease that ran out, whoever held it (a sidecar that died
// cannot remove its own).
func (s *Server) reap() {
	defer close(s.reaped)
	t := time.NewTicker(reapEvery)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		now := s.now()
		s.mu.Lock()
		var due []*lease
		for _, l := range s.leases {
			if l.expired(now) {
				due = append(due, l)
			}
		}
		for id, e := range s.ended {
			if now.Sub(e.at) > time.Hour {
				delete(s.ended, id)
			}
		}
		s.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		for _, l := range due {
			s.end(ctx, l, "expired")
		}
		if _, err := s.opts.Store.ExpiredLeases(ctx, now); err != nil {
			s.log.Warn("could not remove leases that ran out", "err", err)
		}
		cancel()
	}
}

func (l *lease) expired(now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !now.Before(l.expires)
}

func (l *lease) view() api.Lease {
	l.mu.Lock()
	defer l.mu.Unlock()
	return api.Lease{ID: l.id, Profile: l.profile, ExpiresAt: l.expires.UTC(), TTLSeconds: int(l.ttl / time.Second)}
}

// acquire takes a profile's lease and opens its browser session.
func (s *Server) acquire(ctx context.Context, tenant string, req api.LeaseRequest) (*lease, error) {
	ttl, err := checkTTL(req.TTLSeconds)
	if err != nil {
		return nil, err
	}
	v, err := tools.Lookup(req.Version)
	if err != nil {
		return nil, err
	}
	dir, err := s.profileDir(tenant, req.Profile)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, errcode.New(errcode.NotFound, "no profile %s", errcode.Quote(req.Profile))
	}
	// A slot is taken before the browser starts, so that concurrent
	// acquires cannot start more browsers than MaxLeases.
	s.mu.Lock()
	full := len(s.leases)+s.opening >= s.opts.MaxLeases
	closed := s.closed
	if !full && !closed {
		s.opening++
	}
	s.mu.Unlock()
	if closed {
		return nil, errcode.New(errcode.BrowserUnavailable, "the sidecar is shutting down")
	}
	if full {
		return nil, errcode.New(errcode.TooManySessions, "this sidecar runs its most leases (%d); release one or try another", s.opts.MaxLeases)
	}
	opened := false
	defer func() {
		if !opened {
			s.mu.Lock()
			s.opening--
			s.mu.Unlock()
		}
	}()
	// The store holds the lease through the browser's start too, which
	// is bounded by openTimeout; it then counts the TTL from when the
	// client can use the lease.
	expires := s.now().Add(openTimeout + ttl)
	rec, err := s.opts.Store.AcquireLease(ctx, storeLease(tenant, req.Profile, s.holder, expires))
	if err != nil {
		return nil, err
	}
	l := &lease{id: rec.ID, tenant: tenant, profile: req.Profile, expires: expires, ttl: ttl}
	// A delete of the profile may have come between the check and the
	// lease: a browser must not bring the directory back.
	if _, err := os.Stat(dir); err != nil {
		s.opts.Store.ReleaseLease(context.WithoutCancel(ctx), rec.ID)
		return nil, errcode.New(errcode.NotFound, "no profile %s", errcode.Quote(req.Profile))
	}
	octx, cancel := context.WithTimeout(ctx, openTimeout)
	err = s.open(octx, l, dir, v, req)
	cancel()
	if err != nil {
		s.opts.Store.ReleaseLease(context.WithoutCancel(ctx), rec.ID)
		return nil, err
	}
	s.mu.Lock()
	s.leases[l.id] = l
	s.opening--
	opened = true
	s.metrics.browsers.Inc()
	s.mu.Unlock()
	if err := s.renew(ctx, l, int(ttl/time.Second)); err != nil {
		s.end(context.WithoutCancel(ctx), l, "expired")
		return nil, err
	}
	s.mu.Lock()
	closed = s.closed
	s.metrics.leases.Set(float64(len(s.leases)))
	s.mu.Unlock()
	if closed {
		s.end(context.WithoutCancel(ctx), l, "shutdown")
		return nil, errcode.New(errcode.BrowserUnavailable, "the sidecar is shutting down")
	}
	return l, nil
}

// open starts the lease's browser on the profile and its session.
func (s *Server) open(ctx context.Context, l *lease, dir string, v tools.Version, req api.LeaseRequest) (err error) {
	if l.uploads, err = tempdir.Make("veetbrowser-lease-"); err != nil {
		return errcode.Wrap(errcode.BrowserUnavailable, err, "the lease's directory could not be created")
	}
	if l.provider, err = s.opts.Browsers.Open(ctx, dir); err != nil {
		os.RemoveAll(l.uploads)
		return err
	}
	if l.runtime, err = veetbrowser.New(l.provider, veetbrowser.Options{Budget: req.Budget, Store: s.opts.Store}); err == nil {
		var g policy.Grant
		if req.Grant != nil {
			g = policy.Grant{Origins: req.Grant.Origins, Classes: req.Grant.Classes, ReadValues: req.Grant.ReadValues,
				Contain: req.Grant.Contain, Resources: req.Grant.Resources}
		}
		l.session, err = l.runtime.NewSession(ctx, veetbrowser.SessionOptions{Version: v.Name, Grant: g,
			Destinations: s.opts.Destinations, UploadRoot: l.uploads, Surface: "http",
			MaxUploadFiles: api.MaxUploadFiles, MaxUploadBytes: api.MaxUploadFile})
	}
	if err != nil {
		l.provider.Close(context.WithoutCancel(ctx))
		os.RemoveAll(l.uploads)
		return err
	}
	l.room = s.roomOf(l.tenant).Add("lease of " + l.profile)
	l.room.SetLive(l.session)
	return nil
}

// endExpired ends this process's lease of a tenant's profile if it ran
// out and the reaper has not got to it yet.
func (s *Server) endExpired(tenant, profile string) {
	s.mu.Lock()
	var due *lease
	for _, l := range s.leases {
		if l.tenant == tenant && l.profile == profile && l.expired(s.now()) {
			due = l
		}
	}
	s.mu.Unlock()
	if due != nil {
		s.end(context.Background(), due, "expired")
	}
}

// endTimeout bounds closing a lease's browser and releasing it.
const endTimeout = 30 * time.Second

// end closes a lease's session and browser and releases it in the store;
// the first end of a lease wins, later ones do nothing. It runs to its end
// whatever ctx: a client that went away must not leave the profile leased.
func (s *Server) end(ctx context.Context, l *lease, why string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), endTimeout)
	defer cancel()
	s.mu.Lock()
	if s.leases[l.id] != l {
		s.mu.Unlock()
		return
	}
	delete(s.leases, l.id)
	s.ended[l.id] = endedLease{tenant: l.tenant, at: s.now()}
	s.metrics.leases.Set(float64(len(s.leases)))
	s.mu.Unlock()
	if l.room != nil {
		l.room.Remove()
	}
	l.session.Close(ctx)
	if err := l.provider.Close(ctx); err != nil {
		s.log.Warn("the lease's browser did not close cleanly", "err", err)
	}
	s.metrics.browsers.Dec()
	os.RemoveAll(l.uploads)
	if err := s.opts.Store.ReleaseLease(ctx, l.id); err != nil {
		s.log.Warn("could not release a lease in the store; it ends at its TTL", "err", err)
	}
	s.log.Info("lease ended", "why", why, "lease", shortID(l.id))
}

// leaseOf returns the tenant's live lease id. Another tenant's lease is
// reported as if it did not exist.
func (s *Server) leaseOf(tenant, id string) (*lease, error) {
	s.mu.Lock()
	l := s.leases[id]
	e, ended := s.ended[id]
	s.mu.Unlock()
	if l == nil || l.tenant != tenant {
		if ended && l == nil && e.tenant == tenant {
			return nil, errcode.New(errcode.LeaseExpired, "the lease ended and its browser was closed; acquire a new one")
		}
		return nil, errcode.New(errcode.LeaseRequired, "this route needs the profile's current lease")
	}
	if l.expired(s.now()) {
		s.end(context.Background(), l, "expired")
		return nil, errcode.New(errcode.LeaseExpired, "the lease ran out and its browser was closed; acquire a new one")
	}
	return l, nil
}

// renew extends a live lease, in the store first: a lease the store no
// longer holds live is over.
func (s *Server) renew(ctx context.Context, l *lease, ttlSeconds int) error {
	ttl := l.ttl
	if ttlSeconds != 0 {
		var err error
		if ttl, err = checkTTL(ttlSeconds); err != nil {
			return err
		}
	}
	expires := s.now().Add(ttl)
	if _, err := s.opts.Store.RenewLease(ctx, l.id, expires); err != nil {
		if errcode.Of(err) == errcode.LeaseExpired {
			s.end(ctx, l, "expired")
		}
		return err
	}
	l.mu.Lock()
	l.expires, l.ttl = expires, ttl
	l.mu.Unlock()
	return nil
}

func checkTTL(seconds int) (time.Duration, error) {
	if seconds == 0 {
		seconds = api.DefaultTTL
	}
	if seconds < api.MinTTL || seconds > api.MaxTTL {
		return 0, errcode.New(errcode.InvalidArgument, "ttl_seconds must be between %d and %d", api.MinTTL, api.MaxTTL)
	}
	return time.Duration(seconds) * time.Second, nil
}

// profileDir is where a tenant's profile lives: under the data directory,
// by names that cannot leave it.
func (s *Server) profileDir(tenant, name string) (string, error) {
	if !validName(name) {
		return "", errcode.New(errcode.InvalidArgument, "a profile name is 1 to 63 of a-z, 0-9, '.', '_', '-', starting with a letter or digit")
	}
	return filepath.Join(s.tenantDir(tenant), name), nil
}

func (s *Server) tenantDir(tenant string) string {
	return filepath.Join(s.opts.Data, "tenants", tenant, "profiles")
}

func randomID() string {
	b := make([]byte, 24)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// shortID is a lease id as logs show it: enough to follow one lease, too
// little to use it.
func shortID(id string) string {
	if len(id) > 6 {
		return id[:6]
	}
	return id
}

// storeLease is a fresh lease record of this process.
func storeLease(tenant, profile, holder string, expires time.Time) store.Lease {
	return store.Lease{ID: randomID(), Tenant: tenant, Profile: profile, Holder: holder, Expires: expires}
}
