package chromium

import (
	"context"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/observation"
)

var spaces = strings.NewReplacer("\n", " ", "\t", " ")

func normalize(s string) string { return strings.Join(strings.Fields(spaces.Replace(s)), " ") }

// TestTextAgainstInnerText compares the collector with Chromium's own
// innerText (read here, in the test, never by the product) on pages of
// varied structure. Where they differ, the difference must be an intended
// one: the marker text is in innerText and not in ours.
func TestTextAgainstInnerText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, html string
		intended   string // why ours differs; "" when the two must agree
	}{
		{"paragraphs", `<p>One two.</p><p>Three four.</p>`, ""},
		{"headings and lists", `<h1>Title</h1><ul><li>a</li><li>b</li></ul><ol><li>c</li></ol>`, ""},
		{"nested blocks", `<div><div><div>deep</div>mid</div>top</div>`, ""},
		{"inline formatting", `<p>Some <b>bold</b>, <i>italic</i> and <a href="#">a link</a>.</p>`, ""},
		{"adjacent inline", `<p><b>foo</b><i>bar</i>baz</p>`, ""},
		{"table", `<table><tr><th>h1</th><th>h2</th></tr><tr><td>c1</td><td>c2</td></tr></table>`, ""},
		{"line breaks", `<p>a<br>b<br><br>c</p>`, ""},
		{"preformatted", `<pre>x   y
  z</pre>`, ""},
		{"unicode", `<p>مرحبا</p><p>你好</p><p>नमस्ते</p><p>😀 👩‍👩‍👧</p>`, ""},
		{"article", strings.Repeat(`<section><h2>Part</h2><p>Lorem ipsum dolor sit amet.</p></section>`, 20), ""},
		{"navigation", `<nav><a href="/a">A</a> | <a href="/b">B</a></nav>`, ""},
		{"definition list", `<dl><dt>term</dt><dd>definition</dd></dl>`, ""},
		{"quote and figure", `<blockquote>quoted</blockquote><figure><img alt="x"><figcaption>caption</figcaption></figure>`, ""},
		{"display none", `<p>shown</p><p style="display:none">gone</p>`, ""},
		{"visibility hidden", `<p>shown</p><p style="visibility:hidden">gone</p>`, ""},
		{"buttons", `<p>Click <button>Go</button> now</p>`, ""},
		{"aria-hidden", `<p>shown</p><p aria-hidden="true">MARK</p>`, "aria-hidden subtrees are excluded"},
		{"transparent", `<p>shown</p><p style="opacity:0">MARK</p>`, "fully transparent text is invisible"},
		{"select options", `<p>shown</p><select><option>MARK</option></select>`, "selects supply no values"},
		{"editable", `<p>shown</p><div contenteditable>MARK</div>`, "editable content is excluded"},
		{"textbox role", `<p>shown</p><div role="textbox">MARK</div>`, "custom textboxes supply no values"},
		{"hidden overridden", `<p>shown</p><div hidden style="display:block">MARK</div>`, "a hidden subtree stays hidden whatever its CSS"},
		{"shadow root", `<p>shown</p><div id="h"></div><script>document.getElementById('h').attachShadow({mode:'open'}).innerHTML='<p>MARK</p>'</script>`, "open shadow roots are read (innerText of the body may skip them)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, obs := openPage(t, tc.html)
			ours := normalize(joined(obs))
			theirs := normalize(evalMain(t, s, "document.body.innerText"))
			if tc.intended == "" {
				if ours != theirs {
					t.Fatalf("differs from innerText:\n ours   %q\n theirs %q", ours, theirs)
				}
				return
			}
			if strings.Contains(ours, "MARK") == strings.Contains(theirs, "MARK") {
				t.Logf("agrees with innerText here: %q", ours)
				return
			}
			if strings.Contains(ours, "MARK") != strings.HasPrefix(tc.intended, "open shadow") {
				t.Fatalf("unintended difference: ours %q, theirs %q", ours, theirs)
			}
			t.Logf("differs as intended (%s): ours %q, theirs %q", tc.intended, ours, theirs)
		})
	}
}

// BenchmarkTextOneMegabyte observes pages holding 1 MB of text: many
// paragraphs (the node bound stops the walk) and one block (the unit bound).
func BenchmarkTextOneMegabyte(b *testing.B) {
	para := strings.Repeat("word ", 19) + "end. " // 100 bytes
	pages := map[string]string{
		"paragraphs": strings.Repeat("<p>"+para+"</p>", 10000),
		"one-block":  "<pre>" + strings.Repeat(para, 10000) + "</pre>",
	}
	for _, name := range []string{"paragraphs", "one-block"} {
		b.Run(name, func(b *testing.B) {
			s, obs := openPage(b, pages[name])
			b.ReportMetric(float64(obs.TextCoverage.InspectedUnits), "units")
			ctx := context.Background()
			for b.Loop() {
				if _, err := s.Observe(ctx, observation.Request{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
