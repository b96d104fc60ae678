package chromium

import (
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// recipePage is a recipe blog: a site menu, an article whose paragraphs
// have no control (the quote to copy lies far down, past a tall photo), a
// link inside a paragraph, comments with a box to write in, a footer, and
// a cookie bar fixed over the bottom of the window.
const recipePage = `<title>Lemon tart · Bake at home</title>
<style>body{font:16px Georgia,serif;margin:0} nav{background:#f4e9d8;padding:8px} article{max-width:40em;margin:1em auto}
.photo{height:1400px;background:linear-gradient(#fde,#fed)} .cookies{position:fixed;left:0;right:0;bottom:0;height:60px;background:#333;color:#fff}</style>
<nav><a href="/">Home</a> <a href="/recipes">Recipes</a> <a href="/about">About</a></nav>
<article><h1>Lemon tart</h1>
<p>My grandmother made this tart every spring.</p>
<div class=photo role=img aria-label="The tart on a plate"></div>
<p>The secret is simple: <em>zest the lemons before you juice them</em>, never after.</p>
<p>Read <a href="/pastry">our pastry guide</a> for the crust.</p>
<p id=rate>Tap to rate this recipe five stars.</p>
</article>
<section aria-label=Comments><h2>Comments</h2><label>Your comment <textarea id=comment></textarea></label></section>
<footer>© Bake at home</footer>
<div class=cookies>We use cookies. <button>OK</button></div>
<script>rate.addEventListener('click', () => { rate.textContent = 'Rated'; });</script>`

// TestSelectPageTextWithoutARef (fails before: select_text needed a
// control's ref, and a paragraph has none): select_text with only text
// selects the first occurrence of it in the page's text by a trusted drag,
// scrolling to it as a person does, verified by the page's selection.
// Text that is not there, or that lies in a control (the link, a
// paragraph with a click listener: give its ref), is not_actionable, and
// nothing is clicked.
func TestSelectPageTextWithoutARef(t *testing.T) {
	t.Parallel()
	s, _ := openRealPages(t, recipePage, true)
	ctx := browsertest.Context(t, time.Minute)
	quote := "zest the lemons before you juice them"
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActSelectText, Text: quote}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Dispatched {
		t.Error("the selection says nothing was dispatched")
	}
	if got := evalMain(t, s, "getSelection().toString()"); got != quote {
		t.Fatalf("the page's selection is %q", got)
	}
	// The selection is the page's: pressing a key on a button (which takes
	// the focus, not the selection) keeps it. The clipboard is the
	// browser's, shared by parallel tests: TestSelectTextCopyPaste copies.
	res, err = s.Act(ctx, browser.Action{Kind: browser.ActPress, Ref: find(t, res.Observation, "OK").Ref, Key: "Tab"}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if got := evalMain(t, s, "String(getSelection().toString().length)"); got != "37" {
		t.Errorf("after a key on a button the selection holds %s units, want 37", got)
	}
	for _, c := range []struct{ text, words string }{
		{"bake it twice", "does not show the text"},
		{"our pastry guide", "lies in a control"},
		{"pastry guide for the", "lies in a control"}, // starts in the link
		{"rate this recipe", "lies in a control"},     // a paragraph with a click listener: the drag would click it
	} {
		_, err := s.Act(ctx, browser.Action{Kind: browser.ActSelectText, Text: c.text}, allowAll)
		wantCode(t, err, errcode.NotActionable)
		if !strings.Contains(err.Error(), c.words) {
			t.Errorf("select_text %q: %v, want it to say %q", c.text, err, c.words)
		}
	}
	if got := evalMain(t, s, "rate.textContent"); got != "Tap to rate this recipe five stars." {
		t.Errorf("a refused selection clicked the paragraph: %q", got)
	}
}
