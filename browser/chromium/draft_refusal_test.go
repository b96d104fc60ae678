package chromium

import (
	"errors"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// An observation that admission refuses publishes nothing and changes
// nothing: even when its own draft verdict was that the receipt no longer
// holds, the receipt stays for the next observation to judge.
func TestRefusedObservationKeepsTheDraftReceipt(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, obs := openPage(t, `<div contenteditable="true" aria-label="Composer" id="ed"></div>`)
	if _, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Composer").Ref, Text: "Hi"}, allowAll); err != nil {
		t.Fatal(err)
	}
	mainWorld(t, s, `document.getElementById('ed').style.display = 'none'`)
	refuse := errcode.New(errcode.ObservationTooLarge, "refused for the test")
	s.validate = func(*observation.Observation) error { return refuse }
	if _, err := s.Observe(ctx, observation.Request{}); !errors.Is(err, refuse) {
		t.Fatalf("observe: %v, want the refusal", err)
	}
	s.validate = observation.Validate
	if s.draft == nil {
		t.Fatal("a refused observation cleared the draft receipt")
	}
	o, err := s.Observe(ctx, observation.Request{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Draft == nil || o.Draft.State != "hidden" || s.draft != nil {
		t.Fatalf("the next observation judged the receipt %+v (kept %v), want hidden and dropped", o.Draft, s.draft != nil)
	}
}
