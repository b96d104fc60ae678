package suite

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/veetbot/veetbrowser/tools"
)

// Scenarios of tool version 1.9.0's scroll containers: a feed and an inbox
// whose items lie in a box that scrolls, most of them out of its sight.
// Before 1.9.0 the items the box clipped were in no view at all.

// scrollFeed is a timeline: eight posts in a box that scrolls vertically
// and hides horizontal overflow, three of them in sight. Each post asks
// for a vote of a colour, which only its text says.
func scrollFeed() string {
	colours := []string{"Red", "Green", "Amber", "Teal", "Plum", "Navy", "Gold", "Blue"}
	var b strings.Builder
	b.WriteString(`<title>Club timeline</title>
<style>
  body { margin: 0; font-family: sans-serif; }
  header { background: #1d9bf0; color: #fff; padding: 8px; }
  .feed { height: 330px; width: 460px; overflow-y: auto; overflow-x: hidden; border: 1px solid #ccc; }
  .post { height: 110px; box-sizing: border-box; padding: 6px; border-bottom: 1px solid #eee; }
</style>
<header><h1>Club timeline</h1></header>
<main class="feed">`)
	for i, c := range colours {
		n := i + 1
		fmt.Fprintf(&b, `<article class="post"><p>Post %d: this week the club votes for %s.</p>`, n, c)
		for _, v := range []string{c, colours[(i+3)%len(colours)]} {
			fmt.Fprintf(&b, `<button data-e="vote:%d:%s" aria-label="Vote %s on post %d">Vote %s</button> `, n, strings.ToLower(v), v, n, v)
		}
		b.WriteString(`</article>`)
	}
	b.WriteString(`</main>`)
	return b.String()
}

// scrollInbox is a mail client laid out as an application: the document
// never scrolls (html and body hide their overflow), the message list does,
// and seven of its ten mails fit. Opening a mail shows it with its Archive
// button.
func scrollInbox() string {
	var b strings.Builder
	b.WriteString(`<title>Inbox (10)</title>
<style>
  html, body { height: 480px; overflow: hidden; margin: 0; font-family: sans-serif; }
  .top { height: 60px; background: #eee; }
  .list { position: absolute; top: 60px; left: 0; width: 420px; height: 420px; overflow: auto; margin: 0; padding: 0; list-style: none; }
  .mail { height: 60px; box-sizing: border-box; border-bottom: 1px solid #ddd; }
  .reader { position: absolute; top: 60px; left: 440px; width: 400px; }
</style>
<div class="top"><h1>Inbox</h1></div>
<ul class="list" aria-label="Messages">`)
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, `<li class="mail"><span>Sender %d</span> <button class="open" data-n="%d">Invoice %d from Sender %d</button></li>`, i, i, i, i)
	}
	b.WriteString(`</ul><section class="reader" aria-label="Reading pane"></section>
<script>
document.querySelector('.list').addEventListener('click', (e) => {
  const b = e.target.closest('button.open');
  if (!b) return;
  const n = b.dataset.n;
  document.querySelector('.reader').innerHTML = '<h2>Invoice ' + n + '</h2><p>Amount due for invoice ' + n + '.</p>' +
    '<button data-e="archive:' + n + '">Archive invoice ' + n + '</button>';
});
</script>`)
	return b.String()
}

var voteFor = regexp.MustCompile(`^Post 8: this week the club votes for (\w+)\.$`)

func scrollScenarios() []scenario {
	return []scenario{
		{
			// Read the eighth post, which the box shows only once scrolled,
			// and vote as it says: the vote must really reach the page.
			id:       "scroll-feed",
			pages:    map[string]func() string{"": scrollFeed},
			expected: []string{"vote:8:blue"},
			approve:  []string{"Vote Blue on post 8"}, // a vote is consequential: the user approves this one
			run: func(ctx context.Context, a *agent, _ string) error {
				if _, err := a.call(ctx, tools.Observe, struct{}{}); err != nil {
					return err
				}
				part, err := a.read(ctx, voteFor.MatchString)
				if err != nil {
					return err
				}
				colour := voteFor.FindStringSubmatch(part)[1]
				return a.click(ctx, "Vote "+colour+" on post 8")
			},
		},
		{
			// Open the ninth mail, below the body's box in a list that
			// scrolls, and archive it from the reading pane.
			id:       "scroll-inbox",
			pages:    map[string]func() string{"": scrollInbox},
			expected: []string{"archive:9"},
			run:      clicks("Invoice 9 from Sender 9", "Archive invoice 9"),
		},
	}
}
