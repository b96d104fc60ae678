package pages

import (
	"html"
	"strings"
)

// Privacy is a page where one phrase, Secret, appears only where a reader
// must never look: in values, editable content, hidden and collapsed
// content, scripts, styles, templates, comments and attributes that name
// nothing. Visible, a different phrase, appears once as readable text.
type Privacy struct {
	HTML    string
	Secret  string
	Visible string
	// Places says where Secret is, for a failing test's message.
	Places []string
}

// NewPrivacy builds the privacy page.
func NewPrivacy() *Privacy {
	const secret = "Mauve Lantern 7720"
	const visible = "Amber Compass 5163"
	p := &Privacy{Secret: secret, Visible: visible}
	s := html.EscapeString(secret)
	places := []struct{ name, markup string }{
		{"input value", `<label>Display name <input name="display" value="` + s + `"></label>`},
		{"password field", `<label>Password <input type="password" name="password" value="` + s + `"></label>`},
		{"textarea", `<label>Notes <textarea name="notes">` + s + `</textarea></label>`},
		{"contenteditable", `<div class="editor" contenteditable="true" aria-label="Draft"><p>` + s + `</p></div>`},
		{"custom textbox", `<div role="textbox" aria-label="Comment" tabindex="0">` + s + `</div>`},
		{"collapsed details", `<details><summary>Account history</summary><p>` + s + `</p></details>`},
		{"aria-hidden subtree", `<div aria-hidden="true"><p>Decorative: <span>` + s + `</span></p></div>`},
		{"display:none", `<p style="display:none">` + s + `</p>`},
		{"hidden attribute", `<section hidden><h2>Archive</h2><p>` + s + `</p></section>`},
		{"visibility:hidden", `<p style="visibility:hidden">` + s + `</p>`},
		{"template", `<template><p>` + s + `</p></template>`},
		{"script", `<script>const draftTitle = "` + secret + `";</script>`},
		{"style", `<style>.badge::after{content:"` + secret + `"}</style>`},
		{"comment", `<!-- ` + s + ` -->`},
		{"data attribute", `<p data-note="` + s + `">Saved preferences</p>`},
	}
	var b strings.Builder
	b.WriteString(`<style>body{font-family:system-ui,sans-serif;margin:2em} label{display:block;margin:.5em 0} .editor{border:1px solid #999;min-height:3em;padding:.3em}</style>` +
		"\n<main><h1>Account settings</h1>\n<form method=\"post\" action=\"settings\" aria-label=\"Settings\">\n")
	for _, place := range places {
		p.Places = append(p.Places, place.name)
		b.WriteString(place.markup + "\n")
	}
	b.WriteString("<button>Save settings</button></form>\n")
	b.WriteString(`<p>Your recovery phrase is <strong>` + html.EscapeString(visible) + `</strong>; keep it somewhere safe.</p>` + "\n</main>")
	p.HTML = document("Account settings", b.String())
	return p
}
