package tab

import (
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
)

// The Refresh header is read as the HTML standard reads a refresh, which
// is what Chromium follows: whole seconds (the fraction is ignored, so
// "2.001" is the 2 s bound), a separator before the URL, "url=" and
// quotes optional, a URL of the page itself (or none) a reload.
func TestHeaderRefreshParse(t *testing.T) {
	const doc = "http://127.0.0.1:8080/moved?x=1#top"
	cases := []struct {
		value string
		ok    bool
		delay time.Duration
		self  bool
	}{
		{"0; url=/account", true, 0, false},
		{"2;URL='/account'", true, 2 * time.Second, false},
		{"2.001, url=/account", true, 2 * time.Second, false},
		{"2.999 /account", true, 2 * time.Second, false},
		{".5;url=/account", true, 0, false},
		{"3", true, 3 * time.Second, true},
		{"1; url=\"/moved?x=1#bottom\"", true, time.Second, true},
		{"1;url = moved?x=2", true, time.Second, false},
		{"1; url=HTTP://127.0.0.1:8080/moved?x=1", true, time.Second, true},
		{"5url=/account", false, 0, false},
		{"url=/account", false, 0, false},
		{"-1; url=/account", false, 0, false},
		{"99999999999; url=/account", false, 0, false},
		{"", false, 0, false},
	}
	for _, c := range cases {
		r, ok := headerRefresh(network.Headers{"refresh": c.value}, doc)
		if ok != c.ok || r.delay != c.delay || r.self != c.self {
			t.Errorf("%q: %v %+v, want %v delay %s self %v", c.value, ok, r, c.ok, c.delay, c.self)
		}
	}
	if r, ok := headerRefresh(network.Headers{"Refresh": "0; url=http://LocalHost:80"}, "http://localhost/"); !ok || !r.self {
		t.Error("a URL with the host in capitals and its default port is not the page itself")
	}
	if _, ok := headerRefresh(network.Headers{"Content-Type": "text/html"}, doc); ok {
		t.Error("a response without the header has a refresh")
	}
}

// A tag replaces the header's refresh unless its delay is longer, as in
// the browser (a tag is scheduled after the header).
func TestRefreshTagAndHeader(t *testing.T) {
	header := refresh{set: true, delay: time.Second, self: true}
	longer := refresh{set: true, delay: 2 * time.Second}
	equal := refresh{set: true, delay: time.Second}
	if got := (refreshed{header: header, tag: longer}).effective(); got != header {
		t.Errorf("a longer tag won: %+v", got)
	}
	if got := (refreshed{header: header, tag: equal}).effective(); got != equal {
		t.Errorf("an equal tag lost: %+v", got)
	}
	if got := (refreshed{tag: longer}).effective(); got != longer {
		t.Errorf("a tag alone lost: %+v", got)
	}
}
