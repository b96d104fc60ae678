package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/pages"
	"github.com/veetbot/veetbrowser/projection"
)

// readView is what the read test looks at in each printed view.
type readView struct {
	Next          map[string]string `json:"next"`
	Text          []string          `json:"text"`
	TextTruncated bool              `json:"text_truncated"`
	TextContinues bool              `json:"text_continues"`
}

// TestReadFollowsNextToTheEnd: read prints one view per line, each within
// the budget; every view but the last has a next and the last has none;
// and the text of all the views, a cut part joined with its continuation,
// holds every paragraph of the article exactly once, in order.
func TestReadFollowsNextToTheEnd(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ budget, paragraphs int }{{1024, 60}, {8192, 400}} {
		t.Run(strconv.Itoa(tc.budget), func(t *testing.T) {
			t.Parallel()
			article := pages.NewArticle(pages.ArticleOptions{Paragraphs: tc.paragraphs, NavLinks: 40})
			url := browsertest.Serve(t, article.HTML)
			out, code := runCLI(t, "read", url, "--budget", strconv.Itoa(tc.budget), "--store", "none")
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if code != 0 {
				t.Fatalf("exit %d after %d lines, the last: %.300s", code, len(lines), lines[len(lines)-1])
			}
			if len(lines) < 2 {
				t.Fatalf("%d lines for a long page", len(lines))
			}
			var parts []string
			cut := false
			for i, line := range lines {
				var v readView
				if len(line) > tc.budget || json.Unmarshal([]byte(line), &v) != nil {
					t.Fatalf("line %d: %d bytes, or not a view: %.200s", i, len(line), line)
				}
				if last := i == len(lines)-1; (v.Next == nil) != last || (!last && v.Next["cursor"] == "") {
					t.Fatalf("line %d of %d: next %v", i, len(lines), v.Next)
				}
				if v.TextContinues != (cut && len(v.Text) > 0) {
					t.Fatalf("line %d: text_continues %v after a cut %v", i, v.TextContinues, cut)
				}
				text := v.Text
				if v.TextContinues {
					parts[len(parts)-1] += text[0]
					text = text[1:]
				}
				parts = append(parts, text...)
				if len(v.Text) > 0 {
					cut = v.TextTruncated
				}
			}
			if err := article.CheckRead(parts); err != nil {
				t.Errorf("%d views: %v", len(lines), err)
			}
			t.Logf("%d paragraphs read in %d views of at most %d bytes", tc.paragraphs, len(lines), tc.budget)
		})
	}
}

// TestFindPrintsTheMatches: find prints one view whose matches hold the
// visible phrase, with a next to read on from it; a phrase that is only in
// values, editable, hidden or collapsed content is not found.
func TestFindPrintsTheMatches(t *testing.T) {
	t.Parallel()
	page := pages.NewPrivacy()
	url := browsertest.Serve(t, page.HTML)
	find := func(query string) []projection.Match {
		out, code := runCLI(t, "find", url, query, "--store", "none")
		var v struct {
			Matches []projection.Match `json:"matches"`
		}
		if code != 0 || strings.Count(out, "\n") != 1 || json.Unmarshal([]byte(out), &v) != nil {
			t.Fatalf("find %q: exit %d: %s", query, code, out)
		}
		return v.Matches
	}
	found := find(strings.ToLower(page.Visible))
	if len(found) != 1 || !strings.Contains(found[0].Text, page.Visible) || found[0].Next == nil || found[0].Next.Cursor == "" {
		t.Errorf("find %q: %+v", page.Visible, found)
	}
	if found := find(page.Secret); len(found) != 0 {
		t.Errorf("find %q found what no reader may see (%v): %+v", page.Secret, page.Places, found)
	}
}

// TestReadShowsNothingUnreadable: a whole read of the privacy page shows
// the visible phrase and never the one that is only in values, editable,
// hidden or collapsed content.
func TestReadShowsNothingUnreadable(t *testing.T) {
	t.Parallel()
	page := pages.NewPrivacy()
	out, code := runCLI(t, "read", browsertest.Serve(t, page.HTML), "--budget", "1024", "--store", "none")
	if code != 0 || !strings.Contains(out, page.Visible) {
		t.Fatalf("exit %d, the visible phrase not read: %s", code, out)
	}
	if strings.Contains(out, page.Secret) {
		t.Errorf("read shows what no reader may see (%v): %s", page.Places, out)
	}
}

func TestReadAndFindRefuseBadArguments(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"read"}, {"read", "http://127.0.0.1:1/", "extra"}, {"find", "http://127.0.0.1:1/"},
		{"find", "http://127.0.0.1:1/", "q", "extra"}, {"read", "--budget"}} {
		out, code := runCLI(t, args...)
		var body struct {
			Error struct{ Code, Message string }
		}
		if code == 0 || json.Unmarshal([]byte(out), &body) != nil || body.Error.Code != "invalid_argument" || !strings.Contains(body.Error.Message, "usage:") {
			t.Errorf("%v: exit %d, %s", args, code, out)
		}
	}
}
