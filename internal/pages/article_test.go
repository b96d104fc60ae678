package pages

import (
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The article holds what its options ask for, in document order, and says
// so: the reading tests rely on Paragraphs and Links being exact.
func TestArticleHoldsWhatItSays(t *testing.T) {
	a := NewArticle(ArticleOptions{Paragraphs: 3000, NavLinks: 800, Plant: "The code word is heron.", PlantAt: 2100})
	if len(a.Paragraphs) != 3000 {
		t.Fatalf("%d paragraphs", len(a.Paragraphs))
	}
	nav := 0
	for _, l := range a.Links {
		if strings.Contains(l, " topic ") {
			nav++
		}
	}
	if nav != 800 || len(a.Links) <= 800 {
		t.Fatalf("%d navigation links of %d", nav, len(a.Links))
	}
	for i, p := range a.Paragraphs {
		if strings.Contains(p, "heron") != (i == 2100) {
			t.Fatalf("paragraph %d: %q", i, p)
		}
	}
	last := -1
	for _, p := range a.Paragraphs {
		i := strings.Index(a.HTML, p[:strings.Index(p, ".")+1])
		if i <= last {
			t.Fatalf("paragraph %q out of order", p[:12])
		}
		last = i
	}
	for _, script := range []string{"ا", "川", "न", "👨‍👩‍👧"} {
		if !strings.Contains(a.HTML, script) {
			t.Fatalf("no %q in the article", script)
		}
	}
}

// The article is large and varied the way real encyclopedia pages are, and
// what it reports is what its markup holds: every paragraph's readable
// text and every link's name, in document order.
func TestArticleIsLargeAndReportsItsContent(t *testing.T) {
	a := NewArticle(ArticleOptions{Paragraphs: 3000, NavLinks: 800})
	elements, texts := countNodes(a.HTML)
	t.Logf("%d elements, %d text nodes, %d bytes", elements, texts, len(a.HTML))
	if elements+texts < 40000 {
		t.Errorf("%d DOM nodes, want at least 40,000", elements+texts)
	}
	for _, part := range []string{`<table class="infobox">`, `<ol class="footnotes">`, `<div class="side"><nav aria-label="Contents">`,
		`<footer><nav aria-label="Footer">`, `<aside aria-label="Related">`, `<sup class="reference"`, ` dir="auto"`} {
		if !strings.Contains(a.HTML, part) {
			t.Errorf("the article has no %s", part)
		}
	}
	if refs, notes := strings.Count(a.HTML, `<sup class="reference"`), strings.Count(a.HTML, `<li id="fn-`); refs != notes || refs < 100 {
		t.Errorf("%d footnote references, %d notes", refs, notes)
	}
	body := a.HTML[strings.Index(a.HTML, "<article>"):strings.Index(a.HTML, "</article>")]
	if got := paragraphsOf(body); !slices.Equal(got, a.Paragraphs) {
		t.Errorf("the markup's paragraphs differ from Paragraphs: %d vs %d", len(got), len(a.Paragraphs))
	}
	if got := linksOf(a.HTML); !slices.Equal(got, a.Links) {
		t.Errorf("the markup's links differ from Links: %d vs %d", len(got), len(a.Links))
	}
	all := strings.Join(a.Paragraphs, "\n")
	for _, script := range []string{"ا", "ה", "川", "न", "ü", "e\u0301", "👨‍👩‍👧", "👍🏽", "🇯🇵"} {
		if !strings.Contains(all, script) {
			t.Errorf("no %q in the paragraphs", script)
		}
	}
	if !strings.HasPrefix(a.HTML, "<!doctype html>") || !strings.Contains(a.HTML, "<body>"+a.Body+"</body>") {
		t.Error("HTML is not the document around Body")
	}
	if b := NewArticle(ArticleOptions{Paragraphs: 3000, NavLinks: 800}); b.HTML != a.HTML {
		t.Error("the article is not deterministic")
	}
}

// AfterArticle goes into main after the article, and its links are not
// reported.
func TestArticleAfterArticle(t *testing.T) {
	form := `<form aria-label="Check"><a href="/help">Help</a></form>`
	a := NewArticle(ArticleOptions{Paragraphs: 10, NavLinks: 8, AfterArticle: form})
	if !strings.Contains(a.HTML, "</article>\n"+form+"<aside") || slices.Contains(a.Links, "Help") {
		t.Errorf("AfterArticle misplaced or counted: %v", a.Links)
	}
}

func TestPlainCrossesEveryBound(t *testing.T) {
	p := Plain(30000)
	_, texts := countNodes(p.Body)
	size := 0
	for _, para := range p.Paragraphs {
		size += len(para)
	}
	t.Logf("%d text nodes, %d bytes of text", texts, size)
	if texts < 30000 || len(p.Paragraphs) != 30000 || size < 2<<20 {
		t.Errorf("%d text nodes, %d paragraphs, %d bytes of text", texts, len(p.Paragraphs), size)
	}
	if got := paragraphsOf(p.Body); !slices.Equal(got, p.Paragraphs) {
		t.Errorf("the markup's paragraphs differ from Paragraphs: %d vs %d", len(got), len(p.Paragraphs))
	}
	if len(p.Links) != 0 {
		t.Errorf("%d links", len(p.Links))
	}
}

func TestControlsPlacesTheNamedOne(t *testing.T) {
	page := Controls(12000, "Publish", 11500)
	names := regexp.MustCompile(`<button type="button" data-e="click:(\d+)">([^<]*)</button>`).FindAllStringSubmatch(page, -1)
	if len(names) != 12000 {
		t.Fatalf("%d buttons", len(names))
	}
	for i, m := range names {
		want := fmt.Sprintf("Item %d", i)
		if i == 11500 {
			want = "Publish"
		}
		if m[1] != fmt.Sprint(i) || m[2] != want {
			t.Fatalf("button %d: %q", i, m[0])
		}
	}
}

// The secret phrase is everywhere Places says and nowhere else; the
// visible phrase is there once.
func TestPrivacyPlacesTheSecretOnlyWhereNoReaderLooks(t *testing.T) {
	p := NewPrivacy()
	if n := strings.Count(p.HTML, p.Secret); n != len(p.Places) || n < 7 {
		t.Errorf("the secret is in %d places, Places lists %d", n, len(p.Places))
	}
	if n := strings.Count(p.HTML, p.Visible); n != 1 {
		t.Errorf("the visible phrase is there %d times", n)
	}
	for _, want := range []string{"input value", "password field", "textarea", "contenteditable", "collapsed details", "aria-hidden subtree", "display:none"} {
		if !slices.Contains(p.Places, want) {
			t.Errorf("no secret in a %s", want)
		}
	}
	if strings.Contains(p.HTML[:strings.Index(p.HTML, "<body>")], p.Secret) {
		t.Error("the secret is in the head")
	}
}

var (
	paragraphRE = regexp.MustCompile(`(?s)<p(?: [^>]*)?>(.*?)</p>`)
	linkRE      = regexp.MustCompile(`(?s)<a [^>]*>(.*?)</a>`)
	tagRE       = regexp.MustCompile(`<[^>]*>`)
)

// paragraphsOf is the text of every p element in markup, tags removed.
func paragraphsOf(markup string) []string {
	var out []string
	for _, m := range paragraphRE.FindAllStringSubmatch(markup, -1) {
		out = append(out, html.UnescapeString(tagRE.ReplaceAllString(m[1], "")))
	}
	return out
}

func linksOf(markup string) []string {
	var out []string
	for _, m := range linkRE.FindAllStringSubmatch(markup, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

func TestCheckRead(t *testing.T) {
	a := NewArticle(ArticleOptions{Paragraphs: 40, NavLinks: 8})
	whole := append([]string{"River valley", "Section 1"}, a.Paragraphs...)
	if err := a.CheckRead(whole); err != nil {
		t.Errorf("a whole read: %v", err)
	}
	p := a.Paragraphs
	for name, parts := range map[string][]string{
		"one missing":  slices.Concat(p[:5], p[6:]),
		"one twice":    slices.Concat(p[:6], p[5:]),
		"two swapped":  slices.Concat(p[:5], []string{p[6], p[5]}, p[7:]),
		"one cut":      slices.Concat(p[:5], []string{p[5][:10], p[5][10:]}, p[6:]),
		"two merged":   slices.Concat(p[:5], []string{p[5] + " " + p[6]}, p[7:]),
		"the last cut": slices.Concat(p[:39], []string{p[39][:20]}),
	} {
		if err := a.CheckRead(parts); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
