package suite

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/veetbot/veetbrowser/projection"
)

// Scenarios of field values on request (tool version 1.9.0, the
// read_values grant): text that lives only in a field's value, which the
// agent must read from its view to act on it.

// releaseNotes is the text the agent copies: in the page only as a
// textarea's value, which readable text never holds.
const releaseNotes = "REL-7Q4 zebra: fixed the hinge squeak; added a dark mode.\nThanks to Mei and Tomás."

// deployToken is a credential beside it: no view may show it.
const deployToken = "dtk-4d1f-never-shown"

func valueScenarios() []scenario {
	return []scenario{
		{
			// A release page: the draft notes are in a textarea; publishing
			// them means copying them into the published field and saving.
			id:         "copy-textarea",
			readValues: true,
			pages: map[string]func() string{"": static(`<title>Release 4.2 · Admin</title>
<header><nav aria-label="Admin"><a href="#">Releases</a> · <a href="#">Settings</a></nav></header>
<main><h1>Release 4.2</h1>
<section aria-label="Draft"><label>Draft notes <textarea id="draft" rows="4" cols="60">` + releaseNotes + `</textarea></label></section>
<section aria-label="Publish"><label>Published notes <textarea id="published" rows="4" cols="60"></textarea></label>
<label>Deploy token <input type="password" value="` + deployToken + `"></label>
<button type="button" id="save">Save notes</button><p id="state" role="status"></p></section></main>
<script>
document.getElementById('save').addEventListener('click', async () => {
  const r = await fetch('save', {method: 'POST', body: document.getElementById('published').value});
  document.getElementById('state').textContent = r.ok ? 'Saved' : 'Not saved';
});
</script>`)},
			handlers: map[string]handler{"save": func(w http.ResponseWriter, r *http.Request, record func(string)) {
				b, _ := io.ReadAll(io.LimitReader(r.Body, 4096))
				record("saved:" + string(b))
			}},
			expected: []string{"saved:" + releaseNotes},
			run: func(ctx context.Context, a *agent, _ string) error {
				notes, err := a.value(ctx, "Draft notes")
				if err != nil {
					return err
				}
				if err := a.act(ctx, "Published notes", map[string]any{"kind": "type", "text": notes}); err != nil {
					return err
				}
				// The agent confirms what the field took before saving.
				if got, err := a.value(ctx, "Published notes"); err != nil || got != notes {
					return fmt.Errorf("the published field holds %q (%v)", got, err)
				}
				return a.click(ctx, "Save notes")
			},
		},
	}
}

// value finds the control named name and returns the whole value its view
// shows; a field without a value, a cut value or a view showing the deploy
// token is an error.
func (a *agent) value(ctx context.Context, name string) (string, error) {
	ref, err := a.find(ctx, name)
	if err != nil {
		return "", err
	}
	for _, c := range a.view.Controls {
		if c.Value != nil && *c.Value == deployToken {
			return "", fmt.Errorf("the view shows the deploy token as %q's value", c.Name)
		}
	}
	c := a.view.Controls[slices.IndexFunc(a.view.Controls, func(c projection.Control) bool { return c.Ref == ref })]
	if c.Value == nil || c.ValueTruncated {
		return "", fmt.Errorf("the view shows no whole value for %q", name)
	}
	return *c.Value, nil
}
