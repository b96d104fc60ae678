package pages

import (
	"fmt"
	"html"
	"strings"
)

// Plain builds a long plain document: textNodes paragraphs of one text node
// each (about 100 bytes of UTF-8 per node, in several scripts), and nothing
// else to read. At 30,000 nodes it holds about 3 MB of text: far more
// than one observation reads, so a reader must follow continuations across
// the per-observation node, unit and byte bounds. Paragraphs lists each
// paragraph's text in order; Links is empty.
func Plain(textNodes int) *Article {
	a := &Article{}
	var b strings.Builder
	b.WriteString(`<style>body{font:16px/1.5 Georgia,serif;margin:2em auto;max-width:40em} p{margin:0 0 .6em}</style>` + "\n<main>\n")
	for i := range textNodes {
		text := fmt.Sprintf("%05d %s; %s.", i, phrases[i%len(phrases)], phrases[(i*5+1)%len(phrases)])
		a.Paragraphs = append(a.Paragraphs, text)
		fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(text))
	}
	b.WriteString("</main>")
	a.Body = b.String()
	a.HTML = document("Plain text", a.Body)
	return a
}

// Controls builds a page of n buttons in rows of ten: the one at index at
// (from 0) is named name, every other one "Item i". Each button carries
// data-e="click:i", so a server that records clicks knows which one was
// pressed.
func Controls(n int, name string, at int) string {
	var b strings.Builder
	b.WriteString(`<style>body{font-family:system-ui,sans-serif} .row{display:flex;gap:.25em;margin:.1em 0} button{font:inherit}</style>` +
		"\n<main><h1>Items</h1>\n")
	for i := range n {
		if i%10 == 0 {
			if i > 0 {
				b.WriteString("</div>\n")
			}
			b.WriteString(`<div class="row">`)
		}
		label := fmt.Sprintf("Item %d", i)
		if i == at {
			label = name
		}
		fmt.Fprintf(&b, `<button type="button" data-e="click:%d">%s</button>`, i, html.EscapeString(label))
	}
	if n > 0 {
		b.WriteString("</div>\n")
	}
	b.WriteString("</main>")
	return document("Items", b.String())
}
