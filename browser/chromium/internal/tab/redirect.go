package tab

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
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
//   - A meta refresh to another URL, read from the loaded document, is
//     waited for its delay plus RedirectStart when the delay is at most
//     MaxRefreshWait; a longer one is not waited for, and neither is a
//     refresh of the page itself (no URL, or its own): that is a reload.
//
// A navigation that no event or tag announced before the document loaded
// (a script timer after the load event) is the page's own later one: it
// passes the navigation guard as every hop does, and the next call meets
// the page it leads to.

// MaxRefreshWait is the longest meta refresh delay a navigation waits for.
const MaxRefreshWait = 2 * time.Second

// asked is the newest main-frame navigation the renderer asked for: which
// document asked, and the navigations started so far when it did.
type asked struct {
	by       cdp.LoaderID
	seq      uint64 // navSeq then
	sameDocs uint64 // navigations within the document then
}

// noteAskedLocked records a navigation of the main frame's own tab that its
// renderer asked for. It runs in the event listener and issues no command.
func (t *Tab) noteAskedLocked(ev *page.EventFrameRequestedNavigation) {
	if ev.FrameID != t.mainFrame || ev.Disposition != page.ClientNavigationDispositionCurrentTab {
		return
	}
	t.asked = asked{by: t.loader, seq: t.navSeq, sameDocs: t.traffic.sameDocs}
}

// announced is how long to wait for a navigation that the loaded document
// of loader announced and that has not started yet; 0 when it announced
// none.
func (t *Tab) announced(ctx context.Context, loader cdp.LoaderID) time.Duration {
	t.mu.Lock()
	a, world, loaded := t.asked, t.world, t.lifecycle[loader] == "load"
	waiting := a.by == loader && a.seq == t.navSeq && a.sameDocs == t.traffic.sameDocs
	t.mu.Unlock()
	if waiting {
		return t.timings.RedirectStart
	}
	if !loaded || world == "" {
		// A refresh's timer starts with the load event: a page returned
		// before it has none running.
		return 0
	}
	delay, ok, err := t.metaRefresh(ctx, world)
	if err != nil {
		// The document could not be read: it went away as a navigation
		// committed (a refresh at once outruns the read), whose start may
		// not have been seen yet.
		return t.timings.RedirectStart
	}
	if !ok || delay > MaxRefreshWait {
		return 0
	}
	return delay + t.timings.RedirectStart
}

// refreshScript finds the meta refresh the browser follows (the shortest
// delay, the last of equal ones; parsed as Chromium parses it) and answers
// its delay in milliseconds, or -1 when there is none or it reloads the
// page itself. It runs in the collector's world, which page script cannot
// reach.
const refreshScript = `(() => {
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
  return best === Infinity || self ? -1 : best;
})()`

// metaRefresh reads the document's meta refresh delay; ok is false when it
// has none to follow.
func (t *Tab) metaRefresh(ctx context.Context, world string) (delay time.Duration, ok bool, err error) {
	res, err := cdp.Call(ctx, t.target, runtime.Evaluate, runtime.EvaluateParams{
		Expression: refreshScript, UniqueContextID: world, ReturnByValue: ptr(true), Silent: ptr(true)})
	if err == nil && (res.ExceptionDetails != nil || res.Result == nil) {
		err = errors.New("the meta refresh could not be read")
	}
	if err != nil {
		return 0, false, err
	}
	var ms float64
	if err := json.Unmarshal(res.Result.Value, &ms); err != nil {
		return 0, false, err
	}
	return time.Duration(ms * float64(time.Millisecond)), ms >= 0, nil
}
