package chromium

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// openRealPages opens html (served at every path) in a session of the
// shared browser that works as tool version 1.9.0 does, or as 1.8.0 does
// when real is false.
func openRealPages(t testing.TB, html string, real bool) (*Session, *observation.Observation) {
	t.Helper()
	return openReal(t, browsertest.Serve(t, html), real)
}

// preferences is a newsletter settings page: a scrolling multiple-choice
// list of topics, one of them disabled, that logs each trusted change.
var preferences = func() string {
	var opts strings.Builder
	for _, topic := range []string{"World", "Business", "Technology", "Science", "Health", "Sports", "Travel", "Food", "Books", "Music", "Film", "Weather"} {
		attr := ""
		switch topic {
		case "Business":
			attr = " selected"
		case "Weather":
			attr = " disabled"
		}
		fmt.Fprintf(&opts, "<option%s>%s</option>", attr, topic)
	}
	return `<title>Newsletter preferences</title>
<style>body{font:14px sans-serif;margin:2em} select{width:14em}</style>
<header><nav><a href="#">Home</a> · <a href="#">Account</a></nav></header>
<main><h1>Your newsletter</h1>
<form onsubmit="return false">
<label for=topics>Topics</label><br>
<select id=topics name=topics multiple size=5>` + opts.String() + `</select>
<p class=hint>Hold Ctrl to pick several topics.</p>
<button type=button>Save preferences</button>
</form>
<p id=log>untouched</p></main>
<script>
const topics = document.getElementById('topics');
topics.addEventListener('change', (e) => {
  log.textContent = (e.isTrusted ? 'trusted: ' : 'untrusted: ') + [...topics.selectedOptions].map((o) => o.label).join(',');
});
</script>`
}()

// chosen is what the page holds selected, and whether the last change
// was trusted.
func chosen(t *testing.T, s *Session) string {
	return evalMain(t, s, "document.getElementById('log').textContent")
}

// TestSelectSeveralOptions (fails before 1.9.0's choices: the action was
// refused as a multiple-choice list): options of a scrolling <select
// multiple> are set, added and removed with trusted Control-clicks, far
// options scrolled into the list's view, and verified; the observation
// shows the options chosen.
func TestSelectSeveralOptions(t *testing.T) {
	t.Parallel()
	s, obs := openRealPages(t, preferences, true)
	ctx := browsertest.Context(t, 2*time.Minute)
	act := func(options []string, mode browser.SelectMode) error {
		t.Helper()
		res, err := s.Act(ctx, browser.Action{Kind: browser.ActSelect, Ref: find(t, obs, "Topics").Ref, Options: options, Mode: mode}, allowAll)
		if err == nil {
			obs = res.Observation
		}
		return err
	}
	for _, c := range []struct {
		options []string
		mode    browser.SelectMode
		want    string
	}{
		{[]string{"Technology", "Travel", "Music"}, "", "trusted: Technology,Travel,Music"}, // set by default: Business is cleared; Music is below the list's fold
		{[]string{"World"}, browser.SelectAdd, "trusted: World,Technology,Travel,Music"},
		{[]string{"Travel", "Film"}, browser.SelectRemove, "trusted: World,Technology,Music"}, // Film was not chosen: only Travel changes
		{[]string{"Music", "World"}, browser.SelectSet, "trusted: World,Music"},
	} {
		if err := act(c.options, c.mode); err != nil {
			t.Fatalf("%v %s: %v", c.options, c.mode, err)
		}
		if got := chosen(t, s); got != c.want {
			t.Fatalf("%v %s: the page holds %q, want %q", c.options, c.mode, got, c.want)
		}
	}
	// The view shows which options are chosen.
	if got := find(t, obs, "Topics").Chosen; !slices.Equal(got, []string{"World", "Music"}) {
		t.Errorf("the observation shows %q chosen, want World and Music", got)
	}
	// Asking for what already holds sends nothing.
	before := chosen(t, s)
	evalMain(t, s, "log.textContent = 'quiet'")
	if err := act([]string{"World"}, browser.SelectAdd); err != nil {
		t.Fatal(err)
	}
	if got := chosen(t, s); got != "quiet" {
		t.Errorf("a choice that already held changed the list: %q (was %q)", got, before)
	}
	// Refusals, each before any click.
	for _, c := range []struct {
		options []string
		want    errcode.Code
		words   string
	}{
		{[]string{"Weather"}, errcode.NotActionable, "disabled"},
		{[]string{"Gardening"}, errcode.NotActionable, "no option labelled"},
	} {
		err := act(c.options, browser.SelectSet)
		if errcode.Of(err) != c.want || err == nil || !strings.Contains(err.Error(), c.words) {
			t.Errorf("%v: %v, want %s saying %q", c.options, err, c.want, c.words)
		}
	}
	if got := chosen(t, s); got != "quiet" {
		t.Errorf("a refused choice changed the list: %q", got)
	}
}

// TestSelectSeveralRefusedBefore19: older versions keep refusing a
// multiple-choice list.
func TestSelectSeveralRefusedBefore19(t *testing.T) {
	t.Parallel()
	s, obs := openRealPages(t, preferences, false)
	ctx := browsertest.Context(t, time.Minute)
	_, err := s.Act(ctx, browser.Action{Kind: browser.ActSelect, Ref: find(t, obs, "Topics").Ref, Option: "World"}, allowAll)
	if errcode.Of(err) != errcode.NotActionable || !strings.Contains(err.Error(), "multiple-choice") {
		t.Fatalf("1.8.0 select in a multiple list: %v, want the not_actionable refusal", err)
	}
	_, err = s.Act(ctx, browser.Action{Kind: browser.ActSelect, Ref: find(t, obs, "Topics").Ref, Options: []string{"World"}}, allowAll)
	if errcode.Of(err) != errcode.InvalidArgument {
		t.Errorf("1.8.0 select with options: %v, want invalid_argument", err)
	}
	for _, k := range []browser.ActionKind{browser.ActDblClick, browser.ActContextClick, browser.ActSelectText} {
		_, err := s.Act(ctx, browser.Action{Kind: k, Ref: find(t, obs, "Topics").Ref}, allowAll)
		if errcode.Of(err) != errcode.InvalidArgument || !strings.Contains(err.Error(), "unknown action kind") {
			t.Errorf("1.8.0 %s: %v, want unknown action kind", k, err)
		}
	}
}

// TestChosenOptionsAtTheirBound: a list's control shows the labels of
// observation.MaxChosen chosen options and counts the rest; 1.8.0 views
// show none.
func TestChosenOptionsAtTheirBound(t *testing.T) {
	t.Parallel()
	list := func(name string, chosen int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "<label>%s <select multiple size=4>", name)
		for i := range observation.MaxChosen + 4 {
			sel := ""
			if i < chosen {
				sel = " selected"
			}
			fmt.Fprintf(&b, "<option%s>Tag %d</option>", sel, i)
		}
		return b.String() + "</select></label>"
	}
	page := "<title>Tags</title>" + list("At the bound", observation.MaxChosen) + list("Past the bound", observation.MaxChosen+1)
	_, obs := openRealPages(t, page, true)
	at, past := find(t, obs, "At the bound"), find(t, obs, "Past the bound")
	if len(at.Chosen) != observation.MaxChosen || at.ChosenMore != 0 || at.Chosen[observation.MaxChosen-1] != fmt.Sprintf("Tag %d", observation.MaxChosen-1) {
		t.Errorf("at the bound: %q and %d more", at.Chosen, at.ChosenMore)
	}
	if len(past.Chosen) != observation.MaxChosen || past.ChosenMore != 1 {
		t.Errorf("past the bound: %q and %d more", past.Chosen, past.ChosenMore)
	}
	_, old := openRealPages(t, page, false)
	for _, c := range old.Controls {
		if c.Chosen != nil || c.ChosenMore != 0 {
			t.Errorf("a 1.8.0 view shows chosen options of %q", c.Name)
		}
	}
}

// BenchmarkChosenOptions: observing a page of 64 multiple-choice lists of
// 200 options, half of them chosen, as 1.8.0 (no chosen labels) and as
// 1.9.0; and one select of three options in a 12-option list.
func BenchmarkChosenOptions(b *testing.B) {
	var page strings.Builder
	for l := range 64 {
		fmt.Fprintf(&page, "<label>List %d <select multiple size=4>", l)
		for i := range 200 {
			sel := ""
			if i%2 == 0 {
				sel = " selected"
			}
			fmt.Fprintf(&page, "<option%s>Option %d of list %d</option>", sel, i, l)
		}
		page.WriteString("</select></label>")
	}
	for _, c := range []struct {
		name string
		old  bool
	}{{"1.8.0", true}, {"1.9.0", false}} {
		b.Run("observe/"+c.name, func(b *testing.B) {
			s, _ := openRealPages(b, page.String(), !c.old)
			for b.Loop() {
				if _, err := s.Observe(context.Background(), observation.Request{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("select3", func(b *testing.B) {
		s, obs := openRealPages(b, preferences, false)
		sets := [][]string{{"Technology", "Travel", "Music"}, {"World", "Science", "Film"}}
		i := 0
		for b.Loop() {
			ref := ""
			for _, c := range obs.Controls {
				if c.Name == "Topics" {
					ref = c.Ref
				}
			}
			res, err := s.Act(context.Background(), browser.Action{Kind: browser.ActSelect, Ref: ref, Options: sets[i%2]}, allowAll)
			if err != nil {
				b.Fatal(err)
			}
			obs = res.Observation
			i++
		}
	})
}
