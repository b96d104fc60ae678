package veetbrowser

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/tools"
)

// composerPage is ≈40 KB canonical: a feed before and after the composer,
// whose Publish button sits in the middle of the control list.
func composerPage() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><title>Composer</title><main>`)
	for i := range 120 {
		fmt.Fprintf(&b, `<article><p>Post %d by someone with a longer display name</p><button>Like post %d from the timeline</button><button>Share post %d with followers</button></article>`, i, i, i)
		if i == 60 {
			b.WriteString(`<form id="compose" aria-label="Compose post" onsubmit="event.preventDefault(); fetch('/publish', {method: 'POST', body: new FormData(this)})">` +
				`<textarea name="text" aria-label="Post text">owner draft</textarea><button>Publish</button></form>`)
		}
	}
	b.WriteString(`</main>`)
	return b.String()
}

type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) get() int { c.mu.Lock(); defer c.mu.Unlock(); return c.n }

// TestComposerValidation is docs/admission.md's validation: the publish control in
// the middle of a large observation is reached through real output
// admission, with every returned ref and revision intact.
func TestComposerValidation(t *testing.T) {
	t.Parallel()
	published := &counter{}
	url := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/publish" {
			published.mu.Lock()
			published.n++
			published.mu.Unlock()
			return
		}
		fmt.Fprint(w, composerPage())
	}))
	ctx := browsertest.Context(t, 5*time.Minute)
	for _, version := range []string{"1.1.0", "1.5.0"} {
		for _, budget := range []int{1024, 4096, 8192} {
			s := session(t, SessionOptions{Version: version, Budget: budget})
			res, err := s.Call(ctx, tools.Navigate, json.RawMessage(fmt.Sprintf(`{"url":%q}`, url)))
			if err != nil {
				t.Fatal(err)
			}
			if version == "1.5.0" && budget == 4096 {
				canonical, _ := json.Marshal(res.Observation)
				if n := len(canonical); n < 35000 || n > 80000 {
					t.Fatalf("canonical observation is %d bytes, want ≈40 KB", n)
				}
			}
			calls := 1
			var publish string
			for publish == "" {
				checkIntact(t, res)
				v := view(t, res)
				for _, c := range v.Controls {
					if c.Name == "Publish" {
						publish = c.Ref
					}
				}
				if publish != "" {
					break
				}
				var args []byte
				switch {
				case v.Next != nil:
					args, _ = json.Marshal(v.Next)
				case v.NextElementOffset != nil:
					args = []byte(fmt.Sprintf(`{"element_offset":%d}`, *v.NextElementOffset))
				default:
					t.Fatalf("%s at %d: no continuation and no Publish after %d calls", version, budget, calls)
				}
				if res, err = s.Call(ctx, tools.Observe, args); err != nil {
					t.Fatal(err)
				}
				calls++
			}
			t.Logf("%s at %5d bytes: Publish reached in %d observe calls", version, budget, calls)
			// The reached ref acts, with the user's approval for its facts (the form by its accessible name).
			s.Approve(policy.Facts{Origin: res.Observation.Origin, Role: "button", Name: "Publish", Form: "Compose post", Submit: true})
			before := published.get()
			if _, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: publish}); err != nil {
				t.Fatalf("%s at %d: %v", version, budget, err)
			}
			waitCount(t, published, before+1)
		}
	}
}

// checkIntact proves the view's refs and revision are the canonical ones.
func checkIntact(t *testing.T, res *Result) {
	t.Helper()
	v := view(t, res)
	if v.Revision != res.Observation.Revision {
		t.Fatalf("view revision %s, canonical %s", v.Revision, res.Observation.Revision)
	}
	names := map[string]string{}
	for _, c := range res.Observation.Controls {
		names[c.Ref] = c.Name
	}
	for _, c := range v.Controls {
		full, ok := names[c.Ref]
		if !ok || (!c.NameTruncated && full != c.Name) || !strings.HasPrefix(full, c.Name) {
			t.Fatalf("view control %q (%s) does not match the canonical %q", c.Name, c.Ref, full)
		}
	}
}

func waitCount(t *testing.T, c *counter, want int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c.get() == want {
			time.Sleep(200 * time.Millisecond)
			if c.get() != want {
				t.Fatalf("count %d, want exactly %d", c.get(), want)
			}
			return
		}
	}
	t.Fatalf("count %d, want %d", c.get(), want)
}

func TestEscapingAndUnicodeHeavyPagesFit(t *testing.T) {
	t.Parallel()
	names := []string{`quote " and \ backslash`, "tab\tand\u0001control", "emoji 😀👩‍👩‍👧🏳️‍🌈", "עברית RTL \u200fmark", "العربية", "中文标签", "हिन्दी",
		`<script>&amp;</script>`, strings.Repeat(`"\`, 200), strings.Repeat("😀", 300)}
	var b strings.Builder
	for i := range 60 {
		fmt.Fprintf(&b, "<button>%d %s</button>", i, htmlEscape(names[i%len(names)]))
	}
	url := browsertest.Serve(t, b.String())
	for _, budget := range []int{1024, 1025, 4096} {
		s := session(t, SessionOptions{Budget: budget})
		seen, calls := walk(t, s, url)
		if len(seen) != 60 {
			t.Fatalf("budget %d: %d controls reached", budget, len(seen))
		}
		t.Logf("budget %d: 60 escaping-heavy controls in %d calls", budget, calls)
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func TestPinnedVersionsKeepTheirSchemas(t *testing.T) {
	t.Parallel()
	old := session(t, SessionOptions{Version: "1.0.0"})
	fresh := session(t, SessionOptions{})
	if fresh.Version().Name != tools.Newest().Name || old.Version().Name != "1.0.0" {
		t.Fatalf("versions %s and %s", fresh.Version().Name, old.Version().Name)
	}
	for _, tool := range old.Tools() {
		if tool.Name == tools.Observe && strings.Contains(string(tool.InputSchema), "after") {
			t.Fatalf("1.0.0 observe schema: %s", tool.InputSchema)
		}
	}
	ctx := browsertest.Context(t, time.Minute)
	url := browsertest.Serve(t, browsertest.Repeat(300, "<button>b%d</button>"))
	res, err := old.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if v := view(t, res); v.ControlCoverage != nil || v.Next != nil || v.RegionCoverage != nil || v.TextCoverage != nil {
		t.Fatalf("1.0.0 view has newer fields: %s", res.View)
	}
	_, err = old.Call(ctx, tools.Observe, json.RawMessage(`{"after":"x"}`))
	wantCode(t, err, errcode.ExpansionUnsupported)
	_, err = old.Call(ctx, tools.Observe, json.RawMessage(`{"element_offset":3}`))
	wantCode(t, err, errcode.InvalidArgument)
	v11 := session(t, SessionOptions{Version: "1.1.0"})
	_, err = v11.Call(ctx, tools.Observe, json.RawMessage(`{"element_offset":-1}`))
	wantCode(t, err, errcode.InvalidArgument)
	_, err = v11.Call(ctx, tools.Observe, json.RawMessage(`{"cursor":"k"}`))
	wantCode(t, err, errcode.ExpansionUnsupported)
	if !utf8.Valid(res.View) {
		t.Fatal("invalid UTF-8")
	}
}
