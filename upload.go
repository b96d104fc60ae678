package veetbrowser

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
)

// Upload limits: the defaults of the SessionOptions fields.
const (
	DefaultMaxUpload      = 10 << 20 // bytes of one file
	DefaultMaxUploadFiles = 16       // files of one upload
	DefaultMaxUploadKept  = 64 << 20 // bytes of copies one session keeps at once
)

// uploadRoot confines uploads to one directory and bounds them.
type uploadRoot struct {
	dir      string
	maxBytes int64 // one file
	maxFiles int   // one upload
	maxKept  int64 // all the copies a session keeps at once
}

func newUploadRoot(opts SessionOptions) (uploadRoot, error) {
	if opts.MaxUploadBytes < 0 || opts.MaxUploadFiles < 0 || opts.MaxUploadKept < 0 {
		return uploadRoot{}, errcode.New(errcode.InvalidArgument, "upload limits cannot be negative")
	}
	u := uploadRoot{dir: opts.UploadRoot, maxBytes: opts.MaxUploadBytes, maxFiles: opts.MaxUploadFiles, maxKept: opts.MaxUploadKept}
	if u.maxBytes == 0 {
		u.maxBytes = DefaultMaxUpload
	}
	if u.maxFiles == 0 {
		u.maxFiles = DefaultMaxUploadFiles
	}
	if u.maxKept == 0 {
		u.maxKept = DefaultMaxUploadKept
	}
	return u, nil
}

// check refuses, before the page is touched, what no page could accept.
func (u uploadRoot) check(paths []string) error {
	if u.dir == "" {
		return errcode.New(errcode.UploadRefused, "uploads are not enabled for this session")
	}
	if len(paths) == 0 {
		return errcode.New(errcode.InvalidArgument, "give at least one path")
	}
	if len(paths) > u.maxFiles {
		return errcode.New(errcode.UploadRefused, "at most %d files can be uploaded at once", u.maxFiles)
	}
	return nil
}

// resolve checks each path and copies the file into dir, a directory only
// this session writes, returning the copies and their total size, at most
// room bytes. Chromium reads the copies, later: a file swapped or grown
// after the check cannot be read through them. Paths are relative to the
// root or absolute inside it.
func (u uploadRoot) resolve(ctx context.Context, paths []string, dir string, room int64) ([]string, int64, error) {
	if err := u.check(paths); err != nil {
		return nil, 0, err
	}
	root, err := filepath.EvalSymlinks(u.dir)
	if err != nil {
		return nil, 0, errcode.Wrap(errcode.UploadRefused, err, "the upload root is not available")
	}
	out := make([]string, 0, len(paths))
	var total int64
	for i, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		name := filepath.Base(p)
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil, 0, errcode.Wrap(errcode.UploadRefused, err, "%s is not a file in the upload root", errcode.Quote(name))
		}
		if !strings.HasPrefix(real, root+string(filepath.Separator)) {
			return nil, 0, errcode.New(errcode.UploadRefused, "%s is outside the upload root", errcode.Quote(name))
		}
		copyPath := filepath.Join(dir, strconv.Itoa(i), filepath.Base(real))
		n, err := u.snapshot(real, copyPath, room-total)
		if err != nil {
			return nil, 0, err
		}
		total += n
		out = append(out, copyPath)
	}
	return out, total, nil
}

// snapshot copies real to dst after checking, on the opened file itself,
// that it is the regular file that was resolved, within the size limit and
// within room. It never blocks on a FIFO or a device: such a path is
// refused before it is opened, and opened without blocking in case it was
// swapped in meanwhile.
func (u uploadRoot) snapshot(real, dst string, room int64) (int64, error) {
	name := errcode.Quote(filepath.Base(real))
	li, err := os.Lstat(real)
	if err != nil || !li.Mode().IsRegular() {
		return 0, errcode.New(errcode.UploadRefused, "%s is not a regular file", name)
	}
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return 0, errcode.Wrap(errcode.UploadRefused, err, "%s cannot be read", name)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || !os.SameFile(fi, li) {
		return 0, errcode.New(errcode.UploadRefused, "%s changed while it was checked", name)
	}
	// The path must still lead to the opened file: no component swapped.
	if again, err := filepath.EvalSymlinks(real); err != nil || again != real {
		return 0, errcode.New(errcode.UploadRefused, "%s changed while it was checked", name)
	}
	if fi.Size() > u.maxBytes {
		return 0, errcode.New(errcode.UploadRefused, "%s is larger than the %d-byte limit", name, u.maxBytes)
	}
	if fi.Size() > room {
		return 0, u.keptError(name)
	}
	limit := min(u.maxBytes, room)
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return 0, errcode.Wrap(errcode.UploadRefused, err, "the upload could not be prepared")
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, errcode.Wrap(errcode.UploadRefused, err, "the upload could not be prepared")
	}
	// Copy at most the limit plus one byte: a file that grew is refused.
	n, err := io.Copy(out, io.LimitReader(f, limit+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil || n > limit {
		os.Remove(dst)
		if err == nil && room < u.maxBytes {
			return 0, u.keptError(name)
		}
		return 0, errcode.Wrap(errcode.UploadRefused, err, "%s could not be copied within the %d-byte limit", name, u.maxBytes)
	}
	return n, nil
}

func (u uploadRoot) keptError(name string) error {
	return errcode.New(errcode.UploadRefused, "%s does not fit: a session keeps at most %d bytes of uploaded files", name, u.maxKept)
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
	room := s.uploads.maxKept
	for _, k := range s.kept {
		if !k.supersededBy(to) {
			room -= k.bytes
		}
	}
	files, n, err := s.uploads.resolve(ctx, paths, dir, room)
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

// CopyUploads checks the paths of an upload as a session with opts checks
// them (inside opts.UploadRoot after symlinks, regular files, the size and
// count limits) and copies the files into dir, a fresh directory the
// caller owns and removes, returning the copies in order. A hosted session
// (package hosted) sends the copies to its sidecar: the same paths are
// refused with the same codes as by a local session.
func CopyUploads(ctx context.Context, opts SessionOptions, paths []string, dir string) ([]string, error) {
	u, err := newUploadRoot(opts)
	if err != nil {
		return nil, err
	}
	out, _, err := u.resolve(ctx, paths, dir, u.maxKept)
	return out, err
}
