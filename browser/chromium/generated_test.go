package chromium

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// generatedPage has a button whose name a ::before rule can extend, a
// sheet that gives no element generated content, and a script that adds
// one rule the way the event names: the page's own world changes its
// sheets as sites do.
const generatedPage = `<!doctype html><title>Generated</title>
<style id="plain">.go { color: navy; } @media print { .go { color: black; } }</style>
<button class="go">Send</button>
<script>
const rule = '.go::before { content: "Go "; }';
const ways = {
  style: () => { const s = document.createElement('style'); s.textContent = rule; document.head.append(s); },
  insert: () => document.getElementById('plain').sheet.insertRule(rule),
  media: () => document.getElementById('plain').sheet.insertRule('@media screen { ' + rule + ' }'),
  supports: () => document.getElementById('plain').sheet.insertRule('@supports (display: block) { @layer a { ' + rule + ' } }'),
  nested: () => document.getElementById('plain').sheet.insertRule('.go { &::before { content: "Go "; } }'),
  legacy: () => document.getElementById('plain').sheet.insertRule('.go:before { content: "Go "; }'),
  adopted: () => { const s = new CSSStyleSheet(); s.replaceSync(rule); document.adoptedStyleSheets = [s]; },
  text: () => { document.getElementById('plain').textContent += rule; },
};
document.addEventListener('add-rule', (e) => ways[e.detail]());
</script>`

// buttonName observes s and returns the name of its one button.
func buttonName(t *testing.T, ctx context.Context, s *Session) string {
	t.Helper()
	obs, err := s.Observe(ctx, observation.Request{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range obs.Controls {
		if c.Role == "button" {
			return c.Name
		}
	}
	t.Fatalf("no button among %+v", obs.Controls)
	return ""
}

// TestGeneratedContentFollowsTheSheets: a name reads ::before content as
// soon as a rule for it exists, however the page adds the rule after an
// observation found none (a new sheet, a rule inserted into a sheet that
// had none, inside @media, @supports and @layer, nested, the legacy
// :before, an adopted sheet, a sheet's text rewritten): whether any rule
// exists is asked anew by each observation, never kept from one before.
func TestGeneratedContentFollowsTheSheets(t *testing.T) {
	t.Parallel()
	for _, way := range []string{"style", "insert", "media", "supports", "nested", "legacy", "adopted", "text"} {
		t.Run(way, func(t *testing.T) {
			t.Parallel()
			ctx := browsertest.Context(t, time.Minute)
			s, _ := openReal(t, browsertest.Serve(t, generatedPage), true)
			if got := buttonName(t, ctx, s); got != "Send" {
				t.Fatalf("before the rule: %q, want Send", got)
			}
			if _, err := s.tab.Evaluate(ctx, fmt.Sprintf(`document.dispatchEvent(new CustomEvent('add-rule', {detail: %q})), true`, way)); err != nil {
				t.Fatal(err)
			}
			if got := buttonName(t, ctx, s); got != "Go Send" {
				t.Fatalf("after the rule: %q, want Go Send", got)
			}
		})
	}
}

// TestGeneratedContentFromSheetsNotRead: generated content comes from
// sheets the collector cannot list or read, and it is still read: an
// imported sheet, another origin's sheet (whose rules a page cannot read),
// an open shadow root's sheet, and a closed root's :host rule on a custom
// element, while the document's own sheets have no such rule.
func TestGeneratedContentFromSheetsNotRead(t *testing.T) {
	t.Parallel()
	css := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprint(w, `.go::before { content: "Go "; }`)
	})
	sheet := browsertest.ServeHandler(t, css) + "gen.css"
	other := browsertest.OtherOrigin(sheet)
	cases := map[string]string{
		"import":       `<style>@import url("` + sheet + `");</style><button class="go">Send</button>`,
		"cross-origin": `<link rel="stylesheet" href="` + other + `"><button class="go">Send</button>`,
		"open root": `<div id="h"></div><script>const r = document.getElementById('h').attachShadow({mode: 'open'});
r.innerHTML = '<style>button::before { content: "Go "; }</style><button>Send</button>';</script>`,
		"closed root": `<x-send role="button" tabindex="0">Send</x-send><script>const r = document.querySelector('x-send').attachShadow({mode: 'closed'});
r.innerHTML = '<style>:host::before { content: "Go "; }</style><slot></slot>';</script>`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := browsertest.Context(t, time.Minute)
			s, _ := openReal(t, browsertest.Serve(t, `<!doctype html><title>Generated</title>`+body), true)
			if got := buttonName(t, ctx, s); got != "Go Send" {
				t.Fatalf("%q, want Go Send", got)
			}
		})
	}
}

// countPseudoReads wraps getComputedStyle in the collector's world to
// count the pseudo-element styles it resolves.
const countPseudoReads = `(() => {
  const read = globalThis.getComputedStyle;
  globalThis.__pseudoReads = 0;
  globalThis.getComputedStyle = function(el, pseudo) {
    if (pseudo !== undefined) globalThis.__pseudoReads++;
    return read.call(this, el, pseudo);
  };
  return true;
})()`

// pseudoReads observes s once and returns how many pseudo-element styles
// the observation resolved.
func pseudoReads(t *testing.T, ctx context.Context, s *Session) int {
	t.Helper()
	var reads int
	observeInstrumented(t, ctx, s, countPseudoReads, `globalThis.__pseudoReads`, &reads)
	return reads
}

// TestPseudoElementsReadOnlyWhereRulesExist: an observation of a page
// whose sheets give no element generated content resolves no
// pseudo-element style; once a sheet has a rule, names read them again.
func TestPseudoElementsReadOnlyWhereRulesExist(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, _ := openReal(t, browsertest.Serve(t, generatedPage+`<a href="/a">Read <b>more</b></a><h2>Plans</h2>`), true)
	if n := pseudoReads(t, ctx, s); n != 0 {
		t.Errorf("%d pseudo-element styles read on a page without a rule for them", n)
	}
	if _, err := s.tab.Evaluate(ctx, `document.dispatchEvent(new CustomEvent('add-rule', {detail: 'insert'})), true`); err != nil {
		t.Fatal(err)
	}
	if n := pseudoReads(t, ctx, s); n == 0 {
		t.Error("no pseudo-element style read once a sheet has a ::before rule")
	}
}

// TestPseudoRuleScanBound: B.PseudoRuleScan rules without a ::before or
// ::after are all read and found to give none; one rule more, and the
// scan stops unsure, so that names read pseudo-elements as if one did.
func TestPseudoRuleScanBound(t *testing.T) {
	t.Parallel()
	for _, rules := range []int{observation.PseudoRuleScan, observation.PseudoRuleScan + 1} {
		t.Run(fmt.Sprint(rules), func(t *testing.T) {
			t.Parallel()
			ctx := browsertest.Context(t, time.Minute)
			sheet := "<style>" + browsertest.Repeat(rules, ".r%d { color: red; }\n") + "</style>"
			s, _ := openReal(t, browsertest.Serve(t, `<!doctype html><title>Rules</title>`+sheet+`<button>Send</button>`), true)
			n := pseudoReads(t, ctx, s)
			if rules == observation.PseudoRuleScan && n != 0 {
				t.Errorf("%d rules, none for a pseudo-element: %d pseudo-element styles read", rules, n)
			}
			if rules > observation.PseudoRuleScan && n == 0 {
				t.Errorf("%d rules, past the bound: no pseudo-element style read", rules)
			}
			if got := buttonName(t, ctx, s); got != "Send" {
				t.Errorf("name %q, want Send", got)
			}
		})
	}
}

// TestNameBudgetSameWithoutPseudoReads: the pseudo-elements a name does
// not read still count against its node budget, so a name the budget cuts
// ends at the same node whether or not the page has a ::before rule (for
// another element).
func TestNameBudgetSameWithoutPseudoReads(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	words := browsertest.Repeat(observation.NameNodes, "<span>w%d</span> ")
	page := `<!doctype html><title>Budget</title><button>` + words + `</button>`
	names := map[string]string{}
	for _, sheet := range []string{"", `<style>.elsewhere::before { content: "x"; }</style>`} {
		s, _ := openReal(t, browsertest.Serve(t, page+sheet), true)
		names[sheet] = buttonName(t, ctx, s)
	}
	without, with := names[""], names[`<style>.elsewhere::before { content: "x"; }</style>`]
	if without != with {
		t.Errorf("the budget cut the name at another node without a rule:\n%q\nwith one:\n%q", without, with)
	}
	if strings.Contains(without, fmt.Sprintf("w%d", observation.NameNodes-1)) || !strings.HasPrefix(without, "w0 ") {
		t.Errorf("the name is not cut by the node budget: %q", without)
	}
}

// TestBrowserSheetGivesNoQuotedContent: without a page's sheet, no HTML
// element has ::before or ::after content a name reads (a quoted string):
// the browser's own sheet gives only quotes (q), which names do not read.
// This is what lets an observation skip pseudo-elements on pages without
// a rule for them.
func TestBrowserSheetGivesNoQuotedContent(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, _ := openReal(t, browsertest.Serve(t, `<!doctype html><title>Elements</title><div id="all"></div>`), true)
	var got struct {
		Quoted []string
		Q      string
	}
	observeInstrumented(t, ctx, s, `(() => {
  const tags = 'a abbr address article aside audio b bdi bdo blockquote body br button canvas caption cite code col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr i iframe img input ins kbd label legend li main map mark menu meter nav noscript object ol optgroup option output p picture pre progress q rp rt ruby s samp search section select slot small source span strong sub summary sup table tbody td template textarea tfoot th thead time tr track u ul var video wbr marquee center font big tt strike nobr';
  const all = document.getElementById('all');
  for (const tag of tags.split(' ')) all.append(document.createElement(tag));
  for (const type of ['button', 'checkbox', 'color', 'date', 'file', 'image', 'radio', 'range', 'reset', 'search', 'submit']) {
    const i = document.createElement('input');
    i.type = type;
    all.append(i);
  }
  return true;
})()`, `(() => {
  const quoted = [];
  for (const el of document.querySelectorAll('#all *')) {
    for (const which of ['::before', '::after']) {
      if (getComputedStyle(el, which).content.startsWith('"')) quoted.push(el.localName + which);
    }
  }
  return {quoted, q: getComputedStyle(document.querySelector('#all q'), '::before').content};
})()`, &got)
	if len(got.Quoted) > 0 {
		t.Errorf("the browser's sheet gives quoted content to %v", got.Quoted)
	}
	if got.Q != "open-quote" {
		t.Errorf("q::before content %q, want open-quote (the premise checked on the element that has some)", got.Q)
	}
}
