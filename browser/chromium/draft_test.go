package chromium

import (
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

func TestDraftReceipt(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, obs := openPage(t, `<div contenteditable="true" aria-label="Composer" id="ed"></div><p>Other text</p>`)
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Composer").Ref, Text: "Hello world"}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	draftOf := func(o *observation.Observation) (string, string) {
		text := ""
		for _, p := range o.Text {
			if p.Source == observation.TextSourceDraft {
				text = p.Text
			}
		}
		if o.Draft == nil {
			return "", text
		}
		return o.Draft.State, text
	}
	if state, text := draftOf(res.Observation); state != "match" || text != "Hello world" {
		t.Fatalf("after typing: %q %q", state, text)
	}
	if strings.Contains(joined(res.Observation), "Hello") {
		t.Fatal("editable text entered the page text")
	}
	for _, tc := range []struct{ name, script, state string }{
		{"changed", `document.getElementById('ed').append(' and more')`, "changed"},
		{"hidden", `document.getElementById('ed').style.display = 'none'`, "hidden"},
		{"credential", `document.getElementById('ed').setAttribute('autocomplete', 'current-password')`, "credential"},
		{"oversized", `document.getElementById('ed').append(...Array.from({length: 300}, () => document.createElement('span')))`, "oversized"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, obs := openPage(t, `<div contenteditable="true" aria-label="Composer" id="ed"></div>`)
			if _, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Composer").Ref, Text: "Hi"}, allowAll); err != nil {
				t.Fatal(err)
			}
			mainWorld(t, s, tc.script)
			o, err := s.Observe(ctx, observation.Request{})
			if err != nil {
				t.Fatal(err)
			}
			if state, text := draftOf(o); state != tc.state || text != "" {
				t.Fatalf("state %q text %q, want %q and no echo", state, text, tc.state)
			}
			// An invalidated receipt is gone for good.
			if o, _ = s.Observe(ctx, observation.Request{}); o.Draft != nil {
				t.Fatalf("receipt survived invalidation: %+v", o.Draft)
			}
		})
	}
}
