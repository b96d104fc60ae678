package sidecar

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/pgtest"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/sidecar/api"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
)

func TestMain(m *testing.M) { browsertest.Main(m, &shared, browsertest.Cleanup(pgtest.Stop)) }

// shared is one browser for the tests that need pages but not profiles:
// each lease opens tabs in it (browsertest.Tabs).
var shared = browsertest.Shared[*chromium.Provider]{Launch: func() (*chromium.Provider, error) {
	return chromium.Launch(context.Background(), chromium.Options{})
}}

// fixture is a sidecar on 127.0.0.1 with two tenants.
type fixture struct {
	srv    *Server
	url    string
	acme   string // acme's token
	globex string // globex's token
	logs   *browsertest.Buffer
	clock  *fakeClock
}

// fakeClock runs with the real one, ahead of it by what Advance added:
// the store keeps the real time.
type fakeClock struct {
	mu    sync.Mutex
	ahead time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.ahead)
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.ahead += d
	c.mu.Unlock()
}

type fixtureOptions struct {
	store    store.Store // nil: a fresh SQLite file
	browsers Browsers    // nil: tabs of the shared browser
	data     string      // "": a fresh directory
	log      io.Writer   // nil: the fixture's logs
}

func newFixture(t *testing.T, o fixtureOptions) *fixture {
	t.Helper()
	acme, acmeLine, _ := NewToken("acme")
	globex, globexLine, _ := NewToken("globex")
	toks, err := ParseTokens(strings.NewReader("# tenants\n" + acmeLine + "\n\n" + globexLine + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if o.store == nil {
		st, err := storespec.Open(context.Background(), filepath.Join(t.TempDir(), "store.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		o.store = st
	}
	if o.browsers == nil {
		o.browsers = &browsertest.Tabs{Browser: shared.Get(t)}
	}
	if o.data == "" {
		o.data = t.TempDir()
	}
	logs := &browsertest.Buffer{}
	var log io.Writer = logs
	if o.log != nil {
		log = o.log
	}
	clock := &fakeClock{}
	srv, err := New(context.Background(), Options{Data: o.data, Tokens: toks, Store: o.store, Browsers: o.browsers,
		Logger: slog.New(slog.NewJSONHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})), Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		srv.Close(context.Background())
	})
	return &fixture{srv: srv, url: hs.URL, acme: acme, globex: globex, logs: logs, clock: clock}
}

// response is one answer of the API.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) code() errcode.Code {
	var e api.ErrorBody
	json.Unmarshal(r.body, &e)
	return e.Error.Code
}

func (r response) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("%d %s: %v", r.status, r.body, err)
	}
}

// call sends one request with token (none if ""), checks request and
// answer against the OpenAPI document, and returns the answer.
func (f *fixture) call(t *testing.T, token, method, path, contentType string, body []byte) response {
	t.Helper()
	req, err := http.NewRequest(method, f.url+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	checkReq, _ := http.NewRequest(method, f.url+path, bytes.NewReader(body))
	checkReq.Header = req.Header.Clone()
	checkAgainstDoc(t, checkReq, body, resp.StatusCode, resp.Header, b)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

func (f *fixture) json(t *testing.T, token, method, path string, v any) response {
	t.Helper()
	var body []byte
	if v != nil {
		var err error
		if body, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	return f.call(t, token, method, path, "application/json", body)
}

func want(t *testing.T, r response, status int, code errcode.Code) {
	t.Helper()
	if r.status != status || (code != "" && r.code() != code) {
		t.Fatalf("got %d %s, want %d %s", r.status, r.body, status, code)
	}
}

func (f *fixture) profile(t *testing.T, token, name string) {
	t.Helper()
	r := f.json(t, token, http.MethodPut, "/v1/profiles/"+name, nil)
	if r.status != http.StatusCreated && r.status != http.StatusOK {
		t.Fatalf("creating profile %s: %d %s", name, r.status, r.body)
	}
}

func (f *fixture) lease(t *testing.T, token string, req api.LeaseRequest) api.Lease {
	t.Helper()
	r := f.json(t, token, http.MethodPost, "/v1/leases", req)
	want(t, r, http.StatusCreated, "")
	var out api.LeaseResponse
	r.decode(t, &out)
	return out.Lease
}

func TestAuthRefusesAndLeaksNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	f.profile(t, f.acme, "shop")
	l := f.lease(t, f.acme, api.LeaseRequest{Profile: "shop"})

	// No token, a wrong one, a token in the query string: 401.
	want(t, f.json(t, "", http.MethodGet, "/v1/profiles", nil), http.StatusUnauthorized, errcode.Unauthorized)
	want(t, f.json(t, f.acme+"x", http.MethodGet, "/v1/profiles", nil), http.StatusUnauthorized, errcode.Unauthorized)
	want(t, f.json(t, "", http.MethodGet, "/v1/profiles?access_token="+f.acme, nil), http.StatusUnauthorized, errcode.Unauthorized)
	want(t, f.json(t, f.acme, http.MethodGet, "/v1/profiles?token="+f.acme, nil), http.StatusUnauthorized, errcode.Unauthorized)
	r := f.json(t, "", http.MethodPost, "/v1/leases/"+l.ID+"/observe", map[string]any{})
	want(t, r, http.StatusUnauthorized, errcode.Unauthorized)
	if r.header.Get("WWW-Authenticate") == "" {
		t.Error("a 401 names no scheme")
	}

	// Another tenant: acme's profile and lease do not exist for globex.
	r = f.json(t, f.globex, http.MethodGet, "/v1/profiles", nil)
	want(t, r, http.StatusOK, "")
	if strings.Contains(string(r.body), "shop") {
		t.Fatalf("globex sees acme's profile: %s", r.body)
	}
	want(t, f.json(t, f.globex, http.MethodPost, "/v1/leases", api.LeaseRequest{Profile: "shop"}), http.StatusNotFound, errcode.NotFound)
	want(t, f.json(t, f.globex, http.MethodDelete, "/v1/profiles/shop", nil), http.StatusNotFound, errcode.NotFound)
	want(t, f.json(t, f.globex, http.MethodPost, "/v1/leases/"+l.ID+"/observe", map[string]any{}), http.StatusConflict, errcode.LeaseRequired)
	want(t, f.json(t, f.globex, http.MethodPost, "/v1/leases/"+l.ID+"/renew", map[string]any{}), http.StatusConflict, errcode.LeaseRequired)
	want(t, f.json(t, f.globex, http.MethodDelete, "/v1/leases/"+l.ID, nil), http.StatusConflict, errcode.LeaseRequired)
	// ... and acme's lease still works.
	want(t, f.json(t, f.acme, http.MethodPost, "/v1/leases/"+l.ID+"/renew", map[string]any{}), http.StatusOK, "")

	// Public routes need no token.
	want(t, f.json(t, "", http.MethodGet, "/healthz", nil), http.StatusOK, "")
	if r := f.call(t, "", http.MethodGet, "/v1/openapi.json", "", nil); r.status != http.StatusOK || !json.Valid(r.body) {
		t.Fatalf("openapi.json: %d", r.status)
	}

	logs := f.logs.String()
	for _, tok := range []string{f.acme, f.globex, l.ID} {
		if strings.Contains(logs, tok) {
			t.Fatalf("the logs hold a token or a lease id:\n%s", logs)
		}
	}
	if !strings.Contains(logs, `"route":"POST /v1/leases"`) {
		t.Fatalf("the requests were not logged:\n%s", logs)
	}
}

func TestTokenFile(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{
		"", "# only a comment\n", "acme\n", "acme sha256:abc\n", "acme md5:" + strings.Repeat("0", 64) + "\n",
		"../x sha256:" + strings.Repeat("0", 64) + "\n", "acme sha256:" + strings.Repeat("0", 64) + " extra\n",
		// One token for two tenants would move it silently.
		"acme sha256:" + strings.Repeat("0", 64) + "\nglobex sha256:" + strings.Repeat("0", 64) + "\n",
	} {
		if _, err := ParseTokens(strings.NewReader(bad)); errcode.Of(err) != errcode.InvalidArgument {
			t.Errorf("%q: %v, want invalid_argument", bad, err)
		}
	}
	tok, line, err := NewToken("acme")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(line, tok) || !strings.HasPrefix(line, "acme sha256:") {
		t.Fatalf("the line holds the token, or is not a line: %q", line)
	}
	if _, _, err := NewToken("../etc"); errcode.Of(err) != errcode.InvalidArgument {
		t.Fatalf("a tenant name with a path: %v", err)
	}
}

func TestProfiles(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	want(t, f.json(t, f.acme, http.MethodPut, "/v1/profiles/shop", nil), http.StatusCreated, "")
	want(t, f.json(t, f.acme, http.MethodPut, "/v1/profiles/shop", nil), http.StatusOK, "")
	f.profile(t, f.acme, "mail")
	for _, bad := range []string{".hidden", "-x", "a..b", "UPPER", "a%2Fb", "a%2F..%2F..%2Fb", strings.Repeat("a", 64)} {
		want(t, f.json(t, f.acme, http.MethodPut, "/v1/profiles/"+bad, nil), http.StatusBadRequest, errcode.InvalidArgument)
	}
	want(t, f.json(t, f.acme, http.MethodPut, "/v1/profiles/"+strings.Repeat("a", 63), nil), http.StatusCreated, "")

	l := f.lease(t, f.acme, api.LeaseRequest{Profile: "shop"})
	var list api.Profiles
	r := f.json(t, f.acme, http.MethodGet, "/v1/profiles", nil)
	r.decode(t, &list)
	if list.Tenant != "acme" || len(list.Profiles) != 3 || list.Profiles[0].Name != strings.Repeat("a", 63) || list.Profiles[1] != (api.Profile{Name: "mail"}) || list.Profiles[2] != (api.Profile{Name: "shop", Leased: true}) {
		t.Fatalf("profiles: %s", r.body)
	}
	// A leased profile is not deleted under its browser.
	want(t, f.json(t, f.acme, http.MethodDelete, "/v1/profiles/shop", nil), http.StatusConflict, errcode.LeaseHeld)
	want(t, f.json(t, f.acme, http.MethodDelete, "/v1/leases/"+l.ID, nil), http.StatusNoContent, "")
	want(t, f.json(t, f.acme, http.MethodDelete, "/v1/leases/"+l.ID, nil), http.StatusNoContent, "") // twice is fine
	want(t, f.json(t, f.acme, http.MethodDelete, "/v1/profiles/shop", nil), http.StatusNoContent, "")
	want(t, f.json(t, f.acme, http.MethodDelete, "/v1/profiles/shop", nil), http.StatusNotFound, errcode.NotFound)
	want(t, f.json(t, f.acme, http.MethodPost, "/v1/leases", api.LeaseRequest{Profile: "shop"}), http.StatusNotFound, errcode.NotFound)
}

func TestLeaseRequests(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	f.profile(t, f.acme, "shop")
	for _, bad := range []api.LeaseRequest{
		{Profile: "shop", TTLSeconds: api.MinTTL - 1}, {Profile: "shop", TTLSeconds: api.MaxTTL + 1},
		{Profile: "shop", Version: "9.9.9"}, {Profile: "shop", Budget: 1023}, {Profile: "../x"},
	} {
		want(t, f.json(t, f.acme, http.MethodPost, "/v1/leases", bad), http.StatusBadRequest, errcode.InvalidArgument)
	}
	r := f.call(t, f.acme, http.MethodPost, "/v1/leases", "application/json", []byte(`{"profile":"shop","extra":1}`))
	want(t, r, http.StatusBadRequest, errcode.InvalidArgument)
	l := f.lease(t, f.acme, api.LeaseRequest{Profile: "shop", TTLSeconds: api.MaxTTL, Version: "1.5.0"})
	if l.TTLSeconds != api.MaxTTL {
		t.Fatalf("ttl: %+v", l)
	}
	// One live lease per profile.
	want(t, f.json(t, f.acme, http.MethodPost, "/v1/leases", api.LeaseRequest{Profile: "shop", TTLSeconds: api.MinTTL}), http.StatusConflict, errcode.LeaseHeld)
	var tl api.Tools
	r = f.json(t, f.acme, http.MethodGet, "/v1/leases/"+l.ID+"/tools", nil)
	r.decode(t, &tl)
	if tl.Version != "1.5.0" || len(tl.Tools) != 4 {
		t.Fatalf("tools of 1.5.0: %s", r.body)
	}
	// A request body over its cap.
	big := []byte(`{"url":"` + strings.Repeat("a", maxJSONBody) + `"}`)
	want(t, f.call(t, f.acme, http.MethodPost, "/v1/leases/"+l.ID+"/navigate", "application/json", big), http.StatusRequestEntityTooLarge, errcode.TooLarge)
	want(t, f.json(t, f.acme, http.MethodPost, "/v1/leases/nosuchlease/observe", map[string]any{}), http.StatusConflict, errcode.LeaseRequired)
	// observation=omit leaves the canonical observation out; nothing else
	// is a value of it.
	r = f.json(t, f.acme, http.MethodPost, "/v1/leases/"+l.ID+"/observe?observation=omit", map[string]any{})
	want(t, r, http.StatusOK, "")
	var page map[string]json.RawMessage
	r.decode(t, &page)
	if _, ok := page["observation"]; ok || len(page["view"]) == 0 {
		t.Fatalf("observation=omit: %s", r.body)
	}
	want(t, f.json(t, f.acme, http.MethodPost, "/v1/leases/"+l.ID+"/observe?observation=all", map[string]any{}), http.StatusBadRequest, errcode.InvalidArgument)
}

// TestLeaseRunsOut: a client that vanishes loses its lease at its TTL;
// its browser is closed and the profile is free again.
func TestLeaseRunsOut(t *testing.T) {
	t.Parallel()
	b := &browsertest.Tabs{Browser: shared.Get(t)}
	f := newFixture(t, fixtureOptions{browsers: b})
	f.profile(t, f.acme, "shop")
	l := f.lease(t, f.acme, api.LeaseRequest{Profile: "shop", TTLSeconds: 30})
	want(t, f.json(t, f.acme, http.MethodPost, "/v1/leases/"+l.ID+"/renew", api.RenewRequest{TTLSeconds: 30}), http.StatusOK, "")
	f.clock.Advance(29 * time.Second)
	want(t, f.json(t, f.acme, http.MethodPost, "/v1/leases/"+l.ID+"/observe", map[string]any{}), http.StatusOK, "")
	f.clock.Advance(time.Second)
	// The reaper closes the browser within a tick or two, without a request.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, closed := b.Counts(); closed == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the lease ran out but its browser was not closed")
		}
		time.Sleep(50 * time.Millisecond)
	}
	want(t, f.json(t, f.acme, http.MethodPost, "/v1/leases/"+l.ID+"/observe", map[string]any{}), http.StatusGone, errcode.LeaseExpired)
	want(t, f.json(t, f.acme, http.MethodPost, "/v1/leases/"+l.ID+"/renew", map[string]any{}), http.StatusGone, errcode.LeaseExpired)
	// The store lets the profile go right after its browser is closed.
	for {
		r := f.json(t, f.acme, http.MethodPost, "/v1/leases", api.LeaseRequest{Profile: "shop"})
		if r.status == http.StatusCreated {
			break
		}
		want(t, r, http.StatusConflict, errcode.LeaseHeld)
		if time.Now().After(deadline) {
			t.Fatal("the profile stayed leased after its lease ran out")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestLeaseRace: clients racing for one profile, on two sidecars sharing
// one store: exactly one wins each round.
func TestLeaseRace(t *testing.T) {
	t.Parallel()
	st, err := storespec.Open(context.Background(), filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	data := t.TempDir()
	raceLeases(t, 10, newFixture(t, fixtureOptions{store: st, data: data}), newFixture(t, fixtureOptions{store: st, data: data}))
}

// raceLeases runs rounds in which four clients, two on each sidecar,
// acquire the same profile at once; both sidecars share the tokens' file
// line for acme.
func raceLeases(t *testing.T, rounds int, a, b *fixture) {
	t.Helper()
	b.acme = a.acme
	b.srv.opts.Tokens = a.srv.opts.Tokens
	a.profile(t, a.acme, "shop")
	for round := range rounds {
		var wg sync.WaitGroup
		results := make([]response, 4)
		for i := range results {
			f := a
			if i%2 == 1 {
				f = b
			}
			wg.Go(func() {
				results[i] = f.json(t, a.acme, http.MethodPost, "/v1/leases", api.LeaseRequest{Profile: "shop"})
			})
		}
		wg.Wait()
		won := 0
		for i, r := range results {
			switch {
			case r.status == http.StatusCreated:
				won++
				var lr api.LeaseResponse
				r.decode(t, &lr)
				f := a
				if i%2 == 1 {
					f = b
				}
				want(t, f.json(t, a.acme, http.MethodDelete, "/v1/leases/"+lr.Lease.ID, nil), http.StatusNoContent, "")
			case r.status == http.StatusConflict && r.code() == errcode.LeaseHeld:
			default:
				t.Fatalf("round %d: %d %s", round, r.status, r.body)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d winners", round, won)
		}
	}
}

// TestShutdownReleasesLeases: Close releases every lease in the store and
// closes the browsers.
func TestShutdownReleasesLeases(t *testing.T) {
	t.Parallel()
	st, err := storespec.Open(context.Background(), filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b := &browsertest.Tabs{Browser: shared.Get(t)}
	f := newFixture(t, fixtureOptions{store: st, browsers: b})
	for _, p := range []string{"a", "b"} {
		f.profile(t, f.acme, p)
		f.lease(t, f.acme, api.LeaseRequest{Profile: p})
	}
	if err := f.srv.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if opened, closed := b.Counts(); opened != 2 || closed != 2 {
		t.Fatalf("opened %d browsers, closed %d", opened, closed)
	}
	// The profiles are free for any sidecar at once, not at the TTL.
	for _, p := range []string{"a", "b"} {
		l, err := st.AcquireLease(context.Background(), storeLease("acme", p, "other", time.Now().Add(time.Minute)))
		if err != nil {
			t.Fatalf("profile %s after shutdown: %v", p, err)
		}
		st.ReleaseLease(context.Background(), l.ID)
	}
	want(t, f.json(t, f.acme, http.MethodPost, "/v1/leases", api.LeaseRequest{Profile: "a"}), http.StatusServiceUnavailable, errcode.BrowserUnavailable)
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	f.profile(t, f.acme, "shop")
	l := f.lease(t, f.acme, api.LeaseRequest{Profile: "shop"})
	page := browsertest.Serve(t, `<button>Go</button>`)
	want(t, f.json(t, f.acme, http.MethodPost, "/v1/leases/"+l.ID+"/navigate", map[string]string{"url": page}), http.StatusOK, "")
	want(t, f.json(t, f.acme, http.MethodPost, "/v1/leases/"+l.ID+"/act", map[string]string{"kind": "click", "ref": "nope"}), http.StatusUnprocessableEntity, "")
	r := f.call(t, "", http.MethodGet, "/metrics", "", nil)
	for _, line := range []string{
		"veetbrowser_leases 1",
		`veetbrowser_calls_total{code="ok",tool="browser_navigate"} 1`,
		`veetbrowser_call_seconds_count{tool="browser_navigate"} 1`,
		`veetbrowser_http_requests_total{route="POST /v1/leases",status="201"} 1`,
	} {
		if !strings.Contains(string(r.body), line) {
			t.Errorf("/metrics lacks %q", line)
		}
	}
	if strings.Contains(string(r.body), "shop") || strings.Contains(string(r.body), l.ID) {
		t.Error("/metrics names a profile or a lease")
	}
}

// TestLeaseRacePostgres: two sidecars, each with its own connection pool
// to one PostgreSQL database, as two `serve` replicas are: exactly one of
// four racing clients wins, round after round. (The store's own suite
// races eight acquirers on two pools 100 times a round; here each round
// also opens the winner's page, so there are fewer.)
func TestLeaseRacePostgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Database(t)
	var stores [2]store.Store
	for i := range stores {
		st, err := storespec.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		stores[i] = st
	}
	data := t.TempDir()
	raceLeases(t, 25, newFixture(t, fixtureOptions{store: stores[0], data: data}), newFixture(t, fixtureOptions{store: stores[1], data: data}))
}

// names are the names of a page route answer's controls.
func names(t *testing.T, r response) string {
	t.Helper()
	want(t, r, http.StatusOK, "")
	var res struct {
		View projection.View `json:"view"`
	}
	r.decode(t, &res)
	var out []string
	for _, c := range res.View.Controls {
		out = append(out, c.Name)
	}
	return strings.Join(out, "; ")
}

// TestFleet: leases attached to a fleet browser take it one at a time, and
// each runs in a browser context of its own: the next lease, another
// tenant's, sees nothing of the one before.
func TestFleet(t *testing.T) {
	t.Parallel()
	ws, _ := browsertest.DevTools(t)
	f := newFixture(t, fixtureOptions{browsers: &Fleet{Endpoints: []string{ws}}})
	page := browsertest.StoragePage(t)
	f.profile(t, f.acme, "a")
	f.profile(t, f.globex, "b")
	a := f.lease(t, f.acme, api.LeaseRequest{Profile: "a"})
	if got := names(t, f.json(t, f.acme, http.MethodPost, "/v1/leases/"+a.ID+"/navigate", map[string]string{"url": page + "?set=acme"})); got != "cookie session=kept-acme; storage stored" {
		t.Fatalf("acme's page: %q", got)
	}
	// The fleet's one browser is taken.
	want(t, f.json(t, f.globex, http.MethodPost, "/v1/leases", api.LeaseRequest{Profile: "b"}), http.StatusServiceUnavailable, errcode.BrowserUnavailable)
	want(t, f.json(t, f.acme, http.MethodDelete, "/v1/leases/"+a.ID, nil), http.StatusNoContent, "")
	b := f.lease(t, f.globex, api.LeaseRequest{Profile: "b"})
	if got := names(t, f.json(t, f.globex, http.MethodPost, "/v1/leases/"+b.ID+"/navigate", map[string]string{"url": page})); got != "cookie none; storage none" {
		t.Fatalf("globex's lease on the same fleet browser sees acme's state: %q", got)
	}
}

// TestLeaseSlots: concurrent acquires cannot start more browsers than
// MaxLeases: each takes its slot before its browser starts.
func TestLeaseSlots(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	f.srv.opts.MaxLeases = 2
	for i := range 5 {
		f.profile(t, f.acme, fmt.Sprintf("p%d", i))
	}
	var wg sync.WaitGroup
	results := make([]response, 5)
	for i := range results {
		wg.Go(func() {
			results[i] = f.json(t, f.acme, http.MethodPost, "/v1/leases", api.LeaseRequest{Profile: fmt.Sprintf("p%d", i)})
		})
	}
	wg.Wait()
	won := 0
	for _, r := range results {
		switch {
		case r.status == http.StatusCreated:
			won++
		case r.status == http.StatusServiceUnavailable && r.code() == errcode.TooManySessions:
		default:
			t.Fatalf("%d %s", r.status, r.body)
		}
	}
	if won != 2 {
		t.Fatalf("%d leases with MaxLeases 2", won)
	}
}

// upload sends a multipart upload of files (name → bytes) for ref.
func (f *fixture) upload(t *testing.T, lease, ref string, files [][2]string) response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("ref", ref)
	for _, file := range files {
		w, err := mw.CreateFormFile("file", file[0])
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, file[1])
	}
	mw.Close()
	return f.call(t, f.acme, http.MethodPost, "/v1/leases/"+lease+"/upload", mw.FormDataContentType(), body.Bytes())
}

// TestUploadRoute: the files of a multipart upload reach the page's
// server byte for byte; a file over the cap, too many files and names
// that are not plain file names are refused, and nothing is kept.
func TestUploadRoute(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	f.profile(t, f.acme, "shop")
	l := f.lease(t, f.acme, api.LeaseRequest{Profile: "shop"})
	got := make(chan string, 1)
	page := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			file, hdr, err := r.FormFile("doc")
			if err == nil {
				b, _ := io.ReadAll(file)
				got <- hdr.Filename + ":" + string(b)
			}
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<form method=post enctype=multipart/form-data><input type=file name=doc multiple aria-label="Document"><button>Send</button></form>`)
	}))
	r := f.json(t, f.acme, http.MethodPost, "/v1/leases/"+l.ID+"/navigate", map[string]string{"url": page})
	want(t, r, http.StatusOK, "")
	var res api.PageResult
	r.decode(t, &res)
	var input, send string
	for _, c := range res.Observation.Controls {
		switch c.Name {
		case "Document":
			input = c.Ref
		case "Send":
			send = c.Ref
		}
	}
	if input == "" || send == "" {
		t.Fatalf("controls: %s", r.body)
	}
	r = f.upload(t, l.ID, input, [][2]string{{"report.txt", "bytes\x00\xff end"}})
	want(t, r, http.StatusOK, "")
	r.decode(t, &res)
	for _, c := range res.Observation.Controls {
		if c.Name == "Send" {
			send = c.Ref // of the new revision
		}
	}
	// Submitting needs the user's approval: the facts come with the
	// refusal, the client relays the user's yes, and the retry passes.
	click := map[string]string{"kind": "click", "ref": send}
	r = f.json(t, f.acme, http.MethodPost, "/v1/leases/"+l.ID+"/act", click)
	want(t, r, http.StatusUnprocessableEntity, errcode.ApprovalRequired)
	var refusal api.ErrorBody
	r.decode(t, &refusal)
	if refusal.Error.Facts == nil || refusal.Error.Facts.Name != "Send" || !refusal.Error.Facts.Submit {
		t.Fatalf("the refusal's facts: %s", r.body)
	}
	want(t, f.json(t, f.acme, http.MethodPost, "/v1/leases/"+l.ID+"/approvals", api.Approval{Facts: *refusal.Error.Facts}), http.StatusNoContent, "")
	want(t, f.json(t, f.acme, http.MethodPost, "/v1/leases/"+l.ID+"/act", click), http.StatusOK, "")
	select {
	case s := <-got:
		if s != "report.txt:bytes\x00\xff end" {
			t.Fatalf("the server got %q", s)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the form with the file never reached the server")
	}

	// At the bounds: 16 files, and one of exactly 10 MiB, pass; each on
	// the newest revision's ref of the input.
	documentRef := func(r response) string {
		t.Helper()
		want(t, r, http.StatusOK, "")
		var res api.PageResult
		r.decode(t, &res)
		for _, c := range res.Observation.Controls {
			if c.Name == "Document" {
				return c.Ref
			}
		}
		t.Fatalf("no Document control: %s", r.body)
		return ""
	}
	input = documentRef(f.json(t, f.acme, http.MethodPost, "/v1/leases/"+l.ID+"/navigate", map[string]string{"url": page}))
	atBound := make([][2]string, api.MaxUploadFiles)
	for i := range atBound {
		atBound[i] = [2]string{fmt.Sprintf("f%d.txt", i), "x"}
	}
	// A request's files are gone once its answer has arrived, whatever
	// the answer.
	noneLeft := func(t *testing.T) {
		t.Helper()
		f.srv.mu.Lock()
		dir := f.srv.leases[l.ID].uploads
		f.srv.mu.Unlock()
		left, _ := os.ReadDir(dir)
		for _, e := range left {
			if strings.HasPrefix(e.Name(), "r") { // a request's directory
				t.Fatalf("left in the upload root: %v", left)
			}
		}
	}
	input = documentRef(f.upload(t, l.ID, input, atBound))
	noneLeft(t)
	input = documentRef(f.upload(t, l.ID, input, [][2]string{{"full.bin", strings.Repeat("x", api.MaxUploadFile)}}))
	noneLeft(t)
	// One past them: refused.
	big := strings.Repeat("x", api.MaxUploadFile+1)
	want(t, f.upload(t, l.ID, input, [][2]string{{"big.bin", big}}), http.StatusRequestEntityTooLarge, errcode.TooLarge)
	many := make([][2]string, api.MaxUploadFiles+1)
	for i := range many {
		many[i] = [2]string{fmt.Sprintf("f%d.txt", i), "x"}
	}
	want(t, f.upload(t, l.ID, input, many), http.StatusRequestEntityTooLarge, errcode.TooLarge)
	for _, name := range []string{"a\x01b", ".."} {
		want(t, f.upload(t, l.ID, input, [][2]string{{name, "x"}}), http.StatusBadRequest, errcode.InvalidArgument)
	}
	// Nothing of the refused uploads stays in the lease's upload root.
	noneLeft(t)
}

// TestUnknownRouteIsJSON: a route the API does not have is a JSON 404.
func TestUnknownRouteIsJSON(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	for _, path := range []string{"/nope", "/v1/profiles/a/b/c"} {
		resp, err := http.Get(f.url + path)
		if err != nil {
			t.Fatal(err)
		}
		var body api.ErrorBody
		json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || body.Error.Code != errcode.NotFound {
			t.Fatalf("%s: %d %+v", path, resp.StatusCode, body)
		}
	}
}

// TestFleetBehindEgress: a fleet declared on other machines
// (Fleet.Remote) with an egress proxy (here on 127.0.0.2, standing for an
// address the fleet reaches) puts each lease's pages behind it: a
// contained lease's page with a preconnect hint, an image, a fetch and a
// WebSocket towards another origin sends that origin nothing, and the page
// itself loads. The WebSocket is counted in blocked under its ws origin:
// the proxy refused its tunnel (the guards alone refuse it in the page,
// uncounted).
func TestFleetBehindEgress(t *testing.T) {
	t.Parallel()
	e, err := chromium.ListenEgress("127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	ws, _ := browsertest.DevTools(t)
	other := browsertest.ServeCounted(t, "127.0.0.2:0", nil)
	site := browsertest.ServeCounted(t, "127.0.0.1:0", map[string]string{
		"/": fmt.Sprintf(`<!doctype html><title>Live scores</title><link rel="preconnect" href="%[1]s">
<main><h1>Live scores</h1><img src="%[1]s/pixel.gif" alt=""><button>Refresh</button></main>
<script>try { new WebSocket(%[2]q); } catch (e) {} fetch(%[1]q + "/score").catch(() => {});</script>`,
			other.URL, strings.Replace(other.URL, "http://", "ws://", 1)+"/feed"),
	})
	f := newFixture(t, fixtureOptions{browsers: &Fleet{Endpoints: []string{ws}, Remote: true, Egress: e}})
	f.profile(t, f.acme, "a")
	a := f.lease(t, f.acme, api.LeaseRequest{Profile: "a", Grant: &api.Grant{Origins: []string{site.URL}, Contain: true}})
	blocked := map[string]int{}
	view := func(r response) string {
		t.Helper()
		want(t, r, http.StatusOK, "")
		var res struct {
			View projection.View `json:"view"`
		}
		r.decode(t, &res)
		if res.View.Blocked != nil {
			for _, o := range res.View.Blocked.Origins {
				blocked[o.Origin] += o.Count
			}
		}
		return names(t, r)
	}
	if got := view(f.json(t, f.acme, http.MethodPost, "/v1/leases/"+a.ID+"/navigate", map[string]string{"url": site.URL + "/"})); got != "Refresh" {
		t.Fatalf("the lease's page: %q", got)
	}
	time.Sleep(1500 * time.Millisecond) // what the page and the hint might still send
	view(f.json(t, f.acme, http.MethodPost, "/v1/leases/"+a.ID+"/observe", map[string]any{}))
	if c, n := other.Conns.Load(), other.Requests.Load(); c != 0 || n != 0 {
		t.Fatalf("the other origin got %d connections and %d requests: %v", c, n, other.Seen())
	}
	if ws := strings.Replace(other.URL, "http://", "ws://", 1); blocked[ws] != 1 || blocked[other.URL] < 2 {
		t.Errorf("blocked %v, want the WebSocket under %s and the image and fetch under %s", blocked, ws, other.URL)
	}
}
