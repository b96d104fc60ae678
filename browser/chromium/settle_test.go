package chromium

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// An action settles from what the page announced by one round trip after
// its input (docs/actions.md): these pages announce a navigation, a form
// submission, a dialog or a popup from their handlers, at once or later.

// storefront is a shop's product page: a header menu, a product card whose
// "Read reviews" is a handler-only div that navigates at once, a "Notify
// me" div that navigates only after a delay, a sign-in form, a "Remove from
// wishlist" confirm, and a footer.
const storefront = `<title>Trail runner 3 · Outdoor shop</title>
<style>body{font:14px sans-serif;margin:0} header,footer{background:#eee;padding:8px}
.card{border:1px solid #ccc;margin:1em;padding:1em;max-width:30em} .link{color:#06c;cursor:pointer}</style>
<header><nav aria-label="Main"><a href="#men">Men</a> · <a href="#women">Women</a> · <a href="#sale">Sale</a></nav></header>
<main>
<article class=card>
  <h1>Trail runner 3</h1><p>Light trail shoe with a grippy sole. €129</p>
  <div class=link role=button tabindex=0 onclick="location.href = '/reviews'">Read reviews</div>
  <div class=link role=button tabindex=0 onclick="setTimeout(() => { location.href = '/reviews' })">See sizes</div>
  <div class=link role=button tabindex=0 onclick="this.textContent = 'We will tell you'; setTimeout(() => { location.href = '/later' }, 1000)">Notify me</div>
  <div class=link role=button tabindex=0 onclick="document.getElementById('wish').textContent = confirm('Remove Trail runner 3 from your wishlist?') ? 'removed' : 'kept'">Remove from wishlist</div>
  <p id=wish>on your wishlist</p>
  <div class=link role=button tabindex=0 onclick="document.getElementById('wish').textContent = 'shared'">Copy link</div>
</article>
<aside class=card><h2>Sign in to check out</h2>
<form method=post action="/signin"><label>Email <input name=email type=email></label>
<label>Password <input name=password type=password></label><button>Sign in</button></form>
<form id=news onsubmit="event.preventDefault(); document.getElementById('wish').textContent = 'subscribed'">
<label>Newsletter email <input name=news></label><button>Subscribe</button></form></aside>
</main>
<footer><p>© Outdoor shop · <a href="#terms">Terms</a> · <a href="/report">Report this page</a></p></footer>`

func openStorefront(t *testing.T) (*effects, *Session, *observation.Observation) {
	t.Helper()
	return openEffects(t, map[string]string{"/": storefront,
		"/reviews": "<title>Reviews</title><h1>Reviews</h1><p>Great grip.</p>",
		"/later":   "<title>Notified</title><h1>You will hear from us</h1>"})
}

// TestClickThatNavigatesAtOnceReportsIt: a handler that navigates as it
// runs, or in the task it queues next, is reported as the click's
// navigation, with its loaded page.
func TestClickThatNavigatesAtOnceReportsIt(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	for _, name := range []string{"Read reviews", "See sizes"} {
		_, s, obs := openStorefront(t)
		res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, name).Ref}, allowAll)
		if err != nil {
			t.Fatal(err)
		}
		if !res.NavigationStarted || !res.NavigationDone || res.Observation.Title != "Reviews" {
			t.Fatalf("%s: the navigation was not reported: %+v, title %q", name, res, res.Observation.Title)
		}
	}
	// A click that changes the page without leaving it reports nothing.
	_, s, obs := openStorefront(t)
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Copy link").Ref}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if res.NavigationStarted || res.DialogOpened || evalMain(t, s, "document.getElementById('wish').textContent") != "shared" {
		t.Fatalf("a click that stayed: %+v", res)
	}
}

// TestNavigationWithoutADocumentEnds: a link the server answers with no
// document (204) starts a navigation that ends without one; the click
// returns the page it stayed on instead of waiting out SettleLoad (15 s;
// the 5 s deadline is a liveness bound, not a measurement).
func TestNavigationWithoutADocumentEnds(t *testing.T) {
	t.Parallel()
	site := &effects{pages: map[string]string{"/": storefront}}
	base := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/report" {
			site.Record("report")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		site.ServeHTTP(w, r)
	}))
	s := openSession(t)
	obs, err := s.Navigate(browsertest.Context(t, time.Minute), base)
	if err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.Context(t, 5*time.Second)
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Report this page").Ref}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if !res.NavigationStarted || res.NavigationDone || res.Observation.Title != obs.Title {
		t.Fatalf("a navigation without a document: %+v, title %q", res, res.Observation.Title)
	}
	if got := site.Seen(); !slices.Equal(got, []string{"report"}) {
		t.Fatalf("server saw %q", got)
	}
}

// TestFormSubmissionIsReported: a form submitted by a click on its button
// and by Enter in its field is reported as navigating, posted once; one
// whose handler keeps the page reports no navigation.
func TestFormSubmissionIsReported(t *testing.T) {
	t.Parallel()
	for _, by := range []string{"click", "enter"} {
		t.Run(by, func(t *testing.T) {
			t.Parallel()
			ctx := browsertest.Context(t, time.Minute)
			site, s, obs := openStorefront(t)
			res, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Email").Ref, Text: "ana@example.test"}, allowAll)
			if err != nil {
				t.Fatal(err)
			}
			a := browser.Action{Kind: browser.ActClick, Ref: find(t, res.Observation, "Sign in").Ref}
			if by == "enter" {
				a = browser.Action{Kind: browser.ActPress, Ref: find(t, res.Observation, "Email").Ref, Key: "Enter"}
			}
			if res, err = s.Act(ctx, a, allowAll); err != nil {
				t.Fatal(err)
			}
			if !res.NavigationStarted || !res.NavigationDone || res.Observation.Title != "done" {
				t.Fatalf("the submission was not reported: %+v, title %q", res, res.Observation.Title)
			}
			if got, want := site.Seen(), []string{"post /signin email=ana@example.test&password="}; !slices.Equal(got, want) {
				t.Fatalf("server saw %q, want %q", got, want)
			}
		})
	}
	t.Run("kept", func(t *testing.T) {
		t.Parallel()
		ctx := browsertest.Context(t, time.Minute)
		site, s, obs := openStorefront(t)
		res, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Newsletter email").Ref, Text: "ana@example.test", Submit: true}, allowAll)
		if err != nil {
			t.Fatal(err)
		}
		if res.NavigationStarted || evalMain(t, s, "document.getElementById('wish').textContent") != "subscribed" || len(site.Seen()) != 0 {
			t.Fatalf("a submission the page kept: %+v, server saw %q", res, site.Seen())
		}
	})
}

// TestNavigationALaterTimerStartsIsThePagesOwn: a handler that navigates a
// second later is not waited for; the click reports no navigation, and the
// page's own move is met by the calls after it (docs/actions.md).
func TestNavigationALaterTimerStartsIsThePagesOwn(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	_, s, obs := openStorefront(t)
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Notify me").Ref}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if res.NavigationStarted || res.Observation.Title != obs.Title {
		t.Fatalf("the click reported the later navigation: %+v, title %q", res, res.Observation.Title)
	}
	if find(t, res.Observation, "We will tell you").Ref == "" {
		t.Fatal("the click's own change is not in its view")
	}
	// An observation taken while the page moves says document_changed;
	// one after, the new page.
	later, title := res.Observation, ""
	for i := 0; title != "Notified"; i++ {
		if i == 100 {
			t.Fatalf("the page's own navigation never showed; title %q", title)
		}
		time.Sleep(50 * time.Millisecond)
		o, err := s.Observe(ctx, observation.Request{})
		if err != nil && errcode.Of(err) != errcode.DocumentChanged {
			t.Fatal(err)
		}
		if err == nil {
			title = o.Title
		}
	}
	// A ref of the page before it moved is refused, not acted on.
	_, err = s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, later, "Copy link").Ref}, allowAll)
	wantCode(t, err, errcode.StaleReference)
}

// TestClickThatOpensADialogReportsIt: a confirm a handler opens is
// reported and observed, and its answer reaches the page.
func TestClickThatOpensADialogReportsIt(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	_, s, obs := openStorefront(t)
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: find(t, obs, "Remove from wishlist").Ref}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Observation.Dialog; !res.DialogOpened || d == nil || d.Type != "confirm" {
		t.Fatalf("the dialog was not reported: %+v %+v", res, d)
	}
	if _, err = s.Act(ctx, browser.Action{Kind: browser.ActDialog}, allowAll); err != nil {
		t.Fatal(err)
	}
	if got := evalMain(t, s, "document.getElementById('wish').textContent"); got != "kept" {
		t.Fatalf("after dismissing, the page holds %q", got)
	}
}

// TestClickThatOpensAPopupReportsIt: a share window a handler opens is
// reported as an opened tab in the click's own view.
func TestClickThatOpensAPopupReportsIt(t *testing.T) {
	t.Parallel()
	base := browsertest.ServePages(t, map[string]string{
		"/": `<title>Recipe · Kitchen notes</title><article><h1>Lemon tart</h1><p>Zest two lemons.</p>
<div role=button tabindex=0 onclick="window.open('/share', 'share', 'width=500,height=400')">Share</div></article>
<footer>Kitchen notes</footer>`,
		"/share": `<title>Share</title><button>Post</button>`,
	})
	s := openTabs(t, base)
	ctx := browsertest.Context(t, time.Minute)
	obs, err := s.Observe(ctx, observation.Request{})
	if err != nil {
		t.Fatal(err)
	}
	res := clickNamed(t, s, obs, "Share")
	if len(res.Observation.Tabs.Opened) != 1 {
		t.Fatalf("the popup is not reported as opened: %+v", res.Observation.Tabs)
	}
}

// BenchmarkActSettle times single actions on the storefront, each with its
// settling and the view after it (median, act-ms): a click that changes
// nothing but the page's own text, a click that navigates (the page opened
// again, untimed, before each), and typing one character into a field.
func BenchmarkActSettle(b *testing.B) {
	base := browsertest.ServePages(b, map[string]string{"/": storefront,
		"/reviews": "<title>Reviews</title><h1>Reviews</h1><p>Great grip.</p>"})
	for _, act := range []string{"click", "click-navigates", "type"} {
		b.Run(act, func(b *testing.B) {
			ctx := browsertest.Context(b, 10*time.Minute)
			s := openSession(b)
			obs, err := s.Navigate(ctx, base)
			if err != nil {
				b.Fatal(err)
			}
			ref := func(name string) string {
				for _, c := range obs.Controls {
					if c.Name == name {
						return c.Ref
					}
				}
				b.Fatalf("no control %q", name)
				return ""
			}
			var took []time.Duration
			for b.Loop() {
				var a browser.Action
				switch act {
				case "click":
					a = browser.Action{Kind: browser.ActClick, Ref: ref("Copy link")}
				case "click-navigates":
					b.StopTimer()
					if obs, err = s.Navigate(ctx, base); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					a = browser.Action{Kind: browser.ActClick, Ref: ref("Read reviews")}
				case "type":
					a = browser.Action{Kind: browser.ActType, Ref: ref("Newsletter email"), Text: "x"}
				}
				start := time.Now()
				res, err := s.Act(ctx, a, allowAll)
				if err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
				if act == "click-navigates" && !res.NavigationDone {
					b.Fatal("the click did not navigate")
				}
				obs = res.Observation
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "act-ms")
		})
	}
}
