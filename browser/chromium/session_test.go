package chromium

import (
	"context"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

var shared = browsertest.Shared[*Provider]{Launch: func() (*Provider, error) {
	return Launch(context.Background(), Options{})
}}

// boundedTimings shorten the navigation bounds, for the tests that wait for
// them to run out.
var boundedTimings = func() Timings {
	tm := DefaultTimings()
	tm.NavigateBound, tm.LoadGrace = 4*time.Second, time.Second
	return tm
}()

// bounded is a browser shared by the tests that run into the navigation
// bounds, with boundedTimings.
var bounded = browsertest.Shared[*Provider]{Launch: func() (*Provider, error) {
	return Launch(context.Background(), Options{Timings: &boundedTimings})
}}

func TestMain(m *testing.M) { browsertest.Main(m, &shared, &bounded) }

func openSession(t testing.TB) *Session {
	t.Helper()
	ctx := browsertest.Context(t, time.Minute)
	bs, err := shared.Get(t).NewSession(ctx, browser.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bs.Close(context.Background()) })
	return bs.(*Session)
}

// openOn opens a session of the shared browser with opts, closed when tb
// ends, navigates it to url and returns it with the navigation's view.
func openOn(tb testing.TB, ctx context.Context, opts browser.SessionOptions, url string) (*Session, *observation.Observation) {
	tb.Helper()
	bs, err := shared.Get(tb).NewSession(ctx, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { bs.Close(context.Background()) })
	s := bs.(*Session)
	obs, err := s.Navigate(ctx, url)
	if err != nil {
		tb.Fatal(err)
	}
	return s, obs
}

// openPage serves html and returns a session on it with its first observation.
func openPage(t testing.TB, html string) (*Session, *observation.Observation) {
	t.Helper()
	s := openSession(t)
	obs, err := s.Navigate(browsertest.Context(t, time.Minute), browsertest.Serve(t, html))
	if err != nil {
		t.Fatal(err)
	}
	return s, obs
}

func names(obs *observation.Observation) []string {
	out := make([]string, len(obs.Controls))
	for i, c := range obs.Controls {
		out[i] = c.Name
	}
	return out
}

// wantGoesOn fails the test unless s, after what happened (named in the
// failure), still loads url and observes first as its first control.
func wantGoesOn(t *testing.T, ctx context.Context, s *Session, url, first, after string) {
	t.Helper()
	obs, err := s.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if names(obs)[0] != first {
		t.Fatalf("after %s: %q", after, names(obs))
	}
}

func wantCode(t *testing.T, err error, code errcode.Code) {
	t.Helper()
	if got := errcode.Of(err); got != code {
		t.Fatalf("error %v: code %q, want %q", err, got, code)
	}
}

func TestReferencesAreBoundToSessionAndRevision(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	url := browsertest.Serve(t, buttons(300, ""))
	s1, s2 := openSession(t), openSession(t)
	o1, err := s1.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	o2, err := s2.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if o1.Controls[0].Ref == o2.Controls[0].Ref || o1.Revision == o2.Revision {
		t.Fatal("two sessions issued the same reference")
	}
	_, err = s2.Observe(ctx, observation.Request{After: o1.Controls[0].Ref})
	wantCode(t, err, errcode.ForeignReference)
	_, err = s2.Observe(ctx, observation.Request{Cursor: o1.ControlCoverage.Cursor})
	wantCode(t, err, errcode.ForeignReference)

	ref := o1.Controls[3].Ref
	swap := byte('a')
	if ref[2] == 'a' {
		swap = 'b'
	}
	mangled := ref[:2] + string(swap) + ref[3:]
	_, err = s1.Observe(ctx, observation.Request{After: mangled})
	wantCode(t, err, errcode.UnknownReference)
	_, err = s1.Observe(ctx, observation.Request{After: "not a reference"})
	wantCode(t, err, errcode.UnknownReference)
	_, err = s1.Observe(ctx, observation.Request{After: o1.ControlCoverage.Cursor})
	wantCode(t, err, errcode.InvalidArgument)
	_, err = s1.Observe(ctx, observation.Request{After: ref, Cursor: o1.ControlCoverage.Cursor})
	wantCode(t, err, errcode.InvalidArgument)

	// A failed request publishes nothing: the references still hold.
	o1b, err := s1.Observe(ctx, observation.Request{After: ref})
	if err != nil {
		t.Fatal(err)
	}
	if o1b.ControlCoverage.Offset != 4 || o1b.Controls[0].Name != "b4" {
		t.Fatalf("after b3: offset %d, first %q", o1b.ControlCoverage.Offset, o1b.Controls[0].Name)
	}
	// Now o1 is older than the newest revision.
	_, err = s1.Observe(ctx, observation.Request{After: ref})
	wantCode(t, err, errcode.StaleReference)
}

func ptr[T any](v T) *T { return &v }
