package veetbrowser

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/pages"
)

// BenchmarkReadArticle reads the generated long article (3,000
// paragraphs, 800 links) by following next, at 1, 4 and 8 KiB, and
// reports per reading: views, the bytes of all views, their ratio to the
// bytes of the text read (bytes/text-byte) and to those of the text and
// the control names read (bytes/word-byte: the page's words, menus
// included), and the time per view.
func BenchmarkReadArticle(b *testing.B) {
	a := pages.NewArticle(pages.ArticleOptions{Paragraphs: 3000, NavLinks: 800})
	url := browsertest.Serve(b, a.HTML)
	for _, budget := range []int{1024, 4096, 8192} {
		b.Run(fmt.Sprint(budget), func(b *testing.B) {
			s := session(b, SessionOptions{Budget: budget})
			ctx := browsertest.Context(b, 30*time.Minute)
			var views, bytes, text, names int
			var spent time.Duration
			for b.Loop() {
				views, bytes, text, names = 0, 0, 0, 0
				start := time.Now()
				res, err := s.Navigate(ctx, url)
				for ; err == nil; views++ {
					bytes += len(res.View)
					var v struct {
						Controls []struct{ Name string }
						Text     []string
						Next     json.RawMessage
					}
					json.Unmarshal(res.View, &v)
					for _, p := range v.Text {
						text += len(p)
					}
					for _, c := range v.Controls {
						names += len(c.Name)
					}
					if v.Next == nil {
						break
					}
					res, err = s.Call(ctx, "browser_observe", v.Next)
				}
				if err != nil {
					b.Fatal(err)
				}
				spent += time.Since(start)
			}
			b.ReportMetric(float64(views), "views")
			b.ReportMetric(float64(bytes), "view-bytes")
			b.ReportMetric(float64(bytes)/float64(text), "bytes/text-byte")
			b.ReportMetric(float64(bytes)/float64(text+names), "bytes/word-byte")
			b.ReportMetric(float64(spent.Milliseconds())/float64(views*b.N), "ms/view")
		})
	}
}

// BenchmarkReadMainFirst reads main content first (browser_navigate with
// focus "main", tool version 1.9.0) by following next, at 1, 4 and 8 KiB:
// the generated long article (3,000 paragraphs, 800 links) and a news page
// (menu, sidebar, a 24-paragraph article, comments, footer). It reports
// the bytes of the views until the one that ends the article's last
// paragraph per byte of the article's paragraphs (until-last/article-byte),
// the views that took, and the whole chain's bytes per byte of text read.
func BenchmarkReadMainFirst(b *testing.B) {
	long := pages.NewArticle(pages.ArticleOptions{Paragraphs: 3000, NavLinks: 800})
	news := pages.NewNews(pages.NewsMain, 24)
	for _, pg := range []struct {
		name       string
		html       string
		paragraphs []string
	}{{"article-3000", long.HTML, long.Paragraphs}, {"news-24", news.HTML, news.Paragraphs}} {
		url := browsertest.Serve(b, pg.html)
		want := 0
		for _, p := range pg.paragraphs {
			want += len(p)
		}
		last := pg.paragraphs[len(pg.paragraphs)-1]
		for _, budget := range []int{1024, 4096, 8192} {
			b.Run(fmt.Sprintf("%s/%d", pg.name, budget), func(b *testing.B) {
				s := session(b, SessionOptions{Budget: budget})
				ctx := browsertest.Context(b, 30*time.Minute)
				var views, bytes, text, until, untilViews int
				for b.Loop() {
					views, bytes, text, until, untilViews = 0, 0, 0, 0, 0
					res, err := s.Call(ctx, "browser_navigate", json.RawMessage(`{"url":"`+url+`","focus":"main"}`))
					joined := ""
					for ; err == nil; views++ {
						bytes += len(res.View)
						var v struct {
							Text          []string
							TextContinues bool `json:"text_continues"`
							TextTruncated bool `json:"text_truncated"`
							Next          json.RawMessage
						}
						json.Unmarshal(res.View, &v)
						for k, p := range v.Text {
							text += len(p)
							if k == 0 && v.TextContinues {
								joined += p
							} else {
								joined = p
							}
							if until == 0 && joined == last && (k < len(v.Text)-1 || !v.TextTruncated) {
								until, untilViews = bytes, views+1
							}
						}
						if v.Next == nil {
							break
						}
						res, err = s.Call(ctx, "browser_observe", v.Next)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(until)/float64(want), "until-last/article-byte")
				b.ReportMetric(float64(untilViews), "views-until-last")
				b.ReportMetric(float64(views), "views")
				b.ReportMetric(float64(bytes)/float64(text), "bytes/text-byte")
			})
		}
	}
}

// BenchmarkFind reports the latency of one find: "Publish" among 12,000
// buttons, and a phrase of paragraph 2,900 of the long article.
func BenchmarkFind(b *testing.B) {
	article := pages.NewArticle(pages.ArticleOptions{Paragraphs: 3000, NavLinks: 800, Plant: "the lighthouse keeper's ledger", PlantAt: 2900})
	for _, tc := range []struct{ name, html, query string }{
		{"controls-12000", browsertest.Repeat(11999, `<button>Item %d</button>`) + `<button>Publish</button>`, "publish"},
		{"article-3000", article.HTML, "lighthouse keeper's ledger"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := session(b, SessionOptions{})
			ctx := browsertest.Context(b, 10*time.Minute)
			if _, err := s.Navigate(ctx, browsertest.Serve(b, tc.html)); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				res, err := s.Find(ctx, FindOptions{Query: tc.query})
				if err != nil {
					b.Fatal(err)
				}
				if res.Observation.Find == nil || len(res.Observation.Controls)+len(res.Observation.Find.Matches) == 0 {
					b.Fatalf("%q not found", tc.query)
				}
			}
		})
	}
}
