// Package benchpages serves the small pages the benchmarks time, on
// loopback: the pages agents meet most, as sites write them, each well
// under 1,000 nodes, and the navigation pages that reach a small article
// directly or through a client-side redirect. The root package's
// benchmarks and the side-by-side benchmark of MCP servers (package
// peerbench) time the same documents. It is for tests only.
package benchpages

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// Small names the small-page set, in the order the benchmarks run it.
var Small = []string{"form", "regions", "reply", "frame", "hidden"}

// ServeSmall serves each page of Small at / of a loopback server of its
// own (the frame page's frame at /card) and returns their URLs by name;
// the servers stop with tb.
func ServeSmall(tb testing.TB) map[string]string {
	tb.Helper()
	return map[string]string{
		"form":    browsertest.Serve(tb, Form),
		"regions": browsertest.Serve(tb, Regions()),
		"reply":   browsertest.Serve(tb, Reply),
		"frame":   browsertest.ServePages(tb, map[string]string{"/": Frame, "/card": CardFrame}),
		"hidden":  browsertest.Serve(tb, Hidden),
	}
}

// Navigation names the navigation pages, each at its name under the base
// URL ServeNavigation returns: the article itself ("plain"), and pages
// that reach it by a meta refresh, an HTTP Refresh header and a script
// redirect in their load handler. Each ends at base+"plain".
var Navigation = []string{"plain", "meta", "header", "script"}

// ServeNavigation serves the pages of Navigation on one loopback server
// and returns its base URL (ending in /); the server stops with tb.
func ServeNavigation(tb testing.TB) string {
	tb.Helper()
	pages := map[string]string{
		"/plain":  Article,
		"/meta":   `<!doctype html><meta http-equiv=refresh content="0;url=/plain"><title>Moved</title><p>This page has moved.</p>`,
		"/header": `<!doctype html><title>Moved</title><p>This page has moved.</p>`,
		"/script": `<!doctype html><title>Moved</title><p>Taking you there…</p><script>addEventListener("load", () => location.replace("/plain"))</script>`,
	}
	return browsertest.ServeHandler(tb, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/header" {
			w.Header().Set("Refresh", "0; url=/plain")
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(pages[r.URL.Path]))
	}))
}

// Form is a sign-up form with a site header, a sidebar of help
// links and a footer.
const Form = `<!doctype html><title>Create your account · Northwind</title>
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

// Regions is a documentation page of 60 sections, each a region
// with a heading, a paragraph and a link, under a table of contents.
func Regions() string {
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

// Reply is a help desk's ticket: the thread of messages, and the
// reply form below it with its formatting toolbar.
const Reply = `<!doctype html><title>Ticket #4411 · Helpdesk</title>
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

// Frame is a shop's checkout with the card fields in a frame of
// their own, as payment providers embed them.
const Frame = `<!doctype html><title>Checkout · Northwind</title><header><a href="/">Northwind</a></header>
<main><h1>Payment</h1><p>Total: €42.00</p>
<form aria-label="Billing" onsubmit="event.preventDefault()"><label>Name on card <input name="name"></label>
<iframe src="/card" title="Card details" style="width:420px;height:160px;border:0"></iframe>
<button>Pay €42.00</button></form></main><footer><a href="/help">Help</a></footer>`

// CardFrame is Frame's frame, served at /card.
const CardFrame = `<!doctype html><title>Card</title><form><label>Card number <input name="number" inputmode="numeric"></label>
<label>Expiry <input name="exp" placeholder="MM/YY"></label><label>CVC <input name="cvc"></label></form>`

// Hidden is a product page that keeps most of itself hidden:
// closed tabs, a collapsed menu, screen-reader-only and off-screen text,
// a template and a closed dialog.
const Hidden = `<!doctype html><title>Lamp · Northwind</title>
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

// Article is a small page as an agent meets them: a header with a menu,
// an article, a sidebar, a comment form and a footer.
const Article = `<!doctype html><title>Field notes</title>
<header><nav><a href="/">Home</a> <a href="/topics">Topics</a> <a href="/about">About</a>
<input type=search placeholder="Search" aria-label="Search"></nav></header>
<main><article><h1>Field notes from the ridge</h1><p class=byline>By A. Walker</p>` +
	`<p>The trail climbs through larch and granite before the ridge opens up.</p>` +
	`<p>We set out before dawn and reached the saddle by nine.</p>` +
	`<h2>Comments</h2><form action=/comment method=post><label>Name <input name=n></label>` +
	`<label>Comment <textarea name=c></textarea></label><button>Post comment</button></form></article>
<aside><h2>Related</h2><ul><li><a href="/a">Larch season</a><li><a href="/b">Granite country</a></ul></aside></main>
<footer><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer>`
