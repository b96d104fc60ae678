package veetbrowser_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/replay"
)

// A support desk's reply form: a pre-filled ticket summary to copy, a
// reply box and a password the agent must never see.
const valuesDeskPage = `<!doctype html><title>Ticket #4411 · Helpdesk</title>
<h1>Ticket #4411</h1>
<form><label>Summary <textarea name="summary" readonly>CANARY-GRANTED summary</textarea></label>
<label>Reply <input name="reply"></label>
<label>Agent password <input type="password" value="CANARY-PASSWORD"></label></form>
<p>Customer reports a broken hinge.</p>`

var anyCanary = regexp.MustCompile(`CANARY-[A-Z]+`)

// TestReadValuesInViewsNotInRecords: under the grant a 1.9.0 view shows a
// field's value (and what the agent typed, so it can confirm it), never a
// password; the records hold every observation with its values withheld,
// and replay re-derives the views; without the grant, or in tool version
// 1.8.0, no view holds a value. Fails on the base commit (no value).
func TestReadValuesInViewsNotInRecords(t *testing.T) {
	t.Parallel()
	st, dump := openSQLite(t)
	url := browsertest.Serve(t, valuesDeskPage)
	ctx := browsertest.Context(t, 2*time.Minute)
	origin := "http://" + strings.SplitN(strings.TrimPrefix(url, "http://"), "/", 2)[0]
	rt := newRuntime(t, st)

	s := openSession(t, rt, veetbrowser.SessionOptions{Grant: policy.Grant{Origins: []string{origin}, ReadValues: true}})
	res, err := s.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(res.View, []byte(`"value":"CANARY-GRANTED summary"`)) || !bytes.Contains(res.View, []byte(`"value":""`)) {
		t.Fatalf("view without the granted values: %s", res.View)
	}
	res, err = s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: veetbrowser.RefOf(t, res, "Reply"), Text: "CANARY-TYPED reply"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(res.View, []byte(`"value":"CANARY-TYPED reply"`)) {
		t.Fatalf("the typed text is not the field's value in the view: %s", res.View)
	}
	for _, v := range [][]byte{res.View, mustJSON(t, res.Observation)} {
		if bytes.Contains(v, []byte("CANARY-PASSWORD")) {
			t.Errorf("a password's value is shown: %s", v)
		}
	}
	rep, err := replay.Session(ctx, st, s.ID(), replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Identical() || len(rep.Views) != 2 {
		t.Fatalf("replay: identical %v, %d views, first difference %+v", rep.Identical(), len(rep.Views), rep.First)
	}

	for _, opts := range []veetbrowser.SessionOptions{
		{Grant: policy.Grant{Origins: []string{origin}}},
		{Version: "1.8.0", Grant: policy.Grant{Origins: []string{origin}, ReadValues: true}},
	} {
		s := openSession(t, rt, opts)
		res, err := s.Navigate(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(res.View, []byte(`"value"`)) || anyCanary.Match(mustJSON(t, res.Observation)) {
			t.Errorf("%s, grant %+v: a value without the grant: %s", s.Version().Name, opts.Grant, res.View)
		}
	}

	all := dump()
	if !bytes.Contains(all, []byte("[value withheld]")) || !bytes.Contains(all, []byte("broken hinge")) {
		t.Error("the dump does not hold the recorded observations, values withheld")
	}
	if leaked := anyCanary.FindAll(all, -1); len(leaked) > 0 {
		t.Errorf("values in the store: %q", leaked)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
