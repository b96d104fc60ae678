package chromium

import (
	"context"
	"testing"

	"github.com/veetbot/veetbrowser/internal/pages"
	"github.com/veetbot/veetbrowser/observation"
)

// BenchmarkMarkListeners times the listener marking alone (what every
// observation of a 1.9.0 session pays before its scan) on pages of each
// size, the page unchanged between calls, its marks kept (1.10.0).
func BenchmarkMarkListeners(b *testing.B) {
	pagesBySize := map[string]string{
		"buttons-1000":   buttons(1000, ""),
		"buttons-5000":   buttons(5000, ""),
		"buttons-12000":  buttons(12000, ""),
		"buttons-50000":  buttons(50000, ""),
		"buttons-300000": buttons(300000, ""),
		"spans-4000":     spansPage(4000),
		"article":        pages.NewArticle(pages.ArticleOptions{Paragraphs: 3000, NavLinks: 800}).HTML,
	}
	for _, name := range []string{"buttons-1000", "buttons-5000", "buttons-12000", "buttons-50000", "buttons-300000", "spans-4000", "article"} {
		b.Run(name, func(b *testing.B) {
			s, _ := openRealPages(b, pagesBySize[name], true)
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				if _, err := s.tab.MarkListeners(ctx, observation.WindowSize, true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
