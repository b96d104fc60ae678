package veetbrowser

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/pages"
	"github.com/veetbot/veetbrowser/tools"
)

// The small pages agents meet most, as sites write them, each well under
// 1,000 nodes: what BenchmarkObserveSmallPages times.

// benchFormPage is a sign-up form with a site header, a sidebar of help
// links and a footer.
const benchFormPage = `<!doctype html><title>Create your account · Northwind</title>
<header><a href="/">Northwind</a><nav aria-label="Main"><a href="/pricing">Pricing</a> <a href="/docs">Docs</a> <a href="/login">Log in</a></nav></header>
<main><h1>Create your account</h1>
<form aria-label="Sign up" onsubmit="event.preventDefault()">
<fieldset><legend>You</legend>
<label>First name <input name="first" autocomplete="given-name" required></label>
<label>Last name <input name="last" autocomplete="family-name" required></label>
<label>Work email <input type="email" name="email" required></label>
<label>Password <input type="password" name="password" minlength="12"></label></fieldset>
<fieldset><legend>Company</legend>
<label>Company <input name="company"></label>
<label>Size <select name="size"><option>1–10</option><option>11–50</option><option>51–200</option><option>200+</option></select></label>
<label>Country <select name="country"><option>France</option><option>Germany</option><option>Spain</option><option>Italy</option></select></label>
<label>Phone <input type="tel" name="phone" placeholder="+33 1 23 45 67 89"></label></fieldset>
<fieldset><legend>Plan</legend><label><input type="radio" name="plan" checked> Starter</label> <label><input type="radio" name="plan"> Team</label> <label><input type="radio" name="plan"> Enterprise</label></fieldset>
<label><input type="checkbox" name="news"> Send me product news</label>
<label><input type="checkbox" name="terms" required> I accept the <a href="/terms">terms</a></label>
<button>Create account</button></form></main>
<aside aria-label="Help"><h2>Questions?</h2><ul><li><a href="/help/sso">Single sign-on</a></li><li><a href="/help/billing">Billing</a></li><li><a href="/help/security">Security</a></li></ul></aside>
<footer><a href="/privacy">Privacy</a> <a href="/terms">Terms</a> <a href="/status">Status</a> <span>© Northwind</span></footer>`

// benchRegionsPage is a documentation page of 60 sections, each a region
// with a heading, a paragraph and a link, under a table of contents.
func benchRegionsPage() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><title>Handbook · Northwind</title><header><a href="/">Northwind</a></header>
<nav aria-label="Contents"><ul>`)
	for i := range 12 {
		fmt.Fprintf(&b, `<li><a href="#s%d">Chapter %d</a></li>`, i*5, i+1)
	}
	b.WriteString(`</ul></nav><main><h1>Employee handbook</h1>`)
	for i := range 60 {
		fmt.Fprintf(&b, `<section id="s%d" aria-labelledby="h%d"><h2 id="h%d">Section %d: policy %d</h2>
<p>What the company expects of section %d, and what you can expect in return, in a few plain sentences.</p>
<p><a href="/policy/%d">Read policy %d</a></p></section>`, i, i, i, i+1, i, i, i, i)
	}
	b.WriteString(`</main><aside aria-label="Related"><h2>Related</h2><p><a href="/benefits">Benefits</a></p></aside>
<footer><a href="/privacy">Privacy</a> <span>© Northwind</span></footer>`)
	return b.String()
}

// benchReplyPage is a help desk's ticket: the thread of messages, and the
// reply form below it with its formatting toolbar.
const benchReplyPage = `<!doctype html><title>Ticket #4411 · Helpdesk</title>
<header><a href="/">Helpdesk</a> <input type="search" aria-label="Search tickets"> <button aria-label="Notifications">🔔</button></header>
<nav aria-label="Queues"><a href="/open">Open (12)</a> <a href="/mine">Mine (3)</a> <a href="/closed">Closed</a></nav>
<main><h1>Ticket #4411: the hinge broke</h1>
<article><h2>Dana Reyes <time>2 days ago</time></h2><p>The hinge of my desk lamp broke after a week. I would like a replacement.</p></article>
<article><h2>Support <time>yesterday</time></h2><p>Sorry to hear that. Could you send a photo of the hinge?</p></article>
<article><h2>Dana Reyes <time>today</time></h2><p>Here it is. The screw came loose and the arm fell.</p><a href="/att/1.jpg">hinge.jpg</a></article>
<form aria-label="Reply" onsubmit="event.preventDefault()"><h2>Reply</h2>
<div role="toolbar" aria-label="Formatting"><button type="button" aria-label="Bold">B</button><button type="button" aria-label="Italic">I</button><button type="button" aria-label="Link">🔗</button><button type="button" aria-label="Attach">📎</button></div>
<label>Message <textarea name="body" rows="6"></textarea></label>
<label>Status <select name="status"><option>Open</option><option>Pending</option><option>Solved</option></select></label>
<label><input type="checkbox" name="internal"> Internal note</label>
<button>Send reply</button> <button type="button">Save draft</button></form></main>
<aside aria-label="Customer"><h2>Dana Reyes</h2><p>Customer since 2021</p><a href="/c/88">All tickets</a></aside>`

// benchFramePage is a shop's checkout with the card fields in a frame of
// their own, as payment providers embed them.
const benchFramePage = `<!doctype html><title>Checkout · Northwind</title><header><a href="/">Northwind</a></header>
<main><h1>Payment</h1><p>Total: €42.00</p>
<form aria-label="Billing" onsubmit="event.preventDefault()"><label>Name on card <input name="name"></label>
<iframe src="/card" title="Card details" style="width:420px;height:160px;border:0"></iframe>
<button>Pay €42.00</button></form></main><footer><a href="/help">Help</a></footer>`

const benchCardFrame = `<!doctype html><title>Card</title><form><label>Card number <input name="number" inputmode="numeric"></label>
<label>Expiry <input name="exp" placeholder="MM/YY"></label><label>CVC <input name="cvc"></label></form>`

// benchHiddenPage is a product page that keeps most of itself hidden:
// closed tabs, a collapsed menu, screen-reader-only and off-screen text,
// a template and a closed dialog.
const benchHiddenPage = `<!doctype html><title>Lamp · Northwind</title>
<style>.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}.off{position:absolute;left:-9999px}</style>
<header><a href="/">Northwind</a><button aria-expanded="false" aria-controls="menu">Menu</button>
<ul id="menu" hidden><li><a href="/lamps">Lamps</a></li><li><a href="/desks">Desks</a></li><li><a href="/chairs">Chairs</a></li></ul></header>
<main><h1>Arc desk lamp</h1><p>€89.00</p><span class="sr">Price includes VAT</span>
<div role="tablist"><button role="tab" aria-selected="true">Description</button><button role="tab" aria-selected="false">Specs</button><button role="tab" aria-selected="false">Reviews</button></div>
<div role="tabpanel"><p>A lamp with a long arm that reaches over the whole desk.</p></div>
<div role="tabpanel" hidden><table><tr><td>Height</td><td>48 cm</td></tr><tr><td>Bulb</td><td>E27</td></tr></table></div>
<div role="tabpanel" style="display:none"><p>Great lamp.</p><p>The arm is sturdy.</p><p>Too bright.</p></div>
<p style="visibility:hidden">Out of stock in your region</p><p class="off">Skip to reviews</p><p aria-hidden="true">decoration</p>
<template><p>Template text</p></template>
<button>Add to cart</button>
<div role="dialog" aria-label="Added" hidden><p>Added to cart.</p><button>Close</button></div></main>
<footer><a href="/returns">Returns</a></footer>`

// BenchmarkObserveSmallPages observes each small page through the library,
// as an agent gets it (the collector, the projection at 8 KiB and the
// record in the default store), in a 1.10.0 and a 1.8.0 session: ms/op,
// the median in ms and allocs/op per page and version.
func BenchmarkObserveSmallPages(b *testing.B) {
	urls := map[string]string{
		"form":    browsertest.Serve(b, benchFormPage),
		"regions": browsertest.Serve(b, benchRegionsPage()),
		"reply":   browsertest.Serve(b, benchReplyPage),
		"frame":   browsertest.ServePages(b, map[string]string{"/": benchFramePage, "/card": benchCardFrame}),
		"hidden":  browsertest.Serve(b, benchHiddenPage),
	}
	ctx := browsertest.Context(b, 10*time.Minute)
	for _, version := range []string{"1.10.0", "1.8.0"} {
		for _, page := range []string{"form", "regions", "reply", "frame", "hidden"} {
			b.Run(version+"/"+page, func(b *testing.B) {
				s := session(b, SessionOptions{Version: version, Budget: 8192})
				navigateView(b, ctx, s, urls[page])
				observeTimed(b, ctx, s)
			})
		}
	}
}

// BenchmarkObserveLargePages is BenchmarkObserveSmallPages on large
// pages, where the bounds set the cost: 12,000 buttons, 300,000 buttons,
// and the generated long article (3,000 paragraphs, 800 links).
func BenchmarkObserveLargePages(b *testing.B) {
	urls := map[string]string{
		"controls-12000":  browsertest.Serve(b, browsertest.Repeat(12000, "<button>Item %d</button>\n")),
		"controls-300000": browsertest.Serve(b, browsertest.Repeat(300000, "<button>Item %d</button>\n")),
		"article":         browsertest.Serve(b, pages.NewArticle(pages.ArticleOptions{Paragraphs: 3000, NavLinks: 800}).HTML),
	}
	ctx := browsertest.Context(b, 20*time.Minute)
	for _, version := range []string{"1.10.0", "1.8.0"} {
		for _, page := range []string{"controls-12000", "controls-300000", "article"} {
			b.Run(version+"/"+page, func(b *testing.B) {
				s := session(b, SessionOptions{Version: version, Budget: 8192})
				navigateView(b, ctx, s, urls[page])
				observeTimed(b, ctx, s)
			})
		}
	}
}

// observeTimed observes s b.N times and reports the median.
func observeTimed(b *testing.B, ctx context.Context, s *Session) {
	b.ReportAllocs()
	var took []time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		if _, err := s.Call(ctx, tools.Observe, json.RawMessage(`{}`)); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	// The median, which a loaded machine's spikes move least.
	b.ReportMetric(float64(median(took).Microseconds())/1000, "p50-ms")
}

// median is the middle of d, which it sorts.
func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}
