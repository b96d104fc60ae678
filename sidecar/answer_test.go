package sidecar

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strconv"
	"testing"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/sidecar/api"
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
		b.Header().Del("Content-Length") // which writeJSON leaves to net/http
		if !bytes.Equal(a.Body.Bytes(), b.Body.Bytes()) || !reflect.DeepEqual(a.Header(), b.Header()) || a.Code != b.Code {
			t.Errorf("observation %v, tail %+v: writePage wrote %d %v\n%s\nwriteJSON %d %v\n%s", c.obs, c.tail,
				b.Code, b.Header(), b.Body, a.Code, a.Header(), a.Body)
		}
	}
}
