package tab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/domdebugger"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// Pointer targets found by their listeners (tool version 1.9.0,
// docs/realpages.md). A page's listeners belong to its main world, where
// the collector cannot see them; CDP reports them from the browser side,
// without running code in the page's world.

// clickTypes are the listener types that make an element a pointer target.
var clickTypes = map[string]bool{"click": true, "mousedown": true, "mouseup": true, "pointerdown": true, "pointerup": true}

// listenerGroup prefixes the object group of one marking, which holds its
// remote objects until its end. Each marking has a group of its own
// (markGroup), so that the release of one, which the next command on the
// target does not wait for, never takes another's objects.
const listenerGroup = "veetbrowser-listeners"

// markGroup is a new marking's object group.
func (t *Tab) markGroup() string {
	return fmt.Sprintf("%s-%d", listenerGroup, t.markings.Add(1))
}

// Released waits for what a marking sends after its end: the resolution
// of its document's node for the next marking, when it found that node
// only now (markIn). The caller sends its next command (the collector's)
// without waiting for it, and calls Released once that command answered.
type Released func()

// Marking is what one marking did: how many elements it found before the
// cap; whether it changed the marks in the page, so that a collector call
// sent beside it, which may have run before it, may have seen other marks
// than it left (Session.observe); and the wait for what it sends after its
// end (Released).
type Marking struct {
	Found    int
	Changed  bool
	Released Released
}

// MarkedBefore reports whether the page's current document holds a
// complete marking and is not large (observation.ListenerNodes): its next
// marking lists it at the same time as the shadow roots' query, and most
// likely finds what it marked before.
func (t *Tab) MarkedBefore() bool {
	t.mu.Lock()
	world := t.world
	t.mu.Unlock()
	return t.markedBefore(&t.marks, world)
}

// FrameMarkedBefore is MarkedBefore for frame v's document, as the view
// was taken.
func (t *Tab) FrameMarkedBefore(v FrameView) bool {
	return v.marks != nil && t.markedBefore(v.marks, v.World)
}

// markedBefore reports whether mk holds a complete marking of world's
// document, which is not large.
func (t *Tab) markedBefore(mk *marks, world string) bool {
	t.marksMu.Lock()
	defer t.marksMu.Unlock()
	return world != "" && mk.listed == world && mk.docWorld == world && !mk.large
}

// marks are the elements the collector's world holds marked: the world
// and the elements' backend ids. The session calls MarkListeners one
// observation at a time; marksMu keeps that so.
type marks struct {
	world string
	ids   map[cdp.BackendNodeID]bool
	// doc is the document node of docWorld's document, learnt by the
	// world's first marking: the later ones ask for its listeners
	// without finding it again, two round trips fewer.
	docWorld string
	doc      cdp.BackendNodeID
	// listed is the world of the last complete marking, found what it
	// found: with keep, a large document that gained no element since is
	// not listed again (MarkListeners).
	listed string
	found  int
	// large: the collector found the document of the last complete
	// marking large (over observation.ListenerNodes elements), so that
	// with keep it may need no listing: it is listed after the shadow
	// roots' query, not at the same time.
	large bool
	// ahead is doc resolved for the next marking, in that marking's
	// object group, beside the last one's commands or after its end: the
	// next marking asks for the document's listeners at once, while the
	// collector lists the shadow roots, one round trip fewer.
	ahead ahead
	// done is the object group of the last complete marking, which the
	// next one releases beside its own commands.
	done string
	// temporary: marks no registry holds (a view made by hand), for which
	// nothing is resolved ahead, since no later marking would release it.
	temporary bool
}

// ahead is a document's node resolved ahead in world, in group.
type ahead struct {
	world string
	group string
	obj   runtime.RemoteObjectID
}

// resolvers is how many node resolutions are in flight at once.
const resolvers = 8

// MarkListeners finds the elements of the main document that carry a
// click-type listener (one DOMDebugger.getEventListeners over the whole
// light tree, and one per open shadow root, of the first
// observation.ListenerRoots) and marks the first max of them, the light
// tree's in the order Chromium reports them (the document's), then each
// shadow root's, in the collector's world, where the next scan reads the
// marks. It answers how many it found before the cap, whether it changed
// the marks, and a wait the caller calls after its next command
// (Released). Its cost on a document it marked before: four round trips,
// all sent at once: the shadow roots' query, the document's listing (its
// node resolved ahead by the marking before), the release of the marking
// before's objects and the resolution of the node for the next one. A
// document's first marking costs five one after the other (finding its
// node takes three more, beside the shadow roots' query), and the
// resolution for the next marking runs beside the caller's next command.
// One more and
// three per shadow root when there are any, plus one resolution per
// element not marked by an earlier call, eight in flight, and one more
// round trip when any was.
//
// With keep (tool version 1.10.0), a document of more than
// observation.ListenerNodes elements to which no element was added since
// its last marking is not listed again: its marks stay, at one round trip
// (docs/realpages.md). Without keep, or below the bound, every call lists.
func (t *Tab) MarkListeners(ctx context.Context, max int, keep bool) (Marking, error) {
	octx, end, err := t.Begin(ctx)
	if err != nil {
		return Marking{}, err
	}
	defer end()
	if t.Dialog() != nil {
		return Marking{}, ErrDialog
	}
	var world string
	var worldID runtime.ExecutionContextID
	if err := t.waitFor(octx, func() bool { world, worldID = t.world, t.worldID; return world != "" }); err != nil {
		return Marking{}, Classify(octx, err, errcode.CaptureFailed, "the page has no document to observe")
	}
	m, err := t.markIn(octx, t.target, world, worldID, max, keep, &t.marks)
	if err != nil {
		return Marking{}, t.stepError(octx, world, err, "the page's listeners could not be read")
	}
	return m, nil
}

// MarkFrameListeners marks the elements with click-type listeners of
// frame v's document in its collector world, as MarkListeners does for the
// top document, at most max of them. A frame keeps its marks between
// calls as the top document does (its document's node, the elements
// marked), so that observing it again costs the same round trips, but it
// is listed on every call: kept listings are the top document's alone.
func (t *Tab) MarkFrameListeners(ctx context.Context, v FrameView, max int) (Marking, error) {
	octx, end, err := t.Begin(ctx)
	if err != nil {
		return Marking{}, err
	}
	defer end()
	if t.Dialog() != nil {
		return Marking{}, ErrDialog
	}
	if v.Target == nil || v.World == "" {
		return Marking{}, errcode.New(errcode.CaptureFailed, "the frame has no document")
	}
	mk := v.marks
	if mk == nil {
		mk = &marks{temporary: true} // a view not taken from the registry
	}
	octx, stop := t.within(octx, v.Target)
	defer stop()
	return t.markIn(octx, v.Target, v.World, v.WorldID, max, false, mk)
}

// clickListeners are the elements under the collector-world object obj
// (a document or a shadow root) that have a click-type listener of the
// page's, in the order Chromium reports them; a listener on obj itself is
// a delegation root and left out.
func (t *Tab) clickListeners(octx context.Context, target *chromedp.Target, obj runtime.RemoteObjectID, group string) ([]cdp.BackendNodeID, cdp.BackendNodeID, error) {
	desc, err := cdp.Call(octx, target, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: obj})
	if err != nil || desc.Node == nil {
		return nil, 0, fmt.Errorf("describing the listeners' root: %v", err)
	}
	main, err := t.resolveMain(octx, target, desc.Node.BackendNodeID, group)
	if err != nil {
		return nil, 0, err
	}
	ids, err := t.nodeListeners(octx, target, main, desc.Node.BackendNodeID)
	return ids, desc.Node.BackendNodeID, err
}

// Listings is how many listener queries (DOMDebugger.getEventListeners)
// the tab has made: what a kept marking saves.
func (t *Tab) Listings() int64 { return t.listings.Load() }

// resolveMain is the page's own (main world) object of the node of
// backend id node, in group. Listeners are reported for the world of the
// object asked about: the page's own are those of the node in the main
// world, which DOM.resolveNode wraps without running code there. The
// object group is what makes Chromium report each listener's node.
func (t *Tab) resolveMain(octx context.Context, target *chromedp.Target, node cdp.BackendNodeID, group string) (runtime.RemoteObjectID, error) {
	main, err := cdp.Call(octx, target, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: node, ObjectGroup: group})
	if err != nil || main.Object == nil {
		return "", fmt.Errorf("resolving the listeners' root: %v", err)
	}
	return main.Object.ObjectID, nil
}

// nodeListeners are clickListeners' answer for main, the page's object of
// the root of backend id node. Shadow roots are not pierced: Chromium's
// pierce reports every world's listeners, and with the collector's world
// among them the renderer crashes; each root is asked about on its own
// instead.
func (t *Tab) nodeListeners(octx context.Context, target *chromedp.Target, main runtime.RemoteObjectID, node cdp.BackendNodeID) ([]cdp.BackendNodeID, error) {
	t.listings.Add(1)
	ls, err := cdp.Call(octx, target, domdebugger.GetEventListeners, domdebugger.GetEventListenersParams{
		ObjectID: main, Depth: ptr(int64(-1))})
	if err != nil {
		return nil, err
	}
	var ids []cdp.BackendNodeID
	for _, l := range ls.Listeners {
		if clickTypes[l.Type] && l.BackendNodeID != 0 && l.BackendNodeID != node {
			ids = append(ids, l.BackendNodeID)
		}
	}
	return ids, nil
}

// markIn marks, in the collector world of one document, its elements with
// click-type listeners (MarkListeners); mk keeps what is marked there. The
// marking's objects are in a group of its own. A marking that failed
// releases it before it returns; one that succeeded leaves it to the next
// marking of mk, which releases it beside its own first commands
// (marks.done), so that no observation waits for a release. A marking of a
// document it has found before resolves the document's node for the next
// marking beside its own first commands too (marks.ahead), and one that
// found it now after its end, which Released waits for.
func (t *Tab) markIn(octx context.Context, target *chromedp.Target, world string, worldID runtime.ExecutionContextID, max int, keep bool, mk *marks) (Marking, error) {
	t.marksMu.Lock()
	a, done := mk.ahead, mk.done
	mk.ahead, mk.done = ahead{}, ""
	// A document found before is listed at once (mark), unless kept large.
	early := mk.docWorld == world && mk.doc != 0 && !mk.temporary && !(keep && mk.listed == world && mk.large)
	t.marksMu.Unlock()
	var beside sync.WaitGroup
	release := func(group string) {
		if group != "" {
			beside.Go(func() { t.Release(octx, target, group) })
		}
	}
	// The groups of the marking before, and one resolved ahead for a
	// document gone since: released beside the commands of a marking of
	// the same document, after those of a new document's, which are more
	// and wait on a renderer that has just loaded it.
	old := []string{done}
	if a.world != world {
		old = append(old, a.group)
		a = ahead{group: t.markGroup()}
	}
	releaseOld := func() {
		for _, g := range old {
			release(g)
		}
		old = nil
	}
	var next ahead
	if early {
		releaseOld()
		beside.Go(func() { next = t.resolveAhead(octx, target, world, mk) })
	}
	n, listed, changed, err := t.mark(octx, target, world, worldID, max, keep, mk, a.group, a.obj)
	beside.Wait()
	if err != nil || (!listed && a.obj != "") || mk.temporary {
		release(next.group)
		next = ahead{}
	}
	if err != nil {
		release(a.group)
		releaseOld()
		beside.Wait()
		return Marking{}, err
	}
	if !listed && a.obj != "" {
		// Unused: it stays ahead.
		releaseOld()
		beside.Wait()
		t.marksMu.Lock()
		mk.ahead = a
		t.marksMu.Unlock()
		return Marking{Found: n, Released: func() {}}, nil
	}
	if mk.temporary {
		// No later marking holds these marks: released now.
		release(a.group)
		releaseOld()
		beside.Wait()
		return Marking{Found: n, Changed: changed, Released: func() {}}, nil
	}
	t.marksMu.Lock()
	mk.done = a.group
	mk.ahead = next
	t.marksMu.Unlock()
	if early {
		return Marking{Found: n, Changed: changed, Released: func() {}}, nil
	}
	resolved := make(chan struct{})
	go func() {
		defer close(resolved)
		releaseOld()
		beside.Go(func() {
			if next := t.resolveAhead(octx, target, world, mk); next.obj != "" {
				t.marksMu.Lock()
				mk.ahead = next
				t.marksMu.Unlock()
			}
		})
		beside.Wait()
	}()
	return Marking{Found: n, Changed: changed, Released: func() { <-resolved }}, nil
}

// resolveAhead resolves the document's node of world for mk's next
// marking, in that marking's object group (marks.ahead), bounded as a
// cleanup: it runs beside a marking's commands or after its end. Nothing
// (and nothing held) when mk has not found the document of world.
func (t *Tab) resolveAhead(octx context.Context, target *chromedp.Target, world string, mk *marks) ahead {
	t.marksMu.Lock()
	doc := mk.doc
	if mk.docWorld != world || mk.temporary {
		doc = 0
	}
	t.marksMu.Unlock()
	if doc == 0 {
		return ahead{}
	}
	cctx, cancel := t.cleanupOn(octx, target)
	defer cancel()
	next := ahead{world: world, group: t.markGroup()}
	obj, err := t.resolveMain(cctx, target, doc, next.group)
	if err != nil {
		t.Release(octx, target, next.group)
		return ahead{}
	}
	next.obj = obj
	return next
}

// firstListing lists the listeners of world's document, which mk has not
// marked yet, and keeps its node's backend id in mk.
func (t *Tab) firstListing(octx context.Context, target *chromedp.Target, world string, mk *marks, group string) ([]cdp.BackendNodeID, error) {
	d, err := cdp.Call(octx, target, runtime.Evaluate, runtime.EvaluateParams{
		Expression: "document", UniqueContextID: world, ObjectGroup: group, Silent: ptr(true)})
	if err != nil || d.Result == nil || d.ExceptionDetails != nil {
		return nil, fmt.Errorf("evaluating the document: %v", err)
	}
	if d.Result.ObjectID == "" {
		return nil, errors.New("the document did not resolve")
	}
	ids, node, err := t.clickListeners(octx, target, d.Result.ObjectID, group)
	if err != nil {
		return nil, err
	}
	t.marksMu.Lock()
	mk.docWorld, mk.doc = world, node
	t.marksMu.Unlock()
	return ids, nil
}

// mark is markIn with its objects in group; main, when not "", is the
// document's node resolved ahead in group. It answers whether it listed the
// document's listeners, and whether it changed the marks in the page.
func (t *Tab) mark(octx context.Context, target *chromedp.Target, world string, worldID runtime.ExecutionContextID, max int, keep bool, mk *marks, group string, main runtime.RemoteObjectID) (int, bool, bool, error) {
	t.marksMu.Lock()
	doc := mk.doc
	if mk.docWorld != world {
		doc = 0
	}
	keep = keep && mk.listed == world
	after := keep && mk.large
	found := mk.found
	mk.listed = "" // until this marking is complete
	t.marksMu.Unlock()
	// The document's own listing: its node resolved ahead (marks.ahead),
	// else resolved first. A node resolved ahead that no longer answers
	// (its document changed under the same world) is resolved again. A
	// document marked for the first time has its node found first.
	listDoc := func() ([]cdp.BackendNodeID, error) {
		if doc == 0 {
			return t.firstListing(octx, target, world, mk, group)
		}
		if main != "" {
			if ids, err := t.nodeListeners(octx, target, main, doc); err == nil {
				return ids, nil
			}
		}
		m, err := t.resolveMain(octx, target, doc, group)
		if err != nil {
			return nil, err
		}
		return t.nodeListeners(octx, target, m, doc)
	}
	// The document is listed while the collector lists the shadow roots:
	// the round trips overlap. A large one that may be kept is listed
	// after, only if the collector says it changed: a kept listing is what
	// spares a large document's.
	var all []cdp.BackendNodeID
	var listErr error
	listed := make(chan struct{})
	go func() {
		defer close(listed)
		if !after {
			all, listErr = listDoc()
		}
	}()
	r, err := cdp.Call(octx, target, runtime.Evaluate, runtime.EvaluateParams{
		Expression: fmt.Sprintf("globalThis.__veetbrowser.listenerRoots(%v)", keep), UniqueContextID: world,
		ObjectGroup: group, Silent: ptr(true)})
	<-listed
	if err == nil && r.Result != nil && r.ExceptionDetails == nil && keep && string(r.Result.Value) == `"unchanged"` {
		t.marksMu.Lock()
		mk.listed = world
		t.marksMu.Unlock()
		return found, false, false, nil
	}
	if err != nil || r.Result == nil || r.ExceptionDetails != nil {
		return 0, true, true, fmt.Errorf("listing the shadow roots: %v", err)
	}
	var roots []runtime.RemoteObjectID
	large := string(r.Result.Value) == `"large"`
	if r.Result.ObjectID != "" {
		props, err := cdp.Call(octx, target, runtime.GetProperties, runtime.GetPropertiesParams{ObjectID: r.Result.ObjectID, OwnProperties: ptr(true)})
		if err != nil {
			return 0, true, true, err
		}
		for _, p := range props.Result {
			if p.Value != nil && p.Value.ObjectID != "" && p.Value.Subtype == "node" && len(roots) < observation.ListenerRoots {
				roots = append(roots, p.Value.ObjectID)
			}
			large = large || p.Name == "large"
		}
	}
	if after {
		all, listErr = listDoc()
	}
	if listErr != nil {
		return 0, true, true, listErr
	}
	for _, root := range roots {
		ids, _, err := t.clickListeners(octx, target, root, group)
		if err != nil {
			return 0, true, true, err
		}
		all = append(all, ids...)
	}
	seen := map[cdp.BackendNodeID]bool{}
	var ids []cdp.BackendNodeID
	for _, id := range all {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	found = len(ids)
	ids = ids[:min(len(ids), max)]
	// Only the elements not marked yet are resolved, unless one that was
	// marked lost its listeners or left the document: then all are.
	t.marksMu.Lock()
	defer t.marksMu.Unlock()
	add := mk.world == world && mk.ids != nil
	if add {
		now := make(map[cdp.BackendNodeID]bool, len(ids))
		for _, id := range ids {
			now[id] = true
		}
		for id := range mk.ids {
			add = add && now[id]
		}
	}
	if add {
		ids = slices.DeleteFunc(ids, func(id cdp.BackendNodeID) bool { return mk.ids[id] })
	} else {
		mk.world, mk.ids = "", nil
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
				r, err := cdp.Call(octx, target, dom.ResolveNode, dom.ResolveNodeParams{
					BackendNodeID: ids[i], ExecutionContextID: worldID, ObjectGroup: group})
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
		mk.listed, mk.found, mk.large = world, found, large
		return found, true, false, nil
	}
	res, err := cdp.Call(octx, target, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fmt.Sprintf("function(...els) { return globalThis.__veetbrowser.markListened(%v, ...els); }", add),
		ExecutionContextID:  worldID, Arguments: kept, ReturnByValue: ptr(true), Silent: ptr(true)})
	if err != nil {
		return 0, true, true, err
	}
	if res.ExceptionDetails != nil {
		return 0, true, true, errcode.New(errcode.CaptureFailed, "the listener marks were refused")
	}
	var n int
	if err := json.Unmarshal(res.Result.Value, &n); err != nil || n != len(kept) {
		return 0, true, true, errcode.New(errcode.CaptureFailed, "the listener marks were not all taken")
	}
	if mk.ids == nil {
		mk.world, mk.ids = world, map[cdp.BackendNodeID]bool{}
	}
	for i, a := range args {
		if a != nil {
			mk.ids[ids[i]] = true
		}
	}
	mk.listed, mk.found, mk.large = world, found, large
	return found, true, true, nil
}
