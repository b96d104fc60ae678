package veetbrowser

import (
	"context"
	"os"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/uploads"
)

// Upload limits: the defaults of the SessionOptions fields.
const (
	DefaultMaxUpload      = uploads.DefaultMaxFile  // bytes of one file
	DefaultMaxUploadFiles = uploads.DefaultMaxFiles // files of one upload
	DefaultMaxUploadKept  = uploads.DefaultMaxKept  // bytes of copies one session keeps at once
)

// uploadRoot is the root and limits opts give the session's uploads.
func uploadRoot(opts SessionOptions) (uploads.Root, error) {
	return uploads.New(opts.UploadRoot, uploads.Limits{MaxFile: opts.MaxUploadBytes, MaxFiles: opts.MaxUploadFiles, MaxKept: opts.MaxUploadKept})
}

// keptUpload is one upload whose copies the page may still read.
type keptUpload struct {
	dir   string // its copies
	bytes int64
	to    browser.UploadTarget
}

// supersededBy: an upload to the same control replaces the files the page
// holds there, and one in another document means the page has left this
// upload's document; either way the page no longer reads these copies.
func (k keptUpload) supersededBy(to browser.UploadTarget) bool {
	return k.to.Control == to.Control || k.to.Document != to.Document
}

// stageUpload copies the files of an upload that passed the page's guards
// and the authorization into a fresh directory of the session, within what
// the session may keep once this upload supersedes older ones.
func (s *Session) stageUpload(ctx context.Context, to browser.UploadTarget, paths []string) (*keptUpload, []string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	dir, err := s.uploadDirLocked()
	if err != nil {
		return nil, nil, err
	}
	room := s.uploads.Limits().MaxKept
	for _, k := range s.kept {
		if !k.supersededBy(to) {
			room -= k.bytes
		}
	}
	files, n, err := s.uploads.Copy(ctx, paths, dir, room)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return &keptUpload{dir: dir, bytes: n, to: to}, files, nil
}

// finishUpload keeps the copies of an upload that succeeded and removes
// those it superseded; the copies of one that failed are removed at once.
func (s *Session) finishUpload(u *keptUpload, ok bool) {
	if u == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ok || s.closed {
		os.RemoveAll(u.dir)
		return
	}
	kept := s.kept[:0]
	for _, k := range s.kept {
		if k.supersededBy(u.to) {
			os.RemoveAll(k.dir)
			continue
		}
		kept = append(kept, k)
	}
	s.kept = append(kept, *u)
}
