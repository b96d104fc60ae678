package tools

import "github.com/veetbot/veetbrowser/errcode"

// changesProperty is browser_observe's changes argument (tool version
// 1.9.0, docs/changes.md); its rules live in the docs, not the schema.
const changesProperty = `"changes":{"type":"boolean","description":"only what changed since the last view; unchanged refs stay valid"}`

// checkChanges refuses changes before 1.9.0, and with a continuation: a
// delta compares views of the page from its start.
func checkChanges(v Version, a ObserveArgs) error {
	if !a.Changes {
		return nil
	}
	if !v.RealPages {
		return errcode.New(errcode.InvalidArgument, "browser_observe %s does not accept changes; it needs tool version 1.9.0", v.Name)
	}
	if a.After != "" || a.Cursor != "" {
		return errcode.New(errcode.InvalidArgument, "changes compares views of the page from its start; leave out after and cursor")
	}
	return nil
}
