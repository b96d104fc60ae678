package pages

import (
	"strings"
	"testing"
)

// countNodes counts the elements and text nodes an HTML parser builds from
// well-formed markup, from below: every start tag is an element (elements
// the parser implies, such as tbody, are not counted) and every run of
// non-whitespace text between two tags is one text node (whitespace-only
// runs, which the parser may drop, are not counted). Comments and the
// doctype are no nodes here. The content of raw-text elements (script,
// style, textarea, title) is one text node, whatever it holds.
func countNodes(markup string) (elements, texts int) {
	rest := markup
	for rest != "" {
		lt := strings.IndexByte(rest, '<')
		if lt < 0 {
			lt = len(rest)
		}
		if strings.TrimSpace(rest[:lt]) != "" {
			texts++
		}
		rest = rest[lt:]
		switch {
		case rest == "":
		case strings.HasPrefix(rest, "<!--"):
			end := strings.Index(rest, "-->")
			if end < 0 {
				return elements, texts
			}
			rest = rest[end+3:]
		case strings.HasPrefix(rest, "<!"), strings.HasPrefix(rest, "</"):
			rest = rest[tagEnd(rest):]
		default:
			end := tagEnd(rest)
			name := tagName(rest[1:end])
			elements++
			rest = rest[end:]
			switch name {
			case "script", "style", "textarea", "title":
				close := strings.Index(strings.ToLower(rest), "</"+name)
				if close < 0 {
					close = len(rest)
				}
				if strings.TrimSpace(rest[:close]) != "" {
					texts++
				}
				rest = rest[close:]
			}
		}
	}
	return elements, texts
}

// tagEnd is the index just past the '>' that ends the tag markup starts
// with, skipping '>' inside quoted attribute values.
func tagEnd(markup string) int {
	var quote byte
	for i := 1; i < len(markup); i++ {
		c := markup[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return i + 1
		}
	}
	return len(markup)
}

func tagName(tag string) string {
	end := strings.IndexAny(tag, " \t\n\r/>")
	if end < 0 {
		end = len(tag)
	}
	return strings.ToLower(tag[:end])
}

func TestCountNodes(t *testing.T) {
	for _, tc := range []struct {
		markup          string
		elements, texts int
	}{
		{"", 0, 0},
		{"plain", 0, 1},
		{"<p>a <b>b</b> c</p>", 2, 3},
		{"<ul>\n<li>x</li>\n</ul>", 2, 1},
		{`<a title="1 > 0" href='/x>y'>link</a>`, 1, 1},
		{"<!doctype html><!-- <p>not</p> --><br><img src=x>", 2, 0},
		{"<script>if (a < b && c > d) x = '<p>'</script><p>t</p>", 2, 2},
		{"<style>a>b{color:red}</style><TEXTAREA>x <b> y</TEXTAREA>", 2, 2},
		{"<title>A &amp; B</title><table><tr><td>1</td></tr></table>", 4, 2},
		{"<script></script><p> </p>", 2, 0},
	} {
		e, x := countNodes(tc.markup)
		if e != tc.elements || x != tc.texts {
			t.Errorf("%q: %d elements, %d text nodes; want %d, %d", tc.markup, e, x, tc.elements, tc.texts)
		}
	}
}
