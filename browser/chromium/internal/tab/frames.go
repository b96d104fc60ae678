package tab

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	cdptarget "github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
)

// The frame registry (tool version 1.7.0, docs/frames.md). Every child
// frame of the tab is known by its frame id, with the CDP session its
// document lives in: the tab's own for a frame in the page's process, the
// frame's own target for a cross-origin frame that site isolation runs in
// another process (an OOPIF). Chromium announces an OOPIF to the session of
// its parent (auto-attach); the tab then attaches to it with a session of
// its own and installs the collector there, as it does for the page. The
// listeners only record state; attaching runs in its own goroutine.

// frameSession is one CDP session frames live in; its fields are guarded
// by Tab.mu.
type frameSession struct {
	target  *chromedp.Target // nil until attached
	life    context.Context  // ends when the session does
	cancel  context.CancelFunc
	crashed bool
}

// frame is one child frame and its collector world, guarded by Tab.mu.
type frame struct {
	id      cdp.FrameID
	parent  cdp.FrameID
	session *frameSession // the session its document lives in
	world   string        // unique id of its collector world; "" between documents
	worldID runtime.ExecutionContextID
	url     string
	origin  string
	// navigatedIn: the session whose frameNavigated event set url and
	// origin; a frame tree read from that session earlier is older.
	navigatedIn *frameSession
	// named: the parent world its element was named in (nameFrame), so
	// that it is named once per parent document.
	named string
	// marks: the listener marks of its collector world, guarded by
	// Tab.marksMu (MarkFrameListeners).
	marks marks
}

// onFrameEventLocked records what an event of session s says about child
// frames; it reports whether the tab's state changed.
func (t *Tab) onFrameEventLocked(s *frameSession, ev any) bool {
	switch ev := ev.(type) {
	case *page.EventFrameAttached:
		if ev.ParentFrameID == "" {
			return false
		}
		f := t.frameLocked(ev.FrameID)
		f.parent = ev.ParentFrameID
		return true
	case *page.EventFrameNavigated:
		if ev.Frame.ParentID == "" && s == t.session {
			t.forgetFramesBelowLocked(ev.Frame.ID)
			return false // the main frame: tab.onEvent
		}
		f := t.frameLocked(ev.Frame.ID)
		if ev.Frame.ParentID != "" {
			f.parent = ev.Frame.ParentID
		}
		f.url, f.origin, f.navigatedIn = ev.Frame.URL, ev.Frame.SecurityOrigin, s
		t.forgetFramesBelowLocked(ev.Frame.ID)
		return true
	case *page.EventFrameDetached:
		if ev.Reason == page.FrameDetachedReasonSwap {
			return false // it goes on in another process
		}
		delete(t.frames, ev.FrameID)
		return true
	case *runtime.EventExecutionContextCreated:
		if ev.Context.Name != collect.WorldName {
			return false
		}
		var aux struct {
			FrameID cdp.FrameID `json:"frameId"`
		}
		if json.Unmarshal(ev.Context.AuxData, &aux) != nil || aux.FrameID == t.mainFrame {
			return false
		}
		f := t.frameLocked(aux.FrameID)
		f.session, f.world, f.worldID, f.named = s, ev.Context.UniqueID, ev.Context.ID, ""
		return true
	case *runtime.EventExecutionContextDestroyed:
		for _, f := range t.frames {
			if f.world == ev.ExecutionContextUniqueID {
				f.world = ""
			}
		}
		return true
	case *runtime.EventExecutionContextsCleared:
		t.clearWorldsLocked(s)
		return true
	case *cdptarget.EventAttachedToTarget:
		if ev.TargetInfo.Type == "iframe" && t.withFrames {
			go t.attachFrame(ev.TargetInfo.TargetID)
		}
		t.noteWorkerLocked(ev.TargetInfo)
		return false
	case *cdptarget.EventTargetDestroyed:
		if c, ok := t.frameSessions[ev.TargetID]; ok {
			delete(t.frameSessions, ev.TargetID)
			go c.cancel() // it may wait on the reader this runs on
			t.clearWorldsLocked(c)
			return true
		}
		return false
	case *inspector.EventTargetCrashed:
		if s == t.session {
			return false // the page's renderer: tab.onEvent
		}
		s.crashed = true
		t.clearWorldsLocked(s)
		return true
	}
	return false
}

// clearWorldsLocked forgets the collector worlds of the frames whose
// documents live in session s: its documents are gone, or it is.
func (t *Tab) clearWorldsLocked(s *frameSession) {
	for _, f := range t.frames {
		if f.session == s {
			f.world = ""
		}
	}
}

// forgetFramesBelowLocked forgets the frames below frame id, whose new
// document has replaced the one that held them. Chromium announces the
// detach of a frame in the parent's process, but not of a cross-site one
// whose process ended with the parent's document: kept, such a frame was
// looked for again (nameFrame) on every later observation of the tab.
func (t *Tab) forgetFramesBelowLocked(id cdp.FrameID) {
	children := map[cdp.FrameID][]cdp.FrameID{}
	for _, f := range t.frames {
		children[f.parent] = append(children[f.parent], f.id)
	}
	below := children[id]
	for len(below) > 0 {
		c := below[len(below)-1]
		below = below[:len(below)-1]
		if _, ok := t.frames[c]; ok {
			delete(t.frames, c)
			below = append(below, children[c]...)
		}
	}
}

// frameLocked returns the frame of id, registering it if new.
func (t *Tab) frameLocked(id cdp.FrameID) *frame {
	f, ok := t.frames[id]
	if !ok {
		f = &frame{id: id, session: t.session}
		t.frames[id] = f
	}
	return f
}

// attachFrame attaches to an out-of-process frame's target and installs
// the collector in it, for its documents to come and the one it has.
func (t *Tab) attachFrame(id cdptarget.ID) {
	t.mu.Lock()
	t.attaching++
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		t.attaching--
		t.changedLocked()
		t.mu.Unlock()
	}()
	s := &frameSession{}
	listen := func(ev any) {
		if ev, ok := ev.(*fetch.EventRequestPaused); ok {
			// Only the request guard pauses a frame session's requests.
			t.mu.Lock()
			target := s.target
			t.mu.Unlock()
			go t.decideFrameRequest(target, ev)
			return
		}
		if ev, ok := ev.(*fetch.EventAuthRequired); ok {
			t.mu.Lock()
			target := s.target
			t.mu.Unlock()
			if target != nil {
				go t.answerAuth(target, ev)
			}
			return
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.onFrameEventLocked(s, ev) {
			t.changedLocked()
		}
	}
	// Cancelling detaches: the frame belongs to the page, not to us.
	fctx, cancel := chromedp.NewContext(t.ctx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel(), chromedp.WithListener(listen))
	s.life, s.cancel = fctx, cancel
	t.mu.Lock()
	if old, ok := t.frameSessions[id]; ok {
		t.clearWorldsLocked(old)
		old.cancel()
	}
	t.frameSessions[id] = s
	t.mu.Unlock()
	if err := t.attachWithin(fctx, cancel); err != nil {
		t.dropFrameSession(id, s)
		return
	}
	ctx, stop := context.WithTimeout(fctx, t.timings.FrameAttach)
	defer stop()
	target := chromedp.FromContext(fctx).Target
	t.mu.Lock()
	s.target = target
	t.mu.Unlock()
	if err := t.holdWorkers(ctx, id); err != nil {
		t.dropFrameSession(id, s)
		return
	}
	if err := t.guardFrameSession(ctx, target); err != nil {
		t.dropFrameSession(id, s)
		return
	}
	tree, err := cdp.Call(ctx, target, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		t.dropFrameSession(id, s)
		return
	}
	// Its documents loaded before the session existed.
	if _, err := cdp.Call(ctx, target, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: collect.Script, WorldName: collect.WorldName,
	}); err != nil || t.installWorlds(ctx, s, target, tree.FrameTree) != nil {
		t.dropFrameSession(id, s)
		return
	}
	t.wake()
}

// installWorlds records the frames of tree, a snapshot of session s's
// frames (on target), and creates the collector's world in each of their
// documents. A child frame of the snapshot may have left the session
// since: a cross-site child starts in its parent's process and moves to a
// process of its own when its document commits, and a world asked for it
// then finds no frame. Its own session installs the collector there, and
// one still here gets it with its next document, so only the session's
// own frame must take it: dropping the session for a child that left
// would leave the frame without a session for good.
func (t *Tab) installWorlds(ctx context.Context, s *frameSession, target *chromedp.Target, tree *page.FrameTree) error {
	var install func(ft *page.FrameTree) error
	install = func(ft *page.FrameTree) error {
		t.mu.Lock()
		f := t.frameLocked(ft.Frame.ID)
		if ft.Frame.ParentID != "" {
			f.parent = ft.Frame.ParentID
		}
		// The tree is a snapshot taken once the session's events flowed:
		// a document that committed since (its frameNavigated, already
		// recorded) is newer. Overwritten, a frame read before its
		// document committed kept the URL ":" and an opaque origin.
		if f.navigatedIn != s {
			f.url, f.origin = ft.Frame.URL, ft.Frame.SecurityOrigin
		}
		t.mu.Unlock()
		if err := createWorld(ctx, target, ft.Frame.ID); err != nil && ft == tree {
			return err
		}
		for _, c := range ft.ChildFrames {
			if err := install(c); err != nil {
				return err
			}
		}
		return nil
	}
	return install(tree)
}

// dropFrameSession detaches session s of target id: the frames whose
// documents live in it have no world until another session gives them one.
func (t *Tab) dropFrameSession(id cdptarget.ID, s *frameSession) {
	t.mu.Lock()
	if t.frameSessions[id] == s {
		delete(t.frameSessions, id)
	}
	t.clearWorldsLocked(s)
	t.mu.Unlock()
	s.cancel()
}

// errSessionGone: the frame's session was detached or replaced.
var errSessionGone = errors.New("the frame's session is gone")

// within bounds a call on target, the page's session or a frame's, by the
// session's life. A call on a session that ended would wait for ctx alone:
// chromedp stops reading a target's messages once its context ends, before
// the detach that ending sends reaches the target, and the browser answers
// a command on a detached session without naming the session, so no answer
// and no detach ever reaches the call. A target the tab no longer holds
// (dropped, replaced or destroyed) gets a context that has ended.
func (t *Tab) within(ctx context.Context, target *chromedp.Target) (context.Context, context.CancelFunc) {
	var life context.Context
	t.mu.Lock()
	for _, s := range t.frameSessions {
		if s.target == target && target != nil {
			life = s.life
		}
	}
	if target == t.target {
		life = t.ctx
	}
	t.mu.Unlock()
	cctx, cancel := context.WithCancelCause(ctx)
	if life == nil {
		cancel(errSessionGone)
		return cctx, func() {}
	}
	stop := context.AfterFunc(life, func() { cancel(errSessionGone) })
	return cctx, func() {
		stop()
		cancel(nil)
	}
}

// createWorld creates the collector's world in frame's current document.
func createWorld(ctx context.Context, target *chromedp.Target, frame cdp.FrameID) error {
	w, err := cdp.Call(ctx, target, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{
		FrameID: frame, WorldName: collect.WorldName,
	})
	if err != nil {
		return err
	}
	res, err := cdp.Call(ctx, target, runtime.Evaluate, runtime.EvaluateParams{
		Expression: collect.Script, ContextID: w.ExecutionContextID, Silent: ptr(true),
	})
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return errors.New("collector: " + res.ExceptionDetails.Text)
	}
	return nil
}

// FrameView is a child frame as one observation sees it: a copy taken
// under the lock.
type FrameView struct {
	ID      cdp.FrameID
	Parent  cdp.FrameID
	Target  *chromedp.Target // the session its document lives in; nil until attached
	World   string           // unique id of its collector world; "" between documents
	WorldID runtime.ExecutionContextID
	URL     string
	Origin  string
	Crashed bool
	named   string
	marks   *marks
}

// childFrames returns the known child frames of parent.
func (t *Tab) childFrames(parent cdp.FrameID) []FrameView {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []FrameView
	for _, f := range t.frames {
		if f.parent != parent {
			continue
		}
		out = append(out, t.viewLocked(f))
	}
	return out
}

func (t *Tab) viewLocked(f *frame) FrameView {
	return FrameView{ID: f.id, Parent: f.parent, Target: f.session.target, World: f.world, WorldID: f.worldID,
		URL: f.url, Origin: f.origin, Crashed: f.session.crashed, named: f.named, marks: &f.marks}
}

// Frame returns the frame of id as it is now.
func (t *Tab) Frame(id cdp.FrameID) (FrameView, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, ok := t.frames[id]
	if !ok {
		return FrameView{}, false
	}
	return t.viewLocked(f), true
}

// WaitAttaches waits, at most FrameWorldWait, until no out-of-process
// frame is being attached. A cross-site frame's document commits in a
// process of its own, and the page's load event may come before the tab has
// attached to that process: until then the frame has no document the tab
// knows of, and would be reported not_loaded although it has loaded.
func (t *Tab) WaitAttaches(ctx context.Context) {
	wctx, cancel := context.WithTimeout(ctx, t.timings.FrameWorldWait)
	defer cancel()
	t.waitFor(wctx, func() bool { return t.attaching == 0 })
}

// WaitFrameWorld waits for frame id to have a collector world in an
// attached session: a frame that is loading gets FrameWorldWait to have
// one.
func (t *Tab) WaitFrameWorld(ctx context.Context, id cdp.FrameID) (FrameView, bool) {
	wctx, cancel := context.WithTimeout(ctx, t.timings.FrameWorldWait)
	defer cancel()
	var v FrameView
	found := false
	t.waitFor(wctx, func() bool {
		f, ok := t.frames[id]
		if !ok {
			found = false
			return true
		}
		found = true
		v = t.viewLocked(f)
		return v.Crashed || (v.World != "" && v.Target != nil)
	})
	return v, found && v.World != "" && v.Target != nil && !v.Crashed
}

// NameFrames names the elements of parent's child frames in the parent's
// world (parentWorld, on target) with their frame ids, so that its
// collector can say which frame stands where. Each is named once per parent
// document; at most limit are named per call.
func (t *Tab) NameFrames(ctx context.Context, target *chromedp.Target, parent cdp.FrameID, parentWorld string, worldID runtime.ExecutionContextID, limit int) {
	ctx, end := t.within(ctx, target)
	defer end()
	for _, c := range t.childFrames(parent) {
		if c.named == parentWorld {
			continue
		}
		if limit--; limit < 0 {
			return
		}
		if t.nameFrame(ctx, target, c.ID, worldID) {
			t.mu.Lock()
			if f, ok := t.frames[c.ID]; ok {
				f.named = parentWorld
			}
			t.mu.Unlock()
		}
	}
}

const nameFrameGroup = "veetbrowser-frames"

func (t *Tab) nameFrame(ctx context.Context, target *chromedp.Target, id cdp.FrameID, worldID runtime.ExecutionContextID) bool {
	owner, err := cdp.Call(ctx, target, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: id})
	if err != nil {
		return false
	}
	defer t.Release(ctx, target, nameFrameGroup)
	obj, err := cdp.Call(ctx, target, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: owner.BackendNodeID,
		ExecutionContextID: worldID, ObjectGroup: nameFrameGroup})
	if err != nil || obj.Object == nil {
		return false
	}
	key, _ := json.Marshal(string(id))
	_, err = cdp.Call(ctx, target, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: "function (key) { return globalThis.__veetbrowser.nameFrame(this, key); }",
		ObjectID:            obj.Object.ObjectID,
		Arguments:           []*runtime.CallArgument{{Value: key}},
		Silent:              ptr(true),
	})
	return err == nil
}

// NameMainFrames names the top document's frame owners (NameFrames).
func (t *Tab) NameMainFrames(ctx context.Context, limit int) {
	t.mu.Lock()
	main, world, worldID := t.mainFrame, t.world, t.worldID
	t.mu.Unlock()
	if world != "" {
		t.NameFrames(ctx, t.target, main, world, worldID, limit)
	}
}
