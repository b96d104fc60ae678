package veetbrowser

import (
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/tools"
)

// TestObserveOptionsAreCheckedLikeBrowserObserve: Session.Observe refuses
// what the session's tool version does not accept, with the codes
// browser_observe's JSON arguments get, and accepts offsets up to the bound.
func TestObserveOptionsAreCheckedLikeBrowserObserve(t *testing.T) {
	t.Parallel()
	url := browsertest.Serve(t, `<!doctype html><title>options</title><button>One</button><p>Some text.</p>`)
	ctx := browsertest.Context(t, time.Minute)
	sessions := map[string]*Session{}
	for _, v := range []string{"1.0.0", "1.1.0", "1.5.0"} {
		s := session(t, SessionOptions{Version: v})
		if _, err := s.Navigate(ctx, url); err != nil {
			t.Fatal(err)
		}
		sessions[v] = s
	}
	cases := []struct {
		version string
		opts    ObserveOptions
		want    errcode.Code // "" accepts
	}{
		{"1.0.0", ObserveOptions{After: "e1"}, errcode.ExpansionUnsupported},
		{"1.0.0", ObserveOptions{Cursor: "c1"}, errcode.ExpansionUnsupported},
		{"1.0.0", ObserveOptions{ElementOffset: 1}, errcode.InvalidArgument},
		{"1.5.0", ObserveOptions{TextOffset: 1}, errcode.InvalidArgument},
		{"1.5.0", ObserveOptions{After: "e1", Cursor: "c1"}, errcode.InvalidArgument},
		{"1.1.0", ObserveOptions{ElementOffset: -1}, errcode.InvalidArgument},
		{"1.1.0", ObserveOptions{TextOffset: -1}, errcode.InvalidArgument},
		{"1.1.0", ObserveOptions{ElementOffset: tools.MaxOffsetArg + 1}, errcode.InvalidArgument},
		{"1.1.0", ObserveOptions{TextOffset: tools.MaxOffsetArg + 1}, errcode.InvalidArgument},
		{"1.1.0", ObserveOptions{ElementOffset: tools.MaxOffsetArg, TextOffset: tools.MaxOffsetArg}, ""},
		{"1.1.0", ObserveOptions{ElementOffset: 1, TextOffset: 3}, ""},
		{"1.0.0", ObserveOptions{}, ""},
		{"1.5.0", ObserveOptions{}, ""},
	}
	for _, c := range cases {
		res, err := sessions[c.version].Observe(ctx, c.opts)
		if got := errcode.Of(err); c.want != "" && got != c.want || c.want == "" && err != nil {
			t.Fatalf("%s %+v: error %v, want code %q", c.version, c.opts, err, c.want)
		}
		if c.want == "" && res == nil {
			t.Fatalf("%s %+v: no result", c.version, c.opts)
		}
	}
}

// TestObserveOffsetsPageTheView: 1.1.0 offsets given as ObserveOptions
// start the view where they say, as the same offsets sent to
// browser_observe do.
func TestObserveOffsetsPageTheView(t *testing.T) {
	t.Parallel()
	url := browsertest.Serve(t, `<!doctype html><title>offsets</title><button>One</button><button>Two</button><button>Three</button>`)
	ctx := browsertest.Context(t, time.Minute)
	s := session(t, SessionOptions{Version: "1.1.0"})
	if _, err := s.Navigate(ctx, url); err != nil {
		t.Fatal(err)
	}
	res, err := s.Observe(ctx, ObserveOptions{ElementOffset: 1})
	if err != nil {
		t.Fatal(err)
	}
	called, err := s.Call(ctx, tools.Observe, []byte(`{"element_offset":1}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*Result{res, called} {
		v := view(t, r)
		if len(v.Controls) != 2 || v.Controls[0].Name != "Two" || v.Controls[1].Name != "Three" {
			t.Fatalf("controls from offset 1: %+v", v.Controls)
		}
	}
}

// TestDecodeView reads the model view into a projection.View, and refuses a
// target it does not decode into as invalid_argument.
func TestDecodeView(t *testing.T) {
	t.Parallel()
	url := browsertest.Serve(t, `<!doctype html><title>decode</title><button>Go</button>`)
	ctx := browsertest.Context(t, time.Minute)
	s := session(t, SessionOptions{})
	res, err := s.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	var v projection.View
	if err := res.DecodeView(&v); err != nil {
		t.Fatal(err)
	}
	if v.Title != "decode" || len(v.Controls) != 1 || v.Controls[0].Name != "Go" {
		t.Fatalf("decoded view: %+v", v)
	}
	var n int
	if err := res.DecodeView(&n); errcode.Of(err) != errcode.InvalidArgument {
		t.Fatalf("decoding into an int: %v, want invalid_argument", err)
	}
	if err := res.DecodeView(v); errcode.Of(err) != errcode.InvalidArgument {
		t.Fatalf("decoding into a non-pointer: %v, want invalid_argument", err)
	}
}
