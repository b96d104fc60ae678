package tab

import (
	"context"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
)

// Client-side redirects (docs/navigation.md). A navigation does not wait a
// fixed time after its document loaded for a redirect that may never come:
// it follows the ones the document announced by the time it loaded, and
// returns at once when there is none.
//   - A navigation that starts while the document loads is followed (as
//     always): script while parsing, a form the page submits.
//   - A navigation the renderer asked for (Page.frameRequestedNavigation)
//     by the time the document loaded, which has not started yet, is
//     waited for at most RedirectStart: script in a load handler.
//   - A refresh to another URL, which the document announces in its HTTP
//     Refresh header or a meta refresh tag (refreshWatch), is waited for
//     its delay plus RedirectStart
//     when the delay is at most MaxRefreshWait; a longer one is not waited
//     for, and neither is a refresh of the page itself (no URL, or its
//     own): that is a reload.
//
// A navigation that no event or tag announced before the document loaded
// (a script timer at the load event) and that starts before the call has
// its first view is followed too (FollowPage). One that starts after is the
// page's own later one: it passes the navigation guard as every hop does,
// and the next call meets the page it leads to.

// MaxRefreshWait is the longest refresh delay a navigation waits for.
const MaxRefreshWait = 2 * time.Second

// announcements are the newest announcements of the main frame's
// documents: a navigation asked for, and a refresh.
type announcements struct {
	asked     asked
	refreshed refreshed
}

// noteAnnouncedLocked records an announcement. It runs in the event
// listener and issues no command.
func (t *Tab) noteAnnouncedLocked(ev any) {
	switch ev := ev.(type) {
	case *page.EventFrameRequestedNavigation:
		t.noteAskedLocked(ev)
	case *runtime.EventBindingCalled:
		t.noteRefreshLocked(ev)
	case *network.EventResponseReceived:
		t.noteRefreshHeaderLocked(ev)
	}
}

// asked is the newest main-frame navigation the renderer asked for: which
// document asked, and the navigations started so far when it did.
type asked struct {
	by       cdp.LoaderID
	seq      uint64 // navSeq then
	sameDocs uint64 // navigations within the document then
}

// noteAskedLocked records a navigation of the main frame's own tab that its
// renderer asked for.
func (t *Tab) noteAskedLocked(ev *page.EventFrameRequestedNavigation) {
	if ev.FrameID != t.mainFrame || ev.Disposition != page.ClientNavigationDispositionCurrentTab {
		return
	}
	t.announces.asked = asked{by: t.loader, seq: t.navSeq, sameDocs: t.traffic.sameDocs}
}

// refreshed is the refresh a main-frame document announced: which
// document, and the refresh of its HTTP Refresh header and of its meta
// refresh tags (refreshWatch), if any.
type refreshed struct {
	by          cdp.LoaderID
	header, tag refresh
}

// refresh is one refresh's delay; self when it reloads the page.
type refresh struct {
	set   bool
	delay time.Duration
	self  bool
}

// effective is the refresh the browser follows: as Chromium does, the
// header is scheduled first, at the commit, and a tag replaces it when
// its delay is not longer.
func (r refreshed) effective() refresh {
	if r.tag.set && (!r.header.set || r.tag.delay <= r.header.delay) {
		return r.tag
	}
	return r.header
}

// refreshBinding is how refreshWatch tells the tab, from the collector's
// world, where page script cannot call it.
const refreshBinding = "__veetbrowserRefresh"

// refreshWatch runs in the collector's world of every new document. At the
// load event (its listener comes before the page's own) it finds the meta
// refresh the browser follows (the shortest delay, the last of equal ones;
// read as headerRefresh reads the header, in whole seconds) and sends its
// delay in milliseconds, with " self" when it reloads the page: a
// Runtime.bindingCalled event that reaches the tab before the load event's
// lifecycle event, so reading it costs no round trip, and a page without a
// refresh tag sends nothing.
// Until the load event's handlers have run, a mutation observer looks again
// when the page adds a meta element (a load handler's refresh tag, which
// the browser schedules for the end of the load event too); its callback
// runs after each handler, within the event, so the tab still hears before
// the lifecycle event.
var refreshWatch = `(() => {
  const send = globalThis.` + refreshBinding + `;
  if (typeof send !== "function" || window !== window.top) return;
  let sent = "";
  const scan = () => {
    let best = Infinity, self = false;
    for (const m of document.querySelectorAll("meta[http-equiv]")) {
      if (m.httpEquiv.trim().toLowerCase() !== "refresh") continue;
      const r = /` + refreshPattern + `/s.exec(m.content);
      if (!r || (r[1] === "" && r[2] === "") || (r[5] !== "" && r[3] === "" && r[4] === "")) continue;
      const delay = Number(r[1] || "0");
      if (delay > ` + strconv.Itoa(maxRefreshSecs) + `) continue;
      let to = r[5];
      const u = /` + refreshURLPattern + `/is.exec(to);
      if (u) to = u[1];
      if (/^["']/.test(to)) { const q = to.indexOf(to[0], 1); to = to.slice(1, q < 0 ? undefined : q); }
      let url;
      try { url = new URL(to || location.href, document.baseURI); } catch (e) { continue; }
      if (delay * 1000 > best) continue;
      best = delay * 1000;
      self = url.href.split("#")[0] === location.href.split("#")[0];
    }
    const msg = best === Infinity ? "" : String(best) + (self ? " self" : "");
    if (msg !== sent) { sent = msg; send(msg); }
  };
  addEventListener("load", () => {
    scan();
    const seen = new MutationObserver((records) => {
      if (records.some((r) => r.type === "attributes" || [...r.addedNodes].some((n) => n.nodeName === "META" || n.querySelector?.("meta")))) scan();
    });
    seen.observe(document, {subtree: true, childList: true, attributes: true, attributeFilter: ["content", "http-equiv"]});
    setTimeout(() => seen.disconnect(), 0);
  }, {once: true});
})()`

// watchRefreshes registers refreshWatch and its binding for every new
// document of the tab.
func (t *Tab) watchRefreshes(ctx context.Context) error {
	if _, err := cdp.Call(ctx, t.target, runtime.AddBinding, runtime.AddBindingParams{
		Name: refreshBinding, ExecutionContextName: collect.WorldName}); err != nil {
		return err
	}
	_, err := cdp.Call(ctx, t.target, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: refreshWatch, WorldName: collect.WorldName})
	return err
}

// noteRefreshLocked records the refresh tags the main document's collector
// world announced: each message is a whole scan of them, and replaces the
// one before ("" when none is left).
func (t *Tab) noteRefreshLocked(ev *runtime.EventBindingCalled) {
	if ev.Name != refreshBinding || ev.ExecutionContextID != t.worldID || t.world == "" {
		return
	}
	var tag refresh
	if ev.Payload != "" {
		ms, self := strings.CutSuffix(ev.Payload, " self")
		v, err := strconv.ParseFloat(ms, 64)
		if err != nil || v < 0 {
			return
		}
		tag = refresh{set: true, delay: time.Duration(v * float64(time.Millisecond)), self: self}
	}
	if t.announces.refreshed.by != t.loader {
		t.announces.refreshed = refreshed{by: t.loader}
	}
	t.announces.refreshed.tag = tag
}

// noteRefreshHeaderLocked records the HTTP Refresh header of a main-frame
// document's response. The Network events come whether or not a page has
// one (the tab's log reads them), so this costs a page without a header
// nothing; the Fetch guard's response stage would add a round trip to
// every document.
func (t *Tab) noteRefreshHeaderLocked(ev *network.EventResponseReceived) {
	if ev.Type != network.ResourceTypeDocument || ev.FrameID != t.mainFrame || ev.Response == nil {
		return
	}
	r, ok := headerRefresh(ev.Response.Headers, ev.Response.URL)
	if !ok {
		return
	}
	t.announces.refreshed = refreshed{by: ev.LoaderID, header: r}
}

// headerRefresh parses the Refresh header of a document at docURL as the
// HTML standard (and Chromium) parses a refresh; refreshWatch applies the
// same rule to the tags. The delay is whole seconds: "2.5" is 2.
func headerRefresh(h network.Headers, docURL string) (refresh, bool) {
	var value string
	for k, v := range h {
		if s, ok := v.(string); ok && strings.EqualFold(k, "refresh") {
			value, _, _ = strings.Cut(s, "\n") // repeated headers come joined by newlines: the first
		}
	}
	m := refreshValue.FindStringSubmatch(value)
	if m == nil || (m[1] == "" && m[2] == "") || (m[5] != "" && m[3] == "" && m[4] == "") {
		return refresh{}, false
	}
	secs := 0
	if m[1] != "" {
		var err error
		if secs, err = strconv.Atoi(m[1]); err != nil || secs > maxRefreshSecs {
			return refresh{}, false // Chromium ignores such a delay too
		}
	}
	to := m[5]
	if u := refreshURL.FindStringSubmatch(to); u != nil {
		to = u[1]
	}
	if to != "" && (to[0] == '"' || to[0] == '\'') {
		if q := strings.IndexByte(to[1:], to[0]); q >= 0 {
			to = to[1 : q+1]
		} else {
			to = to[1:]
		}
	}
	base, err := url.Parse(docURL)
	if err != nil {
		return refresh{}, false
	}
	dest, err := base.Parse(strings.TrimSpace(to))
	if err != nil {
		return refresh{}, false
	}
	return refresh{set: true, delay: time.Duration(secs) * time.Second, self: sameDocument(base, dest)}, true
}

// sameDocument reports whether a and b name one document, as the browser
// compares them: without fragments, the scheme and host in any case, a
// default port or an empty path written or not.
func sameDocument(a, b *url.URL) bool {
	key := func(u *url.URL) string {
		c := *u
		c.Fragment, c.RawFragment = "", ""
		c.Scheme, c.Host = strings.ToLower(c.Scheme), strings.ToLower(c.Host)
		if port := c.Port(); (c.Scheme == "http" && port == "80") || (c.Scheme == "https" && port == "443") {
			c.Host = c.Hostname()
		}
		if c.Path == "" && c.RawPath == "" && c.Opaque == "" {
			c.Path = "/"
		}
		return c.String()
	}
	return key(a) == key(b)
}

// maxRefreshSecs is the longest delay Chromium takes a refresh with.
const maxRefreshSecs = math.MaxInt32 / 1000

// A refresh's content, as the HTML standard reads it: whitespace, the
// delay's digits (1), digits and dots ignored (2; one of the two is not
// empty), whitespace (3) or a ";" or "," (4), one of which must come
// before a URL (5); the URL may start with "url=" (refreshURLPattern).
const (
	refreshPattern    = `^[\t\n\f\r ]*([0-9]*)([0-9.]*)([\t\n\f\r ]*)([;,]?)[\t\n\f\r ]*(.*)$`
	refreshURLPattern = `^url[\t\n\f\r ]*=[\t\n\f\r ]*(.*)$`
)

var (
	refreshValue = regexp.MustCompile(`(?s)` + refreshPattern)
	refreshURL   = regexp.MustCompile(`(?is)` + refreshURLPattern)
)

// announced is how long to wait for a navigation that the loaded document
// of loader announced and that has not started yet; 0 when it announced
// none.
func (t *Tab) announced(loader cdp.LoaderID) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	a, r := t.announces.asked, t.announces.refreshed.effective()
	switch {
	case a.by == loader && a.seq == t.navSeq && a.sameDocs == t.traffic.sameDocs:
		return t.timings.RedirectStart
	case t.announces.refreshed.by == loader && r.set && !r.self && r.delay <= MaxRefreshWait && t.lifecycle[loader] == "load":
		// (A refresh's timer starts with the load event: a page returned
		// before it has none running.)
		return r.delay + t.timings.RedirectStart
	}
	return 0
}

// navEnd is where a navigation left the tab: the document it returned,
// the refusals and navigations seen by then, the newest navigation asked
// for, the redirects followed, and its deadline.
type navEnd struct {
	loader    cdp.LoaderID
	seen, seq uint64
	asked     asked
	hops      int
	deadline  time.Time
}

// MovedSince reports whether the page started or asked for a navigation of
// its own since nav returned.
func (t *Tab) MovedSince(nav Navigated) bool {
	if nav.end == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.navSeq != nav.end.seq || t.announces.asked != nav.end.asked
}

// FollowPage follows a navigation the page started after nav returned, as
// one more redirect of the same navigation: within its bound, its hops
// counted with nav's, each passing the navigation guard. A refusal since
// nav returned is its refusal.
func (t *Tab) FollowPage(ctx context.Context, nav Navigated) (Navigated, error) {
	if nav.end == nil {
		return nav, nil
	}
	octx, end, err := t.Begin(ctx)
	if err != nil {
		return Navigated{}, err
	}
	defer end()
	e := nav.end
	return t.follow(octx, e.loader, e.seen, e.seq, e.deadline, e.hops)
}
