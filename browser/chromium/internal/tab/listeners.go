package tab

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/domdebugger"
	"github.com/chromedp/cdproto/runtime"

	"github.com/veetbot/veetbrowser/errcode"
)

// Pointer targets found by their listeners (tool version 1.9.0,
// docs/realpages.md). A page's listeners belong to its main world, where
// the collector cannot see them; CDP reports them from the browser side,
// without running code in the page's world.

// clickTypes are the listener types that make an element a pointer target.
var clickTypes = map[string]bool{"click": true, "mousedown": true, "mouseup": true, "pointerdown": true, "pointerup": true}

// listenerGroup holds the remote objects of one marking, released at its end.
const listenerGroup = "veetbrowser-listeners"

// marks are the elements the collector's world holds marked: the world
// and the elements' backend ids. The session calls MarkListeners one
// observation at a time; marksMu keeps that so.
type marks struct {
	world string
	ids   map[cdp.BackendNodeID]bool
}

// resolvers is how many node resolutions are in flight at once.
const resolvers = 8

// MarkListeners finds the elements of the main document that carry a
// click-type listener (one DOMDebugger.getEventListeners over the whole
// light tree) and marks the first max of them, in the
// order Chromium reports them (the document's), in the collector's world,
// where the next scan reads the marks. It answers how many it found before
// the cap. Its cost: five round trips plus one resolution per element not
// marked by an earlier call, eight in flight, and one more round trip when
// any was.
func (t *Tab) MarkListeners(ctx context.Context, max int) (int, error) {
	octx, end, err := t.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer end()
	if t.Dialog() != nil {
		return 0, ErrDialog
	}
	var world string
	var worldID runtime.ExecutionContextID
	if err := t.waitFor(octx, func() bool { world, worldID = t.world, t.worldID; return world != "" }); err != nil {
		return 0, Classify(octx, err, errcode.CaptureFailed, "the page has no document to observe")
	}
	fail := func(err error) (int, error) {
		return 0, t.stepError(octx, world, err, "the page's listeners could not be read")
	}
	defer t.Release(octx, t.target, listenerGroup)
	doc, err := cdp.Call(octx, t.target, runtime.Evaluate, runtime.EvaluateParams{
		Expression: "document", UniqueContextID: world, ObjectGroup: listenerGroup, Silent: ptr(true)})
	if err != nil || doc.Result == nil || doc.Result.ObjectID == "" {
		return fail(err)
	}
	// Listeners are reported for the world of the object asked about: the
	// page's own are those of its document in the main world, which
	// DOM.resolveNode wraps without running code there. Shadow roots are
	// not pierced: Chromium's pierce reports every world's listeners, and
	// with the collector's world among them the renderer crashes.
	desc, err := cdp.Call(octx, t.target, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: doc.Result.ObjectID})
	if err != nil || desc.Node == nil {
		return fail(err)
	}
	main, err := cdp.Call(octx, t.target, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: desc.Node.BackendNodeID, ObjectGroup: listenerGroup})
	if err != nil || main.Object == nil {
		return fail(err)
	}
	ls, err := cdp.Call(octx, t.target, domdebugger.GetEventListeners, domdebugger.GetEventListenersParams{
		ObjectID: main.Object.ObjectID, Depth: ptr(int64(-1))})
	if err != nil {
		return fail(err)
	}
	seen := map[cdp.BackendNodeID]bool{}
	var ids []cdp.BackendNodeID
	for _, l := range ls.Listeners {
		if !clickTypes[l.Type] || l.BackendNodeID == 0 || seen[l.BackendNodeID] {
			continue
		}
		seen[l.BackendNodeID] = true
		ids = append(ids, l.BackendNodeID)
	}
	found := len(ids)
	ids = ids[:min(len(ids), max)]
	// Only the elements not marked yet are resolved, unless one that was
	// marked lost its listeners or left the document: then all are.
	t.marksMu.Lock()
	defer t.marksMu.Unlock()
	add := t.marks.world == world && t.marks.ids != nil
	if add {
		now := make(map[cdp.BackendNodeID]bool, len(ids))
		for _, id := range ids {
			now[id] = true
		}
		for id := range t.marks.ids {
			add = add && now[id]
		}
	}
	if add {
		ids = slices.DeleteFunc(ids, func(id cdp.BackendNodeID) bool { return t.marks.ids[id] })
	} else {
		t.marks.world, t.marks.ids = "", nil
	}
	args := make([]*runtime.CallArgument, len(ids))
	var wg sync.WaitGroup
	next := make(chan int)
	for range resolvers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				// A node of another frame's document does not resolve in
				// this world: it is left out.
				r, err := cdp.Call(octx, t.target, dom.ResolveNode, dom.ResolveNodeParams{
					BackendNodeID: ids[i], ExecutionContextID: worldID, ObjectGroup: listenerGroup})
				if err == nil && r.Object != nil {
					args[i] = &runtime.CallArgument{ObjectID: r.Object.ObjectID}
				}
			}
		}()
	}
	for i := range ids {
		next <- i
	}
	close(next)
	wg.Wait()
	kept := args[:0]
	for _, a := range args {
		if a != nil {
			kept = append(kept, a)
		}
	}
	if add && len(kept) == 0 {
		return found, nil
	}
	res, err := cdp.Call(octx, t.target, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fmt.Sprintf("function(...els) { return globalThis.__veetbrowser.markListened(%v, ...els); }", add),
		ExecutionContextID:  worldID, Arguments: kept, ReturnByValue: ptr(true), Silent: ptr(true)})
	if err != nil {
		return fail(err)
	}
	if res.ExceptionDetails != nil {
		return fail(errcode.New(errcode.CaptureFailed, "the listener marks were refused"))
	}
	var n int
	if err := json.Unmarshal(res.Result.Value, &n); err != nil || n != len(kept) {
		return fail(errcode.New(errcode.CaptureFailed, "the listener marks were not all taken"))
	}
	if t.marks.ids == nil {
		t.marks.world, t.marks.ids = world, map[cdp.BackendNodeID]bool{}
	}
	for i, a := range args {
		if a != nil {
			t.marks.ids[ids[i]] = true
		}
	}
	return found, nil
}
