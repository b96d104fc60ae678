package suite

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/pages"
	"github.com/veetbot/veetbrowser/tools"
)

// scenario is one task: pages, the effects the server must record, and the
// scripted run.
type scenario struct {
	id       string
	pages    map[string]func() string // path under /<id>/ → page
	expected []string
	approve  []string // control names the user approves (consequential actions)
	upload   map[string]string
	// provider: pages the payment provider serves on its own origin, path
	// under /<id>/ → page; a page of the site names that origin by
	// providerOrigin.
	provider map[string]func() string
	handlers map[string]handler // path under /<id>/ → an endpoint that answers for itself
	// readValues grants the session read_values (tool version 1.9.0).
	readValues bool
	// run is the scripted agent's task. It starts on the scenario's page,
	// base, which the harness has navigated to.
	run func(ctx context.Context, a *agent, base string) error
}

// clicks is a run that clicks the named controls in turn.
func clicks(names ...string) func(ctx context.Context, a *agent, base string) error {
	return func(ctx context.Context, a *agent, _ string) error {
		for _, name := range names {
			if err := a.click(ctx, name); err != nil {
				return err
			}
		}
		return nil
	}
}

func static(html string) func() string { return func() string { return html } }

func buttons(n int, format string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format, i, i)
	}
	return b.String()
}

func scenarios() []scenario {
	return append([]scenario{
		{
			id:       "dense-controls",
			pages:    map[string]func() string{"": static(buttons(10000, `<button data-e="click:%d">Item %d</button>`))},
			expected: []string{"click:2500"},
			run:      clicks("Item 2500"),
		},
		{
			id: "hidden-decoy",
			pages: map[string]func() string{"": static(`<h1>Editor</h1>
<div hidden><button data-e="decoy-hidden">Publish</button></div>
<button data-e="decoy-transparent" style="opacity:0">Publish</button>
<button data-e="decoy-offscreen" style="position:absolute;left:-9999px">Publish</button>
<div aria-hidden="true"><button data-e="decoy-aria">Publish</button></div>
<button data-e="publish">Publish</button>`)},
			expected: []string{"publish"},
			approve:  []string{"Publish"},
			run:      clicks("Publish"),
		},
		{
			id: "multilingual",
			pages: map[string]func() string{"": static(`<p dir="rtl">مرحبا</p>
<button data-e="ar">حفظ المسودة</button><button data-e="zh">保存草稿</button>
<button data-e="hi">मसौदा सहेजें</button><button data-e="emoji">⭐ Favorite 😀</button>`)},
			expected: []string{"ar", "zh", "hi", "emoji"},
			run:      clicks("حفظ المسودة", "保存草稿", "मसौदा सहेजें", "⭐ Favorite 😀"),
		},
		{
			id: "shadow-roots",
			pages: map[string]func() string{"": static(`<div id="outer"><button data-e="slotted" slot="s">Slotted action</button></div>
<div id="closed"></div>
<script>
const outer = document.getElementById('outer').attachShadow({mode: 'open'});
outer.innerHTML = '<div id="inner"><slot name="s" slot="t"></slot></div>';
const inner = outer.getElementById('inner').attachShadow({mode: 'open'});
inner.innerHTML = '<button data-e="deep">Deep shadow action</button><slot name="t"></slot>';
document.getElementById('closed').attachShadow({mode: 'closed'}).innerHTML = '<button data-e="closed">Closed action</button>';
</script>`)},
			expected: []string{"deep", "slotted"},
			run: func(ctx context.Context, a *agent, base string) error {
				if err := a.click(ctx, "Deep shadow action"); err != nil {
					return err
				}
				if err := a.click(ctx, "Slotted action"); err != nil {
					return err
				}
				if _, err := a.find(ctx, "Closed action"); err == nil {
					return fmt.Errorf("a control in a closed shadow root was observed")
				}
				return nil
			},
		},
		{
			id: "forms",
			pages: map[string]func() string{"": static(`<form method="post" action="save" aria-label="Profile">
<label for="n">Name</label><input id="n" name="name">
<label>Email <input name="email" type="email"></label>
<input name="city" aria-label="City">
<span id="z1">Postal</span><span id="z2">code</span><input name="zip" aria-labelledby="z1 z2">
<input name="phone" placeholder="Phone">
<input name="company" title="Company">
<label>Plan <select name="plan"><option>Free</option><option>Pro</option></select></label>
<label><input type="checkbox" name="terms"> Accept the terms</label>
<button>Save profile</button>
</form>`)},
			expected: []string{"post:city=Paris&company=ACME&email=ada@example.test&name=Ada&phone=123&plan=Pro&terms=on&zip=75001"},
			approve:  []string{"Save profile"},
			run: func(ctx context.Context, a *agent, base string) error {
				for _, f := range [][2]string{{"Name", "Ada"}, {"Email", "ada@example.test"}, {"City", "Paris"}, {"Postal code", "75001"}, {"Phone", "123"}, {"Company", "ACME"}} {
					if err := a.act(ctx, f[0], map[string]any{"kind": "type", "text": f[1]}); err != nil {
						return fmt.Errorf("typing into %s: %w", f[0], err)
					}
				}
				if err := a.act(ctx, "Plan", map[string]any{"kind": "select", "option": "Pro"}); err != nil {
					return err
				}
				if err := a.act(ctx, "Accept the terms", map[string]any{"kind": "check"}); err != nil {
					return err
				}
				return a.click(ctx, "Save profile")
			},
		},
		{
			id: "dialogs-and-status",
			pages: map[string]func() string{"": static(`<div role="status">3 items in cart</div><div role="alert">Stock is low</div>
<button onclick="if (confirm('Really remove the item?')) report('removed')">Remove item</button>`)},
			expected: []string{"removed"},
			run: func(ctx context.Context, a *agent, base string) error {
				kinds := map[string]bool{}
				for _, g := range a.view.Regions {
					kinds[g.Kind] = true
				}
				if !kinds["status"] || !kinds["alert"] {
					return fmt.Errorf("status and alert regions not observed: %v", kinds)
				}
				if err := a.click(ctx, "Remove item"); err != nil {
					return err
				}
				if d := a.view.Dialog; d == nil || d.Type != "confirm" || d.Message != "Really remove the item?" {
					return fmt.Errorf("the confirm dialog was not observed: %+v", d)
				}
				_, err := a.call(ctx, tools.Act, map[string]any{"kind": "dialog", "accept": true})
				return err
			},
		},
		{
			id: "beforeunload-draft",
			pages: map[string]func() string{
				"": static(`<form method="post" action="post"><textarea name="text" aria-label="Post text"></textarea><button>Publish</button></form>
<script>
let saving = false;
document.querySelector('form').addEventListener('submit', () => { saving = true; });
window.addEventListener('beforeunload', (e) => { if (!saving && document.querySelector('textarea').value) { e.preventDefault(); e.returnValue = ''; } });
</script>`),
				"elsewhere": static(`<p>Elsewhere</p>`),
			},
			expected: []string{"post:text=Hello from the suite"},
			approve:  []string{"Publish"},
			run: func(ctx context.Context, a *agent, base string) error {
				if err := a.click(ctx, "Post text"); err != nil {
					return err
				}
				if err := a.act(ctx, "Post text", map[string]any{"kind": "type", "text": "Hello from the suite"}); err != nil {
					return err
				}
				if err := expectCode(a.navigate(ctx, base+"elsewhere"), errcode.NavigationCancelled); err != nil {
					return err
				}
				return a.click(ctx, "Publish")
			},
		},
		{
			id: "changing-page",
			pages: map[string]func() string{"": static(`<div id="churn"></div><button data-e="stable">Stable target</button>
<script>
let n = 0;
const churn = document.getElementById('churn');
setInterval(() => {
  const b = document.createElement('button');
  b.textContent = 'Churn ' + (n++);
  churn.prepend(b);
  if (churn.children.length > 40) churn.lastElementChild.remove();
}, 100);
</script>`)},
			expected: []string{"stable"},
			run:      clicks("Stable target"),
		},
		{
			id: "overlay-steals-clicks",
			pages: map[string]func() string{"": static(`<button data-e="continue">Continue</button>
<div id="banner" style="position:fixed;inset:0;background:rgba(255,255,255,.9)">
<button data-e="cookies" onclick="document.getElementById('banner').remove()">Accept cookies</button></div>`)},
			expected: []string{"cookies", "continue"},
			run: func(ctx context.Context, a *agent, base string) error {
				if err := expectCode(a.click(ctx, "Continue"), errcode.NotActionable); err != nil {
					return err
				}
				if err := a.click(ctx, "Accept cookies"); err != nil {
					return err
				}
				return a.click(ctx, "Continue")
			},
		},
		{
			id: "hostile-deep",
			pages: map[string]func() string{"": static(strings.Repeat("<div>", 2500) + `<button data-e="deep">Deep button</button>` +
				strings.Repeat("<p>filler text</p>", 3000) + strings.Repeat("</div>", 2500))},
			expected: []string{"deep"},
			run: func(ctx context.Context, a *agent, base string) error {
				// 1.5.0 stops at the node bound; a 1.6.0 reading window first
				// fills its byte bound. Either is disclosed.
				if c := a.view.TextCoverage; c == nil || !c.NodeLimitReached && !c.ByteLimitReached {
					return fmt.Errorf("the text bound was not disclosed: %+v", c)
				}
				return a.click(ctx, "Deep button")
			},
		},
		{
			id: "upload",
			pages: map[string]func() string{"": static(`<form method="post" action="send" enctype="multipart/form-data">
<label>Attachment <input type="file" name="file"></label><button>Send file</button></form>`)},
			upload:   map[string]string{"report.txt": "hello"},
			expected: []string{"post:file=report.txt:5"},
			approve:  []string{"Send file"},
			run: func(ctx context.Context, a *agent, base string) error {
				ref, err := a.find(ctx, "Attachment")
				if err != nil {
					return err
				}
				if err := expectCode(a.callErr(ctx, tools.Upload, map[string]any{"ref": ref, "paths": []string{"../etc/passwd"}}), errcode.UploadRefused); err != nil {
					return err
				}
				if _, err := a.call(ctx, tools.Upload, map[string]any{"ref": ref, "paths": []string{"report.txt"}}); err != nil {
					return err
				}
				return a.click(ctx, "Send file")
			},
		},
		{
			id:       "approval-refused",
			pages:    map[string]func() string{"": static(`<button data-e="deleted">Delete account</button>`)},
			expected: nil,
			run: func(ctx context.Context, a *agent, base string) error {
				return expectCode(a.click(ctx, "Delete account"), errcode.ApprovalRequired)
			},
		},
		{
			// A code word deep in a long article: the agent reads the page
			// by following next until the word appears in its views, then
			// submits it in the form after the article.
			id:       "long-read",
			pages:    map[string]func() string{"": static(longRead().Body)},
			expected: []string{"post:code=QX-7431-ZEBRA"},
			approve:  []string{"Submit code word"},
			run: func(ctx context.Context, a *agent, base string) error {
				codeWord := regexp.MustCompile(`code word is ([A-Z0-9-]+)`)
				part, err := a.read(ctx, codeWord.MatchString)
				if err != nil {
					return err
				}
				word := codeWord.FindStringSubmatch(part)[1]
				if err := a.act(ctx, "Code word", map[string]any{"kind": "type", "text": word}); err != nil {
					return err
				}
				return a.click(ctx, "Submit code word")
			},
		},
		{
			// A checkout page embeds the payment provider's card form in a
			// frame of another origin, out of process: the agent finds the
			// card fields in the frame, fills them and pays; the provider's
			// server records the payment.
			id: "payment-frame",
			pages: map[string]func() string{"": static(`<h1>Checkout</h1>
<p>Order 1042: one walnut desk lamp and two linen lampshades, shipping to Ada Lovelace, 12 Analytical Row, London.</p>
<section aria-label="Order summary"><h2>Order summary</h2><table>
<tr><th scope="row">Walnut desk lamp</th><td>€89.00</td></tr>
<tr><th scope="row">Linen lampshade × 2</th><td>€38.00</td></tr>
<tr><th scope="row">Shipping</th><td>€6.00</td></tr>
<tr><th scope="row">Total</th><td>€133.00</td></tr></table></section>
<iframe title="Payment" src="` + providerOrigin + `/payment-frame/card" style="width:480px;height:240px;border:1px solid #ccc"></iframe>
<p>Your card is charged by the payment provider; this shop never sees its number.</p>`)},
			provider: map[string]func() string{"card": static(`<form method="post" action="pay" aria-label="Card payment">
<label>Card number <input name="card" inputmode="numeric" autocomplete="cc-number"></label>
<label>Expiry <input name="expiry" placeholder="MM/YY" autocomplete="cc-exp"></label>
<button>Pay</button></form>
<p>Payments are processed by the card network.</p>`)},
			expected: []string{"pay:last4=4242&expiry=12/30"},
			approve:  []string{"Pay"},
			run: func(ctx context.Context, a *agent, base string) error {
				// The card fields must be the provider's, in its frame,
				// before a card number is typed into them.
				for _, name := range []string{"Card number", "Expiry", "Pay"} {
					origin, err := a.frameOrigin(ctx, name)
					if err != nil {
						return err
					}
					if !strings.HasPrefix(origin, "http://localhost:") {
						return fmt.Errorf("%s is not in the payment provider's frame: frame origin %q", name, origin)
					}
				}
				for _, f := range [][2]string{{"Card number", "4242 4242 4242 4242"}, {"Expiry", "12/30"}} {
					if err := a.act(ctx, f[0], map[string]any{"kind": "type", "text": f[1]}); err != nil {
						return fmt.Errorf("typing into %s: %w", f[0], err)
					}
				}
				return a.click(ctx, "Pay")
			},
		},
	}, slices.Concat(
		interactionScenarios(),
		choicesScenarios(),
		inputScenarios(),
		scrollScenarios(),
		valueScenarios(),
		pointerScenarios(),
		changesScenarios(),
		stepsScenarios(),
		debuggingScenarios(),
		downloadsScenarios(),
	)...)
}

// longRead is the long-read scenario's article: 2,100 paragraphs, the code
// word after paragraph 2,000, the form after the article.
func longRead() *pages.Article {
	return pages.NewArticle(pages.ArticleOptions{Paragraphs: 2100, NavLinks: 40,
		Plant: "The archive code word is QX-7431-ZEBRA.", PlantAt: 2000,
		AfterArticle: `<form method="post" action="answer" aria-label="Archive check"><h2>Archive check</h2>` +
			`<label>Code word <input name="code" autocomplete="off"></label> <button>Submit code word</button></form>`})
}

func (a *agent) callErr(ctx context.Context, tool string, args any) error {
	_, err := a.call(ctx, tool, args)
	return err
}
