package tab

import (
	"context"
	"errors"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	cdptarget "github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Dedicated workers, held until guarded (docs/navigation.md). A worker has
// no document, so the guards a document gets before its scripts run
// (Page.addScriptToEvaluateOnNewDocument) never reach it, and Fetch does
// not pause its WebSocket handshakes. Where the tab has a WebSocket guard
// (no egress proxy: requests.go), the browser session creates the
// dedicated workers of the tab's page and of its out-of-process frames
// paused (Target.autoAttachRelated with waitForDebuggerOnStart; the tab's
// own session cannot hold them, as its auto-attach would hold its frames
// too). The tab hears of each worker on the session of its page or frame
// (chromedp auto-attaches there without holding), attaches a session of
// its own, runs the guard in the worker and only then resumes it
// (Runtime.runIfWaitingForDebugger). A worker it cannot guard within
// FrameAttach is never resumed: its script never runs (Chromium cannot
// close a worker target). Its requests are paused by the Fetch of the
// session it belongs to, as before.
//
// Shared workers are not held this way: the browser session's own
// auto-attach, which would hold them, cancels autoAttachRelated, and
// neither Fetch on a page's session nor on the shared worker's own
// session pauses a shared worker's requests. Where the session refuses
// service workers, the tab takes the SharedWorker constructor away instead
// (requests.go).

// noNestedWorkers takes the Worker constructor from a held worker: only
// the page's and its frames' workers are held, so a worker's own would
// run unguarded.
const noNestedWorkers = `(() => { try { delete globalThis.Worker; } catch (e) {} })();`

// holdWorkers makes the browser create the dedicated workers of target (the
// tab's page or one of its frames) paused, when the tab guards them.
func (t *Tab) holdWorkers(ctx context.Context, target cdptarget.ID) error {
	if t.wsGuard == "" {
		return nil
	}
	_, err := cdp.Call(ctx, t.Browser(), cdptarget.AutoAttachRelated, cdptarget.AutoAttachRelatedParams{
		TargetID: target, WaitForDebuggerOnStart: true,
		Filter: cdptarget.Filter{{Type: "worker"}, {Exclude: true}},
	})
	return err
}

// noteWorkerLocked starts guarding a worker the tab's page or one of its
// frames created; it runs in an event listener.
func (t *Tab) noteWorkerLocked(info *cdptarget.Info) {
	if info.Type == "worker" && t.wsGuard != "" {
		go t.guardWorker(info.TargetID)
	}
}

// guardWorker runs the WebSocket guard in worker id, then resumes it. A
// worker that was not held (one created before the hold) has run already:
// it gets the guard late, and the resume does nothing.
func (t *Tab) guardWorker(id cdptarget.ID) {
	// Cancelling detaches: the worker belongs to the page.
	wctx, cancel := chromedp.NewContext(t.ctx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	defer cancel()
	if err := t.attachWithin(wctx, cancel); err != nil {
		return
	}
	ctx, stop := context.WithTimeout(wctx, t.timings.FrameAttach)
	defer stop()
	target := chromedp.FromContext(wctx).Target
	res, err := cdp.Call(ctx, target, runtime.Evaluate, runtime.EvaluateParams{Expression: t.wsGuard + noNestedWorkers, Silent: ptr(true)})
	if err != nil || res.ExceptionDetails != nil {
		return
	}
	cdp.Call(ctx, target, runtime.RunIfWaitingForDebugger, cdp.Empty{})
}

// attachWithin attaches the new context fctx to its target, within
// FrameAttach; cancel is fctx's. The first run binds the target to the
// context it gets, so it gets fctx itself, and its wait is bounded from
// outside.
func (t *Tab) attachWithin(fctx context.Context, cancel context.CancelFunc) error {
	attached := make(chan error, 1)
	go func() { attached <- chromedp.Do(fctx) }()
	timer := time.NewTimer(t.timings.FrameAttach)
	defer timer.Stop()
	select {
	case err := <-attached:
		return err
	case <-timer.C:
		cancel()
		if err := <-attached; err != nil {
			return err
		}
		return errors.New("attaching took longer than FrameAttach")
	}
}
