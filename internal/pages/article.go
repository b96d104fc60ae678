// Package pages generates realistic test pages: long articles with
// navigation, an infobox, footnotes and a sidebar, in several languages.
// Every page is deterministic, so tests can say exactly what it holds.
package pages

import (
	"fmt"
	"html"
	"strings"
)

// ArticleOptions shape a generated article.
type ArticleOptions struct {
	Paragraphs int // in the main article
	NavLinks   int // in the header, sidebar and footer together
	// Plant, if set, is a sentence put into paragraph PlantAt.
	Plant   string
	PlantAt int
}

// Article is a generated page and what it holds, in document order.
type Article struct {
	HTML       string
	Paragraphs []string // the readable text of each article paragraph
	Links      []string // the accessible name of every link, header to footer
}

// words in several scripts: Latin with diacritics, Japanese, Arabic (RTL),
// Hindi, and emoji with a ZWJ sequence.
var phrases = []string{
	"The river valley was settled early",
	"trade routes crossed the plateau",
	"Die Brücke über den Fluss wurde erneuert",
	"les archives municipales conservent les plans",
	"川の流れは絶えずして",
	"النهر يمر عبر المدينة القديمة",
	"नदी के किनारे पुराना बाज़ार है",
	"festivals draw visitors 🎉 every spring",
	"a family 👨‍👩‍👧 walks along the quay",
	"Ångström measured the light of the aurora",
}

// NewArticle builds an article page.
func NewArticle(o ArticleOptions) *Article {
	a := &Article{}
	var b strings.Builder
	link := func(href, name string) string {
		a.Links = append(a.Links, name)
		return `<a href="` + href + `">` + html.EscapeString(name) + `</a>`
	}
	navBlock := func(tag, label string, n, from int) {
		fmt.Fprintf(&b, `<%s aria-label="%s"><ul>`, tag, label)
		for i := range n {
			fmt.Fprintf(&b, "<li>%s</li>", link(fmt.Sprintf("/wiki/%s_%d", label, from+i), fmt.Sprintf("%s topic %d", label, from+i)))
		}
		fmt.Fprintf(&b, "</ul></%s>", tag)
	}
	header := o.NavLinks / 4
	sidebar := o.NavLinks / 2
	footer := o.NavLinks - header - sidebar

	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>River valley — Encyclopedia</title>
<style>body{font-family:sans-serif;margin:0} header,footer{background:#eee} main{margin-left:16em}
nav.side{position:absolute;left:0;width:15em} table.infobox{float:right;border:1px solid #999}
li{display:inline-block;margin:0 .3em}</style></head><body>`)
	b.WriteString(`<header>`)
	navBlock("nav", "Site", header, 0)
	b.WriteString(`<form role="search"><label>Search <input type="search" name="q"></label><button>Go</button></form></header>`)
	b.WriteString(`<div class="side">`)
	navBlock("nav", "Contents", sidebar, header)
	b.WriteString(`</div><main><article><h1>River valley</h1>`)
	b.WriteString(`<table class="infobox"><caption>River valley</caption>`)
	for i := range 20 {
		fmt.Fprintf(&b, "<tr><th>Fact %d</th><td>Value %d</td></tr>", i, i*7)
	}
	b.WriteString(`</table>`)
	foot := 0
	for i := range o.Paragraphs {
		if i%30 == 0 {
			fmt.Fprintf(&b, "<h2>Section %d</h2>", i/30+1)
		}
		p1 := phrases[i%len(phrases)]
		p2 := phrases[(i*7+3)%len(phrases)]
		term := fmt.Sprintf("term %d", i)
		text := fmt.Sprintf("§%d. %s, and %s %s.", i, p1, term, p2)
		inner := fmt.Sprintf("§%d. <span class=lead>%s</span>, and <b>%s</b> <i>%s</i>.", i, html.EscapeString(p1), html.EscapeString(term), html.EscapeString(p2))
		if i%10 == 4 {
			name := fmt.Sprintf("see also %d", i)
			inner += " " + link(fmt.Sprintf("/wiki/See_%d", i), name)
			text += " " + name
		}
		if i%25 == 7 {
			foot++
			name := fmt.Sprintf("[%d]", foot)
			inner += link(fmt.Sprintf("#fn-%d", foot), name)
			text += name
		}
		if o.Plant != "" && i == o.PlantAt {
			inner += " " + html.EscapeString(o.Plant)
			text += " " + o.Plant
		}
		dir := ""
		if strings.HasPrefix(p1, "النهر") {
			dir = ` dir="auto"`
		}
		fmt.Fprintf(&b, "<p%s>%s</p>\n", dir, inner)
		a.Paragraphs = append(a.Paragraphs, text)
	}
	b.WriteString(`<h2>Notes</h2><ol class="footnotes">`)
	for i := 1; i <= foot; i++ {
		fmt.Fprintf(&b, `<li id="fn-%d">Note %d: municipal records, volume %d.</li>`, i, i, i)
	}
	b.WriteString(`</ol></article><aside aria-label="Related"><h2>Related</h2><ul>`)
	for i := range 20 {
		fmt.Fprintf(&b, "<li>%s</li>", link(fmt.Sprintf("/wiki/Related_%d", i), fmt.Sprintf("Related article %d", i)))
	}
	b.WriteString(`</ul></aside></main><footer>`)
	navBlock("nav", "Footer", footer, header+sidebar)
	b.WriteString(`<p>Text is available under an open licence.</p></footer></body></html>`)
	a.HTML = b.String()
	return a
}
