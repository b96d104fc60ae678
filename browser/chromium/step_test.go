package chromium

import (
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// newsletterForm is a sign-up box whose Subscribe button re-renders the
// box's status line in the same document.
const newsletterForm = `<title>Newsletter</title><nav><a href="/">Blog</a> <a href="/about">About</a></nav>
<aside aria-label="Newsletter"><form onsubmit="return false"><label>Name <input id=n></label>
<label>Email <input id=e type=email></label>
<button type=button onclick="st.innerHTML = '<b>Almost there</b>: check your inbox'">Subscribe</button></form><p id=st></p></aside>`

// TestStepKeepsTheRevision: Step acts and publishes no revision, so a
// second step acts on a ref of the same observation after a re-render of
// the document; the next observation makes those refs stale, as for Act.
// A session before 1.9.0 refuses Step.
func TestStepKeepsTheRevision(t *testing.T) {
	t.Parallel()
	s, obs := openRealPages(t, newsletterForm, true)
	ctx := browsertest.Context(t, time.Minute)
	ref := func(name string) string {
		for _, c := range obs.Controls {
			if c.Name == name {
				return c.Ref
			}
		}
		t.Fatalf("no %q", name)
		return ""
	}
	for _, a := range []browser.Action{{Kind: browser.ActClick, Ref: ref("Subscribe")}, {Kind: browser.ActType, Ref: ref("Name"), Text: "Mei"},
		{Kind: browser.ActType, Ref: ref("Email"), Text: "mei@example.test"}} {
		res, err := s.Step(ctx, a, allowAll)
		if err != nil || !res.Dispatched || res.Observation != nil {
			t.Fatalf("%s: %+v %v", a.Kind, res, err)
		}
	}
	if _, err := s.Observe(ctx, observation.Request{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Step(ctx, browser.Action{Kind: browser.ActClick, Ref: ref("Subscribe")}, allowAll); errcode.Of(err) != errcode.StaleReference {
		t.Fatalf("a ref of the revision before: %v", err)
	}
	old, obs := openRealPages(t, newsletterForm, false)
	if _, err := old.Step(ctx, browser.Action{Kind: browser.ActClick, Ref: ref("Subscribe")}, allowAll); errcode.Of(err) != errcode.InvalidArgument {
		t.Fatalf("1.8.0: %v", err)
	}
}
