package veetbrowser

import (
	"context"
	"os"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/tempdir"
	"github.com/veetbot/veetbrowser/internal/uploads"
	"github.com/veetbot/veetbrowser/tools"
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

// Upload sets files from the upload root on a file-input control. The
// reference, the live guards and the authorization are checked before any
// file is read; then the files are copied into the session's own directory
// and the browser reads the copies.
//
// Chromium reads a file when the page does, not when it is set, so copies
// are kept while the page may still read them: for each file input, the
// copies of its newest upload, until a newer upload to the same input, an
// upload in another document (the page left the first one), or Close. The
// copies of a failed upload are removed at once.
func (s *Session) Upload(ctx context.Context, ref string, paths []string) (*Result, error) {
	rec, err := s.intent(ctx, tools.Upload, uploadArgs(ref, paths))
	if err != nil {
		return nil, err
	}
	res, err := s.upload(ctx, rec, ref, paths)
	return rec.finish(ctx, res, err)
}

func (s *Session) upload(ctx context.Context, rec *callRecord, ref string, paths []string) (*Result, error) {
	if err := s.uploads.Check(paths); err != nil {
		return nil, err
	}
	var staged *keptUpload
	stage := func(ctx context.Context, to browser.UploadTarget) ([]string, error) {
		u, files, err := s.stageUpload(ctx, to, paths)
		staged = u
		return files, err
	}
	res, err := s.page.Upload(ctx, s.carry(ref), stage, s.authorize(rec))
	s.finishUpload(staged, err == nil)
	if err != nil {
		return nil, err
	}
	return s.result(res.Observation, res)
}

// uploadDirLocked returns a fresh directory for one upload's copies, inside
// the session's own directory, which Close removes. The session's directory
// is marked with this process, so that a start after a crash removes it.
func (s *Session) uploadDirLocked() (string, error) {
	if s.closed {
		return "", errcode.New(errcode.BrowserUnavailable, "the session is closed")
	}
	if s.copies == "" {
		dir, err := tempdir.Make("veetbrowser-uploads-")
		if err != nil {
			return "", errcode.Wrap(errcode.UploadRefused, err, "the upload could not be prepared")
		}
		s.copies = dir
	}
	dir, err := os.MkdirTemp(s.copies, "u")
	if err != nil {
		return "", errcode.Wrap(errcode.UploadRefused, err, "the upload could not be prepared")
	}
	return dir, nil
}
