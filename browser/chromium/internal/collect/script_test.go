package collect

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/chromeflags"
	"github.com/veetbot/veetbrowser/observation"
)

// maxFileLines keeps each of the collector's files about one job.
const maxFileLines = 300

func TestScriptFilesSplitByJob(t *testing.T) {
	entries, err := fs.ReadDir(sources, "js")
	if err != nil {
		t.Fatal(err)
	}
	var embedded []string
	for _, e := range entries {
		embedded = append(embedded, e.Name())
		src, _ := sources.ReadFile("js/" + e.Name())
		if n := strings.Count(string(src), "\n"); n > maxFileLines {
			t.Errorf("%s has %d lines, more than %d", e.Name(), n, maxFileLines)
		}
	}
	ordered := slices.Clone(files)
	slices.Sort(ordered)
	if !slices.Equal(embedded, ordered) {
		t.Errorf("embedded files %v, concatenated %v: each file must be concatenated exactly once", embedded, files)
	}
}

// code blanks src's comments and the contents of its string literals, so
// that what remains is the code. The collector's regular expressions hold
// no quote or comment mark, so they need no special case.
func code(src string) string {
	out, _ := scan(src)
	return out
}

// literal is a string literal of the collector's source: where its
// contents start and, unescaped as far as the collector writes escapes,
// its value.
type literal struct {
	at    int
	value string
}

// scan returns src with its comments and the contents of its string
// literals blanked, and the literals.
func scan(src string) (string, []literal) {
	out := []byte(src)
	var lits []literal
	blank := func(i int) {
		if out[i] != '\n' {
			out[i] = ' '
		}
	}
	for i := 0; i < len(src); i++ {
		switch {
		case strings.HasPrefix(src[i:], "//"):
			for ; i < len(src) && src[i] != '\n'; i++ {
				blank(i)
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/") + i + 4
			for ; i < end; i++ {
				blank(i)
			}
			i--
		case src[i] == '\'' || src[i] == '"' || src[i] == '`':
			q := src[i]
			lit := literal{at: i + 1}
			var value strings.Builder
			for i++; i < len(src) && src[i] != q; i++ {
				if src[i] == '\\' {
					blank(i)
					i++
				}
				value.WriteByte(src[i])
				blank(i)
			}
			lit.value = value.String()
			lits = append(lits, lit)
		}
	}
	return string(out), lits
}

// literalsAllowed are the decimal literals of 10 or more the collector's
// code may hold, by file: facts of the platform, not bounds.
var literalsAllowed = map[string][]string{
	"dom.js":     {"11", "36"},                // a shadow root's node type; a random id's digits in base 36
	"names.js":   {"16"},                      // a CSS escape's hexadecimal digits
	"regions.js": {"10"},                      // a heading level in decimal
	"typed.js":   {"2012", "10", "100", "60"}, // a probe date; a range's default maximum; seconds in a minute
	"clip.js":    {"16", "100"},               // a matrix3d's numbers; a percentage
}

// marksAllowed are the constants the collector's code may set to a number:
// walk marks and flags, not bounds.
var marksAllowed = []string{"SKIP", "STOP", "CLOSE", "CLOSING", "IN_REF", "WITH_HIDDEN", "TEXT_HIDDEN"}

// TestScriptHoldsNoBound: every bound reaches the script only through B.
// The script holds no bound under its old names, no constant set to a
// number but the marks above, and no decimal literal of 10 or more but the
// platform's facts above; it reads only names B has, and every name B has
// is read.
func TestScriptHoldsNoBound(t *testing.T) {
	old := regexp.MustCompile(`\b(MAX_VISIBLE|WINDOW|MAX_OFFSET|SCAN_NODES|MAX_NAME|MAX_FACT_NAME|NAME_NODES|MAX_LABEL_IDS|` +
		`GENERATED_SCAN|MAX_TITLE|MAX_URL|KEEP_REVISIONS|REGION_NODES|MAX_REGIONS|SUMMARY_NODES|SUMMARY_CHARS|` +
		`TEXT_NODES|TEXT_UNITS|TEXT_BYTES|PART_OVERHEAD|DRAFT_NODES|DRAFT_UNITS|MAX_SELECT_KEYS)\b`)
	constant := regexp.MustCompile(`\b(?:const|let|var)\s+([A-Z][A-Z0-9_]*)\s*=\s*[-+(\s]*[0-9]`)
	decimal := regexp.MustCompile(`\b[0-9][0-9_]*(\.[0-9]+)?(e[0-9]+)?\b`)
	read := regexp.MustCompile(`\bB\.([A-Za-z0-9_]+)`)
	names := map[string]bool{}
	for _, b := range bounds {
		names[b.name] = true
	}
	used := map[string]bool{}
	for _, name := range files {
		raw, err := sources.ReadFile("js/" + name)
		if err != nil {
			t.Fatal(err)
		}
		src := code(string(raw))
		line := func(at int) int { return strings.Count(src[:at], "\n") + 1 }
		for _, m := range old.FindAllStringIndex(string(raw), -1) {
			t.Errorf("%s:%d: %s, a bound's old name", name, strings.Count(string(raw[:m[0]]), "\n")+1, raw[m[0]:m[1]])
		}
		for _, m := range constant.FindAllStringSubmatchIndex(src, -1) {
			if !slices.Contains(marksAllowed, src[m[2]:m[3]]) {
				t.Errorf("%s:%d: %q sets a constant to a number: a bound belongs in B", name, line(m[0]), src[m[0]:m[1]])
			}
		}
		for _, m := range decimal.FindAllStringIndex(src, -1) {
			lit := src[m[0]:m[1]]
			if v, err := strconv.ParseFloat(strings.ReplaceAll(lit, "_", ""), 64); err == nil && v < 10 {
				continue
			}
			if !slices.Contains(literalsAllowed[name], lit) {
				t.Errorf("%s:%d: literal %s: a bound belongs in B (or, a platform fact, in literalsAllowed)", name, line(m[0]), lit)
			}
		}
		for _, m := range read.FindAllStringSubmatch(src, -1) {
			if !names[m[1]] {
				t.Errorf("%s reads B.%s, which B does not have", name, m[1])
			}
			used[m[1]] = true
		}
	}
	for _, b := range bounds {
		if !used[b.name] {
			t.Errorf("B.%s is read by no file", b.name)
		}
	}
}

// codesAllowed are the string literals of the collector's code that spell
// a code without being one, by file: names of the platform (an input's
// type, an attribute, a CSS value), not answers to Go.
var codesAllowed = map[string][]string{
	"controls.js":   {"hidden"}, // the hidden input type
	"dom.js":        {"hidden"}, // content-visibility: hidden
	"screenshot.js": {"hidden"}, // the hidden input type
	"styles.js":     {"hidden"}, // the hidden attribute
	"text.js":       {"hidden"}, // content-visibility: hidden
	"values.js":     {"hidden"}, // the hidden input type
	"visibility.js": {"hidden"}, // the hidden attribute; overflow: hidden
}

// TestScriptHoldsNoCode: every refusal and draft verdict reaches the
// script only through R. Each error the script answers with is R's or
// passed on from a call that answered it (x.error); no string literal of
// its code spells a code but the platform's names above; it reads only
// names R has, and every name R has is read.
func TestScriptHoldsNoCode(t *testing.T) {
	values := map[string]bool{}
	names := map[string]bool{}
	for _, c := range codes {
		values[fmt.Sprint(c.value)] = true
		names[c.name] = true
	}
	errorKey := regexp.MustCompile(`\berror\s*:`)
	errorValue := regexp.MustCompile(`^\s*(R\.[A-Za-z]+|[A-Za-z_$][\w$]*\.error)\b`)
	read := regexp.MustCompile(`\bR\.([A-Za-z0-9_]+)`)
	used := map[string]bool{}
	for _, name := range files {
		raw, err := sources.ReadFile("js/" + name)
		if err != nil {
			t.Fatal(err)
		}
		src, lits := scan(string(raw))
		line := func(at int) int { return strings.Count(src[:at], "\n") + 1 }
		for _, m := range errorKey.FindAllStringIndex(src, -1) {
			if !errorValue.MatchString(src[m[1]:]) {
				t.Errorf("%s:%d: an error that is neither R's nor passed on: %.40q", name, line(m[0]), raw[m[0]:])
			}
		}
		for _, lit := range lits {
			if values[lit.value] && !slices.Contains(codesAllowed[name], lit.value) {
				t.Errorf("%s:%d: literal %q: a code belongs in R (or, a platform name, in codesAllowed)", name, line(lit.at), lit.value)
			}
		}
		for _, m := range read.FindAllStringSubmatch(src, -1) {
			if !names[m[1]] {
				t.Errorf("%s reads R.%s, which R does not have", name, m[1])
			}
			used[m[1]] = true
		}
	}
	for _, c := range codes {
		if !used[c.name] {
			t.Errorf("R.%s is read by no file", c.name)
		}
	}
}

// TestCodesAreTheDecodersCodes: R holds exactly the refusals some call's
// decoder accepts and the verdicts of the draft check.
func TestCodesAreTheDecodersCodes(t *testing.T) {
	accepted := map[string]bool{}
	for _, list := range [][]Refusal{observeRefusals, inspectRefusals, prepareRefusals, armRefusals, selectRefusals,
		ownerRefusals, shotRefusals, findRefusals, choicesRefusals, pointRefusals, textSpanRefusals, typedRefusals} {
		for _, r := range list {
			accepted["refusal "+string(r)] = true
		}
	}
	for _, v := range draftVerdicts {
		if v != DraftNone {
			accepted["verdict "+string(v)] = true
		}
	}
	for _, v := range typedVerdicts {
		accepted["typed "+string(v)] = true
	}
	inR := map[string]bool{}
	for _, c := range codes {
		switch v := c.value.(type) {
		case Refusal:
			inR["refusal "+string(v)] = true
		case DraftVerdict:
			inR["verdict "+string(v)] = true
		case TypedVerdict:
			inR["typed "+string(v)] = true
		default:
			t.Errorf("R.%s is a %T, neither a refusal nor a draft verdict", c.name, c.value)
		}
	}
	for code := range accepted {
		if !inR[code] {
			t.Errorf("the %s is accepted by a decoder but not in R", code)
		}
	}
	for code := range inR {
		if !accepted[code] {
			t.Errorf("the %s is in R but no decoder accepts it", code)
		}
	}
}

// TestTopLevelFunctionsAreUnique: the files share one closure, where a
// second declaration of a function would silently replace the first for
// every caller. A top-level function is declared at the start of a line.
func TestTopLevelFunctionsAreUnique(t *testing.T) {
	declaration := regexp.MustCompile(`(?m)^(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)`)
	first := map[string]string{}
	for _, name := range files {
		raw, err := sources.ReadFile("js/" + name)
		if err != nil {
			t.Fatal(err)
		}
		src := code(string(raw))
		for _, m := range declaration.FindAllStringSubmatchIndex(src, -1) {
			fn, at := src[m[2]:m[3]], fmt.Sprintf("%s:%d", name, strings.Count(src[:m[0]], "\n")+1)
			if prev, ok := first[fn]; ok {
				t.Errorf("%s declares function %s, already declared at %s", at, fn, prev)
				continue
			}
			first[fn] = at
		}
	}
	if len(first) < len(files) {
		t.Fatalf("found %d top-level functions in %d files: the declaration pattern no longer matches the files", len(first), len(files))
	}
}

// TestBoundsNameTheirConstants: each entry of bounds and of codes is named
// as the Go constant its value comes from, so B.X and R.X in the script
// are X in Go.
func TestBoundsNameTheirConstants(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "collect.go", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	entries := map[string]int{}
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok || spec.Names[0].Name != "bounds" && spec.Names[0].Name != "codes" {
			return true
		}
		table := spec.Names[0].Name
		for _, e := range spec.Values[0].(*ast.CompositeLit).Elts {
			pair := e.(*ast.CompositeLit).Elts
			name, _ := strconv.Unquote(pair[0].(*ast.BasicLit).Value)
			if constantName(pair[1]) != name {
				t.Errorf("%s: %q takes its value from %s", table, name, exprString(pair[1]))
			}
			entries[table]++
		}
		return false
	})
	if entries["bounds"] != len(bounds) {
		t.Fatalf("found %d entries of bounds in collect.go, want %d", entries["bounds"], len(bounds))
	}
	if entries["codes"] != len(codes) {
		t.Fatalf("found %d entries of codes in collect.go, want %d", entries["codes"], len(codes))
	}
}

// constantName is the name of the constant e refers to: pkg.Name or, in
// this package, Name.
func constantName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return ""
}

func exprString(e ast.Expr) string {
	if sel, ok := e.(*ast.SelectorExpr); ok {
		return fmt.Sprintf("%s.%s", sel.X, sel.Sel.Name)
	}
	return fmt.Sprintf("%T", e)
}

// A page browser is one headless Chromium shared by the tests of this
// package, for pages served on loopback.
type pageBrowser struct {
	ctx    context.Context // the browser's
	cancel func()
	dir    string // its profile and HOME
}

func (b *pageBrowser) Close(context.Context) error {
	b.cancel()
	return os.RemoveAll(b.dir)
}

var shared = browsertest.Shared[*pageBrowser]{Launch: func() (*pageBrowser, error) {
	exe, err := browser.FindChromium("")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "collect-")
	if err != nil {
		return nil, err
	}
	opts := append(chromeflags.Private(),
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.Env("HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_CACHE_HOME="+dir),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	b := &pageBrowser{ctx: ctx, dir: dir, cancel: func() {
		chromedp.Cancel(ctx)
		cancel()
		allocCancel()
	}}
	if err := chromedp.Do(ctx); err != nil {
		b.Close(ctx)
		return nil, err
	}
	return b, nil
}}

func TestMain(m *testing.M) { browsertest.Main(m, &shared) }

// openPage opens a tab on a loopback page and evaluates setup in it.
func openPage(t *testing.T, setup string) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(shared.Get(t).ctx)
	t.Cleanup(cancel)
	ctx, stop := context.WithTimeout(ctx, time.Minute)
	t.Cleanup(stop)
	url := browsertest.Serve(t, "<!doctype html><title>collect</title><p>A page.</p><button>OK</button>")
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.Evaluate[chromedp.Void](setup)); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// testTail exposes, after the collector's files, what the tests compare
// with Go.
const testTail = "globalThis.__collectTest = {B, R, cut, partCost, cutCost, saysCredential};\n"

func evaluate(t *testing.T, ctx context.Context, expr string, v any) {
	t.Helper()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
}

// TestPreludeInPage evaluates the collector in a real page: B holds the Go
// values, and the script the tab installs observes within Decode's bounds.
func TestPreludeInPage(t *testing.T) {
	t.Parallel()
	ctx := openPage(t, assemble(testTail))
	var got map[string]any
	evaluate(t, ctx, "globalThis.__collectTest.B", &got)
	if len(got) != len(bounds) {
		t.Errorf("B has %d entries, want %d", len(got), len(bounds))
	}
	for _, b := range bounds {
		want := b.value
		if n, ok := want.(int); ok {
			want = float64(n)
		}
		if words, ok := want.([]string); ok {
			// The credential words: a list, compared as JSON.
			w, _ := json.Marshal(words)
			g, _ := json.Marshal(got[b.name])
			if string(w) != string(g) {
				t.Errorf("B.%s = %s, want %s", b.name, g, w)
			}
			continue
		}
		if got[b.name] != want {
			t.Errorf("B.%s = %v, want %v", b.name, got[b.name], want)
		}
	}
	var frozen bool
	evaluate(t, ctx, "Object.isFrozen(globalThis.__collectTest.B)", &frozen)
	if !frozen {
		t.Error("B can be changed")
	}
	var gotCodes map[string]string
	evaluate(t, ctx, "globalThis.__collectTest.R", &gotCodes)
	if len(gotCodes) != len(codes) {
		t.Errorf("R has %d entries, want %d", len(gotCodes), len(codes))
	}
	for _, c := range codes {
		if want := fmt.Sprint(c.value); gotCodes[c.name] != want {
			t.Errorf("R.%s = %q, want %q", c.name, gotCodes[c.name], want)
		}
	}
	evaluate(t, ctx, "Object.isFrozen(globalThis.__collectTest.R)", &frozen)
	if !frozen {
		t.Error("R can be changed")
	}

	ctx = openPage(t, Script)
	var raw json.RawMessage
	evaluate(t, ctx, Expression(Params{Revision: "r1", MaxVisible: observation.MaxControls,
		Window: observation.WindowSize, MaxOffset: observation.MaxOffset}), &raw)
	res, err := Decode(raw)
	if err != nil || res.Error != "" || res.Title != "collect" || len(res.Controls) != 1 || res.Controls[0].Name != "OK" {
		t.Fatalf("observe: %+v %v", res, err)
	}
}

// unitCases are strings, as JavaScript source, on which the page's unit
// and byte measures must agree with Go's: each reaches Go as the page
// sends it (a lone surrogate as U+FFFD).
var unitCases = []string{
	`""`,
	`"plain ASCII text"`,
	// Every printable ASCII character JSON does not escape, which the
	// page costs without a walk, and plain text with one that it must walk.
	`" !#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_\u0060abcdefghijklmnopqrstuvwxyz{|}~"`,
	`"plain ASCII text, then é"`,
	`"plain ASCII text, then \u007f"`,
	`"quote \" backslash \\ slash / done"`,
	`"tab\tnewline\ncr\rformfeed\fbackspace\b"`,
	`"\u0000\u0001\u001f\u007f controls"`,
	`"é ñ ü ß"`,
	`"€ 中文 ｶﾀｶﾅ"`,
	`"a😀b😀c😀"`,
	`"😀😀😀😀"`,
	`"👩‍👩‍👧‍👦 family 👨🏽‍💻"`,
	`"🇫🇷🇩🇪 flags"`,
	`"e\u0301 combining"`,
	`"a\ud800b"`,
	`"ab\ud800"`,
	`"\udc00x"`,
	`"\udc00\ud800"`,
	`"\ud800\ud800"`,
	`"x\ud800\ud800\udc00y"`,
	`"שלום עולם مرحبا بالعالم"`,
	`"\u200f\u202eRTL marks\u202c\u200e"`,
	`"\u2028\u2029 separators \ufeff\ufffd\uffff"`,
}

type cutResult struct {
	Text string `json:"text"`
	Cut  bool   `json:"cut"`
}

// TestUnitMeasuresMatchGo runs the page's cut, partCost and cutCost on
// the table above, cutting at every length, and compares them with
// observation.UTF16Len, CutUTF16 and TextPartCost.
func TestUnitMeasuresMatchGo(t *testing.T) {
	t.Parallel()
	ctx := openPage(t, assemble(testTail))
	var results []struct {
		S        string      `json:"s"`
		Length   int         `json:"length"`
		Cost     int         `json:"cost"`
		Cuts     []cutResult `json:"cuts"`
		CostCuts []string    `json:"cost_cuts"`
	}
	evaluate(t, ctx, `(() => {
  const t = globalThis.__collectTest;
  return [`+strings.Join(unitCases, ", ")+`].map((s) => ({
    s, length: s.length, cost: t.partCost(s),
    cuts: Array.from({length: s.length + 2}, (_, max) => { const [text, cut] = t.cut(s, max); return {text, cut}; }),
    cost_cuts: Array.from({length: t.partCost(s) + 2}, (_, max) => t.cutCost(s, max)),
  }));
})()`, &results)
	if len(results) != len(unitCases) {
		t.Fatalf("%d results for %d cases", len(results), len(unitCases))
	}
	for i, r := range results {
		c := unitCases[i]
		if n := observation.UTF16Len(r.S); n != r.Length {
			t.Errorf("%s: length %d in the page, UTF16Len %d", c, r.Length, n)
		}
		if n := observation.TextPartCost(r.S); n != r.Cost {
			t.Errorf("%s: partCost %d, TextPartCost %d", c, r.Cost, n)
		}
		for max, got := range r.Cuts {
			text, cut := observation.CutUTF16(r.S, max)
			if got.Text != text || got.Cut != cut {
				t.Errorf("%s: cut at %d units: page %q %v, Go %q %v", c, max, got.Text, got.Cut, text, cut)
			}
		}
		for max, kept := range r.CostCuts {
			if err := keptWithin(r.S, kept, max); err != nil {
				t.Errorf("%s: cutCost at %d bytes: %v", c, max, err)
			}
		}
	}
}

// keptWithin checks kept against TextPartCost: the longest prefix of s, at
// a rune boundary, whose part costs at most max ("" when none does).
func keptWithin(s, kept string, max int) error {
	if !strings.HasPrefix(s, kept) {
		return fmt.Errorf("kept %q is not a prefix", kept)
	}
	if kept != "" && observation.TextPartCost(kept) > max {
		return fmt.Errorf("kept %q costs %d", kept, observation.TextPartCost(kept))
	}
	if kept == s {
		return nil
	}
	rest := []rune(s[len(kept):])
	if longer := kept + string(rest[0]); observation.TextPartCost(longer) <= max {
		return fmt.Errorf("kept %q, yet %q costs only %d", kept, longer, observation.TextPartCost(longer))
	}
	return nil
}
