package tab

import (
	"context"
	"strconv"
	"time"

	"github.com/chromedp/cdproto/cdp"
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
//   - A meta refresh to another URL, which the document announces as it
//     loads (refreshWatch), is waited for its delay plus RedirectStart
//     when the delay is at most MaxRefreshWait; a longer one is not waited
//     for, and neither is a refresh of the page itself (no URL, or its
//     own): that is a reload.
//
// A navigation that no event or tag announced before the document loaded
// (a script timer at the load event) and that starts before the call has
// its first view is followed too (FollowPage). One that starts after is the
// page's own later one: it passes the navigation guard as every hop does,
// and the next call meets the page it leads to.

// MaxRefreshWait is the longest meta refresh delay a navigation waits for.
const MaxRefreshWait = 2 * time.Second

// announcements are the newest announcements of the main frame's
// documents: a navigation asked for, and a meta refresh.
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

// refreshed is the meta refresh a main-frame document announced as it
// loaded (refreshWatch): which document, and its delay.
type refreshed struct {
	by    cdp.LoaderID
	delay time.Duration
}

// refreshBinding is how refreshWatch tells the tab, from the collector's
// world, where page script cannot call it.
const refreshBinding = "__veetbrowserRefresh"

// refreshWatch runs in the collector's world of every new document. At the
// load event (its listener comes before the page's own) it finds the meta
// refresh the browser follows (the shortest delay, the last of equal ones;
// parsed as Chromium parses it) and, when it leads to another page, sends
// its delay in milliseconds: a Runtime.bindingCalled event that reaches
// the tab before the load event's lifecycle event, so reading it costs no
// round trip, and a page without a refresh sends nothing.
const refreshWatch = `(() => {
  const send = globalThis.` + refreshBinding + `;
  if (typeof send !== "function" || window !== window.top) return;
  addEventListener("load", () => {
    let best = Infinity, self = false;
    for (const m of document.querySelectorAll("meta[http-equiv]")) {
      if (m.httpEquiv.trim().toLowerCase() !== "refresh") continue;
      const r = /^\s*([^\s,;]+)\s*(?:[,;]\s*(?:url\s*=\s*)?(.*))?$/is.exec(m.content);
      const delay = r ? Number(r[1]) : NaN;
      if (!(delay >= 0)) continue;
      let to = (r[2] || "").trim();
      if (/^["']/.test(to)) { const q = to.indexOf(to[0], 1); to = to.slice(1, q < 0 ? undefined : q); }
      let url;
      try { url = new URL(to || location.href, document.baseURI); } catch (e) { continue; }
      if (delay * 1000 > best) continue;
      best = delay * 1000;
      self = url.href.split("#")[0] === location.href.split("#")[0];
    }
    if (best !== Infinity && !self) send(String(best));
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

// noteRefreshLocked records the refresh the main document's collector
// world announced.
func (t *Tab) noteRefreshLocked(ev *runtime.EventBindingCalled) {
	if ev.Name != refreshBinding || ev.ExecutionContextID != t.worldID || t.world == "" {
		return
	}
	ms, err := strconv.ParseFloat(ev.Payload, 64)
	if err != nil || ms < 0 {
		return
	}
	t.announces.refreshed = refreshed{by: t.loader, delay: time.Duration(ms * float64(time.Millisecond))}
}

// announced is how long to wait for a navigation that the loaded document
// of loader announced and that has not started yet; 0 when it announced
// none.
func (t *Tab) announced(loader cdp.LoaderID) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	a, r := t.announces.asked, t.announces.refreshed
	switch {
	case a.by == loader && a.seq == t.navSeq && a.sameDocs == t.traffic.sameDocs:
		return t.timings.RedirectStart
	case r.by == loader && r.delay <= MaxRefreshWait && t.lifecycle[loader] == "load":
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
