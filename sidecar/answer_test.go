package sidecar

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/sidecar/api"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
	"github.com/veetbot/veetbrowser/tools"
)

// TestWritePageIsPageResult: a page call's answer, written with the view
// and the observation spliced in as encoding/json wrote them, is byte for
// byte writeJSON's api.PageResult of the same values (a client reads it
// as one), with text that JSON escapes (HTML-significant characters, line
// separators, quotes) in both, and with or without each optional part.
func TestWritePageIsPageResult(t *testing.T) {
	pr, pt := reflect.TypeFor[api.PageResult](), reflect.TypeFor[pageTail]()
	if pr.NumField() != pt.NumField()+2 {
		t.Fatalf("api.PageResult has %d fields, pageTail %d after the view and the observation", pr.NumField(), pt.NumField())
	}
	for i := range pt.NumField() {
		if a, b := pr.Field(i+2), pt.Field(i); a.Name != b.Name || a.Tag != b.Tag || a.Type != b.Type {
			t.Errorf("field %s `%s` in api.PageResult, %s `%s` in pageTail", a.Name, a.Tag, b.Name, b.Tag)
		}
	}
	obs := &observation.Observation{Revision: "r1", URL: "http://127.0.0.1/?a=1&b=<2>", Title: "Tom & Jerry <3 \"quoted\"",
		Controls: []observation.Control{{Ref: "e1", Role: "button", Name: "Send \u2028 now > later"}},
		Text:     []observation.TextPart{{Text: "a <b> & c \u2029 d"}}}
	v, err := tools.Lookup("1.10.0")
	if err != nil {
		t.Fatal(err)
	}
	view, err := projection.Project(obs, tools.ViewOptions(v, 8192, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	encoded, err := json.Marshal(obs)
	if err != nil {
		t.Fatal(err)
	}
	act := &browser.ActResult{Dispatched: true, URL: "http://127.0.0.1/<x>"}
	img := &api.Image{MediaType: "image/png", Data: []byte{1, 2, 3}}
	for _, c := range []struct {
		obs  bool
		tail pageTail
	}{
		{true, pageTail{}}, {false, pageTail{}}, {true, pageTail{Action: act}}, {false, pageTail{Image: img}},
		{true, pageTail{Log: &observation.Log{}}}, {true, pageTail{Action: act, Image: img, Log: &observation.Log{}}},
	} {
		want := api.PageResult{View: view, Action: c.tail.Action, Image: c.tail.Image, Log: c.tail.Log}
		var spliced json.RawMessage
		if c.obs {
			want.Observation, spliced = obs, encoded
		}
		a, b := httptest.NewRecorder(), httptest.NewRecorder()
		writeJSON(a, 200, want)
		writePage(b, view, spliced, c.tail)
		if n := b.Header().Get("Content-Length"); n != strconv.Itoa(b.Body.Len()) {
			t.Errorf("Content-Length %s for %d bytes", n, b.Body.Len())
		}
		if !b.Flushed {
			t.Error("the answer was left in the connection's buffer")
		}
		if !bytes.Equal(a.Body.Bytes(), b.Body.Bytes()) || !reflect.DeepEqual(a.Header(), b.Header()) || a.Code != b.Code {
			t.Errorf("observation %v, tail %+v: writePage wrote %d %v\n%s\nwriteJSON %d %v\n%s", c.obs, c.tail,
				b.Code, b.Header(), b.Body, a.Code, a.Header(), a.Body)
		}
	}
}

// gatedLog holds each write of a request's log line on a route ending in
// route until open is closed: a slow log, as a full pipe to a collector.
type gatedLog struct {
	route string
	open  chan struct{}
}

func (g gatedLog) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(`"msg":"request"`)) && bytes.Contains(p, []byte(g.route+`"`)) {
		<-g.open
	}
	return len(p), nil
}

// TestAnswerLeavesBeforeTheLog: a page answer shorter than the
// connection's buffer (a 1 KiB view, without the observation) and an
// error answer reach the client while the sidecar is still writing the
// request's log line: no answer waits for the log.
func TestAnswerLeavesBeforeTheLog(t *testing.T) {
	t.Parallel()
	open := make(chan struct{})
	f := newFixture(t, fixtureOptions{log: gatedLog{route: "/navigate", open: open}})
	t.Cleanup(func() { close(open) }) // before the fixture's cleanup closes the server
	f.profile(t, f.acme, "orders")
	l := f.lease(t, f.acme, api.LeaseRequest{Profile: "orders", Budget: 1024})
	page := browsertest.Serve(t, `<!doctype html><title>Order 55-1043 · Northwind</title>
<header><a href="/">Northwind</a> <a href="/account">Account</a></header>
<main><h1>Order 55-1043</h1><p>Shipped on 2 May, arriving on Friday.</p>
<form aria-label="Change delivery" onsubmit="event.preventDefault()"><label>Deliver to <select><option>Home</option><option>Locker</option></select></label><button>Save</button></form></main>
<footer><a href="/help">Help</a></footer>`)
	for _, c := range []struct {
		body   string
		status int
	}{{`{"url":"` + page + `"}`, http.StatusOK}, {`{"url":1}`, http.StatusBadRequest}} {
		req, _ := http.NewRequest(http.MethodPost, f.url+"/v1/leases/"+l.ID+"/navigate?observation=omit", strings.NewReader(c.body))
		req.Header.Set("Authorization", "Bearer "+f.acme)
		req.Header.Set("Content-Type", "application/json")
		// A connection of its own: the last one's handler is still
		// writing its log line, and holds it meanwhile.
		client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{}}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s: the answer did not arrive while its log line was held: %v", c.body, err)
		}
		if resp.StatusCode != c.status || len(b) > 3<<10 {
			t.Fatalf("%s: %d, %d bytes: %s", c.body, resp.StatusCode, len(b), b)
		}
	}
}

// countingStore counts the store's lease operations and call records.
type countingStore struct {
	store.Store
	mu      sync.Mutex
	leases  int // acquire, renew, release, read
	records int // intents, completions, records
}

func (c *countingStore) count(n *int) {
	c.mu.Lock()
	*n++
	c.mu.Unlock()
}

func (c *countingStore) counts() (leases, records int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.leases, c.records
}

func (c *countingStore) AcquireLease(ctx context.Context, l store.Lease) (store.Lease, error) {
	c.count(&c.leases)
	return c.Store.AcquireLease(ctx, l)
}

func (c *countingStore) RenewLease(ctx context.Context, id string, expires time.Time) (store.Lease, error) {
	c.count(&c.leases)
	return c.Store.RenewLease(ctx, id, expires)
}

func (c *countingStore) ReleaseLease(ctx context.Context, id string) error {
	c.count(&c.leases)
	return c.Store.ReleaseLease(ctx, id)
}

func (c *countingStore) Lease(ctx context.Context, id string) (store.Lease, error) {
	c.count(&c.leases)
	return c.Store.Lease(ctx, id)
}

func (c *countingStore) Intent(ctx context.Context, call store.Call) (int64, error) {
	c.count(&c.records)
	return c.Store.Intent(ctx, call)
}

func (c *countingStore) Complete(ctx context.Context, session string, seq int64, r store.Result) error {
	c.count(&c.records)
	return c.Store.Complete(ctx, session, seq, r)
}

func (c *countingStore) Record(ctx context.Context, call store.Call) (int64, error) {
	c.count(&c.records)
	return c.Store.Record(ctx, call)
}

// TestPageCallsReadNoLease: a page call on a lease does not go to the
// store for the lease (the sidecar holds it, and checks it against its
// clock); the store's round trips on a call's path are its records
// alone, at least one a call (the write-ahead intent of a navigation
// and its completion). A released lease refuses the next call at once.
func TestPageCallsReadNoLease(t *testing.T) {
	t.Parallel()
	st, err := storespec.Open(context.Background(), filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cs := &countingStore{Store: st}
	f := newFixture(t, fixtureOptions{store: cs})
	f.profile(t, f.acme, "orders")
	l := f.lease(t, f.acme, api.LeaseRequest{Profile: "orders"})
	page := browsertest.Serve(t, `<!doctype html><title>Orders · Northwind</title><main><h1>Your orders</h1>
<ul><li><a href="/o/1043">55-1043, shipped</a></li><li><a href="/o/1044">55-1044, packed</a></li></ul><button>Load more</button></main>`)
	leases, records := cs.counts()
	want(t, f.json(t, f.acme, http.MethodPost, "/v1/leases/"+l.ID+"/navigate", map[string]string{"url": page}), http.StatusOK, "")
	for range 5 {
		want(t, f.json(t, f.acme, http.MethodPost, "/v1/leases/"+l.ID+"/observe", map[string]any{}), http.StatusOK, "")
	}
	leases2, records2 := cs.counts()
	if leases2 != leases || records2-records < 6 {
		t.Fatalf("6 page calls: %d lease operations in the store, %d records", leases2-leases, records2-records)
	}
	want(t, f.json(t, f.acme, http.MethodDelete, "/v1/leases/"+l.ID, nil), http.StatusNoContent, "")
	want(t, f.json(t, f.acme, http.MethodPost, "/v1/leases/"+l.ID+"/observe", map[string]any{}), http.StatusGone, errcode.LeaseExpired)
}
