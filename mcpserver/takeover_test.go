package mcpserver

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/replay"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/viewer"
)

// TestTakeOverUnaskedInTheControlRoom: a person, in a second real
// Chromium, presses Take over in the control room while the agent works
// on a two-step sign-in; the agent's observe is human_in_control and says
// a person took the page over; the person types the code into the page's
// picture and hands back; the site gets the code; the agent's older ref
// is stale_reference and its next observe is a whole view of the new
// page; the takeover is recorded (who, how long, "person input") and
// shown in the timeline, the session replays byte-identically, and the
// code is in no record, view or log.
func TestTakeOverUnaskedInTheControlRoom(t *testing.T) {
	t.Parallel()
	const canary = "TK3V8NQ2MWD"
	g := rig(t)
	var views []string
	agent := func(name string, args any) (string, bool) {
		text, isErr := call(t, g.cs, name, args)
		views = append(views, text)
		return text, isErr
	}
	site := serveBank(t)
	if text, isErr := agent("browser_navigate", map[string]any{"url": site.url}); isErr {
		t.Fatal(text)
	}
	text, _ := agent("browser_find", map[string]any{"query": "Verify"})
	verify := refOf(t, text, "Verify")
	person := person(t, g.srv.URL, g.room)

	waitFor(t, person, `!!document.querySelector('.take button.takeover')`)
	clickOn(t, person, `.take button.takeover`)
	waitFor(t, person, `document.querySelector('.handoff button.handback') && document.querySelector('img.driven').naturalWidth > 0`)
	if text, isErr := agent("browser_observe", map[string]any{}); !isErr || !strings.Contains(text, `"human_in_control"`) || !strings.Contains(text, "took the page over") {
		t.Fatalf("observe while the person holds the page: %s", text)
	}
	if text, isErr := agent("browser_handoff", map[string]any{"reason": "Enter the code"}); !isErr || !strings.Contains(text, `"human_in_control"`) {
		t.Fatalf("browser_handoff while the person holds the page: %s", text)
	}

	site.typeThroughPicture(t, person, canary)
	clickOn(t, person, `.handoff button.handback`)
	waitFor(t, person, `!document.querySelector('.handoff') && !!document.querySelector('.take button.takeover')`)

	if text, isErr := agent("browser_act", map[string]any{"kind": "click", "ref": verify}); !isErr || !strings.Contains(text, `"stale_reference"`) {
		t.Fatalf("a ref from before the takeover: %s", text)
	}
	if text, isErr := agent("browser_observe", map[string]any{}); isErr || !strings.Contains(text, "Welcome back, Ana") || strings.Contains(text, `"changes"`) {
		t.Fatalf("the agent's observe after the takeover: %s", text)
	}

	sums, err := g.st.Sessions(g.ctx, store.ListOptions{})
	if err != nil || len(sums) != 1 {
		t.Fatalf("sessions: %v %v", sums, err)
	}
	type takeover struct {
		Handoff *struct {
			By, Ended, Input string
			HeldMS           int64 `json:"held_ms"`
		}
	}
	var taken []takeover
	err = g.st.Calls(g.ctx, sums[0].ID, func(c store.Call) error {
		var one takeover
		if c.Tool == veetbrowser.EventTakeover {
			taken = append(taken, one)
			return json.Unmarshal(c.Action, &taken[len(taken)-1])
		}
		return nil
	})
	if err != nil || len(taken) != 1 || taken[0].Handoff == nil {
		t.Fatalf("the takeover's records: %+v %v", taken, err)
	}
	if h := taken[0].Handoff; h.By != "control_room" || h.Ended != "handed_back" || h.Input != "person input" || h.HeldMS <= 0 {
		t.Fatalf("the takeover's record: %+v", h)
	}
	rep, err := replay.Session(g.ctx, g.st, sums[0].ID, replay.Options{})
	if err != nil || !rep.Identical() {
		t.Fatalf("replay: %v %+v", err, rep)
	}
	var page bytes.Buffer
	if err := viewer.WriteHTML(g.ctx, &page, g.st, sums[0].ID, nil); err != nil || !strings.Contains(page.String(), "held by a person (control_room)") {
		t.Fatalf("the timeline does not show the takeover: %v", err)
	}
	views = append(views, page.String())
	g.nowhere(t, canary, views)
}
