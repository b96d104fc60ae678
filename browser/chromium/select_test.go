package chromium

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// Every choice a select action makes is trusted keyboard input: far
// targets through Home/End or type-ahead, a list with nothing chosen
// through Home; no path sets a choice from script. What the keyboard
// cannot reach is refused, and says why.
func TestSelectReachesEveryOptionWithTrustedKeys(t *testing.T) {
	t.Parallel()
	var long strings.Builder
	for i := range 401 {
		label := fmt.Sprintf("Option %d", i)
		switch i {
		case 200:
			label = "Shared"
		case 399:
			label = "Shared extra"
		}
		fmt.Fprintf(&long, "<option>%s</option>", label)
	}
	page := `<label>Long <select id=long>` + long.String() + `</select></label>
<label>Box <select id=box size=4><option>Alpha</option><option>Beta</option><option>Gamma</option></select></label>
<label>Many <select id=many multiple><option>One</option><option>Two</option></select></label>
<p id=log>none</p>
<script>
for (const id of ['long', 'box', 'many']) {
  document.getElementById(id).addEventListener('change', (e) => { log.textContent = id + ' trusted=' + e.isTrusted; });
}
</script>`
	_, s, obs := openEffects(t, map[string]string{"/": page})
	ctx := browsertest.Context(t, 2*time.Minute)
	choose := func(control, option string) error {
		t.Helper()
		res, err := s.Act(ctx, browser.Action{Kind: browser.ActSelect, Ref: find(t, obs, control).Ref, Option: option}, allowAll)
		if err == nil {
			obs = res.Observation
		}
		return err
	}
	for _, c := range []struct{ control, id, option string }{
		{"Long", "long", "Option 400"}, // End
		{"Long", "long", "Option 1"},   // Home, then one arrow
		{"Long", "long", "Option 90"},  // arrows from the current choice
		{"Long", "long", "Option 250"}, // type-ahead: 160 keys away, a unique label
		{"Box", "box", "Beta"},         // nothing chosen yet: Home, then one arrow
	} {
		if err := choose(c.control, c.option); err != nil {
			t.Fatalf("%s: %v", c.option, err)
		}
		got := evalMain(t, s, fmt.Sprintf("(() => { const e = document.getElementById(%q); return e.options[e.selectedIndex].label + ' ' + log.textContent; })()", c.id))
		if want := c.option + " " + c.id + " trusted=true"; got != want {
			t.Fatalf("after choosing %q: %q, want %q", c.option, got, want)
		}
	}
	// From Option 1, "Shared" is about 200 keys away whichever way, and
	// "Shared extra" starts with its label.
	if err := choose("Long", "Option 1"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, choose("Long", "Shared"), errcode.NotActionable)
	wantCode(t, choose("Many", "Two"), errcode.NotActionable)
	if got := evalMain(t, s, "document.getElementById('many').selectedIndex + ' ' + document.getElementById('long').selectedIndex"); got != "-1 1" {
		t.Fatalf("a refused choice changed the page: %s", got)
	}
}
