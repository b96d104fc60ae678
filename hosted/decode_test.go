package hosted_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/hosted"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/sidecar/api"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/tools"
)

// pageAnswers are the sidecar's answers (as encoding/json writes an
// api.PageResult) to a navigation of each page in Chromium at the newest
// tool version, with an act's postconditions, a screenshot and a log read
// added, so that every part of an answer is there.
func pageAnswers(t *testing.T, urls ...string) [][]byte {
	t.Helper()
	ctx := browsertest.Context(t, 2*time.Minute)
	p, err := chromium.Launch(ctx, chromium.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	rt, err := veetbrowser.New(p, veetbrowser.Options{Store: store.Discard})
	if err != nil {
		t.Fatal(err)
	}
	s, err := rt.NewSession(ctx, veetbrowser.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	var out [][]byte
	for _, u := range urls {
		res, err := s.Call(ctx, tools.Navigate, navigateArgs(u))
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(api.PageResult{View: res.View, Observation: res.Observation,
			Action: &browser.ActResult{Dispatched: true, NavigationStarted: true, URL: res.Observation.URL},
			Image:  &api.Image{MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G', 0, 0xff}},
			Log: &observation.Log{Log: observation.LogConsole, Document: 3, Entries: []observation.LogEntry{
				{Seq: 1, Level: "error", Exception: true, Text: "TypeError: x is <undefined> & \u2028", At: "f " + u + ":1:2"}}, After: 2}})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// TestAnswerDecodesAsEncodingJSON: the client decodes a page answer to the
// very values encoding/json decodes it to (the API's JSON is
// encoding/json's), for real pages' answers and for JSON encoding/json
// reads leniently: keys in another case, unknown fields, escapes, invalid
// UTF-8 and lone surrogates, nulls; and it refuses what encoding/json refuses.
func TestAnswerDecodesAsEncodingJSON(t *testing.T) {
	t.Parallel()
	answers := pageAnswers(t, browsertest.Serve(t, hopReplyPage), benchPage(t))
	answers = append(answers,
		[]byte(`{"VIEW":{"a":[1,2.5e3,"\u003c"]},"Observation":{"URL":"http://127.0.0.1/\u2028?a=1&b=2","title":"a\ud800b `+"\xff"+` c",`+
			`"unknown":{"deep":[null]},"controls":[{"ref":"e1","NAME":"Send <now>","role":null}],"text":null,"regions":[]},`+
			`"log":{"log":"network","document":1,"entries":[{"seq":2,"status":404,"ms":12}]}}`),
		[]byte(`{"view":null,"observation":null,"action":null,"image":null,"log":null}`))
	for i, b := range answers {
		var want, got api.PageResult
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("answer %d: encoding/json: %v", i, err)
		}
		if err := hosted.DecodeAnswer(b, &got); err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("answer %d decodes to\n%+v\nencoding/json's\n%+v", i, got, want)
		}
	}
	for _, bad := range []string{`{"view":1,"observation":{"controls":[{]}}`, `{"view":{}} {}`, `{"observation":{"controls":"x"}}`, `{"log":{"document":1e0}}`} {
		var got api.PageResult
		if hosted.DecodeAnswer([]byte(bad), &got) == nil {
			t.Errorf("%s decoded", bad)
		}
	}
}

// TestAnswerDecodeAllocates: decoding a real page's answer (the bench
// article's, ~75 KiB of observation) takes at most three quarters of the
// allocations encoding/json takes for it: the decoder is the one-pass
// decoder, not encoding/json again.
func TestAnswerDecodeAllocates(t *testing.T) { // not parallel: AllocsPerRun counts the process's allocations
	b := pageAnswers(t, benchPage(t))[0]
	allocs := func(decode func([]byte, any) error) float64 {
		return testing.AllocsPerRun(20, func() {
			var out api.PageResult
			if err := decode(b, &out); err != nil {
				t.Fatal(err)
			}
		})
	}
	mine, theirs := allocs(hosted.DecodeAnswer), allocs(json.Unmarshal)
	t.Logf("%d bytes: %.0f allocations, encoding/json %.0f", len(b), mine, theirs)
	if mine > theirs*3/4 {
		t.Fatalf("decoding an answer allocates %.0f times, encoding/json %.0f", mine, theirs)
	}
}
