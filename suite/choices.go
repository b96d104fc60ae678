package suite

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/tools"
)

// Scenarios of tool version 1.9.0's multiple choice: a settings page
// whose topics are a scrolling multiple-choice list. Before 1.9.0 the
// runtime refused to choose in it at all.

// newsletterTopics are the list's options; Business starts chosen, and
// Music and Film are below the list's fold.
var newsletterTopics = []string{"World", "Business", "Technology", "Science", "Health", "Sports", "Travel", "Food", "Books", "Music", "Film"}

func choicesScenarios() []scenario {
	var opts strings.Builder
	for _, t := range newsletterTopics {
		sel := ""
		if t == "Business" {
			sel = " selected"
		}
		fmt.Fprintf(&opts, "<option%s>%s</option>", sel, t)
	}
	want := []string{"Science", "Travel", "Music"}
	return []scenario{{
		id: "multi-select",
		pages: map[string]func() string{"": static(`<title>Newsletter settings</title>
<nav><a href="#">Home</a> <a href="#">Account</a></nav>
<h1>Newsletter settings</h1>
<form method="post" action="save">
<label for="topics">Topics</label>
<select id="topics" name="topics" multiple size="4">` + opts.String() + `</select>
<p>Hold Ctrl to choose several topics.</p>
<button>Save settings</button>
</form>`)},
		handlers: map[string]handler{"save": func(w http.ResponseWriter, r *http.Request, record func(string)) {
			r.ParseForm()
			record("topics:" + strings.Join(r.PostForm["topics"], ","))
			htmlPage(w, `<p role="status">Settings saved</p>`)
		}},
		approve:  []string{"Save settings"},
		expected: []string{"topics:Science,Travel,Music"},
		run: func(ctx context.Context, a *agent, _ string) error {
			if err := a.act(ctx, "Topics", map[string]any{"kind": "select", "options": want, "mode": "set"}); err != nil {
				return err
			}
			// The view says which topics are chosen before the form goes.
			v, err := a.call(ctx, tools.Observe, struct{}{})
			if err != nil {
				return err
			}
			i := slices.IndexFunc(v.Controls, func(c projection.Control) bool { return c.Name == "Topics" })
			if i < 0 || !slices.Equal(v.Controls[i].Chosen, want) {
				return fmt.Errorf("the view does not show %q chosen: %+v", want, v.Controls)
			}
			return a.click(ctx, "Save settings")
		},
	}}
}
