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
	// AfterArticle is markup put into main right after the article, e.g. a
	// form; its links are not counted in Links.
	AfterArticle string
}

// Article is a generated page and what it holds, in document order.
type Article struct {
	HTML string
	// Body is the content of HTML's body element (it starts with the
	// page's style element), for a server that writes its own document
	// around it.
	Body       string
	Paragraphs []string // the readable text of each article paragraph
	Links      []string // the accessible name of every link, header to footer
}

// phrases in several scripts: Latin with diacritics (one written with a
// combining accent), Japanese, Arabic and Hebrew (RTL), Hindi, and emoji
// with a ZWJ sequence, a flag and a skin tone.
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
	"הספרייה העירונית פתוחה בערב",
	"cafe\u0301 terraces 👍🏽 line the square 🇯🇵",
}

// rtl reports whether a phrase is written right to left.
func rtl(p string) bool {
	return strings.HasPrefix(p, "النهر") || strings.HasPrefix(p, "הספרייה")
}

const articleStyle = `<style>
body{font-family:"Noto Sans",system-ui,sans-serif;margin:0;color:#202122;line-height:1.6}
header,footer{background:#f8f9fa;padding:.5em 1em;border-bottom:1px solid #a2a9b1}
header nav li,footer nav li{display:inline-block;margin:0 .3em}
.side{position:absolute;left:0;width:15em;font-size:.875em}
.side li{list-style:none}
main{margin-left:16em;padding:0 1em;max-width:60em}
table.infobox{float:right;border:1px solid #a2a9b1;background:#f8f9fa;margin:0 0 1em 1em;font-size:.9em}
table.infobox th{text-align:left;padding-right:1em}
.lead{font-weight:600}
sup.reference{font-size:.75em}
figure{margin:1em 0;border:1px solid #c8ccd1;padding:.3em}
ol.footnotes{font-size:.9em}
</style>`

// NewArticle builds an article page.
func NewArticle(o ArticleOptions) *Article {
	a := &Article{}
	var b strings.Builder
	link := func(href, name string) string {
		a.Links = append(a.Links, name)
		return `<a href="` + href + `">` + html.EscapeString(name) + `</a>`
	}
	navBlock := func(label string, n, from int) {
		fmt.Fprintf(&b, `<nav aria-label="%s"><ul>`, label)
		for i := range n {
			fmt.Fprintf(&b, "<li>%s</li>", link(fmt.Sprintf("/wiki/%s_%d", label, from+i), fmt.Sprintf("%s topic %d", label, from+i)))
		}
		b.WriteString("</ul></nav>\n")
	}
	header := o.NavLinks / 4
	sidebar := o.NavLinks / 2
	footer := o.NavLinks - header - sidebar

	b.WriteString(articleStyle)
	b.WriteString("\n<header>")
	navBlock("Site", header, 0)
	b.WriteString(`<form role="search" action="/search"><label>Search <input type="search" name="q"></label> <button>Go</button></form></header>` + "\n")
	b.WriteString(`<div class="side">`)
	navBlock("Contents", sidebar, header)
	b.WriteString("</div>\n<main><article><h1>River valley</h1>\n")
	b.WriteString(`<table class="infobox"><caption>River valley</caption>`)
	for i := range 20 {
		fmt.Fprintf(&b, "<tr><th scope=\"row\">Fact %d</th><td>Value %d</td></tr>", i, i*7)
	}
	b.WriteString("</table>\n")
	foot := 0
	for i := range o.Paragraphs {
		if i%30 == 0 {
			if i > 0 {
				b.WriteString("</section>\n")
			}
			fmt.Fprintf(&b, "<section><h2>Section %d</h2>\n", i/30+1)
		}
		if i%100 == 50 {
			fmt.Fprintf(&b, `<figure><div class="img" role="img" aria-label="Map %d"></div><figcaption>Figure %d: the valley in year %d</figcaption></figure>`+"\n", i, i/100+1, 1800+i/10)
		}
		p1 := phrases[i%len(phrases)]
		p2 := phrases[(i*7+3)%len(phrases)]
		term := fmt.Sprintf("term %d", i)
		year := 1700 + i*37%300
		text := fmt.Sprintf("§%d. %s, and %s %s (%d).", i, p1, term, p2, year)
		inner := fmt.Sprintf("§%d. <span class=\"lead\">%s</span>, and <b>%s</b> <i>%s</i> (<time datetime=\"%d\">%d</time>).",
			i, html.EscapeString(p1), html.EscapeString(term), html.EscapeString(p2), year, year)
		if i%10 == 4 {
			name := fmt.Sprintf("see also %d", i)
			inner += " " + link(fmt.Sprintf("/wiki/See_%d", i), name)
			text += " " + name
		}
		if i%25 == 7 {
			foot++
			name := fmt.Sprintf("[%d]", foot)
			inner += `<sup class="reference" id="ref-` + fmt.Sprint(foot) + `">` + link(fmt.Sprintf("#fn-%d", foot), name) + "</sup>"
			text += name
		}
		if o.Plant != "" && i == o.PlantAt {
			inner += " " + html.EscapeString(o.Plant)
			text += " " + o.Plant
		}
		dir := ""
		if rtl(p1) {
			dir = ` dir="auto"`
		}
		fmt.Fprintf(&b, "<p%s>%s</p>\n", dir, inner)
		a.Paragraphs = append(a.Paragraphs, text)
	}
	if o.Paragraphs > 0 {
		b.WriteString("</section>\n")
	}
	b.WriteString(`<section><h2>Notes</h2><ol class="footnotes">`)
	for i := 1; i <= foot; i++ {
		fmt.Fprintf(&b, `<li id="fn-%d">Note %d: municipal records, volume %d.</li>`, i, i, i)
	}
	b.WriteString("</ol></section></article>\n")
	b.WriteString(o.AfterArticle)
	b.WriteString(`<aside aria-label="Related"><h2>Related</h2><ul>`)
	for i := range 20 {
		fmt.Fprintf(&b, "<li>%s</li>", link(fmt.Sprintf("/wiki/Related_%d", i), fmt.Sprintf("Related article %d", i)))
	}
	b.WriteString("</ul></aside></main>\n<footer>")
	navBlock("Footer", footer, header+sidebar)
	b.WriteString(`<p>Text is available under an open licence.</p></footer>`)
	a.Body = b.String()
	a.HTML = document("River valley — Encyclopedia", a.Body)
	return a
}

// document wraps body markup into a whole page.
func document(title, body string) string {
	return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
		"<title>" + html.EscapeString(title) + "</title></head>\n<body>" + body + "</body></html>\n"
}

// CheckRead reports, as an error, the first way in which parts (the text
// parts of a whole read, in order, a part cut at the end of one view joined
// with its continuation) fail to hold every paragraph exactly once, whole
// and in order. Parts that are no paragraph (headings, captions, links)
// are ignored.
func (a *Article) CheckRead(parts []string) error {
	index := make(map[string]int, len(a.Paragraphs))
	for i, p := range a.Paragraphs {
		index[p] = i
	}
	next := 0
	for _, part := range parts {
		i, ok := index[part]
		if !ok {
			continue
		}
		if i != next {
			return fmt.Errorf("paragraph %d read where paragraph %d was due", i, next)
		}
		next++
	}
	if next < len(a.Paragraphs) {
		return fmt.Errorf("paragraph %d (of %d) never read whole: %q", next, len(a.Paragraphs), a.Paragraphs[next])
	}
	return nil
}
