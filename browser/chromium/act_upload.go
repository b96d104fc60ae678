package chromium

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/policy"
)

// Uploads: files set on a file input, staged only once its guards passed.

// Upload implements browser.Session.
func (s *Session) Upload(ctx context.Context, ref string, stage browser.Stage, authorize browser.Authorize) (*browser.ActResult, error) {
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.lock.Release(1)
	res, err := s.upload(ctx, ref, stage, authorize)
	if err != nil && s.Gone() {
		return nil, errBrowserGone
	}
	return res, err
}

func (s *Session) upload(ctx context.Context, ref string, stage browser.Stage, authorize browser.Authorize) (*browser.ActResult, error) {
	ct, err := s.control(ref)
	if err != nil {
		return nil, err
	}
	defer s.leaveFrame()
	// Setting files needs no scroll or focus: the read-only guards suffice.
	prep, err := s.inspect(ctx, collect.GuardRequest{Target: ct})
	if err != nil {
		return nil, err
	}
	if !prep.Facts.File {
		return nil, errcode.New(errcode.UploadRefused, "the control is not a file input")
	}
	permit, err := authorize(ctx, policy.ClassUpload, actionFacts(browser.Action{}, prep))
	if err != nil {
		return nil, err
	}
	before := s.tab.Mark()
	if err := s.setFiles(ctx, ct, stage, permit); err != nil {
		return nil, err
	}
	return s.afterDispatch(ctx, before)
}

// setFiles resolves the retained node to a handle in its own object group,
// has stage prepare the files once the node is known to be there, spends
// the permit, sets the files, and releases the group. An upload refused
// before the files are set keeps its approval.
func (s *Session) setFiles(ctx context.Context, ct collect.Target, stage browser.Stage, permit policy.Permit) error {
	octx, end, err := s.tab.Begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	const group = "veetbrowser-upload"
	target, world := s.tab.Target(), s.tab.World()
	if s.act != nil {
		target, world = s.act.target, s.act.world
	}
	if world == "" {
		// Never fall back to the page's own world.
		return errcode.New(errcode.DocumentChanged, "the page is between documents; observe again")
	}
	defer s.tab.Release(octx, target, group)
	res, err := cdp.Call(octx, target, runtime.Evaluate, runtime.EvaluateParams{
		Expression: collect.Node(ct), UniqueContextID: world, ObjectGroup: group,
	})
	if err != nil || res.ExceptionDetails != nil || res.Result.ObjectID == "" {
		return errcode.Wrap(errcode.StaleReference, fmt.Errorf("resolving the file input: %v", err), "the control is no longer on the page; observe again")
	}
	// The backend node id names the element for as long as it lives: the
	// caller keeps one upload's files per control.
	node, err := cdp.Call(octx, target, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: res.Result.ObjectID})
	if err != nil {
		return tab.Classify(octx, err, errcode.StaleReference, "the control is no longer on the page; observe again")
	}
	files, err := stage(octx, browser.UploadTarget{Document: ct.Doc, Control: fmt.Sprintf("%s/%d", ct.Doc, node.Node.BackendNodeID)})
	if err != nil {
		return tab.Classify(octx, err, errcode.UploadRefused, "the upload could not be prepared")
	}
	// The page may have changed its input since the view: Chromium keeps
	// only the first file of an input that dropped multiple, and reads a
	// folder picker's path as a folder to list, both without an error.
	takes, err := fileInput(octx, target, res.Result.ObjectID)
	if err != nil {
		return tab.Classify(octx, err, errcode.StaleReference, "the control is no longer on the page; observe again")
	}
	switch {
	case takes.Folder:
		return errcode.New(errcode.UploadRefused, "the file input now takes a folder, not files; observe again")
	case len(files) > 1 && !takes.Multiple:
		return errcode.New(errcode.UploadRefused, "the file input takes one file, not %d", len(files))
	}
	if err := permit.Spend(); err != nil {
		return err
	}
	if _, err := cdp.Call(octx, target, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: files, ObjectID: res.Result.ObjectID}); err != nil {
		return errcode.Wrap(errcode.ActionUncertain, err, "the files may or may not have been set; observe again")
	}
	// Never report files set that the input does not hold.
	if held, err := fileInput(octx, target, res.Result.ObjectID); err != nil || held.Files != len(files) {
		return errcode.New(errcode.ActionUncertain, "the file input holds %d of the %d files; observe again", held.Files, len(files))
	}
	return nil
}

// fileInputState is what a file input takes and holds, read in the
// runtime's own world, where the page's prototypes do not reach.
type fileInputState struct {
	Multiple bool `json:"multiple"`
	Folder   bool `json:"folder"`
	Files    int  `json:"files"`
}

func fileInput(ctx context.Context, target *chromedp.Target, object runtime.RemoteObjectID) (fileInputState, error) {
	var st fileInputState
	byValue := true
	res, err := cdp.Call(ctx, target, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: "function () { return {multiple: this.multiple, folder: this.webkitdirectory, files: this.files ? this.files.length : 0}; }",
		ObjectID:            object,
		ReturnByValue:       &byValue,
	})
	if err == nil && res.ExceptionDetails != nil {
		err = fmt.Errorf("reading the file input: %s", res.ExceptionDetails.Text)
	}
	if err == nil {
		err = json.Unmarshal(res.Result.Value, &st)
	}
	return st, err
}
