package pages

import (
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
