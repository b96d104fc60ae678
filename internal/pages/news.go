package pages

import (
	"fmt"
	"html"
	"strings"
)

// NewsLayout says which element holds a news page's article.
type NewsLayout int

const (
	NewsMain    NewsLayout = iota // <main> around the article and its comments
	NewsArticle                   // an <article>, no main landmark
	NewsPlain                     // neither: a <div> of paragraphs
)

// News is a generated news article page, laid out as such sites are: a
// header with a menu and a search form, a sidebar of link lists (most
// read, topics, a newsletter box), the article (headline, byline,
// paragraphs, a share bar), reader comments with reply buttons, and a
// footer of link columns.
type News struct {
	HTML string
	// Article is the readable text of the article, part by part, in
	// order: the headline, the byline, then each paragraph.
	Article []string
	// Paragraphs is the article's paragraphs alone.
	Paragraphs []string
	// Links is the name of every link, in document order.
	Links []string
}

var newsWords = []string{
	"The harbour authority confirmed on Tuesday that the northern quay will reopen",
	"after two winters of repairs, the longest closure since the storm of 1953",
	"Fishermen who moved their boats to the southern basin said the berths there were crowded",
	"and that the ice plant, which closed with the quay, had been missed more than anything",
	"Engineers replaced the timber piles with concrete ones and raised the deck by forty centimetres",
	"a margin they say will hold against the higher tides the port now sees each autumn",
}

// NewNews builds a news page of the given layout with paragraphs article
// paragraphs of about 250 bytes each.
func NewNews(layout NewsLayout, paragraphs int) *News {
	n := &News{}
	var b strings.Builder
	link := func(href, name string) string {
		n.Links = append(n.Links, name)
		return `<a href="` + href + `">` + html.EscapeString(name) + `</a>`
	}
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Northern quay reopens — The Harbour Gazette</title>
<style>body{font-family:Georgia,serif;margin:0}header{background:#123;color:#fff;padding:8px}header a{color:#fff;margin-right:10px}
.layout{display:flex}aside{width:260px;font-size:14px;padding:10px}.story{max-width:680px;padding:10px}
.byline{color:#555}.comments li{margin:8px 0}footer{background:#eee;padding:10px;columns:4}</style></head><body>
<header>`)
	b.WriteString(link("/", "The Harbour Gazette") + `<nav aria-label="Sections"><ul>`)
	for _, s := range []string{"News", "Local", "Business", "Sport", "Culture", "Opinion", "Weather", "Obituaries", "Puzzles", "Podcasts", "Video", "Photos"} {
		b.WriteString("<li>" + link("/"+strings.ToLower(s), s) + "</li>")
	}
	b.WriteString(`</ul></nav><form role="search" action="/search"><input type="search" name="q" aria-label="Search the Gazette"><button>Search</button></form>
<a href="/subscribe">Subscribe</a> <a href="/login">Log in</a></header>` + "\n")
	n.Links = append(n.Links, "Subscribe", "Log in")
	b.WriteString(`<div class="layout"><aside><section><h2>Most read</h2><ol>`)
	for i := range 10 {
		fmt.Fprintf(&b, "<li>%s <span>%d comments</span></li>", link(fmt.Sprintf("/story/%d", i), fmt.Sprintf("Council votes on the ferry timetable, part %d", i+1)), 10+i*3)
	}
	b.WriteString(`</ol></section><section><h2>Topics</h2><ul>`)
	for i := range 16 {
		fmt.Fprintf(&b, "<li>%s</li>", link(fmt.Sprintf("/topic/%d", i), fmt.Sprintf("Topic %d: the harbour and its people", i+1)))
	}
	b.WriteString(`</ul></section><div class="newsletter"><h2>Our newsletter</h2><p>Every morning, the port's news in five minutes.</p><button>Sign me up</button></div></aside>` + "\n")

	open, close := `<main class="story"><article>`, `</article>`
	switch layout {
	case NewsArticle:
		open = `<div class="story"><article>`
	case NewsPlain:
		open, close = `<div class="story"><div class="body">`, `</div>`
	}
	b.WriteString(open)
	headline, byline := "Northern quay reopens after two winters of repairs", "By Ada Moreno, harbour correspondent · 3 December 2026"
	fmt.Fprintf(&b, `<h1>%s</h1><p class="byline">%s</p>`, headline, byline)
	n.Article = append(n.Article, headline, byline)
	for i := range paragraphs {
		var p strings.Builder
		fmt.Fprintf(&p, "%d. ", i+1)
		for k := range 3 {
			p.WriteString(newsWords[(i+k)%len(newsWords)])
			p.WriteString([]string{", ", "; ", "."}[k])
		}
		text := p.String()
		fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(text))
		n.Article = append(n.Article, text)
		n.Paragraphs = append(n.Paragraphs, text)
	}
	b.WriteString(`<div class="share"><button>Share</button> <button>Save</button></div>` + close + "\n")
	b.WriteString(`<section class="comments" aria-label="Comments"><h2>12 comments</h2><ul>`)
	for i := range 12 {
		fmt.Fprintf(&b, `<li><b>Reader %d</b> <p>About time. The quay was the heart of the town, comment %d.</p><button>Reply to reader %d</button></li>`, i+1, i+1, i+1)
	}
	b.WriteString(`</ul></section>`)
	if layout == NewsMain {
		b.WriteString(`</main>`)
	} else {
		b.WriteString(`</div>`)
	}
	b.WriteString("</div>\n<footer>")
	for _, col := range []string{"About", "Help", "Advertise", "Legal"} {
		fmt.Fprintf(&b, "<h3>%s</h3><ul>", col)
		for i := range 5 {
			fmt.Fprintf(&b, "<li>%s</li>", link(fmt.Sprintf("/%s/%d", strings.ToLower(col), i), fmt.Sprintf("%s page %d", col, i+1)))
		}
		b.WriteString("</ul>")
	}
	b.WriteString("<p>© 2026 The Harbour Gazette</p></footer></body></html>")
	n.HTML = b.String()
	return n
}
